#pragma once
/// @file hourly.hpp
/// Beats by class and by hour of the recording (from its start), the ectopic beats split into
/// isolated ones, couplets and runs (events.hpp's definitions), and the AF burden.
#include <cstdint>
#include <vector>

#include "zeroflow/holter/beat_record.hpp"
#include "zeroflow/holter/holter_params.hpp"

namespace zeroflow::holter {

/// Beats of one class: every one, and those alone (not next to another of the class), in couplets
/// and in runs.
struct ectopic_counts {
  std::int64_t beats = 0, isolated = 0, in_couplets = 0, in_runs = 0;
};

struct hour_counts {
  double seconds = 0;  ///< the hour's length inside the recording (the last one may be shorter)
  std::int64_t beats = 0, normal = 0, unclassified = 0;  ///< every beat, N, Q
  ectopic_counts ventricular, supraventricular;
  double af_seconds = 0;          ///< time inside AF episodes (first to last R peak)
  double unreadable_seconds = 0;  ///< time inside stretches without readable ECG
};

/// @brief One entry per started hour of the recording; a beat counts in the hour of its R peak, an
///        episode's time in the hours it overlaps.
/// @throws zeroflow::invalid_argument for a record or parameters out of range
[[nodiscard]] std::vector<hour_counts> hourly_counts(const beat_record& record, const event_params& params = {});

/// The hours summed.
[[nodiscard]] hour_counts total_of(const std::vector<hour_counts>& hours);

}  // namespace zeroflow::holter
