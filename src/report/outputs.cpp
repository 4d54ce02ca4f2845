/// @file outputs.cpp
/// The output folder of `zeroflow run` (outputs.hpp).
#include "zeroflow/report/outputs.hpp"

#include "zeroflow/report/beats_csv.hpp"
#include "zeroflow/report/holter_outputs.hpp"
#include "zeroflow/report/html_report.hpp"
#include "zeroflow/report/rhythm_outputs.hpp"
#include "zeroflow/report/summary_json.hpp"

namespace zeroflow::report {

void write_all(const pipeline::run_result& r, const pipeline::run_options& options,
               const std::filesystem::path& folder) {
  std::filesystem::create_directories(folder);
  write_beats_csv(r, folder / "beats.csv");
  if (r.beat_class.size() == r.peak.size() && !r.peak.empty()) {
    write_beats_atr(r, folder / "beats.atr");
    write_episodes_csv(r, folder / "episodes.csv");
  }
  if (r.holter) write_events_csv(*r.holter, r.sample_rate, folder / "events.csv");
  write_summary_json(r, options, folder / "summary.json");
  write_report_html(r, options, folder / "report.html");
}

}  // namespace zeroflow::report
