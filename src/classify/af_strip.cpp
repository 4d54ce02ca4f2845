// AF in a strip (af_strip.hpp): the strip's measures, the shipped prior, its probability.
#include "zeroflow/classify/af_strip.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "features.hpp"
#include "zeroflow/classify/af_rhythm.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/safetensors.hpp"

namespace zeroflow::classify {

namespace assets {
// data/af_strip_prior.safetensors, embedded at build time (cmake/embed_assets.cmake).
extern const std::string_view af_strip_prior_safetensors;
}  // namespace assets

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// The median of the finite values, NaN when there are none.
double median_of(std::vector<double> values) {
  std::erase_if(values, [](double v) { return !std::isfinite(v); });
  if (values.empty()) return nan;
  const auto mid = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  if (values.size() % 2 == 1) return *mid;
  return 0.5 * (*mid + *std::max_element(values.begin(), mid));
}

std::vector<double> doubles_of(const io::safetensors_content& content, const std::string& name, std::size_t count) {
  std::vector<double> out;
  try {
    out = io::safetensor_values<double>(content, name, {static_cast<std::int64_t>(count)});
  } catch (const parse_error& e) {
    ZF_THROW(parse_error, "the AF strip prior: ", e.what());
  }
  for (double v : out)
    if (!std::isfinite(v)) ZF_THROW(parse_error, "the AF strip prior's tensor '", name, "' holds ", v);
  return out;
}

}  // namespace

af_strip_prior af_strip_prior_from_safetensors(std::string_view bytes) {
  const io::safetensors_content content = io::from_safetensors(bytes);
  std::string names;
  for (const auto name : af_strip_feature_names) names += (names.empty() ? "" : ",") + std::string(name);
  const auto features = content.metadata.find("features");
  if (features == content.metadata.end() || features->second != names)
    ZF_THROW(parse_error, "the AF strip prior must measure '", names, "', its metadata says '",
             features == content.metadata.end() ? std::string("nothing") : features->second, "'");
  af_strip_prior out;
  const auto n = af_strip_feature_count;
  const auto mean = doubles_of(content, "mean", n), scale = doubles_of(content, "scale", n),
             weight = doubles_of(content, "weight", n);
  std::copy(mean.begin(), mean.end(), out.mean.begin());
  std::copy(scale.begin(), scale.end(), out.scale.begin());
  std::copy(weight.begin(), weight.end(), out.weight.begin());
  out.bias = doubles_of(content, "bias", 1)[0];
  out.threshold = doubles_of(content, "threshold", 1)[0];
  for (double s : out.scale)
    if (!(s > 0)) ZF_THROW(parse_error, "the AF strip prior's scales must be positive, one is ", s);
  if (!(out.threshold > 0 && out.threshold < 1))
    ZF_THROW(parse_error, "the AF strip prior's threshold must be a probability in (0, 1), it is ", out.threshold);
  out.p_wave_coherence_max = doubles_of(content, "p_wave_coherence_max", 1)[0];
  if (!(out.p_wave_coherence_max > 0 && out.p_wave_coherence_max <= 1))
    ZF_THROW(parse_error, "the AF strip prior's p_wave_coherence_max must be a coherence in (0, 1], it is ",
             out.p_wave_coherence_max);
  out.provenance = content.metadata;
  return out;
}

const af_strip_prior& default_af_strip_prior() {
  static const af_strip_prior prior = af_strip_prior_from_safetensors(assets::af_strip_prior_safetensors);
  return prior;
}

std::optional<af_strip_features> measure_af_strip(std::span<const std::int64_t> peaks, double sample_rate,
                                                  std::span<const std::uint8_t> left_out, const atrial_measures& atria,
                                                  const af_params& params) {
  const auto rr_before = detail::checked_intervals(peaks, sample_rate, left_out, atria, params);
  if (peaks.size() < 3) return std::nullopt;
  const std::vector<std::uint8_t> none(peaks.size(), 0);
  const auto unmeasured = detail::unmeasured_beats(rr_before, left_out.empty() ? none : left_out, params);
  return detail::strip_measures(rr_before, unmeasured, atria, params);
}

namespace detail {

std::optional<af_strip_features> strip_measures(std::span<const double> rr_before,
                                                std::span<const std::uint8_t> unmeasured, const atrial_measures& atria,
                                                const af_params& params) {
  const std::size_t n = rr_before.size();
  // The steps the window rule measures: both intervals of the step the atria's.
  const std::vector<double> signed_step = signed_steps(rr_before, unmeasured);
  std::vector<double> steps;
  for (const double s : signed_step)
    if (!std::isnan(s)) steps.push_back(std::abs(s));
  if (steps.size() < 8) return std::nullopt;
  const auto irregular =
      std::count_if(steps.begin(), steps.end(), [&](double s) { return s > params.irregular_step_log_ratio; });
  std::vector<double> coherences, similarities, intervals, f_wave_rates;
  for (std::size_t b = 0; b < n; ++b) {
    if (unmeasured[b]) continue;
    if (!atria.p_wave_coherence.empty()) coherences.push_back(atria.p_wave_coherence[b]);
    if (!atria.p_wave_similarity.empty()) similarities.push_back(atria.p_wave_similarity[b]);
    if (b > 0) intervals.push_back(rr_before[b]);  // rr_before[0] is a copy of the second
    // The T–Q interval before beat b follows beat b − 1's T wave: both must be the atria's beats.
    if (b > 0 && !unmeasured[b - 1] && !atria.f_wave_rate.empty()) f_wave_rates.push_back(atria.f_wave_rate[b]);
  }
  const double steps_measured = static_cast<double>(steps.size());
  std::vector<std::pair<double, double>> pair_keys;
  return af_strip_features{static_cast<double>(irregular) / steps_measured,
                           median_of(steps),
                           median_of(std::move(coherences)),
                           median_of(std::move(similarities)),
                           std::log(median_of(std::move(intervals))),
                           std::log(steps_measured),
                           distinct_pair_share(signed_step, 0, n, params.irregular_step_log_ratio, pair_keys),
                           median_of(std::move(f_wave_rates))};
}

}  // namespace detail

double af_strip_probability(const af_strip_features& x, const af_strip_prior& prior) {
  double logit = prior.bias;
  for (std::size_t i = 0; i < af_strip_feature_count; ++i)
    if (std::isfinite(x[i])) logit += prior.weight[i] * (x[i] - prior.mean[i]) / prior.scale[i];
  return 1.0 / (1.0 + std::exp(-logit));
}

bool af_strip_is_af(const af_strip_features& x, const af_strip_prior& prior) {
  constexpr std::size_t coherence = 2;  // af_strip_feature_names
  return af_strip_probability(x, prior) >= prior.threshold && !(x[coherence] >= prior.p_wave_coherence_max);
}

}  // namespace zeroflow::classify
