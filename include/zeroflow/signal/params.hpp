#pragma once
/// @file params.hpp
/// Segmentation parameters in seconds (what a person knows about a recording) and the sizes
/// in samples derived from them (what the kernels use). The defaults are the seed's windows,
/// which the seed gives in samples at 250 Hz.
#include <cstdint>
#include <optional>
#include <string_view>

namespace zeroflow::signal {

/// How beats are found and embedded (segment_recording dispatches on it).
enum class segmentation_method {
  /// Detection for real recordings (qrs_detect.hpp) and a fixed window around every beat's peak
  /// (beat_windows.hpp): every detected beat gets a row and a score.
  robust,
  /// The seed documents' exact method (segment_beats): NMS gate, beats from one gate to the next,
  /// beats outside [min_beat, max_beat] pruned.
  gate_to_gate,
};

/// The method's name on the command line, in Python and in files: "robust" or "gate-to-gate".
[[nodiscard]] std::string_view segmentation_name(segmentation_method method);
/// The method a name means: "robust", "gate-to-gate", or "seed" (gate-to-gate's earlier name,
/// still read in model files and accepted as a value); nothing for any other text.
[[nodiscard]] std::optional<segmentation_method> segmentation_named(std::string_view name);

/// The segmentation windows in seconds; sizes_for() turns them into samples.
struct segment_params {
  segmentation_method method = segmentation_method::robust;
  double sample_rate = 250;                ///< samples per second of the recording
  double ricker_seconds = 30 / 250.;       ///< Ricker band-pass kernel width (seed: 30 samples)
  double nms_window_seconds = 180 / 250.;  ///< non-maximum-suppression window (seed: 180 samples)
  double min_beat_seconds = 100 / 250.;    ///< shortest kept beat (seed: 100 samples)
  double max_beat_seconds = 256 / 250.;    ///< longest kept beat (seed: 256 samples)
  /// Gate positions whose band-passed height is under this fraction of the median height are
  /// dropped (peak_filter.hpp says why); 0 keeps the seed's unthresholded detector.
  double min_peak_ratio = 0.1;
  /// Rows reach the model as robust z-scores (normalize.hpp says why); false keeps the raw
  /// samples, as the seed does (its losses are then comparable with ours).
  bool normalize_rows = true;
  // The robust method's detector (qrs_detect.hpp) and beat window (beat_windows.hpp).
  double refractory_seconds = 0.2;  ///< no two beats closer than this (physiological refractory period)
  double t_wave_seconds = 0.36;     ///< a slower, weaker peak this soon after a beat is its T wave
  double replace_seconds = 0.25;    ///< a stronger peak this soon after a beat replaces it (it was a P wave)
  double slope_seconds = 0.075;     ///< half-width of the window in which a candidate's steepest slope is taken
  double learn_seconds = 8;         ///< the detector's levels start from this much of the recording
  double stretch_seconds = 300;  ///< the detector decides stretches this long independently (src/signal/qrs_decide.hpp)
  double overlap_seconds = 30;   ///< from this much before a stretch (>= learn_seconds)
  double rhythm_seconds =
      120;  ///< a doubtful beat in noise is judged by the clear R–R intervals within this long of it
  double window_before_seconds = 0.25;  ///< a beat's row starts this long before its peak (P wave)
  double window_after_seconds = 0.45;   ///< and ends this long after it (T wave)
};

/// The recording's median and MAD come from every (N >> statistics_sample_bits)-th sample.
inline constexpr int statistics_sample_bits = 20;

/// The same windows in samples.
struct segment_sizes {
  std::int64_t ricker_width = 0;  ///< taps of the Ricker kernel
  std::int64_t nms_window = 0;    ///< non-maximum-suppression window
  std::int64_t min_length = 0;    ///< shortest kept beat
  std::int64_t max_length = 0;    ///< longest kept beat
  std::int64_t row_width = 0;     ///< embedded row width: a power of two >= 16 and >= the row's samples (gate-to-gate:
                                  ///< max_length; robust: window_before + window_after), as the VAE needs
  std::int64_t refractory = 0;    ///< robust method: detector windows in samples
  std::int64_t t_wave = 0;
  std::int64_t replace = 0;
  std::int64_t slope_half_window = 0;
  std::int64_t learn = 0;
  std::int64_t stretch = 0;
  std::int64_t overlap = 0;
  std::int64_t rhythm_reach = 0;
  std::int64_t window_before = 0;  ///< robust method: samples of a row before / after the peak
  std::int64_t window_after = 0;
};

/// @brief Converts seconds to samples, rounding to the nearest sample.
/// At 250 Hz the defaults give exactly the seed's 30, 180, 100, 256 and 256.
/// @throws zeroflow::invalid_argument when the rate or a window is not a finite positive number,
///         when the NMS window is shorter than 2 samples, or when min_length > max_length.
[[nodiscard]] segment_sizes sizes_for(const segment_params& params);

}  // namespace zeroflow::signal
