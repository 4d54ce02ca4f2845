#pragma once
/// @file holter_params.hpp
/// The thresholds of a Holter analysis (holter.hpp), one struct per part, units in the names. The
/// defaults are the conventions of Holter reporting and of the 1996 Task Force on heart-rate
/// variability, not values fitted to any recording.
#include <cstdint>
#include <vector>

#include "zeroflow/classify/param_names.hpp"

namespace zeroflow::holter {

/// Events (events.hpp) and the heart rate's extremes (heart_rate.hpp).
struct event_params {
  double pause_seconds = 2.0;       ///< an R–R interval at least this long is a pause
  double bradycardia_bpm = 40;      ///< a heart rate below this is bradycardia
  double tachycardia_bpm = 120;     ///< a heart rate above this is tachycardia
  std::int64_t run_beats = 3;       ///< ectopic beats in a row that make a run (ventricular tachycardia, SVT)
  std::int64_t rate_intervals = 8;  ///< R–R intervals a heart rate is averaged over (so that one early beat is
                                    ///< not the day's fastest rate)
  std::int64_t pattern_cycles = 3;  ///< bigeminy / trigeminy: ectopic beats in the pattern, in a row
};

/// Heart-rate variability of the N–N intervals (hrv.hpp), the Task Force's time domain.
struct hrv_params {
  double segment_seconds = 300;          ///< SDANN and the SDNN index: segments of the recording (5 min)
  double min_segment_coverage = 0.5;     ///< a segment counts when its N–N intervals cover this share of it
  double successive_difference_ms = 50;  ///< pNN50's difference between successive N–N intervals
};

struct holter_params {
  event_params events;
  hrv_params hrv;
};

/// @throws zeroflow::invalid_argument naming the first parameter out of range: seconds and rates
///         positive and finite, bradycardia below tachycardia, run_beats ≥ 3 (a pair is a couplet),
///         rate_intervals and pattern_cycles ≥ 1, the coverage in [0, 1]
void check_holter_params(const holter_params& params);

/// Every field of `p` by its name ("pause_seconds", "run_beats", ...): the one table of names that
/// Python's zeroflow.holter.analyse takes.
[[nodiscard]] std::vector<classify::param_field> param_fields(holter_params& p);

}  // namespace zeroflow::holter
