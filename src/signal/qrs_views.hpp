#pragma once
// What the QRS decision rules read, as small views that host and device code pass by value: the
// candidate peaks with their measures, and the accepted beats with their clear intervals.
#include <cstdint>

#include "zeroflow/core/detail/host_device.hpp"

namespace zeroflow::signal::detail {

/// The candidate peaks, sorted by position, and their measures (qrs_measures.hpp).
struct qrs_candidate_view {
  const std::int64_t* position;  ///< sample of each candidate, ascending
  const float* amplitude;        ///< the band-passed energy there (qrs_energy_run)
  const float* slope;            ///< the raw signal's steepest slope around it (qrs_slope)
  const float* background;       ///< the energy around it, its own QRS complex left out (qrs_background)
  std::int64_t n;                ///< how many candidates
};

/// The accepted beats and their clear intervals, against which the rhythm rules judge each beat.
struct qrs_accepted_view {
  const std::int64_t* beat_of;  ///< candidate index of each accepted beat, ascending
  std::int64_t beats;           ///< how many accepted beats
  const std::int64_t* clear;    ///< the indices b (into beat_of) of the clear intervals beat b → beat b + 1
                                ///< (both beats clear of noise, qrs_is_clear_beat), ascending
  std::int64_t clear_count;     ///< how many clear intervals
};

/// First index in [0, n) of an ascending array whose value is >= at (n when none).
ZF_HD inline std::int64_t qrs_first_at(const std::int64_t* ascending, std::int64_t n, std::int64_t at) {
  std::int64_t lo = 0, hi = n;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (ascending[mid] < at)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

}  // namespace zeroflow::signal::detail
