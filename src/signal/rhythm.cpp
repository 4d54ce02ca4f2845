#include "zeroflow/signal/rhythm.hpp"

#include <cmath>

#include "checks.hpp"
#include "rhythm_window.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zeroflow::signal {

rhythm rhythm_features(const array& peaks, double sample_rate, stream_view stream) {
  detail::expect_1d(peaks, "rhythm_features: peaks", {int64});
  ZF_EXPECTS(std::isfinite(sample_rate) && sample_rate > 0, "rhythm_features: the sample rate must be positive, got ",
             sample_rate);
  if (detail::on_cuda(peaks))
    return detail::rhythm_features_cuda(detail::cuda_input(peaks, "rhythm_features: peaks"), sample_rate, stream);
  return detail::rhythm_features_host(detail::host_input(peaks, stream), sample_rate, stream);
}

namespace detail {

rhythm rhythm_features_host(const array& peaks, double sample_rate, stream_view stream) {
  const auto p = peaks.span<const std::int64_t>();
  const auto n = static_cast<std::int64_t>(p.size());
  rhythm r;
  r.rr_before = empty({n}, float32, cpu_device, stream);
  r.rr_after = empty({n}, float32, cpu_device, stream);
  r.local_rr = empty({n}, float32, cpu_device, stream);
  r.irregularity = empty({n}, float32, cpu_device, stream);
  const auto seconds_per_sample = static_cast<float>(1.0 / sample_rate);
  for (std::int64_t b = 0; b < n; ++b) {
    const auto v = rhythm_of(p.data(), n, b, rhythm_neighbourhood, seconds_per_sample);
    r.rr_before.data_as<float>()[b] = v.rr_before;
    r.rr_after.data_as<float>()[b] = v.rr_after;
    r.local_rr.data_as<float>()[b] = v.local_rr;
    r.irregularity.data_as<float>()[b] = v.irregularity;
  }
  return r;
}

#if !ZEROFLOW_HAS_CUDA
rhythm rhythm_features_cuda(const array&, double, stream_view) {
  ZF_THROW(cuda_error, "rhythm_features on a GPU array needs a CUDA build of zeroflow");
}
#endif

}  // namespace detail
}  // namespace zeroflow::signal
