#pragma once
/// @file af_strip.hpp
/// AF in a strip: a recording too short for the window rule of af_rhythm.hpp to hold an episode
/// (a 10–60 s handheld or rest ECG) is judged as a whole, as a clinician reads a strip, by a small
/// learned prior: a logistic model over eight measures of the strip's rhythm and atrial
/// activity.
///
/// What is learned, and from what (docs/classification.md, "Short recordings"): the eight weights,
/// the bias, the decision threshold and the P-wave coherence that vetoes AF, fitted by
/// bench/af_cinc.py on the 4,264 labelled CinC 2017 development recordings (PhysioNet/Computing in
/// Cardiology Challenge 2017, ODC-By 1.0), the threshold the most sensitive one that calls at most
/// 1 % of normal and 4 % of other-rhythm records AF. Nothing else is learned: the measures are the
/// window rule's own (its irregular step, ectopic timing and left-out beats). The prior ships as a
/// safetensors file (`data/af_strip_prior.safetensors`, its provenance in the file's metadata),
/// embedded in the library.
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace zeroflow::classify {

struct af_params;
struct atrial_measures;

/// The strip's measures, in this order (each over the beats the window rule measures: not left
/// out, not ectopic by timing):
/// 0. the share of irregular steps (|ln(RR_b / RR_b−1)| above `irregular_step_log_ratio`);
/// 1. the median step |ln(RR_b / RR_b−1)|;
/// 2. the median window P-wave coherence (NaN: none measured);
/// 3. the median P-wave similarity to the dominant beat's (NaN: none measured);
/// 4. ln of the median R–R in seconds (the ventricular rate);
/// 5. ln of the number of measured steps (how much rhythm there is to judge);
/// 6. the share of distinct step pairs: of the pairs of consecutive measured steps (signed
///    ln(RR_b / RR_b−1), each rounded to a multiple of `irregular_step_log_ratio`), the distinct
///    ones over all (NaN: no pair). AF is irregularly irregular; an ectopic pattern repeats.
/// 7. the median f-wave rate (f_wave.hpp) of the beats whose interval and the one before it are
///    measured (NaN: none measured).
inline constexpr std::size_t af_strip_feature_count = 8;
using af_strip_features = std::array<double, af_strip_feature_count>;

/// The names of the measures, as the prior file's metadata lists them.
inline constexpr std::array<std::string_view, af_strip_feature_count> af_strip_feature_names{
    "irregular_share",       "median_step_log_ratio", "p_wave_coherence",    "p_wave_similarity",
    "log_median_rr_seconds", "log_measured_steps",    "distinct_step_pairs", "f_wave_rate"};

/// The logistic model: p = 1 / (1 + exp(−(bias + Σ weight_i (x_i − mean_i) / scale_i))), AF when
/// p ≥ threshold and the strip's median P-wave coherence is under `p_wave_coherence_max`. A
/// measure that is NaN (no P wave measured, beat times alone) counts as its mean: it adds no
/// evidence either way, and an unmeasured coherence vetoes nothing.
struct af_strip_prior {
  af_strip_features mean{}, scale{}, weight{};
  double bias = 0, threshold = 0.5;
  /// A P wave alike from beat to beat is organised atrial activity, not AF, however irregular
  /// the ventricles: a veto that the linear sum of evidence cannot outweigh. Chosen with the
  /// threshold (bench/af_cinc.py).
  double p_wave_coherence_max = 1;
  std::map<std::string, std::string> provenance;  ///< the file's metadata: source, licence, procedure, figures
};

/// The prior the library ships (data/af_strip_prior.safetensors), parsed once.
[[nodiscard]] const af_strip_prior& default_af_strip_prior();

/// Reads a prior from a safetensors file's bytes (tensors `mean`, `scale`, `weight` of eight F64,
/// `bias`, `threshold` and `p_wave_coherence_max` of one; metadata `features` naming
/// af_strip_feature_names in order).
/// @throws zeroflow::parse_error naming what is missing or wrong
[[nodiscard]] af_strip_prior af_strip_prior_from_safetensors(std::string_view bytes);

/**
 * @brief The strip's measures (af_strip_feature_names), with the window rule's ectopic timing
 *        and left-out beats, as find_af_episodes measures a strip.
 * @param peaks R-peak samples, strictly increasing, one per beat
 * @param left_out beats whose intervals are not the atria's (1: left out), or empty for none
 * @param atria what the signal shows of the atria at each beat (empty spans: not measured)
 * @return nothing when fewer than eight steps are measured (the window rule's minimum): too
 *         little rhythm to judge
 * @throws zeroflow::invalid_argument as find_af_episodes does
 */
[[nodiscard]] std::optional<af_strip_features> measure_af_strip(std::span<const std::int64_t> peaks, double sample_rate,
                                                                std::span<const std::uint8_t> left_out,
                                                                const atrial_measures& atria, const af_params& params);

/// The prior's probability that the strip is AF.
[[nodiscard]] double af_strip_probability(const af_strip_features& features, const af_strip_prior& prior);

/// The prior's call: the probability at least the threshold, and no coherent P wave.
[[nodiscard]] bool af_strip_is_af(const af_strip_features& features, const af_strip_prior& prior);

}  // namespace zeroflow::classify
