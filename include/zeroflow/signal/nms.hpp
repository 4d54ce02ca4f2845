#pragma once
/// @file nms.hpp
/// The seed's 1-D non-maximum suppression, which turns the band-passed signal into a gate
/// that is 1 once per beat.
#include <cstdint>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::signal {

/// @brief The seed's peak gate over windows of `window` samples.
///
/// For p in [0, N − window]: g[p] = 1 iff filtered[p + (window+1)/2] == max(filtered[p .. p+window)),
/// the maximum taken as the seed does (start at −inf, keep a value when it is greater, so NaNs are
/// skipped and an all-NaN window has maximum −inf). Equal values (plateaus) all pass the test.
/// Then the seed's `gate[1:] *= diff(gate) == 1` with the difference taken on the unmodified gate:
/// out[0] = g[0], out[p] = g[p] && !g[p−1], i.e. only rising edges survive.
/// The host version finds window maxima in O(N) with the van Herk / Gil-Werman block scans.
/// @param filtered 1-D float32 (the output of bandpass), any stride, length N >= window
/// @param window 2 <= window <= N (a window of 1 would read past its end, as in the seed)
/// @return 1-D uint8 of length N − window + 1 with values 0 or 1, on the input's device
/// @throws zeroflow::invalid_argument on a non-1-D or non-float32 input, a bad window or N < window
[[nodiscard]] array nms_gate(const array& filtered, std::int64_t window, stream_view stream);

}  // namespace zeroflow::signal
