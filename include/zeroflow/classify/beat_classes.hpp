#pragma once
/// @file beat_classes.hpp
/// An answer for every beat: its AAMI class (N, S, V or Q) and the recording's atrial
/// fibrillation episodes, decided per recording without labels from what the pipeline already
/// has — each beat's embedded row and its R–R intervals.
///
/// The rule (docs/classification.md says why each part is there and how it was tuned on DS1):
/// 0. Readable ECG: a beat's *clarity* is how far its QRS stands out of the signal around it (the
///    largest squared 10 ms slope within ±50 ms of the R peak over their mean in the rest of its
///    row, ±100 ms left out). Where the median clarity of the beats within ±`quality.stretch_beats`
///    is under `quality.min_clarity`, no QRS stands out more than noise's own peaks do (a loose
///    lead, white noise, the mains, a burst of artefact): those beats are Q whatever else, are
///    left out of the AF test, and the stretch is reported.
/// 1. The dominant beat: the per-sample median of the rows (up to `shape.template_rows` of them, evenly
///    spaced). A beat's *shape similarity* is the largest Pearson correlation of its QRS
///    (−0.10 s to +0.15 s around the R peak) with the dominant QRS, over shifts of up to ±20 ms
///    (a beat already at 0.95 or more at its detected peak is not shifted).
/// 2. The dominant shape's bound is the recording's own: its median similarity less
///    `shape.dominant_spread_deviations` robust deviations (1.4826 MAD of the similarities ≥
///    `shape.dominant_min_correlation`), held within [`shape.dominant_min_correlation`,
///    `shape.dominant_max_correlation`]. A recording whose normal beats
///    are alike to 0.99 then sees a V beat at 0.9 as unlike; a noisy one keeps 0.85.
/// 3. Dominant-shaped beats set the local rhythm: for V, the median R–R before dominant beats
///    within ±`timing.local_rhythm_beats`; for S, the median of intervals between two dominant beats (so that
///    bigeminy does not make normal beats look early).
/// 4. V: a shape unlike the dominant one and a ventricular timing (early, or followed by a
///    pause); or an unlike shape whose *family* is ventricular: the unlike beats are grouped by
///    QRS shape (a beat joins the first group whose running mean it correlates with at
///    `shape.family_min_correlation` or more), and a group of which at least `shape.family_ventricular_share` of
///    the members outside AF have a ventricular timing, a larger share than the dominant beats'
///    counted the same way (where those keep time no better, as in AF, timing says nothing about
///    the family; where none counts, the share alone decides), is V as a whole, given at least
///    `shape.family_min_voters` members whose timing counts (couplets, runs,
///    interpolated beats), while a family of normally timed unlike beats (a second conduction
///    pattern, noise) is not. Timing counts only for a QRS that stands out of the noise
///    (clarity at least `quality.min_clarity`, step 0): noise moves a detected R peak and the
///    intervals on both sides of it, so a beat no clearer than noise has no ventricular timing
///    and does not vote for its family.
/// 5. Atrial fibrillation: the rule of af_rhythm.hpp (`af`), with the V beats of a first pass (an
///    ectopic timing counting however clear the QRS) and the unlike beats no clearer than noise left
///    out of the irregularity and of the P-wave coherence (the energy of the window's average
///    P-wave segment over the segments' mean energy). Inside AF timing says nothing: an unlike shape is V when
///    its family is ventricular by its members outside AF, or when it is far from the dominant
///    one (similarity below `shape.other_shape_max_similarity`: another QRS, not the same one conducted
///    a little differently, as aberrant beats in AF are); else as step 6. An early beat is not S.
/// 6. An unlike shape with neither timing nor family ventricular (a second conduction pattern,
///    an axis shift, noise, artefact), or a QRS under `shape.smallest_qrs_fraction` of the dominant
///    beats' peak-to-peak size (the median over up to `shape.template_rows` of them: where a lead comes
///    loose the beats shrink to a few percent of their size, and their shape says nothing), is
///    decided by the recording's other leads where they read it (recording_context::other_leads;
///    a lead reads a beat whose stretch is readable and whose own clarity is at least
///    `quality.min_clarity`): N when the median of its shape similarities there is at least
///    `shape.other_shape_max_similarity` (an axis shift or a loosening electrode changes one lead
///    only); V when it is below, and the beat's own similarity is below it too and its own QRS
///    clear (a ventricular QRS is another shape in every lead, while noise spoils each lead its own
///    way); else N — a beat in readable signal is never Q for its shape alone: no lead placing it,
///    the rhythm it sits in does (on DS1 such beats are N seven times in eight) — but Q for a QRS
///    under `shape.smallest_qrs_fraction` (a lead coming loose) or with a clarity under
///    `quality.min_clarity` (no clearer than noise). S, outside AF, for a
///    dominant shape: arriving early (R–R before below `timing.premature_ratio` of the local normal interval), or a
///    little early (below `timing.premature_with_p_ratio`) with a P wave unlike the dominant beat's (P-wave similarity
///    at most `timing.p_unlike_max_similarity`: an ectopic atrial or junctional origin, where sinus arrhythmia alone
///    keeps the sinus P wave) where the rhythm is regular (outside the irregular windows of step 5), or inside a
///    supraventricular run — one that starts with a beat below `runs.onset_ratio` of the reference rhythm (the median
///    of the last `runs.reference_intervals` normal intervals of the last `runs.reference_seconds`) and goes on while
///    each interval stays below `runs.continue_ratio` of it and within `runs.regularity_log_ratio` (log ratio) of the
///    one before. N: every other beat.
/// 7. The other leads' check of V: a ventricular QRS is another shape in every lead, while noise
///    in this lead spoils a normal beat's shape and moves its R peak (its timing) here only. A beat
///    called V is N where the other leads that read it see its QRS no further from the normal
///    beats (N and S, conducted alike) within ±`timing.local_rhythm_beats` (at most 32 a side;
///    those under `shape.smallest_qrs_fraction` of their median QRS span left out, where the
///    lead came loose; fewer than 4: that lead says nothing) than those lie from each other: its mean
///    squared difference from their per-sample median, at the best shift of up to half a QRS,
///    under `shape.other_lead_min_deviation` times the median of theirs (the median over the
///    leads).
/// 8. Unconfirmed V: where the recording has other leads and none of them reads a lone beat called
///    V (neither neighbour is V), the beat is Q when its own clarity is under
///    `shape.unconfirmed_v_min_clarity`.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "zeroflow/classify/af_rhythm.hpp"
#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::classify {

