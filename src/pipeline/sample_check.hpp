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
#include "zeroflow/core/detail/host_device.hpp"
#include "zeroflow/core/stream.hpp"

#if !defined(__CUDACC__)
#include <cmath>
using std::cos;
using std::sin;
#endif

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

/// @brief Where no electrode gives an ECG, over two consecutive windows of `window` samples:
///        - the signal holds one value (NaN counted as one): a connected electrode's own noise
///          moves the samples by a unit of the converter, while a lead that has come off, an
///          amplifier held at its rail, or a gap does not;
///        - or at least mains_share of its variance is one mains sinusoid (50 or 60 Hz, where the
///          rate can carry it): a floating electrode picks up the mains and nothing else, while an
///          ECG puts a few percent of its power there at most.
///        Windows start at multiples of `window`, so a stretch is found from about 2·window
///        samples on, on the host and a GPU alike.
/// @return the stretches as [first, last] samples, in order, merged where they touch.
[[nodiscard]] std::vector<std::pair<std::int64_t, std::int64_t>> no_signal_stretches(const array& signal,
                                                                                     std::int64_t window,
                                                                                     double sample_rate,
                                                                                     stream_view stream);

/// The share of a signal's variance that is mains hum above which no electrode is on.
inline constexpr double mains_share = 0.9;

/// The mains frequencies (Hz) a floating electrode picks up (scalars: device code reads them).
inline constexpr double mains_europe_hz = 50.0;
inline constexpr double mains_americas_hz = 60.0;

/// The windows no_signal_stretches marks: k ≥ 1 when windows k − 1 and k give no signal (host loop).
[[nodiscard]] std::vector<std::int64_t> no_signal_window_pairs_on_host(const array& signal, std::int64_t window,
                                                                       double sample_rate);

/// Whether `length` samples, `stride` apart from x, are one value or mains hum (no_signal_stretches'
/// test of a pair of windows); the host loop and the GPU kernel both call it.
ZF_HD inline bool gives_no_signal(const float* x, std::int64_t stride, std::int64_t length, double sample_rate) {
  const float first = x[0];
  bool one_value = true;
  double sum = 0;
  for (std::int64_t i = 0; i < length; ++i) {
    const float v = x[i * stride];
    if (v != v) {  // NaN: a gap, which is one value only when every sample is NaN
      one_value = one_value && first != first;
      continue;
    }
    one_value = one_value && v == first;
    sum += v;
  }
  if (one_value) return true;
  const double mean = sum / static_cast<double>(length);
  double energy = 0;
  for (std::int64_t i = 0; i < length; ++i) {
    const double d = static_cast<double>(x[i * stride]) - mean;
    if (d != d) return false;  // a gap among samples is no hum
    energy += d * d;
  }
  for (int mains = 0; mains < 2; ++mains) {
    const double hz = mains == 0 ? mains_europe_hz : mains_americas_hz;
    if (!(2 * hz < sample_rate)) continue;  // the rate cannot carry this frequency
    // The signal's projection on the sinusoid (Goertzel's sum, by a rotating phasor).
    const double step = 2 * 3.14159265358979323846 * hz / sample_rate;
    const double c = cos(step), s = sin(step);
    double re = 0, im = 0, pc = 1, ps = 0;
    for (std::int64_t i = 0; i < length; ++i) {
      const double d = static_cast<double>(x[i * stride]) - mean;
      re += d * pc;
      im += d * ps;
      const double next = pc * c - ps * s;
      ps = ps * c + pc * s;
      pc = next;
    }
    // A sinusoid of amplitude A over many periods gives |re + i·im|² = (A·length/2)², and a
    // variance of A²/2: twice the squared projection over length is its share of the energy.
    if (2 * (re * re + im * im) >= mains_share * static_cast<double>(length) * energy) return true;
  }
  return false;
}

#if ZEROFLOW_HAS_CUDA
/// The GPU half of count_samples (sample_check.cu).
[[nodiscard]] sample_census count_samples_cuda(const array& signal, stream_view stream);
/// The GPU half of no_signal_window_pairs_on_host: one thread per pair of windows, only the
/// marked windows (none in a recording with a lead on) read back.
[[nodiscard]] std::vector<std::int64_t> no_signal_window_pairs_cuda(const array& signal, std::int64_t window,
                                                                    double sample_rate, stream_view stream);
#endif

}  // namespace zeroflow::pipeline::detail
