#include "zeroflow/report/timeseries_outputs.hpp"

#include <charconv>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <system_error>

#include "zeroflow/io/atomic_file.hpp"

namespace zeroflow::report {
namespace {

void put(std::string& line, double v) {
  char number[48];
  const auto [end, ec] = std::to_chars(number, number + sizeof number, v, std::chars_format::general, 9);
  line.append(number, ec == std::errc{} ? end : number);
}

}  // namespace

void write_timeseries_points(const pipeline::timeseries_result& r, const std::filesystem::path& path) {
  const bool labelled = r.evaluation.has_value();
  io::write_atomically(path, [&](std::ostream& file) {
    file << (labelled ? "row,value,scaled,reconstruction,score,outlier,label\n"
                      : "row,value,scaled,reconstruction,score,outlier\n");
    std::string line;
    for (std::int64_t i = 0; i < r.rows; ++i) {
      const auto k = static_cast<std::size_t>(i);
      line = std::to_string(i);
      for (float x : {r.value[k], r.scaled[k], r.reconstruction[k], r.score[k]}) {
        line += ',';
        put(line, static_cast<double>(x));
      }
      line += r.outlier[k] ? ",1" : ",0";
      if (labelled) line += r.evaluation->label[k] ? ",1" : ",0";
      line += '\n';
      file << line;
    }
  });
}

nlohmann::json timeseries_summary_json(const pipeline::timeseries_result& r,
                                       const pipeline::timeseries_options& options) {
  using nlohmann::json;
  json stages = json::object();
  for (const auto& s : r.stages) stages[s.name] = s.milliseconds;
  json summary = {
      {"input", std::filesystem::absolute(r.input).string()},
      {"column", r.column},
      {"rows", r.rows},
      {"device", r.where.name()},
      {"model", "MLP autoencoder 1-32-32-32-1, ReLU, sigmoid output (the seed-004 notebook)"},
      {"parameters", r.parameters},
      {"epochs", options.epochs},
      {"batch", options.batch == 0 ? json("all rows") : json(options.batch)},
      {"learning_rate", options.learning_rate},
      {"weight_decay", options.weight_decay},
      {"seed", options.seed},
      {"data_min", r.data_min},
      {"data_max", r.data_max},
      {"loss", r.epoch_loss},
      {"final_loss", r.epoch_loss.empty() ? json(nullptr) : json(r.epoch_loss.back())},
      {"score", "mean squared reconstruction error of the min-max scaled value; higher = more anomalous"},
      {"threshold",
       {{"rule", "Q3 + 1.5 IQR of the scores (Tukey's fence)"}, {"value", r.threshold}, {"outliers", r.outliers}}},
      {"stages_ms", stages},
      {"total_ms", r.total_ms},
  };
  if (r.evaluation) {
    const auto& e = *r.evaluation;
    json evaluation = {{"labels", std::filesystem::absolute(e.labels).string()}, {"anomalies", e.anomalies}};
    if (e.measured) {
      evaluation["auroc"] = e.auroc;
      evaluation["average_precision"] = e.average_precision;
      evaluation["flagged_precision"] = e.flagged_precision;
      evaluation["flagged_recall"] = e.flagged_recall;
    }
    summary["evaluation"] = evaluation;
  }
  return summary;
}

void write_timeseries_summary(const pipeline::timeseries_result& r, const pipeline::timeseries_options& options,
                              const std::filesystem::path& path) {
  const nlohmann::json summary = timeseries_summary_json(r, options);
  io::write_atomically(path, [&](std::ostream& file) { file << summary.dump(2) << '\n'; });
}

}  // namespace zeroflow::report
