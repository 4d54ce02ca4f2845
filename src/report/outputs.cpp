/// @file outputs.cpp
/// The output folder of `zeroflow run` (outputs.hpp).
#include "zeroflow/report/outputs.hpp"

#include <exception>
#include <future>
#include <vector>

#include "zeroflow/report/beats_csv.hpp"
#include "zeroflow/report/holter_outputs.hpp"
#include "zeroflow/report/html_report.hpp"
#include "zeroflow/report/rhythm_outputs.hpp"
#include "zeroflow/report/summary_json.hpp"

namespace zeroflow::report {

void write_all(const pipeline::run_result& r, const pipeline::run_options& options,
               const std::filesystem::path& folder) {
  std::filesystem::create_directories(folder);
  // The files are independent, so they are written side by side; each is still whole or absent
  // (io::write_atomically), and the first failure is the one reported once all have ended.
  std::vector<std::future<void>> writing;
  const auto start = [&](auto write) { writing.push_back(std::async(std::launch::async, write)); };
  start([&] { write_report_html(r, options, folder / "report.html"); });
  start([&] { write_beats_csv(r, folder / "beats.csv"); });
  if (r.beat_class.size() == r.peak.size() && !r.peak.empty()) {
    start([&] { write_beats_atr(r, folder / "beats.atr"); });
    start([&] { write_episodes_csv(r, folder / "episodes.csv"); });
  }
  if (r.holter) start([&] { write_events_csv(*r.holter, r.sample_rate, folder / "events.csv"); });
  start([&] { write_summary_json(r, options, folder / "summary.json"); });
  std::exception_ptr failed;
  for (auto& w : writing) {
    try {
      w.get();
    } catch (...) {
      if (!failed) failed = std::current_exception();
    }
  }
  if (failed) std::rethrow_exception(failed);
}

}  // namespace zeroflow::report