/// The shape half of the rule (steps 1, 2, 4 and 6): the dominant beat, its bound, the families
/// of unlike beats and when an unlike shape says nothing.
struct shape_params {
  double dominant_min_correlation = 0.85;    ///< the lowest bound of the dominant shape's similarity
  double dominant_max_correlation = 0.95;    ///< the highest bound of the dominant shape's similarity
  double dominant_spread_deviations = 10.0;  ///< robust deviations below the median similarity: the bound
  double family_min_correlation = 0.8;       ///< QRS correlation that joins an unlike beat to a family
  double family_ventricular_share = 0.5;     ///< share of ventricular timings that makes a family V
  std::int64_t family_min_voters = 1;        ///< members whose timing counts that a family needs to vote
  std::int64_t max_families = 64;            ///< families at most (later beats join the nearest)
  std::int64_t template_rows = 2048;         ///< rows at most in the dominant beat's median
  double smallest_qrs_fraction = 0.125;      ///< an unlike beat whose QRS spans less than this fraction of
                                             ///< the dominant beats' (peak to peak) is Q whatever its timing
  /// A QRS less similar than this to the dominant one is another shape altogether, not the same
  /// one conducted a little differently: V inside AF (step 5), and V where the other leads see it
  /// so (step 6).
  double other_shape_max_similarity = 0.5;
  /// A beat called V stays V only where the other leads that read it see its QRS at least this
  /// far from the normal beats around it (within ±`timing.local_rhythm_beats`), in units of how
  /// far those lie from each other (the median over the leads; step 7). 1: no nearer than a
  /// typical normal beat. 0: the other leads never take V away.
  double other_lead_min_deviation = 1.0;
  /// A lone beat called V (neither neighbour is V) that none of the recording's other leads reads
  /// (they are noisy there) stays V only with a QRS at least this clear in its own lead (clarity,
  /// step 0); else Q, unreadable: no lead confirms its shape, and its own QRS stands only a little
  /// out of the noise, which shapes it and moves its R peak (step 8). In a couplet or a run each
  /// QRS crowds its neighbours' rows, so clarity cannot tell noise there. 0: never. Single-lead
  /// recordings are not touched. Chosen by leave-one-record-out over DS1 (bench/class_param_cv.py).
  double unconfirmed_v_min_clarity = 15;
};

