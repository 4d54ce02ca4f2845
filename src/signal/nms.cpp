#include "zeroflow/signal/nms.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "checks.hpp"
#include "zeroflow/core/detail/parallel_chunks.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/detail/nms.hpp"

namespace zeroflow::signal {

array nms_gate(const array& filtered, std::int64_t window, stream_view stream) {
  detail::expect_1d(filtered, "nms_gate: filtered", {float32});
  ZF_EXPECTS(window >= 2, "nms_gate: window must be >= 2 samples, got ", window);
  ZF_EXPECTS(filtered.size() >= window, "nms_gate: the signal (", filtered.size(),
             " samples) is shorter than the window (", window, ")");
  if (detail::on_cuda(filtered))
    return detail::nms_gate_cuda(detail::cuda_input(filtered, "nms_gate: filtered"), window, stream);
  return detail::nms_gate_host(detail::host_input(filtered, stream), window, stream);
}

namespace detail {

namespace {
// The seed's running maximum step: keep the value when it is greater. A NaN is never greater
// and the accumulator starts at -inf, so accumulators never hold NaN.
inline float keep_greater(float accum, float value) { return value > accum ? value : accum; }
constexpr float minus_inf = -std::numeric_limits<float>::infinity();
}  // namespace

array nms_gate_host(const array& filtered, std::int64_t window, stream_view stream) {
  const std::int64_t count = filtered.size() - window + 1;
  const std::int64_t half = (window + 1) / 2;
  array out = empty({count}, uint8, filtered.where(), stream);
  const float* x = filtered.data_as<const float>();
  std::uint8_t* gate = out.data_as<std::uint8_t>();

  // Sliding-window maxima by van Herk / Gil-Werman: cut the input into blocks of `window`
  // samples; a window [j, j+window) meets at most two blocks, so its maximum is
  // max(suffix maximum of its first block from j, prefix maximum of the next block up to
  // j+window−1). O(1) per output, branch-free scans. Done in tiles of outputs so that the prefix
  // and suffix arrays stay in cache.
  const std::int64_t tile = std::max<std::int64_t>(8192, 2 * window);
  zeroflow::detail::parallel_chunks(count, std::int64_t{1} << 16, [&](std::int64_t begin, std::int64_t end) {
    std::vector<float> prefix(static_cast<std::size_t>(tile + window - 1));
    std::vector<float> suffix(prefix.size());
    // A chunk also evaluates the raw gate at begin−1: the rising-edge rule needs it.
    bool previous = false;  // raw (unmodified) gate at p − 1
    for (std::int64_t t0 = begin > 0 ? begin - 1 : 0; t0 < end; t0 += tile) {
      const std::int64_t outputs = std::min(tile, end - t0);
      const std::int64_t span = outputs + window - 1;  // inputs x[t0, t0 + span)
      const float* xs = x + t0;
      for (std::int64_t b = 0; b < span; b += window) {  // blocks [b, b + window) of the tile
        const std::int64_t e = std::min(span, b + window);
        float acc = minus_inf;
        for (std::int64_t j = b; j < e; ++j) prefix[static_cast<std::size_t>(j)] = acc = keep_greater(acc, xs[j]);
        acc = minus_inf;
        for (std::int64_t j = e; j-- > b;) suffix[static_cast<std::size_t>(j)] = acc = keep_greater(acc, xs[j]);
      }
      for (std::int64_t j = 0; j < outputs; ++j) {
        const float top =
            keep_greater(suffix[static_cast<std::size_t>(j)], prefix[static_cast<std::size_t>(j + window - 1)]);
        const bool raw = xs[j + half] == top;
        const std::int64_t p = t0 + j;
        if (p >= begin) gate[p] = (raw && !previous) ? 1 : 0;
        previous = raw;
      }
    }
  });
  return out;
}

}  // namespace detail
}  // namespace zeroflow::signal
