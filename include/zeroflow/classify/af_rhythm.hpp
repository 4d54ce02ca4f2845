#pragma once
/// @file af_rhythm.hpp
/// Atrial fibrillation from beat times: the rhythm half of the AF rule of beat_classes.hpp,
/// callable on R peaks alone (beat annotations such as the AF Database's, another detector's
/// beats), so that it can be judged on its own.
///
/// The rule (docs/classification.md gives the cross-validation that chose each threshold):
/// 1. A beat is *ectopic by its timing* when it comes early and is followed by a pause: R–R before
///    below `ectopic_early_ratio` and R–R after above `ectopic_pause_ratio` of the median R–R of the
///    ±`local_rhythm_beats` around it. Its two intervals say nothing of the atria, so they are left
///    out of the irregularity, as are the beats the caller leaves out (ventricular beats).
/// 2. A beat's step is |ln(RR_b / RR_b−1)|; it is irregular above `irregular_step_log_ratio`.
///    A window of ±`window_beats` is irregular when more than `irregular_share` of its measured
///    steps (at least eight) are. It can be AF only if irregularly so: at least
///    `distinct_pair_share_min` of its pairs of consecutive steps distinct, each step rounded to a
///    multiple of the irregular step (grouped beating and ectopic patterns repeat a few pairs).
/// 3. With the signal at hand, an irregular window is AF only without a consistent P wave (the
///    P-wave coherence of beat_classes.hpp at most `p_wave_coherence_max`); from beat times alone
///    the rhythm decides.
/// 4. AF stretches at most `bridge_gap_seconds` apart are one episode: an ectopic beat, a brief
///    ventricular run or a few regular-looking intervals inside AF do not end it. Episodes of
///    fewer than `min_episode_beats` beats are dropped (runs of atrial premature beats), unless
///    the episode is the whole recording: every beat outside it has too few measured steps for a
///    window.
/// 5. A strip — beats spanning at most `strip_max_seconds`, too short for windows and episodes —
///    whose P waves are measured (coherences given) is read whole instead, as a clinician reads
///    one, by the learned prior of af_strip.hpp: one episode of all its beats, or none. From beat
///    times alone steps 1–4 decide.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace zeroflow::classify {

/// The AF rule's parameters; the defaults are the documented method.
struct af_params {
  std::int64_t window_beats = 16;          ///< beats on each side of a beat's irregularity window
  double irregular_step_log_ratio = 0.10;  ///< |ln(RR_b / RR_b−1)| above this: an irregular step
  double irregular_share = 0.40;           ///< share of irregular steps above which a window is irregular
  /// An irregular window is AF only if at least this share of its pairs of consecutive steps are
  /// distinct (0: any share): AF is irregularly irregular, an ectopic pattern repeats its pairs.
  double distinct_pair_share_min = 0.6;
  std::int64_t local_rhythm_beats = 8;  ///< beats on each side of the local median R–R (ectopic timing)
  double ectopic_early_ratio = 0.85;    ///< R–R before / local median below this ...
  double ectopic_pause_ratio = 1.15;    ///< ... and R–R after / local median above this: ectopic timing
  double p_wave_coherence_max = 0.20;   ///< window P-wave coherence at or below which P waves are absent
  double bridge_gap_seconds = 30;       ///< AF stretches this close (last to first beat) are one episode
  std::int64_t min_episode_beats = 30;  ///< shortest AF episode reported
  /// Beats spanning at most this long are a strip, judged whole by af_strip.hpp's prior (0: never).
  /// 60 s: the longest recordings the prior was learned from.
  double strip_max_seconds = 60;
};

/// A rhythm episode: beats first_beat..last_beat (inclusive) and their R-peak samples.
struct episode {
  std::string rhythm;  ///< "AFIB" (atrial fibrillation or flutter with an irregular response)
  std::int64_t first_beat = 0, last_beat = 0;
  std::int64_t onset = 0, offset = 0;  ///< R peaks of the first and the last beat
};

/// What the ECG shows of the atria at each beat, beyond the beat times: each one value per beat,
/// or empty where not measured (beat times alone).
struct atrial_measures {
  /// Each beat's window P-wave coherence (beats.csv's `p_coherence`; NaN where unmeasured: the
  /// rhythm decides).
  std::span<const double> p_wave_coherence;
  /// Each beat's P-wave similarity to the dominant beat's (beats.csv's `p_similarity`), for a
  /// strip's prior.
  std::span<const double> p_wave_similarity;
  /// Each beat's f-wave rate (f_wave.hpp; beats.csv's `f_wave_rate`), for a strip's prior.
  std::span<const double> f_wave_rate;
};

/// The rhythm rule's answer, one entry per beat where per beat.
struct af_rhythm {
  std::vector<std::uint8_t> irregular;  ///< 1 where the beat's window is irregular (step 2)
  std::vector<std::uint8_t> in_af;      ///< 1 inside an AF episode
  std::vector<episode> episodes;        ///< AF episodes, in time order
};

/**
 * @brief AF episodes from beat times (steps 1, 2, 4 and 5 of this file's rule), and step 3 where
 *        each beat's window P-wave coherence is given (beats.csv's `p_coherence` column of a run).
 *        A strip's prior (step 5) also weighs the P-wave similarity and the f-wave rate.
 * @param peaks R-peak samples, strictly increasing, one per beat
 * @param sample_rate samples per second, > 0
 * @param left_out beats whose intervals are not the atria's (1: left out), e.g. ventricular beats;
 *        empty for none, else one entry per beat
 * @param atria what the signal shows of the atria at each beat; empty spans for beat times alone
 * @throws zeroflow::invalid_argument when peaks do not increase, the sizes differ, the rate is not
 *         positive or a parameter is out of range
 */
[[nodiscard]] af_rhythm find_af_episodes(std::span<const std::int64_t> peaks, double sample_rate,
                                         std::span<const std::uint8_t> left_out = {}, const atrial_measures& atria = {},
                                         const af_params& params = {});

/// @throws zeroflow::invalid_argument unless every parameter is in range (window_beats ≥ 4, the other
///         counts ≥ 1, seconds finite and ≥ 0, the early ratio in (0, 1], the pause ratio ≥ 1, a share in [0, 1))
void check_af_params(const af_params& params);

}  // namespace zeroflow::classify
