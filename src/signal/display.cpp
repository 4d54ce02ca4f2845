#include "zeroflow/signal/display.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/decimate.hpp"

namespace zeroflow::signal {

namespace {

/// An array's elements on the host, in row-major order (the array is small: a reduction's output).
std::vector<float> host_floats(const array& a, stream_view stream) {
  if (!a.valid() || a.size() == 0) return {};
  const array flat = a.is_contiguous() ? a.reshape({a.size()}) : copy_to(a, a.where(), stream).reshape({a.size()});
  const array host = flat.where().host_accessible() ? flat : copy_to(flat, cpu_device, stream);
  if (host.where().is_cuda()) synchronize(stream);  // pinned or managed: wait for the GPU's writes
  const auto s = host.span<const float>();
  return {s.begin(), s.end()};
}

}  // namespace

std::int64_t overview_bucket(std::int64_t samples, std::int64_t budget) {
  ZF_EXPECTS(budget >= 1, "overview_bucket: budget must be >= 1, got ", budget);
  std::int64_t bucket = 1;
  while ((samples + bucket - 1) / bucket > budget) bucket *= 2;
  return bucket;
}

std::int64_t thumb_factor(std::int64_t rows, std::int64_t row_width, std::int64_t budget, std::int64_t min_width) {
  ZF_EXPECTS(row_width >= 1, "thumb_factor: row_width must be >= 1, got ", row_width);
  const std::int64_t target =
      std::clamp(rows > 0 ? budget / rows : row_width, std::min(min_width, row_width), row_width);
  std::int64_t k = (row_width + target - 1) / target;
  while (row_width % k != 0) ++k;
  return k;
}

std::vector<std::int64_t> display_rows(const std::vector<float>& row_score, std::int64_t top, std::int64_t others) {
  const auto n = static_cast<std::int64_t>(row_score.size());
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), std::int64_t{0});
  const auto higher = [&](std::int64_t a, std::int64_t b) {
    const float sa = row_score[static_cast<std::size_t>(a)], sb = row_score[static_cast<std::size_t>(b)];
    if (std::isnan(sa) != std::isnan(sb)) return std::isnan(sb);
    if (!std::isnan(sa) && sa != sb) return sa > sb;
    return a < b;
  };
  const std::int64_t n_top = std::clamp<std::int64_t>(top, 0, n);
  std::partial_sort(order.begin(), order.begin() + n_top, order.end(), higher);
  std::vector<std::int64_t> chosen(order.begin(), order.begin() + n_top);
  std::vector<std::int64_t> rest(order.begin() + n_top, order.end());
  std::sort(rest.begin(), rest.end());
  const auto m = static_cast<std::int64_t>(rest.size());
  if (m <= others) {
    chosen.insert(chosen.end(), rest.begin(), rest.end());
  } else {
    for (std::int64_t i = 0; i < others; ++i)  // the middle of each of `others` equal stretches
      chosen.push_back(rest[static_cast<std::size_t>((2 * i + 1) * m / (2 * others))]);
  }
  return chosen;
}

std::int64_t excerpt_start(const std::vector<std::int64_t>& gates, std::int64_t samples, std::int64_t length,
                           std::int64_t lead) {
  const std::int64_t latest = std::max<std::int64_t>(0, samples - length);
  const std::int64_t centre = latest / 2;
  const auto gate = std::lower_bound(gates.begin(), gates.end(), centre);
  const std::int64_t start = gate == gates.end() ? centre : *gate - lead;
  return std::clamp<std::int64_t>(start, 0, latest);
}

display_data reduce_for_display(const array& signal, const array& filtered, const array& rows,
                                const std::vector<float>& row_score, const std::vector<std::int64_t>& gates,
                                double sample_rate, stream_view stream, const display_sizes& sizes) {
  display_data d;
  const std::int64_t n = signal.size();

  // Overview: min/max buckets computed where the recording is; a viewer derives coarser levels.
  d.overview_bucket = overview_bucket(n, sizes.overview_budget);
  const auto minmax = host_floats(minmax_decimate(signal, d.overview_bucket, stream), stream);
  d.overview_min.resize(minmax.size() / 2);
  d.overview_max.resize(minmax.size() / 2);
  for (std::size_t b = 0; b < d.overview_min.size(); ++b) {
    d.overview_min[b] = minmax[2 * b];
    d.overview_max[b] = minmax[2 * b + 1];
  }

  // Excerpt: a few seconds of the signal and its band-pass response, starting just before a gate.
  const auto length = std::min<std::int64_t>(n, std::llround(sizes.excerpt_seconds * sample_rate));
  d.excerpt_start = excerpt_start(gates, n, length, std::llround(sizes.excerpt_lead_seconds * sample_rate));
  d.excerpt_signal = host_floats(signal.slice(0, d.excerpt_start, d.excerpt_start + length), stream);
  if (filtered.valid() && filtered.size() == n)
    d.excerpt_filtered = host_floats(filtered.slice(0, d.excerpt_start, d.excerpt_start + length), stream);

  const std::int64_t count = rows.valid() && rows.ndim() == 2 ? rows.shape(0) : 0;
  ZF_EXPECTS(count == static_cast<std::int64_t>(row_score.size()), "reduce_for_display: ", count, " rows but ",
             row_score.size(), " scores");
  if (count == 0) return d;
  const std::int64_t width = rows.shape(1);

  // Full rows of the chosen beats only (a few dozen rows, one small copy each).
  d.row_index = display_rows(row_score, sizes.top_rows, sizes.other_rows);
  for (const auto row : d.row_index) {
    const auto values = host_floats(rows.slice(0, row, row + 1), stream);
    d.rows.insert(d.rows.end(), values.begin(), values.end());
  }

  // Thumbnails of every row: the largest-magnitude sample of every k samples, reduced on the
  // device (peak-preserving: the R-peak survives where every k-th sample or a mean would miss or
  // flatten it).
  if (width > 0) {
    const std::int64_t k = thumb_factor(count, width, sizes.thumb_budget, sizes.min_thumb_width);
    d.thumb_width = width / k;
    const array all =
        rows.is_contiguous() ? rows.reshape({rows.size()}) : copy_to(rows, rows.where(), stream).reshape({rows.size()});
    d.thumbs = host_floats(absmax_decimate(all, k, stream), stream);
  }
  return d;
}

std::vector<std::vector<float>> excerpts(const array& signal, const std::vector<sample_window>& windows,
                                         stream_view stream) {
  ZF_EXPECTS(signal.ndim() == 1 && signal.type() == float32, "excerpts: expected a 1-D float32 signal");
  std::vector<std::vector<float>> out;
  out.reserve(windows.size());
  const std::int64_t n = signal.size();
  for (const auto& w : windows) {
    const std::int64_t begin = std::clamp<std::int64_t>(w.start, 0, n);
    const std::int64_t end = std::clamp<std::int64_t>(w.start + std::max<std::int64_t>(w.length, 0), begin, n);
    out.push_back(host_floats(signal.slice(0, begin, end), stream));
  }
  return out;
}

}  // namespace zeroflow::signal
