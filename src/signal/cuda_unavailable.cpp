// Placeholders for the CUDA halves of the signal layer, so that every build links and a device
// array gets a clear error instead of a crash. The CUDA implementation replaces this file with
// .cu files defining the same functions.
#include "zeroflow/core/error.hpp"
#include "zeroflow/signal/detail/beats.hpp"
#include "zeroflow/signal/detail/embed.hpp"
#include "zeroflow/signal/detail/nms.hpp"
#include "zeroflow/signal/detail/normalize.hpp"
#include "zeroflow/signal/detail/ricker.hpp"

namespace zeroflow::signal::detail {

namespace {
[[noreturn]] void not_yet(const char* what) {
  ZF_THROW(cuda_error, what, " on a CUDA device is not implemented yet");
}
}  // namespace

array ricker_kernel_cuda(std::int64_t, device, stream_view) { not_yet("ricker_kernel"); }
array bandpass_cuda(const array&, std::int64_t, stream_view) { not_yet("bandpass"); }
array nms_gate_cuda(const array&, std::int64_t, stream_view) { not_yet("nms_gate"); }
array gate_positions_cuda(const array&, stream_view) { not_yet("gate_positions"); }
array beat_lengths_cuda(const array&, stream_view) { not_yet("beat_lengths"); }
array length_histogram_cuda(const array&, std::int64_t, stream_view) { not_yet("length_histogram"); }
array locate_peaks_cuda(const array&, const array&, std::int64_t, std::int64_t, float, stream_view) {
  not_yet("locate_peaks");
}
normalization robust_zscore_cuda(const array&, stream_view) { not_yet("robust_zscore"); }
embedding embed_beats_cuda(const array&, const array&, const array&, std::int64_t, std::int64_t, std::int64_t,
                           normalization, stream_view) {
  not_yet("embed_beats");
}

}  // namespace zeroflow::signal::detail
