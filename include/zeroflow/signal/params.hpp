#pragma once
/// @file params.hpp
/// Segmentation parameters in seconds (what a person knows about a recording) and the sizes
/// in samples derived from them (what the kernels use). The defaults are the seed's windows,
/// which the seed gives in samples at 250 Hz.
#include <cstdint>

namespace zeroflow::signal {

/// The segmentation windows in seconds; sizes_for() turns them into samples.
struct segment_params {
  double sample_rate = 250;                  ///< samples per second of the recording
  double ricker_seconds = 30 / 250.;         ///< Ricker band-pass kernel width (seed: 30 samples)
  double nms_window_seconds = 180 / 250.;    ///< non-maximum-suppression window (seed: 180 samples)
  double min_beat_seconds = 100 / 250.;      ///< shortest kept beat (seed: 100 samples)
  double max_beat_seconds = 256 / 250.;      ///< longest kept beat (seed: 256 samples)
  /// Gate positions whose band-passed height is under this fraction of the median height are
  /// dropped (peak_filter.hpp says why); 0 keeps the seed's unthresholded detector.
  double min_peak_ratio = 0.1;
  /// Rows reach the model as robust z-scores (normalize.hpp says why); false keeps the raw
  /// samples, as the seed does (its losses are then comparable with ours).
  bool normalize_rows = true;
};

/// The recording's median and MAD come from every (N >> statistics_sample_bits)-th sample.
inline constexpr int statistics_sample_bits = 20;

/// The same windows in samples.
struct segment_sizes {
  std::int64_t ricker_width = 0;  ///< taps of the Ricker kernel
  std::int64_t nms_window = 0;    ///< non-maximum-suppression window
  std::int64_t min_length = 0;    ///< shortest kept beat
  std::int64_t max_length = 0;    ///< longest kept beat
  std::int64_t row_width = 0;     ///< embedded row width: a power of two >= max(max_length, 16), as the VAE needs
};

/// @brief Converts seconds to samples, rounding to the nearest sample.
/// At 250 Hz the defaults give exactly the seed's 30, 180, 100, 256 and 256.
/// @throws zeroflow::invalid_argument when the rate or a window is not a finite positive number,
///         when the NMS window is shorter than 2 samples, or when min_length > max_length.
[[nodiscard]] segment_sizes sizes_for(const segment_params& params);

}  // namespace zeroflow::signal
