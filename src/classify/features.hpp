#pragma once
// The per-beat measurements behind the class rule (beat_classes.hpp): shape similarity to the
// dominant beat, local rhythm references, R–R irregularity and P-wave coherence.
#include <cstdint>
#include <span>
#include <vector>

#include "zeroflow/classify/beat_classes.hpp"

namespace zeroflow::classify::detail {

/// Shape similarity of each row's QRS to the dominant (median) row's.
std::vector<float> shape_similarity(const beat_rows& rows, std::int64_t beats, double sample_rate,
                                    std::int64_t template_rows);

/// For each beat, the median of values[k] over the beats k within ±neighbours of it that `use`
/// marks; the median over all of them when fewer than three are marked.
std::vector<double> local_median(std::span<const double> values, std::span<const std::uint8_t> use,
                                 std::int64_t neighbours);

/// For each beat, |ln(rr[b] / rr[b-1])| where neither b, b − 1 nor b − 2 is left out; NaN elsewhere.
std::vector<double> irregularity(std::span<const double> rr_before, std::span<const std::uint8_t> left_out);

/// For each beat, the coherence of the P-wave segments (−0.25 s to −0.07 s before the R peak,
/// each detrended) of the beats within ±neighbours that are not left out: the energy of their
/// average over the average of their energies (1: identical P waves; near 0: no common wave).
/// NaN where fewer than eight segments are there.
std::vector<double> p_wave_coherence(const beat_rows& rows, std::int64_t beats, double sample_rate,
                                     std::span<const std::uint8_t> left_out, std::int64_t neighbours);

/// Beats inside AF episodes: windows both irregular and without P waves, runs of at least
/// min_episode_beats.
std::vector<std::uint8_t> af_beats(std::span<const double> irregular, std::span<const double> coherence,
                                   const class_params& params);

}  // namespace zeroflow::classify::detail
