#include "zeroflow/signal/normalize.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include "checks.hpp"
#include "zeroflow/core/detail/parallel_chunks.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/signal/detail/normalize.hpp"

namespace zeroflow::signal {

normalization robust_zscore(const array& signal, stream_view stream) {
  detail::expect_1d(signal, "robust_zscore: signal", {float32});
  ZF_EXPECTS(signal.size() > 0, "robust_zscore: the signal is empty");
  if (detail::on_cuda(signal))
    return detail::robust_zscore_cuda(detail::cuda_input(signal, "robust_zscore: signal"), stream);
  return detail::robust_zscore_host(detail::host_input(signal, stream), stream);
}

namespace detail {

float robust_scale(double mad, double stddev) {
  for (double candidate : {1.4826 * mad, stddev}) {
    const auto f = static_cast<float>(candidate);
    if (std::isfinite(f) && f > 0) return f;
  }
  return 1.0f;
}

namespace {

// Samples are summed in fixed blocks whose partial sums are added in order, so the result does
// not depend on how many threads ran.
constexpr std::int64_t sum_block = std::int64_t{1} << 16;

// Order-preserving map of a float to an unsigned key: negative floats have their bits flipped,
// non-negative ones their sign bit set, so key order is numeric order (and -0 < +0).
std::uint32_t ordered_key(float v) {
  const auto bits = std::bit_cast<std::uint32_t>(v);
  return (bits & 0x8000'0000u) ? ~bits : bits | 0x8000'0000u;
}

// The values of ranks `lo` and `hi` (0-based, lo <= hi <= lo + 1) among value(x[i]) over the
// finite samples x[i], exactly. A histogram of the top 16 bits of the ordered keys finds the
// buckets that hold the two ranks; only the samples in those buckets (usually a few percent of
// the recording) are gathered and partially sorted. Two parallel passes over the signal instead
// of nth_element on a copy of all of it.
template <class Value>
std::pair<float, float> select_ranks(const float* x, std::int64_t n, std::int64_t lo, std::int64_t hi, Value value) {
  constexpr std::size_t buckets = std::size_t{1} << 16;
  constexpr std::int64_t min_chunk = std::int64_t{1} << 18;
  std::vector<std::int64_t> counts(buckets, 0);
  std::mutex merge;
  zeroflow::detail::parallel_chunks(n, min_chunk, [&](std::int64_t begin, std::int64_t end) {
    std::vector<std::int64_t> local(buckets, 0);
    for (std::int64_t i = begin; i < end; ++i)
      if (std::isfinite(x[i])) ++local[ordered_key(value(x[i])) >> 16];
    std::lock_guard lock(merge);
    for (std::size_t b = 0; b < buckets; ++b) counts[b] += local[b];
  });
  // Buckets first..last hold ranks lo..hi; `below` samples lie in earlier buckets.
  std::uint32_t first = 0;
  std::int64_t below = 0;
  while (below + counts[first] <= lo) below += counts[first++];
  std::uint32_t last = first;
  for (std::int64_t seen = below + counts[first]; seen <= hi;) seen += counts[++last];

  std::vector<float> gathered;
  zeroflow::detail::parallel_chunks(n, min_chunk, [&](std::int64_t begin, std::int64_t end) {
    std::vector<float> local;
    for (std::int64_t i = begin; i < end; ++i) {
      if (!std::isfinite(x[i])) continue;
      const float v = value(x[i]);
      const std::uint32_t b = ordered_key(v) >> 16;
      if (first <= b && b <= last) local.push_back(v);
    }
    std::lock_guard lock(merge);
    gathered.insert(gathered.end(), local.begin(), local.end());
  });
  const auto at = [&](std::int64_t rank) { return gathered.begin() + (rank - below); };
  std::nth_element(gathered.begin(), at(lo), gathered.end());
  const float low = *at(lo);
  if (hi == lo) return {low, low};
  return {low, *std::min_element(at(lo) + 1, gathered.end())};  // nth_element left only larger-or-equal values after lo
}

// Median of value(x[i]) over the `count` finite samples; the mean of the two middle values when
// the count is even.
template <class Value>
double median_of(const float* x, std::int64_t n, std::int64_t count, Value value) {
  const auto [low, high] = select_ranks(x, n, (count - 1) / 2, count / 2, value);
  return 0.5 * (static_cast<double>(low) + static_cast<double>(high));
}

}  // namespace

normalization robust_zscore_host(const array& signal, stream_view) {
  const float* x = signal.data_as<const float>();
  const std::int64_t n = signal.size();
  const std::int64_t blocks = (n + sum_block - 1) / sum_block;

  // Count, mean and population standard deviation of the finite samples.
  std::vector<double> sums(static_cast<std::size_t>(blocks)), squares(static_cast<std::size_t>(blocks));
  std::vector<std::int64_t> counts(static_cast<std::size_t>(blocks));
  auto each_block = [&](auto body) {
    zeroflow::detail::parallel_chunks(blocks, 16, [&](std::int64_t b0, std::int64_t b1) {
      for (std::int64_t b = b0; b < b1; ++b) body(b, b * sum_block, std::min(n, (b + 1) * sum_block));
    });
  };
  each_block([&](std::int64_t b, std::int64_t begin, std::int64_t end) {
    double s = 0;
    std::int64_t c = 0;
    for (std::int64_t i = begin; i < end; ++i)
      if (std::isfinite(x[i])) s += x[i], ++c;
    sums[static_cast<std::size_t>(b)] = s;
    counts[static_cast<std::size_t>(b)] = c;
  });
  std::int64_t count = 0;
  double sum = 0;
  for (std::int64_t b = 0; b < blocks; ++b)
    count += counts[static_cast<std::size_t>(b)], sum += sums[static_cast<std::size_t>(b)];
  if (count == 0) return {0.0f, 1.0f};
  const double mean = sum / static_cast<double>(count);
  each_block([&](std::int64_t b, std::int64_t begin, std::int64_t end) {
    double s = 0;
    for (std::int64_t i = begin; i < end; ++i)
      if (std::isfinite(x[i])) s += (x[i] - mean) * (x[i] - mean);
    squares[static_cast<std::size_t>(b)] = s;
  });
  double square_sum = 0;
  for (double s : squares) square_sum += s;
  const double stddev = std::sqrt(square_sum / static_cast<double>(count));

  const double median = median_of(x, n, count, [](float v) { return v; });
  // Deviations are ranked as floats: rounding is monotonic, so this is the exact MAD rounded to
  // float (up to the last bit when the two middle deviations are averaged).
  const double mad = median_of(
      x, n, count, [median](float v) { return static_cast<float>(std::fabs(static_cast<double>(v) - median)); });
  return {static_cast<float>(median), robust_scale(mad, stddev)};
}

}  // namespace detail
}  // namespace zeroflow::signal
