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
///
/// Beyond sinus beats and premature ventricular contractions (PVCs) the recording may hold
/// atrial premature beats (APBs), muscle-noise bursts and baseline jumps, each labelled or
/// annotated. Their options default to off, so that an existing seed keeps giving exactly the
/// recording it gave before they existed; `zeroflow generate` turns APBs on by default.
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
  /// Expected fraction of beats that are atrial premature beats (APBs), in [0, 0.5), with
  /// anomaly_rate + apb_rate < 0.5. An APB has a normal QRS and a P wave of another shape,
  /// comes at 55-80 % of the current sinus RR and resets the sinus node: the next beat follows
  /// about one sinus RR later (no compensatory pause). An ectopic beat (APB or PVC) is always
  /// followed by a sinus beat. 0 (the default) leaves the recording of a seed as it was.
  double apb_rate = 0.0;
  /// Expected number of muscle-noise bursts per hour (a Poisson process), in [0, 360]: band-
  /// limited noise of 0.3-3 s whose peaks are comparable to the QRS. The beats under a burst
  /// keep their labels.
  double noise_bursts_per_hour = 0.0;
  /// Expected number of baseline jumps per hour (a Poisson process), in [0, 360]: a step of
  /// 0.5-2 mV (either sign) that decays exponentially with a time constant of 0.8-2.5 s, as
  /// electrode motion behind an AC-coupled amplifier does.
  double baseline_jumps_per_hour = 0.0;
};

/// What disturbs the signal in an annotated stretch of a recording.
enum class artefact_kind : char {
  noise_burst = 'M',    ///< muscle artefact: band-limited noise added to the ECG
  baseline_jump = 'B',  ///< electrode motion: a baseline step decaying over seconds
};

/// A stretch of a recording that holds an artefact, in samples, `[start, end)`.
struct artefact_interval {
  std::int64_t start = 0;  ///< first sample touched, >= 0
  std::int64_t end = 0;    ///< one past the last annotated sample, <= the number of samples
  artefact_kind kind = artefact_kind::noise_burst;
};

/// A synthetic recording and its ground truth.
struct ecg_recording {
  /// The signal in millivolts, `round(hours * 3600 * sample_rate)` samples.
  std::vector<float> samples;
  /// Sample index of every beat's fiducial point (the R peak of a normal beat, the centre of
  /// the main QRS deflection of a PVC, which may be negative), increasing, inside the signal.
  std::vector<std::int64_t> r_peaks;
  /// One label per entry of r_peaks (MIT-BIH symbols): 'N' normal sinus beat, 'A' atrial
  /// premature beat (AAMI class S), 'V' premature ventricular beat.
  std::vector<char> labels;
  /// Noise bursts and baseline jumps, ordered by start (they may overlap each other). A burst's
  /// interval is where its noise is added; a jump's starts at the step and ends when the step
  /// has decayed to under 1 % (five time constants).
  std::vector<artefact_interval> artefacts;
  /// Samples per second.
  double sample_rate = 0.0;
};

/**
 * @brief Generates a synthetic ECG with normal beats, PVCs, APBs, noise bursts and baseline
 *        jumps.
 *
 * The recording depends only on the options: beat timing and morphology come from random
 * streams that do not depend on the sample rate or on the noise settings, so the same seed at
 * 250 Hz and at 500 Hz, or with and without noise, has the same beats. Random numbers come
 * from std::mt19937_64 (fully specified by the standard) through our own transforms, so the
 * output does not depend on the standard library's distributions. APBs, bursts and jumps draw
 * from random streams of their own: bursts and jumps never move a beat, and with all three off
 * a seed gives the recording it gave before they existed.
 *
 * @param options parameters of the recording.
 * @return the signal, the R-peak positions and the beat labels.
 * @throws zeroflow::invalid_argument when an option is out of its documented range.
 */
ecg_recording generate_ecg(const ecg_options& options);

}  // namespace zeroflow::synth
