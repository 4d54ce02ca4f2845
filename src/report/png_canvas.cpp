#include "png_canvas.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <ostream>

#include "zeroflow/core/error.hpp"
#include "zeroflow/io/atomic_file.hpp"

namespace zeroflow::report::png {

namespace {

constexpr const char* font = "DejaVu Sans";

void select_font(cairo_t* cr, double size, bool bold) {
  cairo_select_font_face(cr, font, CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
}

// Pixel-exact 1 px lines: cairo centres strokes on the coordinate, so odd widths need a half pixel.
double crisp(double v) { return std::floor(v) + 0.5; }

cairo_status_t write_to_stream(void* closure, const unsigned char* data, unsigned int length) {
  auto& out = *static_cast<std::ostream*>(closure);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(length));
  return out ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

}  // namespace

rgb score_colour(double t) {
  // Pale blue (typical) → amber → dark red (anomalous): the beats that matter stand out on white.
  static constexpr std::array<rgb, 4> stops{
      {{0.62, 0.74, 0.87}, {0.98, 0.74, 0.33}, {0.88, 0.32, 0.14}, {0.55, 0.0, 0.05}}};
  t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0) * (stops.size() - 1);
  const auto i = std::min<std::size_t>(static_cast<std::size_t>(t), stops.size() - 2);
  const double f = t - static_cast<double>(i);
  const auto& a = stops[i];
  const auto& b = stops[i + 1];
  return {a.r + f * (b.r - a.r), a.g + f * (b.g - a.g), a.b + f * (b.b - a.b)};
}

canvas::canvas(int width, int height)
    : width_(width),
      height_(height),
      surface_(cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height)),
      cr_(cairo_create(surface_)) {
  if (cairo_status(cr_) != CAIRO_STATUS_SUCCESS) {
    const auto* why = cairo_status_to_string(cairo_status(cr_));
    cairo_destroy(cr_);
    cairo_surface_destroy(surface_);
    ZF_THROW(error, "cannot create a ", width, "x", height, " cairo image: ", why);
  }
  cairo_set_source_rgb(cr_, 1, 1, 1);
  cairo_paint(cr_);
  cairo_set_line_join(cr_, CAIRO_LINE_JOIN_ROUND);
  cairo_set_line_cap(cr_, CAIRO_LINE_CAP_BUTT);
}

canvas::~canvas() {
  cairo_destroy(cr_);
  cairo_surface_destroy(surface_);
}

void canvas::colour(rgb c, double alpha) const { cairo_set_source_rgba(cr_, c.r, c.g, c.b, alpha); }

void canvas::text(const std::string& s, double x, double y, double size, rgb c, align h, baseline v, bool bold,
                  double angle) const {
  select_font(cr_, size, bold);
  cairo_text_extents_t ext;
  cairo_text_extents(cr_, s.c_str(), &ext);
  const double dx = h == align::left ? 0 : h == align::centre ? -ext.x_advance / 2 : -ext.x_advance;
  // From DejaVu Sans' cap height (0.73 em), not the string's ink, so the labels of a row line up.
  const double dy = v == baseline::bottom ? 0 : v == baseline::top ? 0.73 * size : 0.365 * size;
  cairo_save(cr_);
  cairo_translate(cr_, x, y);
  cairo_rotate(cr_, angle);
  cairo_move_to(cr_, dx, dy);
  colour(c);
  cairo_show_text(cr_, s.c_str());
  cairo_restore(cr_);
}

double canvas::text_width(const std::string& s, double size, bool bold) const {
  select_font(cr_, size, bold);
  cairo_text_extents_t ext;
  cairo_text_extents(cr_, s.c_str(), &ext);
  return ext.x_advance;
}

void canvas::title(const std::string& title, const std::string& subtitle) const {
  text(title, 60, 24, 34, colours::text, align::left, baseline::top, true);
  if (!subtitle.empty()) text(subtitle, 60, 70, 22, colours::muted_text, align::left, baseline::top);
}

