#include "zeroflow/signal/beats.hpp"

#include <algorithm>
#include <cmath>

#include "checks.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/detail/beats.hpp"

namespace zeroflow::signal {

array gate_positions(const array& gate, stream_view stream) {
  detail::expect_1d(gate, "gate_positions: gate", {uint8, bool8});
  if (detail::on_cuda(gate))
    return detail::gate_positions_cuda(detail::cuda_input(gate, "gate_positions: gate"), stream);
  return detail::gate_positions_host(detail::host_input(gate, stream), stream);
}

array beat_lengths(const array& positions, stream_view stream) {
  detail::expect_1d(positions, "beat_lengths: positions", {int64});
  if (detail::on_cuda(positions))
    return detail::beat_lengths_cuda(detail::cuda_input(positions, "beat_lengths: positions"), stream);
  return detail::beat_lengths_host(detail::host_input(positions, stream), stream);
}

array length_histogram(const array& lengths, std::int64_t bins, stream_view stream) {
  detail::expect_1d(lengths, "length_histogram: lengths", {int64});
  ZF_EXPECTS(bins >= 1, "length_histogram: bins must be >= 1, got ", bins);
  if (detail::on_cuda(lengths))
    return detail::length_histogram_cuda(detail::cuda_input(lengths, "length_histogram: lengths"), bins, stream);
  return detail::length_histogram_host(detail::host_input(lengths, stream), bins, stream);
}

array locate_peaks(const array& signal, const array& positions, std::int64_t nms_window, std::int64_t ricker_width,
                   float center, stream_view stream) {
  detail::expect_1d(signal, "locate_peaks: signal", {float32});
  detail::expect_1d(positions, "locate_peaks: positions", {int64});
  detail::expect_same_device(signal, positions, "locate_peaks");
  ZF_EXPECTS(signal.size() > 0, "locate_peaks: the signal is empty");
  ZF_EXPECTS(nms_window >= 1 && ricker_width >= 1, "locate_peaks: nms_window and ricker_width must be >= 1, got ",
             nms_window, " and ", ricker_width);
  if (detail::on_cuda(signal))
    return detail::locate_peaks_cuda(detail::cuda_input(signal, "locate_peaks: signal"),
                                     detail::cuda_input(positions, "locate_peaks: positions"), nms_window, ricker_width,
                                     center, stream);
  return detail::locate_peaks_host(detail::host_input(signal, stream), detail::host_input(positions, stream),
                                   nms_window, ricker_width, center, stream);
}

namespace detail {

array gate_positions_host(const array& gate, stream_view stream) {
  // uint8 and bool are both one byte per element; bool true is stored as 1.
  const auto* g = static_cast<const std::uint8_t*>(gate.data());
  const std::int64_t n = gate.size();
  const auto count = std::count(g, g + n, std::uint8_t{1});
  array out = empty({count}, int64, gate.where(), stream);
  auto* p = out.data_as<std::int64_t>();
  for (std::int64_t i = 0; i < n; ++i)
    if (g[i] == 1) *p++ = i;
  return out;
}

array beat_lengths_host(const array& positions, stream_view stream) {
  const std::int64_t n = positions.size();
  array out = empty({std::max<std::int64_t>(n - 1, 0)}, int64, positions.where(), stream);
  const auto* p = positions.data_as<const std::int64_t>();
  auto* d = out.data_as<std::int64_t>();
  for (std::int64_t i = 0; i + 1 < n; ++i) d[i] = p[i + 1] - p[i];
  return out;
}

array length_histogram_host(const array& lengths, std::int64_t bins, stream_view stream) {
  array out = empty({bins}, int64, lengths.where(), stream);
  auto* counts = out.data_as<std::int64_t>();
  std::fill(counts, counts + bins, std::int64_t{0});
  const auto* l = lengths.data_as<const std::int64_t>();
  for (std::int64_t i = 0; i < lengths.size(); ++i)
    if (l[i] >= 0) ++counts[std::min(l[i], bins - 1)];
  return out;
}

array locate_peaks_host(const array& signal, const array& positions, std::int64_t nms_window, std::int64_t ricker_width,
                        float center, stream_view stream) {
  const std::int64_t n = signal.size(), count = positions.size();
  const std::int64_t shift = (nms_window + 1) / 2 - (ricker_width - 1) / 2, reach = ricker_width / 2;
  array out = empty({count}, int64, signal.where(), stream);
  const float* x = signal.data_as<const float>();
  const auto* pos = positions.data_as<const std::int64_t>();
  auto* peaks = out.data_as<std::int64_t>();
  for (std::int64_t c = 0; c < count; ++c) {
    const std::int64_t guess = pos[c] + shift;
    std::int64_t best = std::clamp<std::int64_t>(guess, 0, n - 1);
    float best_value = -1;  // every |x − center| that is not NaN beats it
    for (std::int64_t i = std::max<std::int64_t>(guess - reach, 0); i <= std::min(guess + reach, n - 1); ++i) {
      const float v = std::fabs(x[i] - center);
      if (v > best_value) {
        best_value = v;
        best = i;
      }
    }
    peaks[c] = best;
  }
  return out;
}

}  // namespace detail
}  // namespace zeroflow::signal
