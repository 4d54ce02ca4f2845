#pragma once
// A recording's other leads: read as its first lead was, for the beats' shapes (the class rule's
// step 6, classify/beat_classes.hpp) and for the report's strips.
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/io/recording.hpp"
#include "zeroflow/pipeline/run_types.hpp"

namespace zeroflow::pipeline::detail {

/// One of a recording's other leads.
struct other_lead {
  std::string name;
  array signal;  ///< float32, 1-D, as long as the lead that was read and at its rate
  /// Named like an ECG lead (io::named_like_ecg), or a channel of a raw ECG recording: its beats'
  /// shapes are evidence. Other signals (respiration, blood pressure) only go on the strips.
  bool ecg = false;
};

/// The other leads read, and why any was not.
struct other_leads_read {
  std::vector<other_lead> leads;
  /// One line for a person per signal that could not be read (a damaged or missing file): the
  /// run goes on with the leads it has, and says so.
  std::vector<std::string> unread;
};

/// @brief Every signal of `loaded`'s file but the one it read, read the way `read` read that one,
///        onto `where`: every signal of a binary recording (WFDB, EDF, raw), the columns of a CSV
///        named like an ECG lead (io::named_like_ecg: each is a parse of the file). A signal at
///        another rate or of another length (an EDF's respiration at 25 Hz) is left out: its
///        samples are not the lead's.
[[nodiscard]] other_leads_read read_other_leads(const std::filesystem::path& input, const io::recording_options& read,
                                                const io::recording& loaded, device where, stream_view stream);

/// @brief The beats' rows in each ECG lead of `leads`: embed_windows at `peaks` (int64, on the
///        leads' device) with the run's windows and row width, unnormalised (the class rule's
///        measures are scale-free).
[[nodiscard]] std::vector<array> other_lead_rows(std::span<const other_lead> leads, const array& peaks,
                                                 std::int64_t window_before, std::int64_t window_after,
                                                 std::int64_t row_width, stream_view stream);

/// @brief Adds each of `leads` to `figures`' strips (figure_data::strip_leads after `read_lead`).
void add_other_leads(figure_data& figures, const std::string& read_lead, std::span<const other_lead> leads,
                     stream_view stream);

}  // namespace zeroflow::pipeline::detail
