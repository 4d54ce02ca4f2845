#pragma once
/// @file qrs_detect.hpp
/// Beat detection for real recordings: the seed's Ricker band-pass and non-maximum suppression
/// propose candidate peaks, and adaptive decision rules (qrs_rules) choose the beats among them.
///
/// Why not the seed's detector alone: its gate has no threshold and a 0.72 s window, so on real
/// ECG it gates T waves and noise in long gaps and cannot see a beat closer than 0.36 s to a larger
/// one. Here the band-passed signal is squared (either polarity, QRS complexes stand out from P and
/// T waves), its local maxima at least a refractory period apart are the candidates, and a
/// candidate is a beat when it clears a threshold between running signal and noise levels, is not
/// a slow wave right after a beat (T wave), and is not followed closely by a stronger one (then it
/// was a P wave). A gap much longer than the recent rhythm triggers a search back for the missed
/// beat; when none qualifies the levels are halved, which follows a signal that became weaker.
/// A gap only somewhat longer (a premature beat and its pause) is searched for a candidate that
/// stands far out of the energy around it: a wide beat puts little energy into the QRS band and
/// may not clear a threshold set by narrow ones, but it is as clear of a quiet background.
/// Inside a burst of noise (a candidate whose energy does not stand out from the energy around
/// it), of candidates closer than half the recent RR interval only the steepest is a beat:
/// electrode motion makes QRS-band peaks as strong as beats, but not as steep. Once the beats are
/// chosen, a beat in noise that splits an ordinary interval of a regular rhythm in two (its
/// neighbours one reference R–R apart) and is less steep than a neighbour goes (qrs_off_rhythm):
/// noise does not keep time, and an early beat of the heart is followed by a pause; one displaced
/// out of time gives way to a candidate in time (qrs_recentred). Last, where beats stand in noise
/// between two clear beats, the candidates between are re-decided as the cheapest path that keeps
/// the rhythm — the reference R–R, or in an irregular rhythm the range of the clear intervals —
/// and takes steep, strong candidates (qrs_follow_rhythm): two errors side by side, which the
/// checks of single beats cannot see, are mended together.
#include <cstdint>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/signal/params.hpp"

namespace zeroflow::signal {

/// Every intermediate of detect_qrs, on the signal's device.
struct qrs_detection {
  array filtered;    ///< bandpass(signal, ricker_width): float32, N (causal, delayed by (ricker_width − 1)/2)
  array energy;      ///< float32, N: the squared response to the zero-mean Ricker kernel, moved back by the band-pass
                     ///< delay; 0 where undefined (the first and last samples, gaps) or within rounding
  array candidates;  ///< int64: local maxima of energy, each the largest within about ±refractory/2
  array amplitude;   ///< float32 per candidate: energy there
  array slope;       ///< float32 per candidate: largest |x[i+1] − x[i−1]| / 2 within ±slope_seconds
  array background;  ///< float32 per candidate: the energy around it, its own QRS left out (qrs_background in
                     ///< src/signal/qrs_measures.hpp), in blocks of refractory/2
  array peaks;       ///< int64, ascending: the candidates accepted as beats (the QRS energy maximum)
};

/// @brief Detects the QRS complexes of a raw 1-D float32 recording.
/// @param signal raw recording, any stride, at least ricker_width and refractory samples long
/// @param params sample rate and detector windows (segment_params::refractory_seconds, ...)
/// @param center unused (kept for callers that pass the recording's median): the energy comes from the
///        zero-mean Ricker kernel, so neither the units' offset nor steps of the baseline reach it
/// @throws zeroflow::invalid_argument on a bad signal or parameters
[[nodiscard]] qrs_detection detect_qrs(const array& signal, const segment_params& params, float center,
                                       stream_view stream);

namespace detail {
// The stages, each with a host and a CUDA implementation (qrs_detect.cpp, qrs_detect.cu).
array qrs_energy_host(const array& signal, const array& filtered, std::int64_t width, std::int64_t delay,
                      double mean_tap, stream_view stream);
array qrs_energy_cuda(const array& signal, const array& filtered, std::int64_t width, std::int64_t delay,
                      double mean_tap, stream_view stream);
/// candidates = gate positions + offset, with their amplitude, slope and background (blocks of
/// background_block samples).
void qrs_candidates_host(const array& signal, const array& energy, const array& gate_positions, std::int64_t offset,
                         std::int64_t slope_half_window, std::int64_t background_block, qrs_detection& out,
                         stream_view stream);
void qrs_candidates_cuda(const array& signal, const array& energy, const array& gate_positions, std::int64_t offset,
                         std::int64_t slope_half_window, std::int64_t background_block, qrs_detection& out,
                         stream_view stream);
/// The beats among the candidates of `d`, decided on the host by the rules for a recording's sizes
/// (src/signal/qrs_rules.hpp): the selection of detect_qrs, which the chunked detection makes over
/// the candidates of every chunk at once.
array qrs_select_host(const qrs_detection& d, std::int64_t samples, const segment_sizes& sizes, stream_view stream);
/// Most blocks on either side of a candidate that its background is taken from (qrs_background):
/// how far before and after a candidate detection reads.
inline constexpr int qrs_background_blocks = 4;
}  // namespace detail

}  // namespace zeroflow::signal
