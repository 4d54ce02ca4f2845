// The recording itself: the whole of it as a min/max band, and an excerpt with the band-pass
// response and the gates.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "png_figures_detail.hpp"

namespace zeroflow::report::png {

namespace {

std::string count_of(std::size_t n, const char* what) { return std::to_string(n) + " " + what; }

}  // namespace

bool draw_overview(const canvas& c, const figure_context& f) {
  const auto& fig = f.r.figures;
  const std::size_t n = std::min(fig.overview_min.size(), fig.overview_max.size());
  if (n == 0) return false;
  const double bucket = static_cast<double>(std::max<std::int64_t>(1, fig.overview_bucket));
  const double samples = f.r.samples > 0 ? static_cast<double>(f.r.samples) : static_cast<double>(n) * bucket;
  const auto unit = time_unit_for(samples / f.rate);
  const double to_unit = 1.0 / (f.rate * unit.seconds);  // samples → axis units

  c.title("Whole recording", f.about + " · min/max of the samples under each pixel column");
  const axes ax(c, main_plot_box(c), {0, samples * to_unit}, padded_range(fig.overview_min, fig.overview_max));
  ax.draw_grid();
  ax.clip();
  auto* cr = c.cr();
  const auto columns = static_cast<std::size_t>(ax.area().w);
  if (n > columns) {
    // More buckets than pixels: each column shows the min and max of the buckets starting in it,
    // so every peak stays visible however long the recording.
    std::vector<double> lo(columns, INFINITY), hi(columns, -INFINITY);
    for (std::size_t i = 0; i < n; ++i) {
      const double x = ax.px(static_cast<double>(i) * bucket * to_unit) - ax.area().x;
      const auto col = std::min(columns - 1, static_cast<std::size_t>(std::max(0.0, x)));
      if (std::isfinite(fig.overview_min[i])) lo[col] = std::min<double>(lo[col], fig.overview_min[i]);
      if (std::isfinite(fig.overview_max[i])) hi[col] = std::max<double>(hi[col], fig.overview_max[i]);
    }
    c.colour(colours::blue);
    for (std::size_t col = 0; col < columns; ++col) {
      if (!(lo[col] <= hi[col])) continue;
      const double top = ax.py(hi[col]), bottom = ax.py(lo[col]);
      cairo_rectangle(cr, ax.area().x + static_cast<double>(col), top, 1, std::max(1.0, bottom - top));
    }
    cairo_fill(cr);
  } else {
    // Fewer buckets than pixels: the band between the max and min lines (one line for raw samples).
    std::vector<double> xs(n), mins(n), maxs(n);
    for (std::size_t i = 0; i < n; ++i) {
      xs[i] = (static_cast<double>(i) + 0.5) * bucket * to_unit;
      mins[i] = fig.overview_min[i];
      maxs[i] = fig.overview_max[i];
    }
    if (bucket > 1) {
      c.colour(colours::light_blue);
      for (std::size_t i = 0; i < n; ++i) cairo_line_to(cr, ax.px(xs[i]), ax.py(maxs[i]));
      for (std::size_t i = n; i-- > 0;) cairo_line_to(cr, ax.px(xs[i]), ax.py(mins[i]));
      cairo_close_path(cr);
      cairo_fill(cr);
      ax.line(xs, mins, colours::blue, 1.2);
    }
    ax.line(xs, maxs, colours::blue, 1.2);
  }
  // The most anomalous beats: a faint line through the signal and a marker above it.
  for (auto beat : f.top) {
    const double x = static_cast<double>(f.r.peak[beat]) * to_unit;
    ax.vline(x, colours::red, 1.5, false, 0.35);
    c.colour(colours::red);
    triangle_down(c, ax.px(x), ax.area().y + 2, 18);
  }
  ax.unclip();
  ax.draw_frame(std::string("time (") + unit.name + ")", "amplitude (" + f.amplitude_unit + ")");
  std::vector<legend_entry> legend{{"signal (min/max per column)", colours::blue, mark::band}};
  if (!f.top.empty()) legend.push_back({count_of(f.top.size(), "most anomalous beats"), colours::red, mark::triangle});
  draw_legend(c, ax.area().x + ax.area().w, legend);
  return true;
}

bool draw_excerpt(const canvas& c, const figure_context& f) {
  const auto& fig = f.r.figures;
  const auto& signal = fig.excerpt_signal;
  const auto& filtered = fig.excerpt_filtered;
  const std::size_t n = std::max(signal.size(), filtered.size());
  if (n == 0) return false;
  const auto first = fig.excerpt_start, end = first + static_cast<std::int64_t>(n);
  auto seconds = [&](std::int64_t sample) { return static_cast<double>(sample) / f.rate; };
  auto times = [&](std::size_t count) {
    std::vector<double> t(count);
    for (std::size_t i = 0; i < count; ++i) t[i] = seconds(first + static_cast<std::int64_t>(i));
    return t;
  };
  auto values = [](const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); };
  std::vector<std::int64_t> gates, peaks;
  for (auto s : f.r.start)
    if (s >= first && s < end) gates.push_back(s);
  for (auto p : f.r.detected_peaks)
    if (p >= first && p < end) peaks.push_back(p);