/// The timing half (steps 3, 4 and 6): what is early, a pause, premature, and how unlike a P wave is.
struct timing_params {
  std::int64_t local_rhythm_beats = 8;    ///< beats on each side that make the local rhythm
  double ventricular_early_ratio = 0.92;  ///< R–R before / local dominant R–R below this: early enough for V
  double ventricular_pause_ratio = 1.10;  ///< R–R after / local dominant R–R above this: a compensatory pause
  /// One of the two cues alone (early, or a pause) makes a ventricular timing only for a beat
  /// whose QRS is at least this clear (clarity, step 0); both together do for any readable QRS
  /// (step 4). 0: one cue counts as both do. Noise moves the detected R peak, and with it one cue at a time, but a wide
  /// ventricular QRS is less steep, so less clear: bench/class_param_cv.py measured a bound out of
  /// sample and it cost more V beats on clean records than it saved false ones under noise
  /// (docs/classification.md, "Measured and not taken").
  double one_cue_min_clarity = 0;
  double premature_ratio = 0.87;         ///< R–R before / local normal R–R below this: an S beat
  double premature_with_p_ratio = 0.95;  ///< below this, an S beat when its P wave is not the sinus one:
  double p_unlike_max_similarity = 0.0;  ///< P-wave similarity to the dominant beat's at or below this
};

/// Readable ECG (step 0). The bound is fixed by what noise alone gives (white noise, a flat line with
/// noise, a 50 Hz sine: 2 to 9), not tuned on labelled beats; clear ECG gives 30 and more. A rhythm
/// faster than the detector follows (detection.md: about every other beat lost above 240 bpm) shows
/// as a second QRS in every beat's row; its bounds are the detector's own T-wave rules (a peak at
/// least half as steep as the beat is not its T wave; one under a quarter of its steepness is no
/// QRS at all) and the heart-rate average of the Holter analysis (8 beats).
struct quality_params {
  std::int64_t stretch_beats = 4;       ///< beats on each side whose median clarity decides (about 8 s)
  double min_clarity = 10;              ///< a stretch whose median clarity is under this has no readable ECG
  double second_qrs_slope_ratio = 0.5;  ///< a slope after the QRS at least this fraction of its own: a second QRS
  std::int64_t fast_rhythm_beats = 8;   ///< beats in a row with a second QRS that make a possibly faster rhythm
  /// A slope after the QRS under this fraction of its own: a quiet baseline, no QRS there. A beat
  /// whose clarity is low only because its neighbours' QRS complexes crowd its row (a second QRS,
  /// then quiet) belongs to a faster rhythm, not to noise, which is steep everywhere.
  double quiet_slope_ratio = 0.25;
  /// No beat for this long, though the detector lowers its levels in a gap down to a sixteenth of
  /// the last beat's: no QRS-like activity, a lead off. Longer than the pauses Holter recordings
  /// document (asystole of 10–20 s ends in syncope), so that a real pause stays a pause.
  double beatless_seconds = 30;
  /// Beats found in several leads (joint_detection.hpp): two detections this close are one beat
  /// (EC57's matching window); a beat only another lead finds fills an interval of the first
  /// lead's beats longer than missed_beat_ratio times the local one (a lost beat doubles it;
  /// 1.5 is half-way).
  double same_beat_seconds = 0.15;
  double missed_beat_ratio = 1.5;
};

/// Supraventricular runs (step 6), measured against the rhythm before them.
struct run_params {
  double onset_ratio = 0.75;             ///< R–R / reference below this: a supraventricular run starts
  double continue_ratio = 0.87;          ///< R–R / reference below this: the run goes on
  double regularity_log_ratio = 0.10;    ///< |ln(R–R / previous R–R)| at most this: the run goes on
  std::int64_t reference_intervals = 8;  ///< normal intervals of the reference rhythm
  double reference_seconds = 60;         ///< how old a reference interval may be
};

/// The rule's parameters, one struct per part; the defaults are the documented method
/// (docs/classification.md says which were chosen how).
struct class_params {
  quality_params quality;
  shape_params shape;
  timing_params timing;
  run_params runs;
  af_params af;  ///< the AF rule (af_rhythm.hpp)
};

