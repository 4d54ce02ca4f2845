// The AF rule of af_rhythm.hpp: ectopic timing, irregular windows, P-wave absence, episodes.
#include "zeroflow/classify/af_rhythm.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "features.hpp"
#include "zeroflow/classify/af_strip.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::classify {

namespace {

// Beat b's window of ±window_beats among n beats, as [first, last).
std::pair<std::size_t, std::size_t> window_of(std::int64_t b, std::int64_t n, const af_params& p) {
  return {static_cast<std::size_t>(std::max<std::int64_t>(0, b - p.window_beats)),
          static_cast<std::size_t>(std::min(n, b + p.window_beats + 1))};
}

// For each beat, whether more than irregular_share of the measured steps (at least eight) within
// ±window_beats are irregular; `measurable` marks the beats with eight. `steps` are signed
// (signed_steps).
std::vector<std::uint8_t> irregular_windows(std::span<const double> steps, const af_params& p,
                                            std::vector<std::uint8_t>& measurable) {
  const auto n = static_cast<std::int64_t>(steps.size());
  // Prefix counts of measured and of irregular steps: each window's counts in O(1).
  std::vector<std::int64_t> measured(steps.size() + 1, 0), irregular(steps.size() + 1, 0);
  for (std::size_t k = 0; k < steps.size(); ++k) {
    measured[k + 1] = measured[k] + (std::isnan(steps[k]) ? 0 : 1);
    irregular[k + 1] = irregular[k] + (std::abs(steps[k]) > p.irregular_step_log_ratio ? 1 : 0);
  }
  std::vector<std::uint8_t> out(steps.size(), 0);
  measurable.assign(steps.size(), 0);
  for (std::int64_t b = 0; b < n; ++b) {
    const auto [lo, hi] = window_of(b, n, p);
    const std::int64_t count = measured[hi] - measured[lo];
    if (count < 8) continue;
    measurable[static_cast<std::size_t>(b)] = 1;
    const double share = static_cast<double>(irregular[hi] - irregular[lo]) / static_cast<double>(count);
    out[static_cast<std::size_t>(b)] = share > p.irregular_share;
  }
  return out;
}

// Whether beat b's window repeats its pairs of steps: fewer than distinct_pair_share_min of them
// distinct. A repeating pattern of irregular steps (grouped beating, ectopy the timing rule does
// not catch) is regularly irregular, not AF; a window without pairs has no say.
bool repeats_its_pairs(std::span<const double> steps, std::int64_t b, const af_params& p,
                       std::vector<std::pair<double, double>>& scratch) {
  if (!(p.distinct_pair_share_min > 0)) return false;
  const auto [lo, hi] = window_of(b, static_cast<std::int64_t>(steps.size()), p);
  return detail::distinct_pair_share(steps, lo, hi, p.irregular_step_log_ratio, scratch) < p.distinct_pair_share_min;
}

}  // namespace

void check_af_params(const af_params& p) {
  ZF_EXPECTS(p.window_beats >= 4 && p.local_rhythm_beats >= 1 && p.min_episode_beats >= 1,
             "AF parameters: window_beats must be at least 4, local_rhythm_beats and min_episode_beats at least 1");
  ZF_EXPECTS(p.irregular_step_log_ratio >= 0 && p.irregular_share >= 0 && p.irregular_share < 1,
             "AF parameters: irregular_step_log_ratio must be ≥ 0 and irregular_share in [0, 1), got ",
             p.irregular_step_log_ratio, " and ", p.irregular_share);
  ZF_EXPECTS(p.distinct_pair_share_min >= 0 && p.distinct_pair_share_min <= 1,
             "AF parameters: distinct_pair_share_min must be a share in [0, 1], got ", p.distinct_pair_share_min);
  ZF_EXPECTS(p.ectopic_early_ratio > 0 && p.ectopic_early_ratio <= 1 && p.ectopic_pause_ratio >= 1,
             "AF parameters: ectopic_early_ratio must be in (0, 1] and ectopic_pause_ratio ≥ 1, got ",
             p.ectopic_early_ratio, " and ", p.ectopic_pause_ratio);
  ZF_EXPECTS(
      p.bridge_gap_seconds >= 0 && std::isfinite(p.bridge_gap_seconds) && std::isfinite(p.p_wave_coherence_max) &&
          p.strip_max_seconds >= 0 && std::isfinite(p.strip_max_seconds),
      "AF parameters: bridge_gap_seconds and strip_max_seconds must be finite and ≥ 0, p_wave_coherence_max finite");
}

