#pragma once
/// @file ecg.hpp
/// Synthetic electrocardiograms with known beat positions and labels, for tests, benchmarks
/// and evaluation of the outlier-detection pipeline without patient data.
///
/// The model follows the idea of ECGSYN (McSharry et al., "A dynamical model for generating
/// synthetic electrocardiogram signals", IEEE TBME 2003): every beat is a sum of Gaussian
/// waves (P, Q, R, S, T) placed relative to the R peak, with the T wave moved and widened with
/// the square root of the RR interval (Bazett-like QT scaling). Unlike ECGSYN the waves are
/// summed directly in time instead of integrating an ODE, which is simpler and fast enough for
/// a day of data in about a second.
#include <cstdint>
#include <vector>

namespace zeroflow::synth {

/// Parameters of a synthetic recording. Amplitudes are in millivolts, times in seconds.
struct ecg_options {
  /// Length of the recording in hours (>= 0).
  double hours = 1.0;
  /// Samples per second (>= 50).
  double sample_rate = 250.0;
  /// Expected fraction of beats that are premature ventricular contractions (PVCs), in
  /// [0, 0.5). Two PVCs never follow each other directly.
  double anomaly_rate = 0.03;
  /// Seed of every random choice; the same options give the same recording.
  std::uint64_t seed = 42;
  /// Mean sinus heart rate in beats per minute, in [30, 200].
  double heart_rate_bpm = 70.0;
  /// Heart-rate variability: about the standard deviation of the sinus RR interval as a
  /// fraction of its mean, in [0, 0.2]. Made of respiratory sinus arrhythmia (~0.25 Hz), a
  /// Mayer wave (~0.1 Hz) and white jitter.
  double hrv = 0.05;
  /// Standard deviation of white measurement noise.
  double noise_mv = 0.02;
  /// Amplitude of the baseline wander (respiration and movement, 0.05-0.3 Hz).
  double baseline_wander_mv = 0.15;
  /// Frequency of the mains hum (50 or 60). Sampled as is, so it aliases when it lies above
  /// half the sample rate, as in an unfiltered recording.
  double mains_hz = 50.0;
  /// Amplitude of the mains hum.
  double mains_mv = 0.02;
};

/// A synthetic recording and its ground truth.
struct ecg_recording {
  /// The signal in millivolts, `round(hours * 3600 * sample_rate)` samples.
  std::vector<float> samples;
  /// Sample index of every beat's fiducial point (the R peak of a normal beat, the centre of
  /// the main QRS deflection of a PVC, which may be negative), increasing, inside the signal.
  std::vector<std::int64_t> r_peaks;
  /// One label per entry of r_peaks: 'N' normal sinus beat, 'V' premature ventricular beat.
  std::vector<char> labels;
  /// Samples per second.
  double sample_rate = 0.0;
};

/**
 * @brief Generates a synthetic ECG with normal beats and PVCs.
 *
 * The recording depends only on the options: beat timing and morphology come from random
 * streams that do not depend on the sample rate or on the noise settings, so the same seed at
 * 250 Hz and at 500 Hz, or with and without noise, has the same beats. Random numbers come
 * from std::mt19937_64 (fully specified by the standard) through our own transforms, so the
 * output does not depend on the standard library's distributions.
 *
 * @param options parameters of the recording.
 * @return the signal, the R-peak positions and the beat labels.
 * @throws zeroflow::invalid_argument when an option is out of its documented range.
 */
ecg_recording generate_ecg(const ecg_options& options);

}  // namespace zeroflow::synth