/// @throws zeroflow::invalid_argument naming the first parameter out of range: correlations in
///         [−1, 1] with min ≤ max, counts ≥ 1, shares in [0, 1], early and premature ratios in
///         (0, 1] with premature ≤ premature_with_p, pause ratios ≥ 1, seconds > 0, and af_params'
///         own ranges (check_af_params)
void check_class_params(const class_params& params);
/// @brief The readable-ECG parameters alone (check_class_params checks them too).
/// @throws zeroflow::invalid_argument naming the first out of range
void check_quality_params(const quality_params& params);

/// What the rule found, one entry per beat where per beat.
struct classification {
  std::vector<char> classes;      ///< 'N', 'S', 'V' or 'Q'
  std::vector<float> similarity;  ///< shape similarity to the dominant beat (−1..1)
  /// The median of the beat's shape similarities to each other lead's dominant beat, over the
  /// other leads where it is readable (−1..1); NaN where none is (or the recording has one lead).
  std::vector<float> other_lead_similarity;
  /// Step 7's measure for each beat called V before it: the median over the other leads that read
  /// it of its deviation from the normal beats around it, in units of their own spread (under
  /// `shape.other_lead_min_deviation`: N). NaN for every other beat, and where no lead measured it.
  std::vector<float> other_lead_deviation;
  /// The beat's shape family: 0 the dominant shape, k ≥ 1 the k-th family of unlike beats (step 4;
  /// numbered in the order of their first member): what a reader reviews as one template.
  std::vector<std::int32_t> family;
  std::vector<float> p_similarity;  ///< P-wave similarity to the dominant beat (−1..1; 0 where flat)
  std::vector<float> p_coherence;   ///< P-wave coherence of the beat's AF window (0..1; NaN: too few beats)
  std::vector<float> f_wave_rate;   ///< f-wave rate before the beat (f_wave.hpp; NaN: not measured, or not a strip)
  std::vector<float> clarity;       ///< how far the beat's QRS stands out of the signal around it (step 0)
  std::vector<std::uint8_t> unreadable;  ///< 1 inside a stretch without readable ECG (called Q)
  /// Those stretches, in time order (rhythm "noise"); one around a stretch without signal
  /// (sample_stretch) reaches from its first to its last sample, beyond the R peaks of its beats.
  std::vector<episode> unreadable_stretches;
  /// Stretches whose beats may be every other beat of a faster rhythm (a second QRS-like complex
  /// between each two: step 0), in time order (rhythm "fast"): a warning, the classes unchanged.
  std::vector<episode> fast_rhythm_stretches;
  double dominant_bound = 0;        ///< the similarity at or above which a beat had the dominant shape
  std::vector<float> prematurity;   ///< R–R before / local normal R–R
  std::vector<std::uint8_t> in_af;  ///< 1 inside an AF episode
  std::vector<episode> episodes;    ///< AF episodes, in time order
};

/// The beats' rows as the pipeline embedded them: `rows` holds beats × row_width floats, row b
/// the samples peak[b] − window_before .. peak[b] + window_after − 1 (zero-padded).
struct beat_rows {
  std::span<const float> rows;
  std::int64_t row_width = 0;
  std::int64_t window_before = 0;
  std::int64_t window_after = 0;
};

/// A stretch of the recording without any signal, [first, last] in samples: a lead that came off
/// or an amplifier at its rail (the pipeline finds them: one value for a second or more).
struct sample_stretch {
  std::int64_t first = 0, last = 0;
};

/// What the rule may use beyond the beats' rows in the lead they were found in.
struct recording_context {
  /// Stretches without signal, in order: their beats, and the beat on each side (its interval
  /// spans the stretch; a step onto a rail reads as a beat), are unreadable.
  std::span<const sample_stretch> no_signal;
  /// The same beats' rows in the recording's other ECG leads, each embedded at the same R peaks
  /// with the same windows and row width (C-contiguous float32, beats × row_width, on any
  /// device): each is measured as the beats' own lead is (its own dominant beat and clarity), and
  /// decides the unlike beats that the beats' own lead cannot place (step 6).
  std::span<const array> other_leads;
  /// The lead the beats were found in (1-D float32, on any device), or null. A strip's AF prior
  /// weighs its f-wave rates (f_wave.hpp), measured in it from a second before the first beat
  /// to a second after the last; a longer recording's are not measured.
  const array* signal = nullptr;
};

