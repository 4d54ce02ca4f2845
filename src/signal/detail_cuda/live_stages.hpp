#pragma once
// The stages after the gate's positions, as segment_beats queues them on a GPU: their sizes stay
// on the device (counts written by one kernel, read by the next), outputs are allocated at an
// upper bound known on the host, and nothing is read back until the one synchronisation at the
// end, which also brings the counts that cut the outputs to size (plain C++ header; CUDA builds).
#include <cstdint>

#include "robust_moments.hpp"
#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/signal/embed.hpp"

namespace zeroflow::signal::detail {

/// The tail's scalars, in device memory: written by its kernels, read back once at the end.
struct tail_scalars {
  std::int64_t positions;              ///< gate positions in the positions buffer (at most its capacity)
  unsigned long long positions_total;  ///< gate positions found: more than `positions` when the buffer overflowed
  std::int64_t kept;                   ///< positions kept by the weak-peak filter
  std::int64_t out_of_range;           ///< 1 when a position + offset fell outside the filtered signal
  unsigned long long rows;             ///< candidates embedded as rows
  unsigned long long bad;              ///< lowest embedded candidate whose span leaves the signal; all ones when none
  robust_moments moments;              ///< the recording's median and MAD (written on the side stream)
  float center;                        ///< the robust center (0 without finite samples), derived on the device
  float baseline;                      ///< center × Σ taps: what the band-pass makes of the offset
  float row_center;                    ///< the rows' normalisation: center, or 0 for raw rows
  float row_scale;                     ///< 1.4826·MAD, or 1 for raw rows or until the host's fallback replaces it
};

/// The first half of drop_weak_peaks, which needs no baseline: the filtered signal at each
/// position + offset, and a sorted copy (subtracting the baseline later keeps the order).
struct peak_heights {
  array raw;     ///< float32, one per position
  array sorted;  ///< raw, ascending
};

/// Queues the gather and the sort of the heights of the first *live positions (the rest of the
/// buffer sorts last, as +inf); a position that reaches outside `filtered` sets *out_of_range
/// (device memory).
[[nodiscard]] peak_heights sorted_peak_heights(const array& filtered, const array& positions, const std::int64_t* live,
                                               std::int64_t offset, std::int64_t* out_of_range, stream_view stream);

/// The second half, drop_weak_peaks of the first s->positions positions with the baseline in
/// s->baseline: the kept positions lead the returned buffer (positions.size() long), their number
/// goes to s->kept.
[[nodiscard]] array drop_weak_peaks_live(const array& positions, const peak_heights& heights, double ratio,
                                         tail_scalars* s, stream_view stream);

/// beat_lengths of the first *kept positions; the buffer has positions.size() − 1 entries.
[[nodiscard]] array beat_lengths_live(const array& positions, const std::int64_t* kept, stream_view stream);

/// length_histogram of the first *kept − 1 lengths.
[[nodiscard]] array length_histogram_live(const array& lengths, const std::int64_t* kept, std::int64_t bins,
                                          stream_view stream);

/// locate_peaks of the first *kept positions around *center; one entry per position of the buffer.
[[nodiscard]] array locate_peaks_live(const array& signal, const array& positions, const std::int64_t* kept,
                                      std::int64_t nms_window, std::int64_t ricker_width, const float* center,
                                      stream_view stream);

/// embed_beats of the first *kept − 1 candidates, normalised by s->row_center and s->row_scale:
/// kept flags and indices for lengths.size() candidates (0 past the live ones), room for
/// max_rows rows (the caller's bound on the kept ones; rows past it are not written); the
/// number of rows goes to s->rows and an out-of-signal span to s->bad, which the caller has set
/// to 0 and all ones on the stream before.
[[nodiscard]] embedding embed_beats_live(const array& signal, const array& positions, const array& lengths,
                                         const std::int64_t* kept, std::int64_t min_length, std::int64_t max_length,
                                         std::int64_t row_width, std::int64_t max_rows, tail_scalars* s,
                                         stream_view stream);

/// Fills rows[r] for r < rows (host count) from the beats of kept_index, normalised by *center
/// and *scale (device floats): the rows kernel of embed_beats, for a second pass with another scale.
void embed_rows_cuda(const array& signal, const array& positions, const array& lengths, const array& kept_index,
                     std::int64_t rows, const float* center, const float* scale, array& out, stream_view stream);

}  // namespace zeroflow::signal::detail
