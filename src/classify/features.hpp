#pragma once
// The per-beat measurements behind the class rule (beat_classes.hpp): shape similarity to the
// dominant beat, local rhythm references and P-wave coherence; the AF rule's rhythm part.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "clarity_row.hpp"
#include "local_deviation.hpp"
#include "zeroflow/classify/af_strip.hpp"
#include "zeroflow/classify/beat_classes.hpp"

namespace zeroflow::classify::detail {

/// A beat at least this similar at its detected peak is not searched over shifts: a larger
/// value would change nothing the rule decides.
inline constexpr double plainly_dominant = 0.95;

/// Where in a row the QRS segment lies (−0.10 s to +0.15 s around the R peak) and how far it
/// may shift (±20 ms).
struct qrs_window {
  std::int64_t begin = 0, end = 0, max_shift = 0;
};
qrs_window qrs_window_of(const beat_rows& rows, double sample_rate);

/// Where local_deviation looks in a row: the QRS window, the beat's segment shifted by up to half
/// a QRS (±50 ms).
deviation_window deviation_window_of(const beat_rows& rows, double sample_rate);

/// Where in a row the P-wave segment lies: −0.25 s (or the row's start) to −0.07 s.
struct p_window {
  std::int64_t begin = 0, length = 0;
};
p_window p_window_of(const beat_rows& rows, double sample_rate);

/// Which rows make the dominant beat: `used` of them, row i * beats / used for i < used.
std::int64_t template_rows_used(std::int64_t beats, std::int64_t template_rows);

/// A segment of the dominant beat, mean-centred, and its norm.
struct dominant_segment {
  std::vector<double> values;
  double norm = 0;
};
/// The middle value of `values` (the upper of the two middle ones for an even count).
double upper_median(std::vector<double> values);

/// Per sample j < length, the median of the `used` rows (`chosen`, row_width apart) at begin + j.
std::vector<float> column_medians(std::span<const float> chosen, std::int64_t used, std::int64_t row_width,
                                  std::int64_t begin, std::int64_t length);

/// The dominant beat's QRS: the per-sample median of `used` rows (`chosen`, row_width apart), cut
/// to the QRS window.
dominant_segment dominant_qrs_of(std::span<const float> chosen, std::int64_t used, std::int64_t row_width,
                                 const qrs_window& qrs);
/// The dominant beat's P-wave segment: the per-sample median of the chosen rows over the P window,
/// detrended (the line through its ends removed) as every beat's segment is.
dominant_segment dominant_p_of(std::span<const float> chosen, std::int64_t used, std::int64_t row_width,
                               const p_window& p);
/// The rows the dominant beat is made of, copied out of rows in host memory: `used` of them,
/// row i * beats / used for i < used.
std::vector<float> chosen_rows(const beat_rows& rows, std::int64_t beats, std::int64_t used);
/// row_measurements::p_similarity of rows in host memory, against the dominant P-wave segment.
std::vector<float> p_similarity(const beat_rows& rows, std::int64_t beats, const p_window& p,
                                const dominant_segment& dominant);

/// The measurements the rule makes on the rows, made where the rows are: host_measurements on the
/// host, cuda_measurements on a CUDA device (only per-beat numbers come back).
class row_measurements {
 public:
  virtual ~row_measurements() = default;
  /// Shape similarity of each row's QRS to the dominant row's (beat_classes.hpp, step 1).
  virtual std::vector<float> similarity() = 0;
  /// For each beat, the coherence of the P-wave segments (each detrended: the line through its
  /// ends removed) of the beats within ±neighbours that are not left out: the energy of their
  /// average over the average of their energies (1: identical P waves; near 0: no common
  /// wave). NaN where fewer than eight segments are there.
  virtual std::vector<double> p_wave_coherence(std::span<const std::uint8_t> left_out, std::int64_t neighbours) = 0;
  /// Similarity of each beat's P-wave segment (detrended: the line through its ends removed) to
  /// the dominant beat's: their Pearson correlation, 0 where either is flat. An atrial premature
  /// beat's P wave comes from elsewhere in the atria (or hides in the T wave before it), a
  /// junctional beat has none or an inverted one: all three differ from the sinus P wave.
  virtual std::vector<float> p_similarity() = 0;
  /// Each beat's clarity (clarity_row.hpp): how far its QRS stands out of the signal around it.
  virtual std::vector<float> clarity() = 0;
  /// Each beat's echo (clarity_row.hpp's row_echo): beats × echo_parts ratios, beat after beat.
  virtual std::vector<float> echo() = 0;
  /// local_deviation.hpp's deviation of each of `beats` from the beats that `normal` (a flag per
  /// beat) marks within ±neighbours of it, less those spanning under min_span_fraction of their median.
  virtual std::vector<float> local_deviation(std::span<const std::int64_t> beats, std::span<const std::uint8_t> normal,
                                             std::int64_t neighbours, double min_span_fraction) = 0;
  /// The QRS segments (qrs(), unshifted) of the given beats, one after another.
  virtual std::vector<float> qrs_segments(std::span<const std::int64_t> beats) = 0;
  /// Where the QRS segment lies in a row.
  [[nodiscard]] virtual qrs_window qrs() const = 0;
};

/// Measurements of rows in host memory.
std::unique_ptr<row_measurements> host_measurements(const beat_rows& rows, std::int64_t beats, double sample_rate,
                                                    std::int64_t template_rows);

/// Measurements of C-contiguous float32 rows (beats × row_width) on a CUDA device, on `stream`.
/// @throws zeroflow::cuda_error in a build without CUDA
std::unique_ptr<row_measurements> cuda_measurements(const array& rows, const beat_rows& shape, double sample_rate,
                                                    std::int64_t template_rows, stream_view stream);

/// host_measurements of rows in host memory, else cuda_measurements (after the stream's work on
/// host rows is done).
std::unique_ptr<row_measurements> measurements_of(const array& rows, const beat_rows& shape, std::int64_t beats,
                                                  double sample_rate, std::int64_t template_rows, stream_view stream);

/// What a recording's other leads see of each beat (beat_classes.hpp, step 6): each lead's rows
/// (checked against `shape` and `beats`) measured where they are, and what a lead reads per beat:
/// nothing where its stretch is unreadable or the beat's clarity there is under
/// quality.min_clarity.
class other_leads {
 public:
  other_leads(std::span<const array> leads, const beat_rows& shape, std::int64_t beats, double sample_rate,
              const class_params& params, stream_view stream);
  /// Per beat, the median of its similarities over the leads that read it; NaN where none does
  /// (classification::other_lead_similarity).
  [[nodiscard]] std::vector<float> similarity() const;
  /// For each of `listed`, the median of its local_deviation (`normal` marking the beats of the
  /// local normal beat, ±neighbours, those spanning under min_span_fraction of their median left
  /// out) over the leads that read it; NaN where none does or none has enough normal beats near it.
  [[nodiscard]] std::vector<float> deviation(std::span<const std::int64_t> listed, std::span<const std::uint8_t> normal,
                                             std::int64_t neighbours, double min_span_fraction) const;
  [[nodiscard]] bool empty() const { return measured_.empty(); }

