#pragma once
// The per-beat rhythm arithmetic of rhythm.hpp, shared by the host and the CUDA implementation
// so that both give the same bits.
#include <cmath>
#include <cstdint>

#include "zeroflow/core/detail/host_device.hpp"

namespace zeroflow::signal::detail {

struct beat_rhythm {
  float rr_before, rr_after, local_rr, irregularity;
};

/// Rhythm of beat b of n ascending peaks; `neighbourhood` intervals on either side (at most 8).
ZF_HD inline beat_rhythm rhythm_of(const std::int64_t* peaks, std::int64_t n, std::int64_t b,
                                   std::int64_t neighbourhood, float seconds_per_sample) {
  beat_rhythm r{0, 0, 0, 0};
  if (n < 2) return r;
  const float before = b > 0 ? static_cast<float>(peaks[b] - peaks[b - 1]) * seconds_per_sample : -1.0F;
  const float after = b + 1 < n ? static_cast<float>(peaks[b + 1] - peaks[b]) * seconds_per_sample : -1.0F;
  r.rr_before = before > 0 ? before : after;
  r.rr_after = after > 0 ? after : before;
  // Median of the intervals k in [b − m, b + m) ∩ [0, n − 1), by insertion sort of at most 16.
  float window[16];
  int count = 0;
  const std::int64_t from = b - neighbourhood < 0 ? 0 : b - neighbourhood;
  const std::int64_t to = b + neighbourhood < n - 1 ? b + neighbourhood : n - 1;
  for (std::int64_t k = from; k < to && count < 16; ++k) {
    const float v = static_cast<float>(peaks[k + 1] - peaks[k]) * seconds_per_sample;
    int j = count++;
    for (; j > 0 && window[j - 1] > v; --j) window[j] = window[j - 1];
    window[j] = v;
  }
  r.local_rr = count % 2 ? window[count / 2] : 0.5F * (window[count / 2 - 1] + window[count / 2]);
  if (r.rr_before > 0 && r.local_rr > 0) {
    const float early = logf(r.local_rr / r.rr_before);
    const float pause = logf(r.rr_after / r.rr_before);
    r.irregularity = (early > 0 ? early : 0.0F) + (pause > 0 ? pause : 0.0F);
  }
  return r;
}

}  // namespace zeroflow::signal::detail
