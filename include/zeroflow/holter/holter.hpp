#pragma once
/// @file holter.hpp
/// A Holter analysis of a recording's beats: the heart rate over the day, the events, beats by
/// hour, the AF burden, heart-rate variability and the morphology families — what a Holter report prints, computed on
/// the host from the beat table that every device hands over alike, so CPU and GPU runs give the same figures. The
/// parts are in heart_rate.hpp, events.hpp, hourly.hpp, hrv.hpp and families.hpp.
#include <cstdint>
#include <vector>

#include "zeroflow/holter/beat_record.hpp"
#include "zeroflow/holter/events.hpp"
#include "zeroflow/holter/families.hpp"
#include "zeroflow/holter/heart_rate.hpp"
#include "zeroflow/holter/holter_params.hpp"
#include "zeroflow/holter/hourly.hpp"
#include "zeroflow/holter/hrv.hpp"

namespace zeroflow::holter {

/// The AF burden: time in AF episodes (first to last R peak) over the recording's length.
struct af_burden {
  std::int64_t episodes = 0;
  double seconds = 0;
  double percent = 0;
  double longest_seconds = 0;
  std::int64_t longest_onset = -1;  ///< R peak where the longest episode starts (-1: none)
};

struct holter_analysis {
  holter_params params;
  double duration_seconds = 0;
  std::int64_t beats = 0;
  heart_rate_trend heart_rate;
  std::vector<event> events;
  std::vector<hour_counts> hours;
  hour_counts totals;
  af_burden af;
  hrv_time_domain hrv;
  std::vector<beat_family> families;  ///< empty when the record has no families
};

/// @throws zeroflow::invalid_argument for a record or parameters out of range
[[nodiscard]] holter_analysis analyse(const beat_record& record, const holter_params& params = {});

}  // namespace zeroflow::holter
