#include "zeroflow/holter/beat_record.hpp"

#include <cmath>

#include "zeroflow/core/error.hpp"

namespace zeroflow::holter {

namespace {

void check_stretches(std::span<const classify::episode> stretches, std::size_t beats, const char* what) {
  std::int64_t after = -1;
  for (std::size_t i = 0; i < stretches.size(); ++i) {
    const auto& e = stretches[i];
    ZF_EXPECTS(e.first_beat > after && e.first_beat <= e.last_beat && e.last_beat < static_cast<std::int64_t>(beats),
               what, " ", i, " (beats ", e.first_beat, "..", e.last_beat, ") must name beats of the ", beats,
               " in order, after the one before");
    after = e.last_beat;
  }
}

}  // namespace

void check_beat_record(const beat_record& r) {
  ZF_EXPECTS(r.sample_rate_hz > 0 && r.sample_rate_hz <= max_sample_rate_hz,
             "the sample rate must be positive and at most ", max_sample_rate_hz, " Hz, got ", r.sample_rate_hz);
  ZF_EXPECTS(r.samples >= 0 && static_cast<double>(r.samples) / r.sample_rate_hz <= max_recording_seconds,
             "the recording must last at most ", max_recording_seconds / 86400, " days (", r.samples, " samples at ",
             r.sample_rate_hz, " Hz)");
  ZF_EXPECTS(r.classes.size() == r.peaks.size(), "expected ", r.peaks.size(), " beat classes (one per beat), got ",
             r.classes.size());
  for (std::size_t b = 0; b < r.peaks.size(); ++b) {
    ZF_EXPECTS(r.peaks[b] >= 0 && r.peaks[b] < r.samples, "beat ", b, " at sample ", r.peaks[b],
               " lies outside the recording's ", r.samples, " samples");
    ZF_EXPECTS(b == 0 || r.peaks[b] > r.peaks[b - 1], "R peaks must increase: beat ", b, " at sample ", r.peaks[b],
               " follows sample ", r.peaks[b - 1]);
    const char c = r.classes[b];
    ZF_EXPECTS(c == 'N' || c == 'S' || c == 'V' || c == 'Q', "beat ", b, " has class '", c, "'; expected N, S, V or Q");
  }
  ZF_EXPECTS(r.family.empty() || r.family.size() == r.peaks.size(), "expected ", r.peaks.size(),
             " shape families (one per beat) or none, got ", r.family.size());
  check_stretches(r.af_episodes, r.peaks.size(), "AF episode");
  check_stretches(r.unreadable, r.peaks.size(), "unreadable stretch");
}

std::vector<std::uint8_t> beats_inside(std::span<const classify::episode> stretches, std::size_t beats) {
  std::vector<std::uint8_t> inside(beats, 0);
  for (const auto& e : stretches)
    for (auto b = e.first_beat; b <= e.last_beat && b < static_cast<std::int64_t>(beats); ++b)
      inside[static_cast<std::size_t>(b)] = 1;
  return inside;
}

std::vector<std::uint8_t> measurable_intervals(const beat_record& r) {
  const std::size_t n = r.peaks.size();
  const auto unreadable = beats_inside(r.unreadable, n);
  std::vector<std::uint8_t> measurable(n, 0);
  const auto readable = [&](std::size_t b) { return !unreadable[b] && r.classes[b] != 'Q'; };
  for (std::size_t b = 1; b < n; ++b) measurable[b] = readable(b - 1) && readable(b) ? 1 : 0;
  return measurable;
}

}  // namespace zeroflow::holter
