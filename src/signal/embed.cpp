#include "zeroflow/signal/embed.hpp"

#include <algorithm>
#include <cmath>

#include "checks.hpp"
#include "zeroflow/core/checked_size.hpp"
#include "zeroflow/core/detail/parallel_chunks.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/detail/embed.hpp"

namespace zeroflow::signal {

embedding embed_beats(const array& signal, const array& positions, const array& lengths, std::int64_t min_length,
                      std::int64_t max_length, std::int64_t row_width, normalization norm, stream_view stream) {
  detail::expect_1d(signal, "embed_beats: signal", {float32});
  detail::expect_1d(positions, "embed_beats: positions", {int64});
  detail::expect_1d(lengths, "embed_beats: lengths", {int64});
  detail::expect_same_device(signal, positions, "embed_beats");
  detail::expect_same_device(signal, lengths, "embed_beats");
  ZF_EXPECTS(positions.size() >= lengths.size(), "embed_beats: ", lengths.size(),
             " lengths need at least as many positions, got ", positions.size());
  ZF_EXPECTS(0 <= min_length && min_length <= max_length && max_length <= row_width,
             "embed_beats: need 0 <= min_length <= max_length <= row_width, got ", min_length, ", ", max_length, ", ",
             row_width);
  // At most one row per candidate: a width that wraps the output's size would write past a small allocation.
  (void)contiguous_bytes(shape_t{lengths.size(), row_width}, float32);
  ZF_EXPECTS(std::isfinite(norm.center) && std::isfinite(norm.scale) && norm.scale != 0,
             "embed_beats: normalization needs a finite center and a finite non-zero scale, got center ", norm.center,
             ", scale ", norm.scale);
  if (detail::on_cuda(signal))
    return detail::embed_beats_cuda(
        detail::cuda_input(signal, "embed_beats: signal"), detail::cuda_input(positions, "embed_beats: positions"),
        detail::cuda_input(lengths, "embed_beats: lengths"), min_length, max_length, row_width, norm, stream);
  return detail::embed_beats_host(detail::host_input(signal, stream), detail::host_input(positions, stream),
                                  detail::host_input(lengths, stream), min_length, max_length, row_width, norm, stream);
}

namespace detail {

embedding embed_beats_host(const array& signal, const array& positions, const array& lengths, std::int64_t min_length,
                           std::int64_t max_length, std::int64_t row_width, normalization norm, stream_view stream) {
  const std::int64_t n = signal.size(), candidates = lengths.size();
  const float* x = signal.data_as<const float>();
  const auto* start = positions.data_as<const std::int64_t>();
  const auto* length = lengths.data_as<const std::int64_t>();

  embedding out;
  out.kept = empty({candidates}, uint8, signal.where(), stream);
  auto* kept = out.kept.data_as<std::uint8_t>();
  std::int64_t rows = 0;
  for (std::int64_t c = 0; c < candidates; ++c) {
    kept[c] = (min_length <= length[c] && length[c] <= max_length) ? 1 : 0;
    if (!kept[c]) continue;
    ZF_EXPECTS(start[c] >= 0 && start[c] <= n - length[c], "embed_beats: candidate ", c, " spans [", start[c], ", ",
               start[c] + length[c], "), outside the ", n, "-sample signal");
    ++rows;
  }
  out.kept_index = empty({rows}, int64, signal.where(), stream);
  auto* index = out.kept_index.data_as<std::int64_t>();
  for (std::int64_t c = 0, r = 0; c < candidates; ++c)
    if (kept[c]) index[r++] = c;

  out.rows = empty({rows, row_width}, float32, signal.where(), stream);
  float* data = out.rows.data_as<float>();
  zeroflow::detail::parallel_chunks(rows, 4096, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t r = begin; r < end; ++r) {
      const std::int64_t c = index[r];
      const float* beat = x + start[c];
      float* row = data + r * row_width;
      for (std::int64_t i = 0; i < length[c]; ++i) row[i] = (beat[i] - norm.center) / norm.scale;
      std::fill(row + length[c], row + row_width, 0.0f);
    }
  });
  return out;
}

}  // namespace detail
}  // namespace zeroflow::signal
