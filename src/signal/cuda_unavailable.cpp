// The CUDA halves of the signal layer in a build without CUDA: every build links, and a device
// array reaching them (it could only come from elsewhere, e.g. DLPack) gets a clear error. With
// ZEROFLOW_HAS_CUDA the .cu files beside this one define the same functions.
#include "zeroflow/config.hpp"

#if !ZEROFLOW_HAS_CUDA
#include "detail_cuda/bandpass_gate.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/signal/detail/beats.hpp"
#include "zeroflow/signal/detail/embed.hpp"
#include "zeroflow/signal/detail/nms.hpp"
#include "zeroflow/signal/detail/normalize.hpp"
#include "zeroflow/signal/detail/ricker.hpp"

namespace zeroflow::signal::detail {

namespace {
[[noreturn]] void unavailable(const char* what) {
  ZF_THROW(cuda_error, what, " on a CUDA device needs a CUDA build of zeroflow (configure with ZEROFLOW_CUDA=ON)");
}
}  // namespace

array ricker_kernel_cuda(std::int64_t, device, stream_view) { unavailable("ricker_kernel"); }
array bandpass_cuda(const array&, std::int64_t, stream_view) { unavailable("bandpass"); }
array nms_gate_cuda(const array&, std::int64_t, stream_view) { unavailable("nms_gate"); }
array gate_positions_cuda(const array&, stream_view) { unavailable("gate_positions"); }
array beat_lengths_cuda(const array&, stream_view) { unavailable("beat_lengths"); }
array length_histogram_cuda(const array&, std::int64_t, stream_view) { unavailable("length_histogram"); }
array locate_peaks_cuda(const array&, const array&, std::int64_t, std::int64_t, float, stream_view) {
  unavailable("locate_peaks");
}
normalization robust_zscore_cuda(const array&, stream_view) { unavailable("robust_zscore"); }
embedding embed_beats_cuda(const array&, const array&, const array&, std::int64_t, std::int64_t, std::int64_t,
                           normalization, stream_view) {
  unavailable("embed_beats");
}
filtered_gate bandpass_gate_cuda(const array&, std::int64_t, std::int64_t, stream_view) {
  unavailable("bandpass + nms_gate");
}
array fused_gate_positions(const filtered_gate&, stream_view) { unavailable("gate_positions (fused)"); }
array fused_gate_positions_live(const filtered_gate&, std::int64_t, std::int64_t*, unsigned long long*, stream_view) {
  unavailable("gate_positions (fused)");
}

}  // namespace zeroflow::signal::detail
#endif  // !ZEROFLOW_HAS_CUDA
