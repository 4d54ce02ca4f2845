// The beats: length histogram with the pruning bounds, embedded rows overlaid, and the most
// anomalous ones one by one.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>

#include "png_figures_detail.hpp"

namespace zeroflow::report::png {

namespace {

std::string format(const char* pattern, double value) {
  char text[96];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

/// The embedded rows that figure_data holds: row k is candidate beats[k].
struct rows_view {
  const std::vector<float>& values;
  const std::vector<std::int64_t>& beats;
  std::size_t width = 0, count = 0;

  [[nodiscard]] const float* row(std::size_t k) const { return values.data() + k * width; }
  /// The samples of row k that are the beat (the rest is zero padding).
  [[nodiscard]] std::size_t length(std::size_t k, const pipeline::run_result& r) const {
    const auto c = beats[k];
    if (c < 0 || static_cast<std::size_t>(c) >= r.length.size()) return width;
    return static_cast<std::size_t>(
        std::clamp<std::int64_t>(r.length[static_cast<std::size_t>(c)], 1, static_cast<std::int64_t>(width)));
  }
  [[nodiscard]] std::vector<double> beat(std::size_t k, const pipeline::run_result& r) const {
    return {row(k), row(k) + length(k, r)};
  }
};

rows_view rows_of(const figure_context& f) {
  const auto& fig = f.r.figures;
  const auto width = static_cast<std::size_t>(std::max<std::int64_t>(0, f.r.sizes.row_width));
  const std::size_t count = width == 0 ? 0 : std::min(fig.row_beats.size(), fig.rows.size() / width);
  return {fig.rows, fig.row_beats, width, count};
}

std::vector<double> row_times(std::size_t n, double rate) {
  std::vector<double> t(n);
  for (std::size_t i = 0; i < n; ++i) t[i] = static_cast<double>(i) / rate;
  return t;
}

const std::string z_label = "normalised amplitude (z)";
const std::string beat_time_label = "time from beat start (s)";

}  // namespace

bool draw_lengths(const canvas& c, const figure_context& f) {
  const auto& h = f.r.histogram;
  std::int64_t total = 0, tallest = 0;
  for (auto v : h) total += v;
  if (h.empty() || total == 0) return false;
  // Under the robust segmentation nothing is pruned by length and the lengths are R-R intervals:
  // one colour, no bounds.
  const bool robust = f.r.method == "robust";
  const auto lo = robust ? std::int64_t{0} : f.r.sizes.min_length;
  const auto hi = robust ? static_cast<std::int64_t>(h.size()) : f.r.sizes.max_length;
  std::size_t kept = 0;
  for (auto k : f.r.kept) kept += k != 0;
  const box area = main_plot_box(c);
  // Bars at least 2 px wide: neighbouring lengths are summed at high sample rates.
  const auto group = static_cast<std::size_t>(std::max(1.0, std::ceil(2.0 * static_cast<double>(h.size()) / area.w)));
  std::vector<std::int64_t> bars((h.size() + group - 1) / group, 0);
  for (std::size_t i = 0; i < h.size(); ++i) bars[i / group] += h[i];
  for (auto v : bars) tallest = std::max(tallest, v);

  c.title(robust ? "R-R intervals" : "Beat lengths",
          f.about + " · " + std::to_string(f.r.length.size()) + " beats found, " + std::to_string(kept) + " kept");
  const double bin_s = static_cast<double>(group) / f.rate;
  const axes ax(c, area, {0, static_cast<double>(h.size()) / f.rate}, {0, static_cast<double>(tallest) * 1.1});
  auto* cr = c.cr();
  // Pruned lengths on a light grey ground.
  if (!robust) {
    c.colour(colours::light_grey);
    cairo_rectangle(cr, area.x, area.y, ax.px(static_cast<double>(lo) / f.rate) - area.x, area.h);
    const double right = ax.px(static_cast<double>(hi + 1) / f.rate);
    cairo_rectangle(cr, right, area.y, area.x + area.w - right, area.h);
    cairo_fill(cr);
  }
  ax.draw_grid();
  for (bool inside : {false, true}) {
    c.colour(inside ? colours::blue : colours::grey);
    for (std::size_t b = 0; b < bars.size(); ++b) {
      const auto first = static_cast<std::int64_t>(b * group), last = first + static_cast<std::int64_t>(group) - 1;
      if (bars[b] == 0 || (first >= lo && last <= hi) != inside) continue;
      const double x0 = ax.px(static_cast<double>(b) * bin_s), x1 = ax.px(static_cast<double>(b + 1) * bin_s);
      const double top = ax.py(static_cast<double>(bars[b]));
      cairo_rectangle(cr, x0, top, std::max(1.0, x1 - x0 - (x1 - x0 > 3 ? 1 : 0)), ax.py(0) - top);
    }
    cairo_fill(cr);
  }
  if (!robust) {
    const std::string lo_text = format("%.3g s", static_cast<double>(lo) / f.rate),
                      hi_text = format("%.4g s", static_cast<double>(hi) / f.rate);
    ax.vline(static_cast<double>(lo) / f.rate, colours::red, 2.5, true);
    ax.vline(static_cast<double>(hi + 1) / f.rate, colours::red, 2.5, true);
    c.text("min " + lo_text, ax.px(static_cast<double>(lo) / f.rate) - 8, area.y + 12, 22, colours::red, align::right,
           baseline::top);
    c.text("max " + hi_text, ax.px(static_cast<double>(hi + 1) / f.rate) + 8, area.y + 12, 22, colours::red,
           align::left, baseline::top);
  }
  if (h.back() > 0) {  // the last bin counts every longer beat too
    const double x = ax.px((static_cast<double>(h.size()) - 0.5) / f.rate);
    c.text(format("≥ %.3g s", static_cast<double>(h.size() - 1) / f.rate), x,
           ax.py(static_cast<double>(bars.back())) - 8, 20, colours::muted_text, align::right, baseline::bottom);
  }
  ax.draw_frame(robust ? "R-R interval (s)" : "beat length (s)",
                group == 1 ? "beats" : "beats per " + std::to_string(group) + " samples");
  if (robust)
    draw_legend(c, area.x + area.w, {{"beats (every one scored)", colours::blue, mark::band}});
  else
    draw_legend(c, area.x + area.w,
                {{"kept beats", colours::blue, mark::band},
                 {"pruned (too short or too long)", colours::grey, mark::band},
                 {"pruning bounds", colours::red, mark::dashed_line}});
  return true;
}

bool draw_beats(const canvas& c, const figure_context& f) {
  const auto rows = rows_of(f);
  if (rows.count == 0) return false;
  const std::unordered_set<std::int64_t> anomalous(f.top.begin(), f.top.end());
  std::vector<std::size_t> typical, flagged;
  for (std::size_t k = 0; k < rows.count; ++k) (anomalous.count(rows.beats[k]) ? flagged : typical).push_back(k);
  range y{INFINITY, -INFINITY};
  for (std::size_t k = 0; k < rows.count; ++k)
    for (double v : rows.beat(k, f.r))
      if (std::isfinite(v)) y.lo = std::min(y.lo, v), y.hi = std::max(y.hi, v);

  c.title("Embedded beats overlaid",
          f.about + " · robust z-score (median, 1.4826·MAD), aligned at the " +
              (f.r.method != "robust" ? "beat start" : "window start, a fixed time before the R peak"));
  const axes ax(c, main_plot_box(c), {0, static_cast<double>(rows.width) / f.rate}, padded(y));
  ax.draw_grid();
  ax.clip();
  for (auto k : typical) {
    const auto v = rows.beat(k, f.r);
    ax.line(row_times(v.size(), f.rate), v, colours::blue, 1.5, 0.35);
  }
  for (auto k : flagged) {
    const auto v = rows.beat(k, f.r);
    ax.line(row_times(v.size(), f.rate), v, colours::red, 2, 0.75);
  }
  ax.unclip();
  ax.draw_frame(beat_time_label, z_label);
  std::vector<legend_entry> legend;
  if (!typical.empty()) legend.push_back({"other kept beats (" + std::to_string(typical.size()) + ")", colours::blue});
  if (!flagged.empty()) legend.push_back({"most anomalous (" + std::to_string(flagged.size()) + ")", colours::red});
  draw_legend(c, ax.area().x + ax.area().w, legend);
  return true;
}

bool draw_anomalies(const canvas& c, const figure_context& f) {
  constexpr std::size_t columns = 4, max_panels = 12;
  const auto rows = rows_of(f);
  std::unordered_map<std::int64_t, std::size_t> row_of;
  for (std::size_t k = 0; k < rows.count; ++k) row_of.emplace(rows.beats[k], k);
  std::vector<std::pair<std::size_t, std::size_t>> shown;  // (candidate, row), by rank
  for (std::size_t rank = 0; rank < f.top.size() && shown.size() < max_panels; ++rank)
    if (auto it = row_of.find(static_cast<std::int64_t>(f.top[rank])); it != row_of.end())
      shown.emplace_back(f.top[rank], it->second);
  if (shown.empty()) return false;

  // The element-wise median of the other rows: what a typical beat looks like, for comparison.
  std::vector<double> typical;
  {
    const std::unordered_set<std::int64_t> anomalous(f.top.begin(), f.top.end());
    std::vector<std::size_t> others;
    for (std::size_t k = 0; k < rows.count; ++k)
      if (!anomalous.count(rows.beats[k])) others.push_back(k);
    if (!others.empty()) {
      std::vector<float> column(others.size());
      for (std::size_t t = 0; t < rows.width; ++t) {
        for (std::size_t i = 0; i < others.size(); ++i) column[i] = rows.row(others[i])[t];
        std::nth_element(column.begin(), column.begin() + static_cast<std::ptrdiff_t>(column.size() / 2), column.end());
        typical.push_back(column[column.size() / 2]);
      }
    }
  }
  range y{INFINITY, -INFINITY};
  for (const auto& [beat, k] : shown)
    for (double v : rows.beat(k, f.r)) y.lo = std::min(y.lo, v), y.hi = std::max(y.hi, v);
  for (double v : typical) y.lo = std::min(y.lo, v), y.hi = std::max(y.hi, v);
  y = padded(y);

  c.title("Most anomalous beats", f.about + " · rank, time in the recording (h:mm:ss) and score");
  const double left = 150, right = 40, top = 175, bottom = 110, hgap = 34, vgap = 84;
  const std::size_t panel_rows = (max_panels + columns - 1) / columns;
  const double w = (c.width() - left - right - hgap * (columns - 1)) / columns;
  const double h =
      (c.height() - top - bottom - vgap * static_cast<double>(panel_rows - 1)) / static_cast<double>(panel_rows);
  axes_style style;
  style.max_x_ticks = 5;
  style.max_y_ticks = 4;
  style.tick_size = 17;
  for (std::size_t i = 0; i < shown.size(); ++i) {
    const auto [beat, k] = shown[i];
    const box b{left + static_cast<double>(i % columns) * (w + hgap),
                top + static_cast<double>(i / columns) * (h + vgap), w, h};
    style.y_tick_labels = i % columns == 0;
    const axes ax(c, b, {0, static_cast<double>(rows.width) / f.rate}, y, style);
    ax.draw_grid();
    ax.clip();
    if (!typical.empty()) ax.line(row_times(typical.size(), f.rate), typical, colours::grey, 2);
    const auto v = rows.beat(k, f.r);
    ax.line(row_times(v.size(), f.rate), v, colours::red, 2.5);
    ax.unclip();
    ax.draw_frame("", "");
    char label[160];
    std::snprintf(label, sizeof label, "#%zu  %s  score %.3g", i + 1,
                  clock_time(static_cast<double>(f.r.peak[beat]) / f.rate).c_str(),
                  static_cast<double>(f.r.score[beat]));
    c.text(label, b.x, b.y - 10, 20, colours::text, align::left, baseline::bottom, i == 0);
  }
  const double grid_bottom = top + static_cast<double>((shown.size() + columns - 1) / columns) * (h + vgap) - vgap;
  c.text(beat_time_label, left + (c.width() - left - right) / 2, grid_bottom + 44, 24, colours::text, align::centre,
         baseline::top);
  c.text(z_label, 52, top + (grid_bottom - top) / 2, 24, colours::text, align::centre, baseline::bottom, false,
         -1.5707963267948966);
  if (!typical.empty())
    draw_legend(c, c.width() - right,
                {{"beat", colours::red}, {"typical beat (median of other beats)", colours::grey}});
  return true;
}

}  // namespace zeroflow::report::png
