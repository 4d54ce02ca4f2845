// The model: latent means coloured by score, beats decoded from a latent grid, training loss.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <numeric>

#include "png_figures_detail.hpp"

namespace zeroflow::report::png {

namespace {

/// Scores → [0, 1] for the colour map: log scale when every score is positive (they span
/// decades: anomalies score far above typical beats), clipped to the 1st–99.5th percentile.
struct score_scale {
  bool log = false;
  range r;
  [[nodiscard]] double transform(double s) const { return log ? std::log10(s) : s; }
  [[nodiscard]] double operator()(double s) const { return (transform(s) - r.lo) / r.span(); }
};

score_scale scale_for(std::vector<double> scores) {
  score_scale scale;
  scale.log = std::all_of(scores.begin(), scores.end(), [](double s) { return s > 0; });
  for (auto& s : scores) s = scale.transform(s);
  std::sort(scores.begin(), scores.end());
  auto quantile = [&](double q) {
    return scores[static_cast<std::size_t>(q * static_cast<double>(scores.size() - 1))];
  };
  scale.r = {quantile(0.01), quantile(0.995)};
  if (!(scale.r.lo < scale.r.hi)) scale.r = padded({scores.front(), scores.back()}, 0);
  return scale;
}

/// Tick values (in score units) of the colour bar: 1-2-5 per decade on a log scale.
std::vector<double> colour_bar_ticks(const score_scale& scale) {
  std::vector<double> values;
  if (!scale.log) return nice_ticks(scale.r.lo, scale.r.hi, 6).values;
  for (const double mantissas : {3.0, 1.0}) {  // 1, 2, 5 per decade; only 1 when that is too many
    values.clear();
    for (int e = static_cast<int>(std::floor(scale.r.lo)); e <= static_cast<int>(std::ceil(scale.r.hi)); ++e)
      for (double m : {1.0, 2.0, 5.0}) {
        if (mantissas == 1.0 && m != 1.0) continue;
        const double v = m * std::pow(10.0, e);
        if (std::log10(v) >= scale.r.lo - 1e-9 && std::log10(v) <= scale.r.hi + 1e-9) values.push_back(v);
      }
    if (values.size() <= 8 && values.size() >= 2) return values;
  }
  if (values.size() < 2) values = {std::pow(10.0, scale.r.lo), std::pow(10.0, scale.r.hi)};
  return values;
}

void draw_colour_bar(const canvas& c, const box& b, const score_scale& scale) {
  auto* cr = c.cr();
  constexpr int steps = 256;
  for (int i = 0; i < steps; ++i) {
    c.colour(score_colour((i + 0.5) / steps));
    const double y0 = b.y + b.h * (1 - static_cast<double>(i + 1) / steps);
    cairo_rectangle(cr, b.x, y0, b.w, b.h / steps + 0.5);
    cairo_fill(cr);
  }
  c.colour(colours::axis);
  cairo_set_line_width(cr, 1.5);
  cairo_rectangle(cr, b.x, b.y, b.w, b.h);
  cairo_stroke(cr);
  for (double v : colour_bar_ticks(scale)) {
    const double y = b.y + b.h * (1 - scale(v));
    cairo_move_to(cr, b.x + b.w, y);
    cairo_line_to(cr, b.x + b.w + 8, y);
    cairo_stroke(cr);
    char label[32];
    std::snprintf(label, sizeof label, "%.3g", v);
    c.text(label, b.x + b.w + 12, y, 20, colours::text, align::left, baseline::middle);
  }
  c.text(scale.log ? "anomaly score (log scale)" : "anomaly score", b.x + b.w + 96, b.y + b.h / 2, 24, colours::text,
         align::centre, baseline::bottom, false, -std::numbers::pi / 2);
}

}  // namespace

bool draw_latent(const canvas& c, const figure_context& f) {
  const auto& r = f.r;
  const std::size_t n = std::min({r.mu0.size(), r.mu1.size(), r.score.size(), r.kept.size()});
  std::vector<std::size_t> points;
  for (std::size_t i = 0; i < n; ++i)
    if (r.kept[i] && std::isfinite(r.mu0[i]) && std::isfinite(r.mu1[i]) && std::isfinite(r.score[i]))
      points.push_back(i);
  if (points.empty()) return false;
  // Low scores first, so the anomalous beats are drawn on top.
  std::sort(points.begin(), points.end(),
            [&](auto a, auto b) { return r.score[a] < r.score[b] || (r.score[a] == r.score[b] && a < b); });
  std::vector<double> scores;
  std::vector<float> xs, ys;
  std::size_t train = 0, test = 0;
  for (auto i : points) {
    scores.push_back(r.score[i]);
    xs.push_back(r.mu0[i]);
    ys.push_back(r.mu1[i]);
    train += i < r.split.size() && r.split[i] == 't';
    test += i < r.split.size() && r.split[i] == 'v';
  }
  const auto scale = scale_for(scores);

  c.title("Latent space: kept beats coloured by anomaly score",
          f.about + " · " + std::to_string(points.size()) + " beats, latent means μ of the encoder");
  box area = main_plot_box(c);
  area.w -= 190;  // the colour bar and its labels
  const axes ax(c, area, padded_range(xs), padded_range(ys));
  ax.draw_grid();
  ax.clip();
  auto* cr = c.cr();
  cairo_set_line_width(cr, 2);
  for (auto i : points) {
    c.colour(score_colour(scale(r.score[i])), 0.85);
    const double x = ax.px(r.mu0[i]), y = ax.py(r.mu1[i]);
    if (i < r.split.size() && r.split[i] == 'v') {
      cairo_new_sub_path(cr);
      cairo_arc(cr, x, y, 5, 0, 2 * std::numbers::pi);
      cairo_stroke(cr);
    } else {
      dot(c, x, y, 4.5);
    }
  }
  ax.unclip();
  ax.draw_frame("latent mean μ0", "latent mean μ1");
  draw_colour_bar(c, {area.x + area.w + 40, area.y, 28, area.h}, scale);
  std::vector<legend_entry> legend;
  if (train > 0) legend.push_back({"training beat (" + std::to_string(train) + ")", colours::muted_text, mark::dot});
  if (test > 0) legend.push_back({"test beat (" + std::to_string(test) + ")", colours::muted_text, mark::ring});
  if (train + test < points.size())
    legend.push_back(
        {"scored beat (" + std::to_string(points.size() - train - test) + ")", colours::muted_text, mark::dot});
  draw_legend(c, area.x + area.w, legend);
  return true;
}

bool draw_decoded_grid(const canvas& c, const figure_context& f) {
  constexpr std::size_t n = 5;
  constexpr double extent = 2.0;  // the pipeline decodes linspace(−2, 2, 5)² (vae::decode_grid)
  const auto width = static_cast<std::size_t>(std::max<std::int64_t>(0, f.r.sizes.row_width));
  const auto& grid = f.r.decoded_grid;
  if (width == 0 || grid.size() < n * n * width) return false;

  c.title("Beats decoded from a 5×5 latent grid",
          f.about + " · decoder output at μ ∈ [−2, 2]², all panels on one scale");
  const box whole = main_plot_box(c);
  // Column gaps wide enough for the "1.0" and "0.0" tick labels of neighbouring panels.
  const double hgap = 36, vgap = 16, w = (whole.w - hgap * (n - 1)) / n, h = (whole.h - vgap * (n - 1)) / n;
  const range y = padded_range(std::span<const float>(grid.data(), n * n * width));
  std::vector<double> times(width);
  for (std::size_t t = 0; t < width; ++t) times[t] = static_cast<double>(t) / f.rate;
  auto grid_value = [](std::size_t i) { return -extent + 2 * extent * static_cast<double>(i) / (n - 1); };
  axes_style style;
  style.max_x_ticks = 4;
  style.max_y_ticks = 3;
  style.tick_size = 16;
  for (std::size_t i = 0; i < n; ++i)      // μ0 = g[i]: columns, left to right
    for (std::size_t j = 0; j < n; ++j) {  // μ1 = g[j]: rows, bottom to top (as in the latent figure)
      const box b{whole.x + static_cast<double>(i) * (w + hgap), whole.y + static_cast<double>(n - 1 - j) * (h + vgap),
                  w, h};
      style.x_tick_labels = j == 0;
      style.y_tick_labels = i == 0;
      const axes ax(c, b, {0, static_cast<double>(width) / f.rate}, y, style);
      ax.draw_grid();
      const float* row = grid.data() + (i * n + j) * width;  // row i·n + j decodes (g[i], g[j])
      ax.clip();
      ax.line(times, std::vector<double>(row, row + width), colours::blue, 2);
      ax.unclip();
      ax.draw_frame("", "");
      char label[48];
      std::snprintf(label, sizeof label, "μ = (%g, %g)", grid_value(i), grid_value(j));
      c.text(label, b.x + b.w - 8, b.y + 8, 17, colours::muted_text, align::right, baseline::top);
    }
  c.text("time from beat start (s), one panel per latent μ0 → (left to right), μ1 → (bottom to top)",
         whole.x + whole.w / 2, whole.y + whole.h + 44, 24, colours::text, align::centre, baseline::top);
  c.text("normalised amplitude (z)", 52, whole.y + whole.h / 2, 24, colours::text, align::centre, baseline::bottom,
         false, -std::numbers::pi / 2);
  return true;
}

bool draw_loss(const canvas& c, const figure_context& f) {
  const auto& loss = f.r.epoch_loss;
  if (loss.empty()) return false;
  std::vector<double> epochs(loss.size());
  std::iota(epochs.begin(), epochs.end(), 1.0);
  const bool has_test = f.r.trained && std::isfinite(f.r.test_loss);
  range y{INFINITY, -INFINITY};
  for (double v : loss)
    if (std::isfinite(v)) y.lo = std::min(y.lo, v), y.hi = std::max(y.hi, v);
  if (has_test) y.lo = std::min(y.lo, f.r.test_loss), y.hi = std::max(y.hi, f.r.test_loss);

  char about[96];
  std::snprintf(about, sizeof about, " · %zu epochs, final training loss %.4g", loss.size(), loss.back());
  c.title("Training loss per epoch", f.about + about);
  axes_style style;
  style.integer_x = true;
  const axes ax(c, main_plot_box(c), {0.5, static_cast<double>(loss.size()) + 0.5}, padded(y, 0.08), style);
  ax.draw_grid();
  ax.clip();
  if (has_test)
    ax.line({0.5, static_cast<double>(loss.size()) + 0.5}, {f.r.test_loss, f.r.test_loss}, colours::orange, 2.5, 1,
            true);
  ax.line(epochs, loss, colours::blue, 3);
  c.colour(colours::blue);
  if (loss.size() <= 200)
    for (std::size_t i = 0; i < loss.size(); ++i)
      if (std::isfinite(loss[i])) dot(c, ax.px(epochs[i]), ax.py(loss[i]), 5);
  ax.unclip();
  ax.draw_frame("epoch", "loss (mean per beat)");
  std::vector<legend_entry> legend{{"training loss", colours::blue}};
  if (has_test) legend.push_back({"test loss after training", colours::orange, mark::dashed_line});
  draw_legend(c, ax.area().x + ax.area().w, legend);
  return true;
}

}  // namespace zeroflow::report::png
