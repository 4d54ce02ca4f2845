#pragma once
/// @file embed.hpp
/// Prune beats by length and copy the kept ones, normalised, into zero-padded rows.
#include <cstdint>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/signal/normalize.hpp"

namespace zeroflow::signal {

/// The kept beats as model input.
struct embedding {
  array rows;        ///< n_kept × row_width float32: (x − center)/scale of the beat, then zeros
  array kept;        ///< uint8 per candidate: 1 if its length is within [min_length, max_length]
  array kept_index;  ///< int64 per row: the candidate it came from, ascending (beat order)
};

/// @brief The seed's prune + embed, with normalisation and deterministic row order.
///
/// Candidate c is the span [positions[c], positions[c] + lengths[c]) of the RAW signal; it is kept
/// iff min_length <= lengths[c] <= max_length. Row r holds kept candidate kept_index[r] (rows in
/// beat order, unlike the seed's atomic counter), each value computed in float32 as
/// (x − norm.center) / norm.scale, followed by zeros up to row_width.
/// @param signal raw 1-D float32 signal, any stride
/// @param positions 1-D int64 with at least lengths.size() entries (gate_positions gives one more)
/// @param lengths 1-D int64, one per candidate (beat_lengths)
/// @param min_length, max_length 0 <= min_length <= max_length <= row_width
/// @param norm finite center, finite non-zero scale
/// @throws zeroflow::invalid_argument on bad shapes, dtypes, devices or sizes, or when a kept
///         span reaches outside the signal
[[nodiscard]] embedding embed_beats(const array& signal, const array& positions, const array& lengths,
                                    std::int64_t min_length, std::int64_t max_length, std::int64_t row_width,
                                    normalization norm, stream_view stream);

}  // namespace zeroflow::signal