  char about[160];
  std::snprintf(about, sizeof about, " · %.1f s from %s", static_cast<double>(n) / f.rate,
                clock_time(seconds(first)).c_str());
  const bool robust = f.r.method == "robust";
  c.title(robust ? "Excerpt: signal, band-pass response, R peaks and beat windows"
                 : "Excerpt: signal, band-pass response and gates",
          f.about + about);
  const range x{seconds(first), seconds(end - 1) > seconds(first) ? seconds(end - 1) : seconds(first) + 1};
  const box whole = main_plot_box(c);
  const bool two_panels = !signal.empty() && !filtered.empty();
  const double gap = 30, top_h = two_panels ? (whole.h - gap) * 0.58 : whole.h;
  const box top_box{whole.x, whole.y, whole.w, top_h};
  const box bottom_box{whole.x, whole.y + top_h + gap, whole.w, whole.h - top_h - gap};

  auto draw_gates = [&](const axes& ax) {
    for (auto g : gates) ax.vline(seconds(g), colours::grey, 1.5, true);
  };
  const std::string ricker = [&] {
    char text[64];
    std::snprintf(text, sizeof text, "band-pass response (Ricker, %.2f s)",
                  static_cast<double>(f.r.sizes.ricker_width) / f.rate);
    return std::string(text);
  }();

  if (!signal.empty()) {
    axes_style style;
    style.x_tick_labels = !two_panels;
    const axes ax(c, top_box, x, padded_range(signal), style);
    ax.draw_grid();
    ax.clip();
    draw_gates(ax);
    ax.line(times(signal.size()), values(signal), colours::blue, 2);
    c.colour(colours::orange);
    for (auto p : peaks) {
      const auto i = static_cast<std::size_t>(p - first);
      if (i < signal.size() && std::isfinite(signal[i])) dot(c, ax.px(seconds(p)), ax.py(signal[i]), 6);
    }
    ax.unclip();
    ax.draw_frame(two_panels ? "" : "time in the recording (s)", "signal (" + f.amplitude_unit + ")");
  }
  if (!filtered.empty()) {
    const axes ax(c, two_panels ? bottom_box : whole, x, padded_range(filtered));
    ax.draw_grid();
    ax.clip();
    draw_gates(ax);
    ax.line(times(filtered.size()), values(filtered), colours::red, 2);
    ax.unclip();
    ax.draw_frame("time in the recording (s)", "band-pass (a.u.)");
  }
  std::vector<legend_entry> legend;
  if (!signal.empty()) legend.push_back({"signal", colours::blue, mark::line});
  if (!signal.empty() && !peaks.empty()) legend.push_back({"detected R-peak", colours::orange, mark::dot});
  if (!gates.empty())
    legend.push_back({robust ? "beat window start" : "gate (beat start)", colours::grey, mark::dashed_line});
  if (!filtered.empty()) legend.push_back({ricker, colours::red, mark::line});
  draw_legend(c, whole.x + whole.w, legend);
  return true;
}

}  // namespace zeroflow::report::png