af_rhythm find_af_episodes(std::span<const std::int64_t> peaks, double sample_rate,
                           std::span<const std::uint8_t> left_out, const atrial_measures& atria,
                           const af_params& params) {
  const auto rr_before = detail::checked_intervals(peaks, sample_rate, left_out, atria, params);
  const std::size_t n = peaks.size();
  if (n < 3) return {std::vector<std::uint8_t>(n, 0), std::vector<std::uint8_t>(n, 0), {}};
  const std::vector<std::uint8_t> none(n, 0);
  return detail::af_of(rr_before, peaks, sample_rate, left_out.empty() ? std::span<const std::uint8_t>(none) : left_out,
                       atria, params);
}

namespace detail {

std::vector<double> checked_intervals(std::span<const std::int64_t> peaks, double sample_rate,
                                      std::span<const std::uint8_t> left_out, const atrial_measures& atria,
                                      const af_params& params) {
  ZF_EXPECTS(sample_rate > 0 && std::isfinite(sample_rate), "the sample rate must be positive, got ", sample_rate);
  ZF_EXPECTS(left_out.empty() || left_out.size() == peaks.size(), "expected ", peaks.size(),
             " left-out marks (one per beat) or none, got ", left_out.size());
  const auto per_beat_or_none = [&](std::span<const double> values, const char* what) {
    ZF_EXPECTS(values.empty() || values.size() == peaks.size(), "expected ", peaks.size(), " ", what,
               " (one per beat) or none, got ", values.size());
  };
  per_beat_or_none(atria.p_wave_coherence, "P-wave coherences");
  per_beat_or_none(atria.p_wave_similarity, "P-wave similarities");
  per_beat_or_none(atria.f_wave_rate, "f-wave rates");
  for (std::size_t b = 1; b < peaks.size(); ++b)
    ZF_EXPECTS(peaks[b] > peaks[b - 1], "R peaks must increase: beat ", b, " at sample ", peaks[b], " follows sample ",
               peaks[b - 1]);
  check_af_params(params);
  const std::size_t n = peaks.size();
  if (n < 2) return std::vector<double>(n, 0.0);
  std::vector<double> rr_before(n);
  for (std::size_t b = 1; b < n; ++b) rr_before[b] = static_cast<double>(peaks[b] - peaks[b - 1]) / sample_rate;
  rr_before[0] = rr_before[1];
  return rr_before;
}

std::vector<std::uint8_t> unmeasured_beats(std::span<const double> rr_before, std::span<const std::uint8_t> left_out,
                                           const af_params& p) {
  const std::size_t n = rr_before.size();
  std::vector<double> rr_after(n);
  for (std::size_t b = 0; b + 1 < n; ++b) rr_after[b] = rr_before[b + 1];
  if (n > 0) rr_after[n - 1] = rr_before[n - 1];
  auto out = ectopic_timing(rr_before, rr_after, p);
  for (std::size_t b = 0; b < n; ++b) out[b] = out[b] || left_out[b];
  return out;
}

std::vector<std::pair<std::size_t, std::size_t>> runs_of(std::span<const std::uint8_t> marked) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t b = 0; b < marked.size();) {
    if (!marked[b]) {
      ++b;
      continue;
    }
    std::size_t e = b;
    while (e + 1 < marked.size() && marked[e + 1]) ++e;
    out.emplace_back(b, e);
    b = e + 1;
  }
  return out;
}

std::vector<double> signed_steps(std::span<const double> rr_before, std::span<const std::uint8_t> unmeasured) {
  const std::size_t n = rr_before.size();
  std::vector<double> out(n, std::numeric_limits<double>::quiet_NaN());
  for (std::size_t b = 2; b < n; ++b) {
    if (unmeasured[b] || unmeasured[b - 1] || unmeasured[b - 2]) continue;
    if (rr_before[b] > 0 && rr_before[b - 1] > 0) out[b] = std::log(rr_before[b] / rr_before[b - 1]);
  }
  return out;
}