 private:
  std::vector<std::unique_ptr<row_measurements>> measured_;
  std::vector<std::vector<float>> readable_similarity_;  ///< per lead; NaN where it does not read the beat
  std::size_t beats_ = 0;
};

/// The rule itself, on the measurements of the rows wherever they are; `others` (null: none)
/// what the recording's other leads see.
/// `f_wave_rate` is each beat's f-wave rate (f_wave.hpp), or empty where not measured.
classification classify_measured(std::span<const std::int64_t> peaks, row_measurements& rows, double sample_rate,
                                 const class_params& params, std::span<const sample_stretch> no_signal,
                                 const other_leads* others, std::span<const double> f_wave_rate = {});

/// 1 for the beats inside a stretch without signal and the beat on each side of it.
std::vector<std::uint8_t> beside_no_signal(std::span<const std::int64_t> peaks,
                                           std::span<const sample_stretch> no_signal);

/// For each beat, the median of values[k] over the beats k within ±neighbours of it that `use`
/// marks; the median over all of them when fewer than three are marked.
std::vector<double> local_median(std::span<const double> values, std::span<const std::uint8_t> use,
                                 std::int64_t neighbours);

/// row_measurements::p_wave_coherence of rows in host memory (a window sliding over the beats).
std::vector<double> p_wave_coherence(const beat_rows& rows, std::int64_t beats, double sample_rate,
                                     std::span<const std::uint8_t> left_out, std::int64_t neighbours);

/// The recording's bound of the dominant shape (beat_classes.hpp, step 2).
double dominant_bound(std::span<const float> similarity, const class_params& params);

/// Families of QRS shapes (beat_classes.hpp, step 4): for each of the segments (`length` samples
/// each), the index of its family. A segment joins the first family whose running mean it
/// correlates with at `correlation` or more; else it starts one, while there are fewer than
/// `max_families`; else it joins the one it correlates with best.
std::vector<std::int32_t> shape_families(std::span<const float> segments, std::int64_t length, double correlation,
                                         std::int64_t max_families);

/// For each of `beats` (their QRS segments, qrs_segments(beats), one after another): whether its
/// QRS spans, peak to peak, less than params.shape.smallest_qrs_fraction of the dominant beats' median span (up
/// to template_rows of the beats `dominant` marks, evenly spaced). None when no beat is dominant.
std::vector<std::uint8_t> too_small(row_measurements& rows, std::span<const std::int64_t> beats,
                                    std::span<const float> segments, std::span<const std::uint8_t> dominant,
                                    const class_params& params);

/// Beats inside supraventricular runs (beat_classes.hpp, step 6), in one pass over the beats.
/// `fallback` is the reference where the recent normal intervals are too few (a local median).
std::vector<std::uint8_t> supraventricular_runs(std::span<const double> rr_before, std::span<const std::int64_t> peaks,
                                                double sample_rate, std::span<const std::uint8_t> dominant,
                                                std::span<const std::uint8_t> in_af, std::span<const double> fallback,
                                                const class_params& params);

/// Where a row's clarity is measured at this rate (clarity_row.hpp).
clarity_window clarity_window_of(const beat_rows& rows, double sample_rate);
/// row_measurements::clarity of rows in host memory.
std::vector<float> clarity(const beat_rows& rows, std::int64_t beats, const clarity_window& w);
/// Beats in stretches without readable ECG (beat_classes.hpp, step 0): the median clarity of the
/// beats within ±stretch_beats is under min_clarity.
std::vector<std::uint8_t> unreadable_beats(std::span<const float> clarity, const quality_params& p);
/// Where a row's echo is measured at this rate (clarity_row.hpp).
echo_window echo_window_of(const beat_rows& rows, double sample_rate);
/// row_measurements::echo of rows in host memory.
std::vector<float> echo(const beat_rows& rows, std::int64_t beats, const echo_window& w);
/// Stretches where the beats may be every other beat of a faster rhythm (beat_classes.hpp, step
/// 0): at least `fast_rhythm_beats` beats in a row with signal (not `no_signal`), each with a
/// second QRS-like slope (echo at least second_qrs_slope_ratio² of the beat's own) before the next
/// beat's QRS, and each readable or crowded: a beat unreadable by its clarity whose row after the
/// second QRS also holds a quiet part (echo under quiet_slope_ratio²) stands out of a quiet
/// baseline; only its neighbours' QRS complexes, not noise, fill its row. Such beats of a stretch
/// are made readable in `unreadable`.
std::vector<episode> fast_rhythm_stretches(std::span<const float> echo, std::span<const double> rr_after,
                                           std::span<const std::int64_t> peaks, std::span<const std::uint8_t> no_signal,
                                           std::span<std::uint8_t> unreadable, const quality_params& p);

/// Runs of marked beats (AF windows, unreadable beats) as [first, last] pairs, in order.
std::vector<std::pair<std::size_t, std::size_t>> runs_of(std::span<const std::uint8_t> marked);

/// Beats whose timing is ectopic (af_rhythm.hpp, step 1): early and followed by a pause, against
/// the median R–R of the beats around them.
std::vector<std::uint8_t> ectopic_timing(std::span<const double> rr_before, std::span<const double> rr_after,
                                         const af_params& params);

/// Each beat's R–R interval in seconds (the first a copy of the second; zeros for fewer than two
/// beats), after find_af_episodes' checks of its arguments.
/// @throws invalid_argument as find_af_episodes documents
std::vector<double> checked_intervals(std::span<const std::int64_t> peaks, double sample_rate,
                                      std::span<const std::uint8_t> left_out, const atrial_measures& atria,
                                      const af_params& params);

/// The beats whose intervals are not the atria's: left out, or ectopic by timing (an ectopic
/// beat's short and long intervals are no more the atria's than a V beat's are).
std::vector<std::uint8_t> unmeasured_beats(std::span<const double> rr_before, std::span<const std::uint8_t> left_out,
                                           const af_params& params);

/// ln(rr[b] / rr[b − 1]), signed, where neither b, b − 1 nor b − 2 is unmeasured (both intervals
/// the atria's); NaN elsewhere. The rule's step is its magnitude.
std::vector<double> signed_steps(std::span<const double> rr_before, std::span<const std::uint8_t> unmeasured);

/// "Irregularly irregular" as a number: of the pairs of consecutive measured steps among
/// steps[first, last), each rounded to a multiple of `bin_log_ratio`, the share that are
/// distinct. AF's pairs scatter; an ectopic pattern repeats a few however irregular each step is.
/// NaN (no evidence) without a pair or a positive bin.
double distinct_pair_share(std::span<const double> steps, std::size_t first, std::size_t last, double bin_log_ratio,
                           std::vector<std::pair<double, double>>& scratch);

/// The strip's measures of af_strip.hpp from R–R intervals (rr_before[b]: the interval ending at
/// beat b, the first a copy of the second) and the beats whose intervals are not the atria's.
std::optional<af_strip_features> strip_measures(std::span<const double> rr_before,
                                                std::span<const std::uint8_t> unmeasured, const atrial_measures& atria,
                                                const af_params& params);

/// The AF rule of af_rhythm.hpp on R–R intervals (rr_before[b]: the interval ending at beat b, the
/// first a copy of the second). `atria` holds empty spans where there is no signal (beat times
/// alone); `left_out` one entry per beat.
af_rhythm af_of(std::span<const double> rr_before, std::span<const std::int64_t> peaks, double sample_rate,
                std::span<const std::uint8_t> left_out, const atrial_measures& atria, const af_params& params);

}  // namespace zeroflow::classify::detail
