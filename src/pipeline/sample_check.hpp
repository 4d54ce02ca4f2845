#pragma once
// Private to the pipeline: which samples of a recording no pipeline stage can use, counted where
// the recording lives (on a GPU, one pass and a 32-byte read-back; the signal stays there).
//
// A NaN sample is a gap (WFDB's invalid value, an EDF record left out): the robust method reads
// it as the recording's median. An infinity, or a finite value beyond ±unusable_magnitude, is no
// measurement of anything: its square (and the band-pass filter's sums) overflow float32, and a
// single one turns every training loss into NaN; such recordings are refused.
#include <cstdint>
#include <string>

#include "zeroflow/config.hpp"
#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::pipeline::detail {

/// Samples of larger magnitude are refused: no ECG in any unit comes near it, and 1e8 of head
/// room remains below float32's largest value for the filters' sums.
inline constexpr float unusable_magnitude = 1e30F;

/// How many samples are NaN, and how many are infinite or beyond ±unusable_magnitude, with the
/// first index of each (-1 when there is none).
struct sample_census {
  std::int64_t missing = 0;
  std::int64_t first_missing = -1;
  std::int64_t unusable = 0;
  std::int64_t first_unusable = -1;
  friend bool operator==(const sample_census&, const sample_census&) = default;
};

/// Counts on the signal's device: a host loop for host memory, a kernel on a GPU.
/// @param signal 1-D float32, any stride.
/// @throws invalid_argument for another shape or dtype; cuda_error for a GPU array in a build
///         without CUDA.
[[nodiscard]] sample_census count_samples(const array& signal, stream_view stream);

/// The same count on the host, for host-accessible memory (the GPU path's reference).
[[nodiscard]] sample_census count_samples_on_host(const array& signal);

/// Refuses a recording whose samples the run cannot use: any unusable sample, and for the gate-to-gate
/// segmentation (which has no notion of a gap) any missing one. The message names `source`, the
/// count and the first sample.
/// @throws parse_error with one line for a person.
void check_samples(const sample_census& census, const std::string& source, bool gate_to_gate_segmentation);

#if ZEROFLOW_HAS_CUDA
/// The GPU half of count_samples (sample_check.cu).
[[nodiscard]] sample_census count_samples_cuda(const array& signal, stream_view stream);
#endif

}  // namespace zeroflow::pipeline::detail
