#pragma once
/// @file hrv.hpp
/// Heart-rate variability in the time domain, by the definitions of the Task Force of the ESC and
/// NASPE (Circulation 1996;93:1043–65), over N–N intervals: R–R intervals between two consecutive
/// N beats, both readable and outside AF (a sinus rhythm's intervals only; an interval next to an
/// ectopic beat is not one). Standard deviations are of samples (n − 1).
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "zeroflow/holter/beat_record.hpp"
#include "zeroflow/holter/holter_params.hpp"

namespace zeroflow::holter {

/// A recording's N–N intervals in time order.
struct nn_intervals {
  std::vector<double> milliseconds;
  std::vector<std::int64_t> end_sample;        ///< R peak of the interval's second beat
  std::vector<std::uint8_t> follows_previous;  ///< 1 where the interval before it ends at its first beat
};

/// @throws zeroflow::invalid_argument for a record out of range
[[nodiscard]] nn_intervals normal_intervals(const beat_record& record);

struct hrv_time_domain {
  std::int64_t intervals = 0;    ///< N–N intervals
  std::int64_t differences = 0;  ///< pairs of successive N–N intervals
  double mean_nn_ms = std::numeric_limits<double>::quiet_NaN();
  double sdnn_ms = std::numeric_limits<double>::quiet_NaN();  ///< SD of every N–N interval
  /// SD of the mean N–N interval of each segment (of those covered enough; at least two)
  double sdann_ms = std::numeric_limits<double>::quiet_NaN();
  /// Mean of the SD of the N–N intervals of each segment (of those covered enough)
  double sdnn_index_ms = std::numeric_limits<double>::quiet_NaN();
  std::int64_t segments = 0;                                   ///< segments covered enough
  double rmssd_ms = std::numeric_limits<double>::quiet_NaN();  ///< root mean square of successive differences
  std::int64_t nn50 = 0;                                       ///< successive differences over successive_difference_ms
  /// nn50 over the N–N intervals, in % (the Task Force's "NN50 count divided by the total number of all
  /// NN intervals")
  double pnn50_percent = std::numeric_limits<double>::quiet_NaN();
};

/// @brief The time-domain measures of `nn`; segments are hrv.segment_seconds of the recording from
///        its start, an interval in the segment of its end.
/// @throws zeroflow::invalid_argument when the rate is not positive, the sizes differ or a
///         parameter is out of range
[[nodiscard]] hrv_time_domain time_domain(const nn_intervals& nn, double sample_rate_hz, const hrv_params& params = {});

}  // namespace zeroflow::holter
