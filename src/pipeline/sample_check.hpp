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
#include <utility>
#include <vector>

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

/// @brief Where the recording holds one unchanging value (NaN counted as one value) for two
///        consecutive windows of `window` samples: no connected electrode gives that — its noise
///        alone moves the samples by a unit of the converter — but a lead that has come off, an
///        amplifier held at its rail, or a gap does. Windows start at multiples of `window`, so a
///        stretch is found from about 2·window samples on, on the host and a GPU alike.
/// @return the stretches as [first, last] samples, in order, merged where they touch.
[[nodiscard]] std::vector<std::pair<std::int64_t, std::int64_t>> flat_stretches(const array& signal,
                                                                                std::int64_t window,
                                                                                stream_view stream);

/// The windows flat_stretches marks: k ≥ 1 when windows k − 1 and k hold one value (host loop).
[[nodiscard]] std::vector<std::int64_t> flat_window_pairs_on_host(const array& signal, std::int64_t window);

#if ZEROFLOW_HAS_CUDA
/// The GPU half of count_samples (sample_check.cu).
[[nodiscard]] sample_census count_samples_cuda(const array& signal, stream_view stream);
/// The GPU half of flat_window_pairs_on_host: one thread per pair of windows, only the marked
/// windows (none in a recording with a lead on) read back.
[[nodiscard]] std::vector<std::int64_t> flat_window_pairs_cuda(const array& signal, std::int64_t window,
                                                               stream_view stream);
#endif

}  // namespace zeroflow::pipeline::detail
