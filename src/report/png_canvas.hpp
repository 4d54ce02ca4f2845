#pragma once
// A cairo image and the pieces every PNG figure draws on it: title, axes with ticks and labels,
// legends, colours. One look for all figures: white background, dark text, restrained colours.
#include <cairo.h>

#include <filesystem>
#include <string>
#include <vector>

#include "png_axes.hpp"

namespace zeroflow::report::png {

struct rgb {
  double r, g, b;
};

/// The figures' colours (a muted qualitative palette and greys).
namespace colours {
inline constexpr rgb text{0.13, 0.13, 0.13};
inline constexpr rgb muted_text{0.40, 0.40, 0.40};
inline constexpr rgb axis{0.35, 0.35, 0.35};
inline constexpr rgb grid{0.90, 0.90, 0.90};
inline constexpr rgb blue{0.16, 0.40, 0.66};
inline constexpr rgb light_blue{0.62, 0.74, 0.87};
inline constexpr rgb red{0.78, 0.18, 0.16};
inline constexpr rgb orange{0.90, 0.50, 0.10};
inline constexpr rgb grey{0.62, 0.62, 0.62};
inline constexpr rgb light_grey{0.95, 0.95, 0.95};
}  // namespace colours

/// A colour of the sequential map for anomaly scores (pale blue → amber → dark red), t in [0, 1].
[[nodiscard]] rgb score_colour(double t);

enum class align { left, centre, right };
enum class baseline { top, middle, bottom };

/// A rectangle in pixels (y grows downwards).
struct box {
  double x = 0, y = 0, w = 0, h = 0;
};

/// An RGB image with a cairo context on it, white to begin with.
class canvas {
 public:
  static constexpr int default_width = 1600, default_height = 1000;
  explicit canvas(int width = default_width, int height = default_height);
  ~canvas();
  canvas(const canvas&) = delete;
  canvas& operator=(const canvas&) = delete;

  [[nodiscard]] cairo_t* cr() const { return cr_; }
  [[nodiscard]] int width() const { return width_; }
  [[nodiscard]] int height() const { return height_; }

  void colour(rgb c, double alpha = 1.0) const;
  /// Text in DejaVu Sans at `size` px; `angle` in radians (−π/2: reads bottom to top).
  void text(const std::string& s, double x, double y, double size, rgb c, align h = align::left,
            baseline v = baseline::bottom, bool bold = false, double angle = 0) const;
  [[nodiscard]] double text_width(const std::string& s, double size, bool bold = false) const;
  /// Figure title at the top left and an optional grey subtitle under it.
  void title(const std::string& title, const std::string& subtitle = {}) const;
  /// A centred "no data" note inside `b`.
  void no_data(const box& b, const std::string& what) const;

  /// @brief Encodes the image as PNG and writes it atomically.
  /// @throws zeroflow::error naming `path` when cairo or the file system fails
  void write_png(const std::filesystem::path& path) const;

 private:
  int width_, height_;
  cairo_surface_t* surface_;
  cairo_t* cr_;
};

/// The plot area of a full-size figure (room for title, tick labels and axis labels).
[[nodiscard]] box main_plot_box(const canvas& c);

/// Tick and label options of one set of axes.
struct axes_style {
  int max_x_ticks = 10, max_y_ticks = 8;
  bool x_tick_labels = true, y_tick_labels = true, grid = true;
  bool integer_x = false;  ///< ticks on whole numbers only (epochs)
  double tick_size = 22, label_size = 26;
};

/// Data-to-pixel mapping of a plot area, and the frame, grid, ticks and labels around it.
class axes {
 public:
  axes(const canvas& c, box area, range x, range y, axes_style style = {});
  [[nodiscard]] double px(double x) const { return area_.x + (x - x_.lo) / x_.span() * area_.w; }
  [[nodiscard]] double py(double y) const { return area_.y + area_.h - (y - y_.lo) / y_.span() * area_.h; }
  [[nodiscard]] const box& area() const { return area_; }
  [[nodiscard]] range x() const { return x_; }
  [[nodiscard]] range y() const { return y_; }

  /// Grid lines (under the data): call before drawing the data.
  void draw_grid() const;
  /// Frame, ticks, tick labels and axis labels (over the data).
  void draw_frame(const std::string& x_label, const std::string& y_label) const;
  /// Restricts drawing to the plot area until unclip().
  void clip() const;
  void unclip() const;
  /// A polyline through (xs[i], ys[i]), skipping non-finite points (they break the line).
  void line(const std::vector<double>& xs, const std::vector<double>& ys, rgb c, double width, double alpha = 1.0,
            bool dashed = false) const;
  /// A vertical line at data x across the plot area.
  void vline(double x, rgb c, double width, bool dashed, double alpha = 1.0) const;

 private:
  const canvas& canvas_;
  box area_;
  range x_, y_;
  axes_style style_;
  ticks x_ticks_, y_ticks_;
};

/// How a legend entry is drawn.
enum class mark { line, dashed_line, dot, ring, band, triangle };
struct legend_entry {
  std::string label;
  rgb colour;
  mark kind = mark::line;
};
/// A one-row legend between the subtitle and the plot, ending at x = `right` (the plot's right
/// edge): outside the plot, so it never hides data.
void draw_legend(const canvas& c, double right, const std::vector<legend_entry>& entries);

/// Marker shapes at pixel positions.
void dot(const canvas& c, double x, double y, double radius);
void triangle_down(const canvas& c, double x, double y, double size);

}  // namespace zeroflow::report::png
