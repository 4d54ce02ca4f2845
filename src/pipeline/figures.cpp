#include "figures.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <utility>

#include "zeroflow/core/error.hpp"
#include "zeroflow/signal/display.hpp"

namespace zeroflow::pipeline::detail {

figure_data collect_figures(const array& signal, const array& filtered, const array& rows, const run_result& r,
                            stream_view stream) {
  // Rows are in kept order: row i is the i-th candidate with kept = 1.
  std::vector<std::int64_t> row_candidate;
  std::vector<float> row_score;
  for (std::size_t c = 0; c < r.kept.size(); ++c) {
    if (!r.kept[c]) continue;
    row_candidate.push_back(static_cast<std::int64_t>(c));
    row_score.push_back(c < r.score.size() ? r.score[c] : std::nanf(""));
  }
  const std::int64_t kept = rows.valid() && rows.ndim() == 2 ? rows.shape(0) : 0;
  ZF_EXPECTS(kept == static_cast<std::int64_t>(row_candidate.size()), "collect_figures: ", kept, " rows but ",
             row_candidate.size(), " kept candidates");

  auto d = signal::reduce_for_display(signal, filtered, rows, row_score, r.start, r.sample_rate, stream);
  figure_data f;
  f.overview_bucket = d.overview_bucket;
  f.overview_min = std::move(d.overview_min);
  f.overview_max = std::move(d.overview_max);
  f.excerpt_start = d.excerpt_start;
  f.excerpt_signal = std::move(d.excerpt_signal);
  f.excerpt_filtered = std::move(d.excerpt_filtered);
  for (const auto row : d.row_index) f.row_beats.push_back(row_candidate[static_cast<std::size_t>(row)]);
  f.rows = std::move(d.rows);
  f.thumb_width = d.thumb_width;
  f.thumbs = std::move(d.thumbs);
  return f;
}

std::vector<event_strip> collect_strips(const array& signal, const run_result& r, stream_view stream) {
  if (!r.holter) return {};
  const auto& events = r.holter->events;
  const auto chosen = holter::notable_events(events, strips_per_kind);
  const auto length = static_cast<std::int64_t>(std::llround(strip_seconds * r.sample_rate));
  const auto lead = static_cast<std::int64_t>(std::llround(r.sample_rate));
  std::vector<signal::sample_window> windows;
  for (const auto i : chosen) {
    const auto& e = events[i];
    const std::int64_t span = e.offset - e.onset;
    std::int64_t start = span + 2 * lead <= length ? e.onset + span / 2 - length / 2 : e.onset - lead;
    start = std::max<std::int64_t>(0, std::min(start, r.samples - length));
    windows.push_back({start, length});
  }
  auto samples = signal::excerpts(signal, windows, stream);
  std::vector<event_strip> strips;
  for (std::size_t k = 0; k < chosen.size(); ++k)
    strips.push_back({static_cast<std::int64_t>(chosen[k]), windows[k].start, std::move(samples[k]), {}});
  return strips;
}

}  // namespace zeroflow::pipeline::detail
