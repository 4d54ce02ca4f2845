#pragma once
/// @file f_wave.hpp
/// Fibrillatory (f) waves between the beats. In AF the atria do not contract: they fibrillate, and
/// the ECG shows a continuous 4–9 Hz oscillation where a sinus rhythm's T–Q interval is flat but
/// for noise and its P wave. How often the 3–12 Hz band crosses zero in the T–Q interval tells
/// the two apart: in AF the band holds the f waves' larger, slower oscillation (at the low end of
/// their range in a handheld lead), in a flat interval only low-level noise, whose crossings come
/// faster. AF strips measure about 8.4 crossings per second, normal ones 11.8 (medians over CinC
/// 2017's development records).
#include <cstdint>
#include <span>
#include <vector>

namespace zeroflow::classify {

/// Where a T–Q interval lies and which band shows f waves; each value fixed by physiology, none
/// learned.
struct f_wave_params {
  /// The band: f waves are 4–9 Hz (240–540 per minute); below are the T wave and the baseline,
  /// above the edges of the QRS and muscle noise.
  double band_low_hz = 3.0, band_high_hz = 12.0;
  /// The T wave has ended this long after the R peak: the QT interval (Bazett: 0.45 s·√RR at the
  /// upper normal QTc) plus a margin for the R peak's place after the QRS onset.
  double t_wave_end_margin_seconds = 0.10, qt_seconds_per_root_rr = 0.45;
  /// The next QRS begins this long before its R peak (the end of the P-wave window).
  double qrs_onset_seconds = 0.07;
  /// A shorter interval holds less than a cycle of the band's upper half: not measured.
  double min_interval_seconds = 0.10;
};

/**
 * @brief Each beat's f-wave rate: zero crossings per second of the 3–12 Hz band (a 4th-order
 *        Butterworth band-pass, applied forward and backward: no phase shift) in the T–Q interval
 *        before the beat, from the previous beat's T-wave end (its QT from the R–R interval between
 *        the two beats) to this beat's QRS onset.
 * @param signal the lead the beats were found in (any units; its first finite value is the
 *        baseline the filter starts from; NaN samples are missing: they read as that baseline)
 * @param peaks R-peak samples, strictly increasing, inside the signal
 * @param sample_rate samples per second
 * @param params the interval's bounds and the band
 * @return one value per beat; NaN for the first beat, where the interval is shorter than
 *         min_interval_seconds or lies within one period of the band's lower edge of the
 *         signal's ends or of a missing sample (where the filter starts from rest), and for every
 *         beat when the band does not fit under the Nyquist frequency or no sample is finite
 * @throws zeroflow::invalid_argument when peaks do not increase or lie outside the signal, or the
 *         rate or a parameter is not positive and finite
 */
[[nodiscard]] std::vector<double> f_wave_rates(std::span<const float> signal, std::span<const std::int64_t> peaks,
                                               double sample_rate, const f_wave_params& params = {});

}  // namespace zeroflow::classify
