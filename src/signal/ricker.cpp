#include "zeroflow/signal/ricker.hpp"

#include <algorithm>
#include <cmath>

#include "checks.hpp"
#include "zeroflow/core/detail/parallel_chunks.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/detail/ricker.hpp"

namespace zeroflow::signal {

array ricker_kernel(std::int64_t width, device where, stream_view stream) {
  ZF_EXPECTS(width >= 1, "ricker_kernel: width must be >= 1, got ", width);
  if (where.type == device_type::cuda) return detail::ricker_kernel_cuda(width, where, stream);
  return detail::ricker_kernel_host(width, where, stream);
}

array bandpass(const array& signal, std::int64_t ricker_width, stream_view stream) {
  detail::expect_1d(signal, "bandpass: signal", {float32});
  ZF_EXPECTS(signal.size() > 0, "bandpass: the signal is empty");
  ZF_EXPECTS(ricker_width >= 1 && ricker_width <= signal.size(), "bandpass: ricker_width must be in [1, ",
             signal.size(), "] (the signal's length), got ", ricker_width);
  if (detail::on_cuda(signal))
    return detail::bandpass_cuda(detail::cuda_input(signal, "bandpass: signal"), ricker_width, stream);
  return detail::bandpass_host(detail::host_input(signal, stream), ricker_width, stream);
}

namespace detail {

std::vector<double> ricker_taps(std::int64_t width) {
  // NumPy's linspace: start + i·step, the endpoint set exactly; one point is just `start`.
  std::vector<double> taps(static_cast<std::size_t>(width));
  const double step = width > 1 ? 6.0 / static_cast<double>(width - 1) : 0.0;
  const double norm = std::sqrt(static_cast<double>(width));
  for (std::int64_t i = 0; i < width; ++i) {
    const double t = (i == width - 1 && width > 1) ? 3.0 : static_cast<double>(i) * step - 3.0;
    taps[static_cast<std::size_t>(i)] = 2.0 * (std::exp(-0.5 * t * t) * (1.0 - t * t)) / norm;
  }
  return taps;
}

array ricker_kernel_host(std::int64_t width, device where, stream_view stream) {
  array out = empty({width}, float32, where, stream);
  auto* h = out.data_as<float>();
  const auto taps = ricker_taps(width);
  for (std::size_t k = 0; k < taps.size(); ++k) h[k] = static_cast<float>(taps[k]);
  return out;
}

namespace {

// acc[i] = fma(hk, x[i], acc[i]) for i < len: one exactly rounded multiply-add per tap, so the
// GPU's __fma_rn gives the same bits. Built twice on x86-64, for CPUs with FMA instructions
// (every one since 2013: vectorised vfmadd) and without (std::fma in software: exact, slower);
// the dynamic loader picks the clone once.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
[[gnu::target_clones("fma", "default")]]
#endif
void fma_taps(double* acc, const float* x, std::int64_t len, double hk) {
  for (std::int64_t i = 0; i < len; ++i) acc[i] = std::fma(hk, static_cast<double>(x[i]), acc[i]);
}

}  // namespace

array bandpass_host(const array& signal, std::int64_t ricker_width, stream_view stream) {
  const std::int64_t n = signal.size();
  array out = empty({n}, float32, signal.where(), stream);
  const float* x = signal.data_as<const float>();
  float* y = out.data_as<float>();
  const auto taps = ricker_taps(ricker_width);

  // y[m] = Σ_k h[k]·x[(m−k) mod n], in blocks of outputs so that the inner loop runs over
  // consecutive samples (vectorisable) while the accumulators stay in L1.
  zeroflow::detail::parallel_chunks(n, std::int64_t{1} << 16, [&](std::int64_t begin, std::int64_t end) {
    constexpr std::int64_t block = 1024;
    double acc[block];
    for (std::int64_t b = begin; b < end; b += block) {
      const std::int64_t len = std::min(block, end - b);
      std::fill(acc, acc + len, 0.0);
      for (std::int64_t k = 0; k < ricker_width; ++k) {
        const double hk = taps[static_cast<std::size_t>(k)];
        const std::int64_t src = b - k;  // input index of acc[0]; >= -(n-1) since k < n
        // Outputs whose input index is negative wrap around to the end of the recording.
        const std::int64_t wrapped = std::clamp<std::int64_t>(-src, 0, len);
        fma_taps(acc, x + src + n, wrapped, hk);
        fma_taps(acc + wrapped, x + src + wrapped, len - wrapped, hk);
      }
      for (std::int64_t i = 0; i < len; ++i) y[b + i] = static_cast<float>(acc[i]);
    }
  });
  return out;
}

}  // namespace detail
}  // namespace zeroflow::signal
