// A minimal self-contained report: inline SVG figures, no scripts fetched from anywhere.
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <numeric>
#include <sstream>

#include <nlohmann/json.hpp>

#include "zeroflow/io/atomic_file.hpp"
#include "zeroflow/report/outputs.hpp"

namespace zeroflow::report {

namespace {

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

/// Maps data ranges onto an SVG box with margins for the axes.
struct plot_box {
  double width = 520, height = 300, left = 56, right = 12, top = 28, bottom = 40;
  double x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  [[nodiscard]] double x(double v) const { return left + (v - x0) / (x1 - x0) * (width - left - right); }
  [[nodiscard]] double y(double v) const { return height - bottom - (v - y0) / (y1 - y0) * (height - top - bottom); }
};

void open_svg(std::ostream& out, const plot_box& b, const std::string& title, const std::string& xlabel,
              const std::string& ylabel) {
  out << "<svg viewBox='0 0 " << b.width << ' ' << b.height << "' width='" << b.width << "' height='" << b.height
      << "' role='img'><title>" << escape(title) << "</title>"
      << "<text x='" << b.width / 2 << "' y='16' class='t'>" << escape(title) << "</text>"
      << "<rect x='" << b.left << "' y='" << b.top << "' width='" << b.width - b.left - b.right << "' height='"
      << b.height - b.top - b.bottom << "' class='frame'/>";
  out << std::setprecision(4);
  for (int i = 0; i <= 4; ++i) {
    const double vx = b.x0 + (b.x1 - b.x0) * i / 4, vy = b.y0 + (b.y1 - b.y0) * i / 4;
    out << "<text x='" << b.x(vx) << "' y='" << b.height - b.bottom + 14 << "' class='tick'>" << vx << "</text>";
    out << "<text x='" << b.left - 4 << "' y='" << b.y(vy) + 3 << "' class='tick r'>" << vy << "</text>";
  }
  out << "<text x='" << (b.left + b.width - b.right) / 2 << "' y='" << b.height - 6 << "' class='lab'>"
      << escape(xlabel) << "</text><text transform='translate(12," << (b.top + b.height - b.bottom) / 2
      << ") rotate(-90)' class='lab'>" << escape(ylabel) << "</text>";
}

void polyline(std::ostream& out, const plot_box& b, const std::vector<double>& xs, const std::vector<double>& ys,
              const char* cls) {
  out << "<polyline class='" << cls << "' points='";
  for (std::size_t i = 0; i < xs.size(); ++i) out << b.x(xs[i]) << ',' << b.y(ys[i]) << ' ';
  out << "'/>";
}

std::pair<double, double> finite_range(const std::vector<float>& v) {
  double lo = INFINITY, hi = -INFINITY;
  for (float f : v)
    if (std::isfinite(f)) lo = std::min<double>(lo, f), hi = std::max<double>(hi, f);
  if (!(lo < hi)) lo = lo - 1, hi = lo + 2;
  return {lo, hi};
}

std::string score_colour(double t) {  // 0 = calm blue, 1 = alarm red
  const int r = static_cast<int>(40 + 215 * t), g = static_cast<int>(90 + 40 * (1 - t)),
            bl = static_cast<int>(200 * (1 - t) + 30);
  std::ostringstream s;
  s << "rgb(" << r << ',' << g << ',' << bl << ')';
  return s.str();
}

}  // namespace

void write_report_html(const pipeline::run_result& r, const pipeline::run_options& options,
                       const std::filesystem::path& path) {
  std::ostringstream html;
  html << std::fixed;
  const auto summary = summary_json(r, options);
  html << "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>zeroflow report: "
       << escape(r.input) << "</title><style>"
       << "body{font:14px system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}"
       << "h1{font-size:20px}h2{font-size:16px;margin-top:28px}table{border-collapse:collapse}"
       << "td,th{padding:3px 10px;border-bottom:1px solid #ddd;text-align:right}th{text-align:left}"
       << "svg{background:#fff;margin:6px}.frame{fill:none;stroke:#999}.t{font-size:13px;text-anchor:middle}"
       << ".tick{font-size:10px;text-anchor:middle;fill:#555}.r{text-anchor:end}.lab{font-size:11px;text-anchor:middle}"
       << ".line{fill:none;stroke:#1f6fb4;stroke-width:1.5}.line2{fill:none;stroke:#d24;stroke-width:1.5}"
       << ".bar{fill:#1f6fb4}.bound{stroke:#d24;stroke-dasharray:4 3}.figs{display:flex;flex-wrap:wrap}"
       << "</style></head><body>";
  html << "<h1>zeroflow — ECG outlier report</h1><p>" << escape(r.input) << " · " << r.samples << " samples at "
       << std::setprecision(0) << r.sample_rate << " Hz (" << std::setprecision(1)
       << static_cast<double>(r.samples) / r.sample_rate / 60.0 << " min) · device " << r.where.name() << "</p>";

  // Key figures.
  html << "<table><tr><th>beats found</th><td>" << r.length.size() << "</td></tr><tr><th>beats kept</th><td>"
       << r.beats_kept() << "</td></tr>";
  if (r.trained)
    html << "<tr><th>test loss</th><td>" << std::setprecision(4) << r.test_loss << "</td></tr>";
  if (r.quality) {
    const auto& q = *r.quality;
    html << std::setprecision(2) << "<tr><th>beat sensitivity</th><td>" << 100 * q.sensitivity
         << " %</td></tr><tr><th>positive predictivity</th><td>" << 100 * q.positive_predictivity
         << " %</td></tr><tr><th>anomaly AUROC</th><td>" << std::setprecision(3) << q.auroc
         << "</td></tr><tr><th>average precision</th><td>" << q.average_precision << "</td></tr>";
  }
  html << "</table><div class='figs'>";

  // Training loss per epoch.
  if (!r.epoch_loss.empty()) {
    plot_box b;
    b.x0 = 1, b.x1 = std::max<double>(2, static_cast<double>(r.epoch_loss.size()));
    b.y0 = 0, b.y1 = *std::max_element(r.epoch_loss.begin(), r.epoch_loss.end()) * 1.05;
    open_svg(html, b, "Training loss per epoch", "epoch", "loss (per beat)");
    std::vector<double> xs(r.epoch_loss.size());
    std::iota(xs.begin(), xs.end(), 1.0);
    polyline(html, b, xs, r.epoch_loss, "line");
    html << "</svg>";
  }

  // Beat-length histogram with the pruning bounds.
  if (!r.histogram.empty()) {
    plot_box b;
    const auto bins = static_cast<double>(r.histogram.size());
    b.x0 = 0, b.x1 = bins / r.sample_rate;
    b.y0 = 0, b.y1 = static_cast<double>(*std::max_element(r.histogram.begin(), r.histogram.end())) * 1.05 + 1;
    open_svg(html, b, "Beat lengths (pruning bounds dashed)", "beat length (s)", "beats");
    for (std::size_t i = 0; i < r.histogram.size(); ++i) {
      if (r.histogram[i] == 0) continue;
      const double x = static_cast<double>(i) / r.sample_rate;
      html << "<rect class='bar' x='" << b.x(x) << "' y='" << b.y(static_cast<double>(r.histogram[i]))
           << "' width='" << std::max(1.0, b.x(x + 1 / r.sample_rate) - b.x(x)) << "' height='"
           << b.y(0) - b.y(static_cast<double>(r.histogram[i])) << "'/>";
    }
    for (auto bound : {r.sizes.min_length, r.sizes.max_length}) {
      const double x = b.x(static_cast<double>(bound) / r.sample_rate);
      html << "<line class='bound' x1='" << x << "' x2='" << x << "' y1='" << b.top << "' y2='" << b.y(0) << "'/>";
    }
    html << "</svg>";
  }

  // Latent means, coloured by anomaly score; test beats drawn as rings.
  {
    plot_box b;
    std::tie(b.x0, b.x1) = finite_range(r.mu0);
    std::tie(b.y0, b.y1) = finite_range(r.mu1);
    const auto [s0, s1] = finite_range(r.score);
    open_svg(html, b, "Latent means μ (colour: anomaly score; rings: test beats)", "μ0", "μ1");
    for (std::size_t c = 0; c < r.mu0.size(); ++c) {
      if (!std::isfinite(r.mu0[c])) continue;
      const double t = std::clamp((std::log1p(r.score[c] - s0) / std::log1p(s1 - s0)), 0.0, 1.0);
      const auto colour = score_colour(t);
      html << "<circle cx='" << b.x(r.mu0[c]) << "' cy='" << b.y(r.mu1[c]) << "' r='2' "
           << (r.split[c] == 'v' ? "fill='none' stroke='" : "fill='") << colour << "'><title>beat " << c << " at "
           << std::setprecision(2) << static_cast<double>(r.peak[c]) / r.sample_rate << " s, score "
           << std::setprecision(4) << r.score[c] << "</title></circle>";
    }
    html << "</svg>";
  }

  // 5×5 grid of beats decoded from a latent grid.
  if (!r.decoded_grid.empty()) {
    const auto w = static_cast<std::size_t>(r.sizes.row_width);
    const std::size_t n = 5;
    html << "<svg viewBox='0 0 520 320' width='520' height='320'><text x='260' y='16' class='t'>Beats decoded from a "
            "5×5 latent grid (μ ∈ [−2, 2]²)</text>";
    const auto [lo, hi] = finite_range(r.decoded_grid);
    for (std::size_t i = 0; i < n * n && (i + 1) * w <= r.decoded_grid.size(); ++i) {
      const double cx = 10 + static_cast<double>(i % n) * 101, cy = 26 + static_cast<double>(i / n) * 58;
      html << "<rect x='" << cx << "' y='" << cy << "' width='98' height='55' class='frame'/><polyline class='line' points='";
      for (std::size_t t = 0; t < w; ++t)
        html << cx + 98.0 * static_cast<double>(t) / static_cast<double>(w - 1) << ','
             << cy + 53 - 51 * (r.decoded_grid[i * w + t] - lo) / (hi - lo) << ' ';
      html << "'/>";
    }
    html << "</svg>";
  }
  html << "</div>";

  // The most anomalous beats.
  std::vector<std::size_t> order;
  for (std::size_t c = 0; c < r.score.size(); ++c)
    if (std::isfinite(r.score[c])) order.push_back(c);
  const std::size_t top = std::min<std::size_t>(25, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top), order.end(),
                    [&](auto a, auto b) { return r.score[a] > r.score[b]; });
  html << "<h2>Most anomalous beats</h2><table><tr><th>rank</th><th>beat</th><th>time</th><th>score</th>"
          "<th>length (s)</th><th>split</th></tr>";
  for (std::size_t i = 0; i < top; ++i) {
    const auto c = order[i];
    const double seconds = static_cast<double>(r.peak[c]) / r.sample_rate;
    const auto h = static_cast<long>(seconds / 3600), m = static_cast<long>(std::fmod(seconds, 3600) / 60);
    html << "<tr><td>" << i + 1 << "</td><td>" << c << "</td><td>" << h << ':' << std::setw(2) << std::setfill('0')
         << m << ':' << std::setw(6) << std::setprecision(3) << std::fmod(seconds, 60) << std::setfill(' ')
         << "</td><td>" << std::setprecision(4) << r.score[c] << "</td><td>" << std::setprecision(3)
         << static_cast<double>(r.length[c]) / r.sample_rate << "</td><td>"
         << (r.split[c] == 't' ? "train" : r.split[c] == 'v' ? "test" : "-") << "</td></tr>";
  }
  html << "</table>";

  // Stage timings and the run's parameters.
  html << "<h2>Stages</h2><table><tr><th>stage</th><th>ms</th></tr>";
  for (const auto& s : r.stages) html << "<tr><th>" << escape(s.name) << "</th><td>" << std::setprecision(1)
                                     << s.milliseconds << "</td></tr>";
  html << "<tr><th>peak host memory</th><td>" << std::setprecision(1) << static_cast<double>(r.peak_host_bytes) / 1e6
       << " MB</td></tr><tr><th>peak device memory</th><td>" << static_cast<double>(r.peak_device_bytes) / 1e6
       << " MB</td></tr></table>";
  html << "<h2>Summary</h2><pre id='summary'>" << escape(summary.dump(2)) << "</pre></body></html>\n";

  const auto text = html.str();
  io::write_atomically(path, [&](std::ostream& out) { out << text; });
}

}  // namespace zeroflow::report