/**
 * @brief Classifies every beat and finds AF episodes (the rule in this file's comment).
 * @param peaks R-peak samples, strictly increasing, one per beat
 * @param rows the beats' embedded rows (see beat_rows)
 * @param sample_rate samples per second, > 0
 * @param context stretches without signal and the other leads' rows (recording_context)
 * @throws zeroflow::invalid_argument when the sizes disagree (an other lead's rows included),
 *         peaks are not increasing, the window is too short for the QRS and P-wave segments, or a
 *         parameter is out of range
 */
[[nodiscard]] classification classify_beats(std::span<const std::int64_t> peaks, const beat_rows& rows,
                                            double sample_rate, const class_params& params = {},
                                            const recording_context& context = {});

/**
 * @brief The same rule on rows wherever they are: rows in host memory are read in place; rows on a
 *        CUDA device are measured there (the dominant beat from up to template_rows of them, the
 *        shape similarity and the P-wave coherence by kernels), and only per-beat numbers reach
 *        the host, where the rule decides. Host and device give the same classes.
 * @param rows C-contiguous float32, beats × row_width: row b the samples peak[b] − window_before
 *        .. peak[b] + window_after − 1 (zero-padded)
 * @param stream the stream the rows were written on; the measurements run on it
 * @throws zeroflow::invalid_argument as the other overload; zeroflow::cuda_error for device rows
 *         in a build without CUDA
 */
[[nodiscard]] classification classify_beats(std::span<const std::int64_t> peaks, const array& rows,
                                            std::int64_t window_before, std::int64_t window_after, double sample_rate,
                                            stream_view stream, const class_params& params = {},
                                            const recording_context& context = {});

/// @brief Where the detector found no beat for longer than quality.beatless_seconds (from the
///        recording's start, between two beats, or to its end): stretches without ECG, to be given
///        to classify_beats with the stretches without signal (recording_context::no_signal).
/// @param peaks R-peak samples, increasing. @param samples the recording's length.
/// @return [first, last] samples of each stretch, in order: from the sample after a beat to the
///         one before the next.
/// @throws zeroflow::invalid_argument for a sample rate ≤ 0 or parameters out of range
[[nodiscard]] std::vector<sample_stretch> beatless_stretches(std::span<const std::int64_t> peaks, std::int64_t samples,
                                                             double sample_rate, const quality_params& params = {});

/// @brief Counts of each class, in the order N, S, V, Q.
[[nodiscard]] std::vector<std::int64_t> class_counts(std::span<const char> classes);

/// @brief The atrial part of each beat's evidence: how unlike the dominant beat's its P-wave
///        segment is, max(0, robust z-score of 1 − p_similarity) over the beats outside AF, whose
///        spread is at least `floor`; 0 inside AF, where there is no P wave to compare. Atrial
///        premature and junctional beats whose timing alone does not tell them (called N) get it.
/// @throws zeroflow::invalid_argument when the spans differ in length or floor ≤ 0
[[nodiscard]] std::vector<float> atrial_evidence(std::span<const float> p_similarity,
                                                 std::span<const std::uint8_t> in_af, double floor = 0.05);

/// @brief The second part of each beat's shape evidence, beside the model's reconstruction error:
///        how unlike the dominant beat's its QRS is, max(0, robust z-score of 1 − similarity) over
///        every beat, whose spread is at least `floor`. It orders the V beats by how ventricular
///        they look and lifts the unlike beats that the rule calls N (inside AF, where timing says
///        nothing, and aberrated beats), measured without the model.
/// @throws zeroflow::invalid_argument when floor ≤ 0
[[nodiscard]] std::vector<float> shape_evidence(std::span<const float> similarity, double floor = 0.005);

/// @brief Anomaly scores that follow the answer: every beat the rule calls S or V ranks above every
///        beat it calls Q, and those above every beat it calls N; within each of the three the
///        evidence (`score`, ≥ 0: shape and rhythm) orders the beats. A Q beat is noise or an
///        artefact — worth a look, but after the ectopic beats. The result is 0.5 + atan(score) / π,
///        in [0.5, 1), for N, 0.5 more for Q and 1 more for S and V; NaN stays NaN (an unscored beat).
/// @throws zeroflow::invalid_argument when the two spans differ in length
[[nodiscard]] std::vector<float> scores_following_classes(std::span<const float> score, std::span<const char> classes);

}  // namespace zeroflow::classify
