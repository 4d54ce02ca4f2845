#include "other_leads.hpp"

#include "zeroflow/core/error.hpp"
#include "zeroflow/signal/beat_windows.hpp"
#include "zeroflow/signal/display.hpp"

namespace zeroflow::pipeline::detail {

other_leads_read read_other_leads(const std::filesystem::path& input, const io::recording_options& read,
                                  const io::recording& loaded, device where, stream_view stream) {
  other_leads_read out;
  if (loaded.leads.size() < 2) return out;
  const io::recording_format format = io::format_of(input);
  const bool raw = format == io::recording_format::raw;
  // A CSV's columns are read one by one (each a parse of the file), so only those named like an
  // ECG lead: a time or sample column, or a note, is no lead.
  const bool csv = format == io::recording_format::csv;
  for (std::size_t lead = 0; lead < loaded.leads.size(); ++lead) {
    if (loaded.leads[lead] == loaded.lead) continue;
    if (csv && !io::named_like_ecg(loaded.leads[lead])) continue;
    io::recording_options other = read;
    other.lead = csv ? loaded.leads[lead] : std::to_string(lead);
    other.where = where;
    other.progress = {};
    io::recording recording;
    try {
      recording = io::read_recording(input, other, stream);
    } catch (const error& e) {
      out.unread.push_back("lead \"" + loaded.leads[lead] + "\" not read (" + e.what() + ")");
      continue;
    }
    if (recording.signal.size() != loaded.signal.size() ||
        !io::same_sample_rate(recording.sample_rate, loaded.sample_rate))
      continue;
    out.leads.push_back({recording.lead, std::move(recording.signal), raw || io::named_like_ecg(recording.lead)});
  }
  return out;
}

std::vector<array> other_lead_rows(std::span<const other_lead> leads, const array& peaks, std::int64_t window_before,
                                   std::int64_t window_after, std::int64_t row_width, stream_view stream) {
  std::vector<array> out;
  for (const auto& lead : leads)
    if (lead.ecg)
      out.push_back(signal::embed_windows(lead.signal, peaks, window_before, window_after, row_width, {}, stream));
  return out;
}

void add_other_leads(figure_data& figures, const std::string& read_lead, std::span<const other_lead> leads,
                     stream_view stream) {
  figures.strip_leads = {read_lead};
  if (figures.strips.empty()) return;
  std::vector<signal::sample_window> windows;
  for (const auto& s : figures.strips) windows.push_back({s.start, static_cast<std::int64_t>(s.samples.size())});
  for (const auto& lead : leads) {
    auto samples = signal::excerpts(lead.signal, windows, stream);
    for (std::size_t k = 0; k < figures.strips.size(); ++k)
      figures.strips[k].other_leads.push_back(std::move(samples[k]));
    figures.strip_leads.push_back(lead.name);
  }
}

}  // namespace zeroflow::pipeline::detail
