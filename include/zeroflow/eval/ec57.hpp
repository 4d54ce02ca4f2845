#pragma once
/// @file ec57.hpp
/// Beat-by-beat and AF-duration statistics as ANSI/AAMI EC57 defines them (and WFDB's bxb and
/// epicmp apply them): a test beat matches a reference beat within 150 ms, one to one; the first
/// five minutes are left out (the algorithm's learning period); reference symbols become AAMI
/// classes (labels.hpp). From the confusion matrix of reference N, S, V, F, Q (and O: no
/// reference beat) against test n, s, v, f, q (and o: no test beat):
/// - QRS: TP every matched pair, FN an unmatched reference beat, FP an unmatched test beat;
/// - VEB: TP Vv; FN Vn + Vs + Vf + Vq + Vo; FP Nv + Sv + Ov (a fusion or unclassifiable beat
///   called V is no error); TN every other pair without V; FPR = FP / (TN + FP);
/// - SVEB: TP Ss; FN Sn + Sv + Sf + Sq + So; FP Ns + Vs + Fs + Os;
/// - ventricular flutter or fibrillation of the reference (`[` … `]`) is left out: neither its
///   reference beats nor the test beats inside it are counted (bxb does the same);
/// - AF: duration sensitivity = overlap / reference AF time, positive predictivity = overlap /
///   test AF time, AF being atrial fibrillation or flutter (`(AFIB`, `(AFL`).
#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "zeroflow/io/labels.hpp"

namespace zeroflow::eval {

/// Sample intervals [begin, end).
using intervals = std::vector<std::pair<std::int64_t, std::int64_t>>;

/// One ratio with the counts behind it (NaN when the denominator is 0).
struct ratio_stat {
  std::int64_t numerator = 0, denominator = 0;
  [[nodiscard]] double value() const noexcept;
};

struct ec57_result {
  /// matrix[reference][test], rows and columns N, S, V, F, Q, O (O: no beat on that side).
  std::array<std::array<std::int64_t, 6>, 6> matrix{};
  ratio_stat qrs_se, qrs_pp, veb_se, veb_pp, veb_fpr, sveb_se, sveb_pp;
  /// AF durations in samples after the start; af_se / af_pp are overlap over reference / test.
  std::int64_t af_reference = 0, af_test = 0, af_overlap = 0;
  ratio_stat af_se, af_pp;
  std::int64_t start = 0;  ///< the first sample counted
  /// Samples after the start left out as the reference's ventricular flutter or fibrillation.
  std::int64_t flutter_excluded = 0;
};

/// @brief The AAMI class letter's row/column in ec57_result::matrix (N S V F Q O → 0..5).
[[nodiscard]] int ec57_index(char aami_class) noexcept;

/// @brief AF intervals from rhythm changes: from each change to AFIB or AFL to the next change
///        to anything else (or `record_end`).
[[nodiscard]] intervals af_intervals(std::span<const io::rhythm_change> changes, std::int64_t record_end);

/**
 * @brief The EC57 comparison of a test annotation set against the reference.
 * @param test the test beats (samples non-decreasing, classes N/S/V/F/Q) and rhythm changes
 * @param reference the reference beats and rhythm changes
 * @param match_samples the match window (150 ms in samples: tolerance_samples(0.15, rate))
 * @param start the first sample counted (5 minutes in samples by default; 0 counts everything)
 * @param record_end the end of the record in samples (closes an AF episode left open)
 * @throws zeroflow::invalid_argument when the samples are not sorted or the window is negative
 */
[[nodiscard]] ec57_result compare_ec57(const io::beat_labels& test, const io::beat_labels& reference,
                                       std::int64_t match_samples, std::int64_t start, std::int64_t record_end);

/// @brief Sums the counts of several records (gross statistics).
void add_counts(ec57_result& total, const ec57_result& record);

}  // namespace zeroflow::eval
