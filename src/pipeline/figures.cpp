#include "figures.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/decimate.hpp"

namespace zeroflow::pipeline::detail {

namespace {

/// A contiguous float32 array's elements on the host (the array is small: a reduction's output).
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

std::int64_t thumb_factor(std::int64_t kept, std::int64_t row_width, std::int64_t budget) {
  ZF_EXPECTS(row_width >= 1, "thumb_factor: row_width must be >= 1, got ", row_width);
  const std::int64_t target =
      std::clamp(kept > 0 ? budget / kept : row_width, std::min(min_thumb_width, row_width), row_width);
  std::int64_t k = (row_width + target - 1) / target;
  while (row_width % k != 0) ++k;
  return k;
}

std::vector<std::int64_t> figure_rows(const std::vector<float>& row_score, std::int64_t top, std::int64_t others) {
  const auto n = static_cast<std::int64_t>(row_score.size());
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), std::int64_t{0});
  const auto higher = [&](std::int64_t a, std::int64_t b) {
    const float sa = row_score[static_cast<std::size_t>(a)], sb = row_score[static_cast<std::size_t>(b)];
    if (std::isnan(sa) != std::isnan(sb)) return std::isnan(sb);
    if (!std::isnan(sa) && sa != sb) return sa > sb;
    return a < b;
  };
  const std::int64_t n_top = std::min(top, n);
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

figure_data collect_figures(const array& signal, const array& filtered, const array& rows, const run_result& r,
                            stream_view stream) {
  figure_data f;
  const std::int64_t n = signal.size();

  // Overview: min/max buckets computed where the recording is; the report derives coarser levels.
  f.overview_bucket = overview_bucket(n);
  const auto minmax = host_floats(signal::minmax_decimate(signal, f.overview_bucket, stream), stream);
  f.overview_min.resize(minmax.size() / 2);
  f.overview_max.resize(minmax.size() / 2);
  for (std::size_t b = 0; b < f.overview_min.size(); ++b) {
    f.overview_min[b] = minmax[2 * b];
    f.overview_max[b] = minmax[2 * b + 1];
  }

  // Excerpt: ~10 s of the signal and its band-pass response, starting just before a gate.
  const auto length = std::min<std::int64_t>(n, std::llround(excerpt_seconds * r.sample_rate));
  f.excerpt_start = excerpt_start(r.start, n, length, std::llround(excerpt_lead_seconds * r.sample_rate));
  f.excerpt_signal = host_floats(signal.slice(0, f.excerpt_start, f.excerpt_start + length), stream);
  if (filtered.valid() && filtered.size() == n)
    f.excerpt_filtered = host_floats(filtered.slice(0, f.excerpt_start, f.excerpt_start + length), stream);

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
  if (kept == 0) return f;
  const std::int64_t width = rows.shape(1);

  // Full rows of the selected beats only (a few dozen rows, one small copy each).
  for (const auto row : figure_rows(row_score, top_rows, other_rows)) {
    f.row_beats.push_back(row_candidate[static_cast<std::size_t>(row)]);
    const auto values = host_floats(rows.slice(0, row, row + 1), stream);
    f.rows.insert(f.rows.end(), values.begin(), values.end());
  }

  // Thumbnails of every kept beat: the largest-magnitude sample of every k samples of each row,
  // reduced on the device (peak-preserving: the R-peak survives where every k-th sample or a
  // mean would miss or flatten it).
  if (width > 0) {
    const std::int64_t k = thumb_factor(kept, width);
    f.thumb_width = width / k;
    const array all = rows.is_contiguous() ? rows.reshape({rows.size()}) : copy_to(rows, rows.where(), stream).reshape({rows.size()});
    f.thumbs = host_floats(signal::absmax_decimate(all, k, stream), stream);
  }
  return f;
}

}  // namespace zeroflow::pipeline::detail
