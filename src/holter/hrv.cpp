#include "zeroflow/holter/hrv.hpp"

#include <cmath>
#include <map>
#include <tuple>

#include "zeroflow/core/error.hpp"

namespace zeroflow::holter {

namespace {

/// Mean and sample standard deviation (NaN below two values), summed in double in order.
std::pair<double, double> mean_and_sd(std::span<const double> v) {
  if (v.empty()) return {std::nan(""), std::nan("")};
  double sum = 0;
  for (const double x : v) sum += x;
  const double mean = sum / static_cast<double>(v.size());
  if (v.size() < 2) return {mean, std::nan("")};
  double squares = 0;
  for (const double x : v) squares += (x - mean) * (x - mean);
  return {mean, std::sqrt(squares / static_cast<double>(v.size() - 1))};
}

}  // namespace

nn_intervals normal_intervals(const beat_record& r) {
  check_beat_record(r);
  const std::size_t n = r.peaks.size();
  const auto in_af = beats_inside(r.af_episodes, n);
  const auto unreadable = beats_inside(r.unreadable, n);
  const auto sinus = [&](std::size_t b) { return r.classes[b] == 'N' && !in_af[b] && !unreadable[b]; };
  nn_intervals out;
  std::size_t last_end = 0;
  for (std::size_t b = 1; b < n; ++b) {
    if (!sinus(b - 1) || !sinus(b)) continue;
    const bool follows = !out.milliseconds.empty() && last_end == b - 1;
    out.milliseconds.push_back(1000.0 * static_cast<double>(r.peaks[b] - r.peaks[b - 1]) / r.sample_rate_hz);
    out.end_sample.push_back(r.peaks[b]);
    out.follows_previous.push_back(follows ? 1 : 0);
    last_end = b;
  }
  return out;
}

hrv_time_domain time_domain(const nn_intervals& nn, double sample_rate_hz, const hrv_params& params) {
  ZF_EXPECTS(sample_rate_hz > 0 && std::isfinite(sample_rate_hz), "the sample rate must be positive, got ",
             sample_rate_hz);
  ZF_EXPECTS(nn.end_sample.size() == nn.milliseconds.size() && nn.follows_previous.size() == nn.milliseconds.size(),
             "N–N intervals: expected as many end samples and adjacency marks as intervals (", nn.milliseconds.size(),
             "), got ", nn.end_sample.size(), " and ", nn.follows_previous.size());
  check_holter_params({{}, params});
  hrv_time_domain out;
  out.intervals = static_cast<std::int64_t>(nn.milliseconds.size());
  std::tie(out.mean_nn_ms, out.sdnn_ms) = mean_and_sd(nn.milliseconds);

  double squares = 0;
  for (std::size_t i = 1; i < nn.milliseconds.size(); ++i) {
    if (!nn.follows_previous[i]) continue;
    const double d = nn.milliseconds[i] - nn.milliseconds[i - 1];
    squares += d * d;
    ++out.differences;
    if (std::abs(d) > params.successive_difference_ms) ++out.nn50;
  }
  if (out.differences > 0) out.rmssd_ms = std::sqrt(squares / static_cast<double>(out.differences));
  if (out.intervals > 0) out.pnn50_percent = 100.0 * static_cast<double>(out.nn50) / static_cast<double>(out.intervals);

  // Segments of the recording's clock, each interval in the segment of its end.
  const double segment_samples = params.segment_seconds * sample_rate_hz;
  std::map<std::int64_t, std::vector<double>> segments;
  for (std::size_t i = 0; i < nn.milliseconds.size(); ++i)
    segments[static_cast<std::int64_t>(static_cast<double>(nn.end_sample[i]) / segment_samples)].push_back(
        nn.milliseconds[i]);
  std::vector<double> means;
  double sd_sum = 0;
  for (const auto& [segment, values] : segments) {
    double covered_ms = 0;
    for (const double v : values) covered_ms += v;
    if (values.size() < 2 || covered_ms < params.min_segment_coverage * params.segment_seconds * 1000) continue;
    const auto [mean, sd] = mean_and_sd(values);
    means.push_back(mean);
    sd_sum += sd;
  }
  out.segments = static_cast<std::int64_t>(means.size());
  if (!means.empty()) out.sdnn_index_ms = sd_sum / static_cast<double>(means.size());
  if (means.size() >= 2) out.sdann_ms = mean_and_sd(means).second;
  return out;
}

}  // namespace zeroflow::holter
