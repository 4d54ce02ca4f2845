#pragma once
// The PNG figures, one drawing function each; write_png_figures (png_figures.cpp) runs them.
#include <cstddef>
#include <string>
#include <vector>

#include "png_canvas.hpp"
#include "zeroflow/pipeline/run_types.hpp"

namespace zeroflow::report::png {

/// How many of the most anomalous beats the figures mark (the HTML report's top table too).
inline constexpr std::size_t top_count = 25;

/// What the figures share, computed once.
struct figure_context {
  const pipeline::run_result& r;
  double rate = 0;               ///< samples per second (> 0)
  std::string amplitude_unit;    ///< "mV" or "raw units"
  std::string about;             ///< "file.csv · 12.0 min at 250 Hz", the start of every subtitle
  std::vector<std::size_t> top;  ///< kept, scored candidates by descending score, at most top_count
};

// Each draws its figure on a fresh canvas and returns false, drawing nothing, when the run has
// no data for it.
bool draw_overview(const canvas& c, const figure_context& f);
bool draw_excerpt(const canvas& c, const figure_context& f);
bool draw_lengths(const canvas& c, const figure_context& f);
bool draw_beats(const canvas& c, const figure_context& f);
bool draw_latent(const canvas& c, const figure_context& f);
bool draw_decoded_grid(const canvas& c, const figure_context& f);
bool draw_anomalies(const canvas& c, const figure_context& f);
bool draw_loss(const canvas& c, const figure_context& f);

}  // namespace zeroflow::report::png