void canvas::no_data(const box& b, const std::string& what) const {
  colour(colours::light_grey);
  cairo_rectangle(cr_, b.x, b.y, b.w, b.h);
  cairo_fill(cr_);
  text("no data: " + what, b.x + b.w / 2, b.y + b.h / 2, 26, colours::muted_text, align::centre, baseline::middle);
}

void canvas::write_png(const std::filesystem::path& path) const {
  cairo_surface_flush(surface_);
  io::write_atomically(path, [&](std::ostream& out) {
    const auto status = cairo_surface_write_to_png_stream(surface_, write_to_stream, &out);
    if (status != CAIRO_STATUS_SUCCESS)
      ZF_THROW(error, "cannot write ", path.string(), ": ", cairo_status_to_string(status));
  });
}

box main_plot_box(const canvas& c) {
  return {150, 130, static_cast<double>(c.width()) - 150 - 60, static_cast<double>(c.height()) - 130 - 120};
}

axes::axes(const canvas& c, box area, range x, range y, axes_style style)
    : canvas_(c), area_(area), x_(x), y_(y), style_(style) {
  ZF_EXPECTS(x.lo < x.hi && y.lo < y.hi, "axes need non-empty ranges");
  x_ticks_ = style.integer_x ? integer_ticks(x.lo, x.hi, style.max_x_ticks) : nice_ticks(x.lo, x.hi, style.max_x_ticks);
  y_ticks_ = nice_ticks(y.lo, y.hi, style.max_y_ticks);
}

void axes::draw_grid() const {
  if (!style_.grid) return;
  auto* cr = canvas_.cr();
  cairo_save(cr);
  canvas_.colour(colours::grid);
  cairo_set_line_width(cr, 1);
  for (double v : x_ticks_.values) {
    cairo_move_to(cr, crisp(px(v)), area_.y);
    cairo_line_to(cr, crisp(px(v)), area_.y + area_.h);
  }
  for (double v : y_ticks_.values) {
    cairo_move_to(cr, area_.x, crisp(py(v)));
    cairo_line_to(cr, area_.x + area_.w, crisp(py(v)));
  }
  cairo_stroke(cr);
  cairo_restore(cr);
}

void axes::draw_frame(const std::string& x_label, const std::string& y_label) const {
  auto* cr = canvas_.cr();
  cairo_save(cr);
  canvas_.colour(colours::axis);
  cairo_set_line_width(cr, 1.5);
  cairo_rectangle(cr, area_.x, area_.y, area_.w, area_.h);
  cairo_stroke(cr);
  cairo_set_line_width(cr, 1.5);
  const double tick = 8;
  for (double v : x_ticks_.values) {
    cairo_move_to(cr, px(v), area_.y + area_.h);
    cairo_line_to(cr, px(v), area_.y + area_.h + tick);
  }
  for (double v : y_ticks_.values) {
    cairo_move_to(cr, area_.x, py(v));
    cairo_line_to(cr, area_.x - tick, py(v));
  }
  cairo_stroke(cr);
  cairo_restore(cr);
  double widest = 0;
  if (style_.x_tick_labels)
    for (double v : x_ticks_.values)
      canvas_.text(format_tick(v, x_ticks_.decimals), px(v), area_.y + area_.h + tick + 4, style_.tick_size,
                   colours::text, align::centre, baseline::top);
  if (style_.y_tick_labels)
    for (double v : y_ticks_.values) {
      const auto label = format_tick(v, y_ticks_.decimals);
      widest = std::max(widest, canvas_.text_width(label, style_.tick_size));
      canvas_.text(label, area_.x - tick - 6, py(v), style_.tick_size, colours::text, align::right, baseline::middle);
    }
  if (!x_label.empty())
    canvas_.text(x_label, area_.x + area_.w / 2,
                 area_.y + area_.h + tick + (style_.x_tick_labels ? style_.tick_size + 18 : 10), style_.label_size,
                 colours::text, align::centre, baseline::top);
  if (!y_label.empty())
    canvas_.text(y_label, area_.x - tick - 16 - widest - style_.label_size * 0.3, area_.y + area_.h / 2,
                 style_.label_size, colours::text, align::centre, baseline::bottom, false, -std::numbers::pi / 2);
}

