// write_png_figures: the shared context, then one PNG per figure that has data.
#include "zeroflow/report/png_figures.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "png_figures_detail.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::report {

namespace {

std::string amplitude_unit(const pipeline::run_options& options) {
  // A CSV says nothing about units; a column named like "ecg_mV" or "MLII (mv)" does.
  std::string name = options.lead;
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char ch) { return std::tolower(ch); });
  return name.find("mv") != std::string::npos ? "mV" : "raw units";
}

std::string describe(const pipeline::run_result& r, double rate) {
  const double seconds = static_cast<double>(r.samples) / rate;
  const auto unit = png::time_unit_for(seconds);
  char text[128];
  std::snprintf(text, sizeof text, " · %.1f %s at %g Hz", seconds / unit.seconds, unit.name, rate);
  return std::filesystem::path(r.input).filename().string() + text;
}

std::vector<std::size_t> most_anomalous(const pipeline::run_result& r) {
  std::vector<std::size_t> order;
  const auto n = std::min({r.score.size(), r.kept.size(), r.peak.size()});
  for (std::size_t c = 0; c < n; ++c)
    if (r.kept[c] && std::isfinite(r.score[c])) order.push_back(c);
  const auto top = std::min(png::top_count, order.size());
  // Ties by beat order, so the figures do not depend on the sort's whims.
  std::partial_sort(
      order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top), order.end(),
      [&](std::size_t a, std::size_t b) { return r.score[a] > r.score[b] || (r.score[a] == r.score[b] && a < b); });
  order.resize(top);
  return order;
}

struct figure {
  const char* file;
  bool (*draw)(const png::canvas&, const png::figure_context&);
};

constexpr figure figures[] = {
    {"overview.png", png::draw_overview},   {"excerpt.png", png::draw_excerpt},
    {"lengths.png", png::draw_lengths},     {"beats.png", png::draw_beats},
    {"latent.png", png::draw_latent},       {"decoded_grid.png", png::draw_decoded_grid},
    {"anomalies.png", png::draw_anomalies}, {"loss.png", png::draw_loss},
};

}  // namespace

std::vector<std::filesystem::path> write_png_figures(const pipeline::run_result& result,
                                                     const pipeline::run_options& options,
                                                     const std::filesystem::path& folder) {
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec || !std::filesystem::is_directory(folder))
    ZF_THROW(error, "cannot create the figures folder ", folder.string(), ": ",
             ec ? ec.message() : std::string("not a folder"));
  const double rate = result.sample_rate > 0 ? result.sample_rate : options.segmentation.sample_rate;
  ZF_EXPECTS(std::isfinite(rate) && rate > 0, "write_png_figures needs a positive sample rate, got ", rate);
  const png::figure_context context{result, rate, amplitude_unit(options), describe(result, rate),
                                    most_anomalous(result)};
  std::vector<std::filesystem::path> written;
  for (const auto& f : figures) {
    const auto path = folder / f.file;
    png::canvas canvas;
    if (f.draw(canvas, context)) {
      canvas.write_png(path);
      written.push_back(path);
    } else {
      std::filesystem::remove(path, ec);  // an earlier run's figure must not pass for this run's
    }
  }
  return written;
}

}  // namespace zeroflow::report