double distinct_pair_share(std::span<const double> steps, std::size_t first, std::size_t last, double bin_log_ratio,
                           std::vector<std::pair<double, double>>& scratch) {
  if (!(bin_log_ratio > 0)) return std::numeric_limits<double>::quiet_NaN();
  // Rounded, kept as doubles: whole numbers, compared exactly, whatever the bin's size.
  const auto bin = [&](double s) { return std::round(s / bin_log_ratio); };
  scratch.clear();
  for (std::size_t k = first + 1; k < last; ++k)
    if (!std::isnan(steps[k - 1]) && !std::isnan(steps[k])) scratch.emplace_back(bin(steps[k - 1]), bin(steps[k]));
  if (scratch.empty()) return std::numeric_limits<double>::quiet_NaN();
  const auto pairs = static_cast<double>(scratch.size());
  std::sort(scratch.begin(), scratch.end());
  return static_cast<double>(std::unique(scratch.begin(), scratch.end()) - scratch.begin()) / pairs;
}

std::vector<std::uint8_t> ectopic_timing(std::span<const double> rr_before, std::span<const double> rr_after,
                                         const af_params& p) {
  const std::vector<std::uint8_t> every(rr_before.size(), 1);
  const auto local = local_median(rr_before, every, p.local_rhythm_beats);
  std::vector<std::uint8_t> out(rr_before.size(), 0);
  for (std::size_t b = 0; b < rr_before.size(); ++b)
    out[b] = rr_before[b] < p.ectopic_early_ratio * local[b] && rr_after[b] > p.ectopic_pause_ratio * local[b];
  return out;
}

af_rhythm af_of(std::span<const double> rr_before, std::span<const std::int64_t> peaks, double sample_rate,
                std::span<const std::uint8_t> left_out, const atrial_measures& atria, const af_params& p) {
  const auto coherence = atria.p_wave_coherence;
  const std::size_t n = rr_before.size();
  const auto unmeasured = unmeasured_beats(rr_before, left_out, p);

  af_rhythm out;
  std::vector<std::uint8_t> measurable;
  const std::vector<double> steps = signed_steps(rr_before, unmeasured);
  out.irregular = irregular_windows(steps, p, measurable);
  out.in_af.assign(n, 0);
  // A strip with its P waves measured is read whole, as a clinician reads it: its prior decides,
  // not windows it barely holds. (The prior weighs the P waves; without them the windows decide.)
  if (!coherence.empty() && static_cast<double>(peaks[n - 1] - peaks[0]) / sample_rate <= p.strip_max_seconds) {
    const auto features = strip_measures(rr_before, unmeasured, atria, p);
    const af_strip_prior& prior = default_af_strip_prior();
    if (features && af_strip_is_af(*features, prior)) {
      std::fill(out.in_af.begin(), out.in_af.end(), std::uint8_t{1});
      out.episodes.push_back({"AFIB", 0, static_cast<std::int64_t>(n) - 1, peaks[0], peaks[n - 1]});
    }
    return out;
  }
  // A window without a measurable P wave (NaN coherence), or without a signal at all, is judged by its rhythm alone.
  std::vector<std::uint8_t> window_af(n, 0);
  std::vector<std::pair<double, double>> pair_keys;
  for (std::size_t b = 0; b < n; ++b)
    window_af[b] = out.irregular[b] && (coherence.empty() || !(coherence[b] > p.p_wave_coherence_max)) &&
                   !repeats_its_pairs(steps, static_cast<std::int64_t>(b), p, pair_keys);

  // Stretches of AF close together are one episode; then short episodes are ectopy, not AF.
  std::vector<std::pair<std::size_t, std::size_t>> bridged;
  for (const auto& s : runs_of(window_af)) {
    const bool near =
        !bridged.empty() &&
        static_cast<double>(peaks[s.first] - peaks[bridged.back().second]) / sample_rate <= p.bridge_gap_seconds;
    if (near)
      bridged.back().second = s.second;
    else
      bridged.push_back(s);
  }
  // A recording too short for an episode is AF when the whole of its measurable rhythm is.
  const auto whole = [&](std::size_t first, std::size_t last) {
    for (std::size_t b = 0; b < n; ++b)
      if ((b < first || b > last) && measurable[b]) return false;
    return true;
  };
  for (const auto& [first, last] : bridged) {
    if (static_cast<std::int64_t>(last - first + 1) < p.min_episode_beats && !whole(first, last)) continue;
    std::fill(out.in_af.begin() + static_cast<std::ptrdiff_t>(first),
              out.in_af.begin() + static_cast<std::ptrdiff_t>(last) + 1, std::uint8_t{1});
    out.episodes.push_back(
        {"AFIB", static_cast<std::int64_t>(first), static_cast<std::int64_t>(last), peaks[first], peaks[last]});
  }
  return out;
}

}  // namespace detail

}  // namespace zeroflow::classify
