#pragma once
/// @file heart_rate.hpp
/// The heart rate over the day: per minute of the recording its lowest, mean and highest rate, and
/// the recording's extremes with their times. A rate is 60 / R–R averaged over
/// `event_params::rate_intervals` measurable intervals in a row (beat_record.hpp), so that one early
/// beat or one pause is not an extreme; a minute's mean is its measurable intervals' count over
/// their sum. Minutes count from the recording's start.
#include <cstdint>
#include <limits>
#include <vector>

#include "zeroflow/holter/beat_record.hpp"
#include "zeroflow/holter/holter_params.hpp"

namespace zeroflow::holter {

inline constexpr double no_rate = std::numeric_limits<double>::quiet_NaN();

/// A rate extreme: the averaged rate and the beat that ends its intervals (-1: none measured).
struct rate_extreme {
  double bpm = no_rate;
  std::int64_t beat = -1;
  std::int64_t sample = -1;
};

/// One minute of the trend; NaN rates where it has no measurable interval (mean) or no averaged
/// rate ending in it (lowest, highest).
struct minute_rate {
  double lowest_bpm = no_rate;
  double mean_bpm = no_rate;
  double highest_bpm = no_rate;
  std::int64_t intervals = 0;  ///< measurable R–R intervals ending in the minute
};

struct heart_rate_trend {
  std::vector<minute_rate> minutes;  ///< ceil(duration / 60 s) minutes
  double mean_bpm = no_rate;         ///< over every measurable interval
  rate_extreme lowest, highest;
  /// Per beat: the rate averaged over the rate_intervals intervals ending at it; NaN where one of
  /// them cannot be measured (the events' brady- and tachycardia read it).
  std::vector<double> averaged_bpm;
};

/// @throws zeroflow::invalid_argument for a record or parameters out of range
[[nodiscard]] heart_rate_trend heart_rate(const beat_record& record, const event_params& params = {});

}  // namespace zeroflow::holter
