#include "model_fit.hpp"

#include <iomanip>
#include <sstream>
#include <vector>

#include "zeroflow/core/error.hpp"
#include "zeroflow/io/recording.hpp"

namespace zeroflow::pipeline::detail {

namespace {

std::string number(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

/// Two rates that differ, each with as many digits as it takes to show that they do.
std::pair<std::string, std::string> told_apart(double a, double b) {
  for (int digits = 6; digits < 17; ++digits) {
    std::ostringstream x, y;
    x << std::setprecision(digits) << a;
    y << std::setprecision(digits) << b;
    if (x.str() != y.str()) return {x.str(), y.str()};
  }
  std::ostringstream x, y;
  x << std::setprecision(17) << a;
  y << std::setprecision(17) << b;
  return {x.str(), y.str()};
}

}  // namespace

void check_model_fits(const beat_model& scorer, const model::row_provenance& run, std::int64_t row_width,
                      const std::string& file) {
  const auto described = scorer.described_rows();
  ZF_EXPECTS(described.has_value(), "model ", file,
             " does not record how its training rows were made (it was not saved by `zeroflow run`); train one "
             "with `zeroflow run`, or in Python describe its rows before saving (zeroflow.model.VAE.describe_rows)");
  const model::row_provenance& m = *described;
  std::vector<std::string> differences, options;
  // One test of the rate for every comparison below: a rate equal to 1 part in 10^9 is the same
  // rate, and then the windows and lengths in samples must agree too.
  const bool same_rate = io::same_sample_rate(m.sample_rate, run.sample_rate);
  if (!same_rate) {
    const auto [model_rate, run_rate] = told_apart(m.sample_rate, run.sample_rate);
    differences.push_back("sample rate " + model_rate + " Hz (this run: " + run_rate + " Hz)");
  }
  if (m.normalized != run.normalized) {
    const char* model_way = m.normalized ? "robust" : "none";
    differences.push_back(std::string("normalisation ") + model_way +
                          " (this run: " + (run.normalized ? "robust" : "none") + ")");
    options.push_back(std::string("`normalize`=") + model_way);
  }
  if (m.segmentation != run.segmentation) {
    differences.push_back("segmentation " + m.segmentation + " (this run: " + run.segmentation + ")");
    options.push_back("`segmentation`=" + m.segmentation);
  } else if (same_rate && (m.window_before != run.window_before || m.window_after != run.window_after)) {
    differences.push_back("beat window " + std::to_string(m.window_before) + " + " + std::to_string(m.window_after) +
                          " samples (this run: " + std::to_string(run.window_before) + " + " +
                          std::to_string(run.window_after) + ")");
  } else if (same_rate && (m.min_length != run.min_length || m.max_length != run.max_length)) {
    differences.push_back("beats of " + std::to_string(m.min_length) + " to " + std::to_string(m.max_length) +
                          " samples (this run: " + std::to_string(run.min_length) + " to " +
                          std::to_string(run.max_length) + ")");
    options.push_back("`min_beat_seconds`=" + number(static_cast<double>(m.min_length) / m.sample_rate) +
                      " `max_beat_seconds`=" + number(static_cast<double>(m.max_length) / m.sample_rate));
  }
  if (differences.empty() && scorer.width() != row_width)
    differences.push_back("rows of " + std::to_string(scorer.width()) +
                          " samples (this run: " + std::to_string(row_width) + ")");
  if (differences.empty()) return;
  std::string what;
  for (const auto& d : differences) what += (what.empty() ? "" : ", ") + d;
  std::string fix;
  for (const auto& o : options) fix += (fix.empty() ? "" : " ") + o;
  // A different sample rate has no option to match: the recording's rate is what it is.
  ZF_THROW(invalid_argument, "model ", file, " was trained on beats made differently from this run's: ", what, "; ",
           fix.empty() ? std::string{} : "give " + fix + " to match it, or ",
           "train a model on recordings like this one with `zeroflow run`");
}

}  // namespace zeroflow::pipeline::detail