void axes::clip() const {
  cairo_save(canvas_.cr());
  cairo_rectangle(canvas_.cr(), area_.x, area_.y, area_.w, area_.h);
  cairo_clip(canvas_.cr());
}

void axes::unclip() const { cairo_restore(canvas_.cr()); }

void axes::line(const std::vector<double>& xs, const std::vector<double>& ys, rgb c, double width, double alpha,
                bool dashed) const {
  auto* cr = canvas_.cr();
  cairo_save(cr);
  canvas_.colour(c, alpha);
  cairo_set_line_width(cr, width);
  if (dashed) {
    const double dash[] = {10, 7};
    cairo_set_dash(cr, dash, 2, 0);
  }
  bool pen_down = false;
  for (std::size_t i = 0; i < std::min(xs.size(), ys.size()); ++i) {
    if (!std::isfinite(xs[i]) || !std::isfinite(ys[i])) {
      pen_down = false;
      continue;
    }
    if (pen_down)
      cairo_line_to(cr, px(xs[i]), py(ys[i]));
    else
      cairo_move_to(cr, px(xs[i]), py(ys[i]));
    pen_down = true;
  }
  cairo_stroke(cr);
  cairo_restore(cr);
}

void axes::vline(double x, rgb c, double width, bool dashed, double alpha) const {
  line({x, x}, {y_.lo, y_.hi}, c, width, alpha, dashed);
}

void draw_legend(const canvas& c, double right, const std::vector<legend_entry>& entries) {
  constexpr double size = 22, swatch = 36, spacing = 34, y = 108;
  double width = 0;
  for (const auto& e : entries) width += swatch + 10 + c.text_width(e.label, size) + spacing;
  double x = right - (width - spacing);
  auto* cr = c.cr();
  cairo_save(cr);
  for (const auto& e : entries) {
    c.colour(e.colour);
    cairo_set_dash(cr, nullptr, 0, 0);
    cairo_new_path(cr);  // the previous label left cairo's current point at its end
    switch (e.kind) {
      case mark::dashed_line: {
        const double dash[] = {8, 5};
        cairo_set_dash(cr, dash, 2, 0);
      }
        [[fallthrough]];
      case mark::line:
        cairo_set_line_width(cr, 3);
        cairo_move_to(cr, x, y);
        cairo_line_to(cr, x + swatch, y);
        cairo_stroke(cr);
        break;
      case mark::dot:
        dot(c, x + swatch / 2, y, 7);
        break;
      case mark::ring:
        cairo_set_line_width(cr, 2.5);
        cairo_arc(cr, x + swatch / 2, y, 7, 0, 2 * std::numbers::pi);
        cairo_stroke(cr);
        break;
      case mark::band:
        cairo_rectangle(cr, x, y - 9, swatch, 18);
        cairo_fill(cr);
        break;
      case mark::triangle:
        triangle_down(c, x + swatch / 2, y - 7, 16);
        break;
    }
    c.text(e.label, x + swatch + 10, y, size, colours::text, align::left, baseline::middle);
    x += swatch + 10 + c.text_width(e.label, size) + spacing;
  }
  cairo_restore(cr);
}

void dot(const canvas& c, double x, double y, double radius) {
  cairo_new_sub_path(c.cr());
  cairo_arc(c.cr(), x, y, radius, 0, 2 * std::numbers::pi);
  cairo_fill(c.cr());
}

void triangle_down(const canvas& c, double x, double y, double size) {
  auto* cr = c.cr();
  cairo_move_to(cr, x - size / 2, y);
  cairo_line_to(cr, x + size / 2, y);
  cairo_line_to(cr, x, y + size * 0.85);
  cairo_close_path(cr);
  cairo_fill(cr);
}

}  // namespace zeroflow::report::png
