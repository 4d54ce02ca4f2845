#pragma once
/// @file decimate.hpp
/// Bucket reductions that shrink a long signal for display without losing its peaks: the
/// report's overview (min and max per bucket, drawn as a band) and its beat thumbnails (the
/// sample of largest magnitude per bucket). They run where the data is, so only the reduced
/// arrays cross to the host.
///
/// Both split the signal into buckets of `bucket` consecutive samples, bucket b holding samples
/// [b·bucket, min(n, (b+1)·bucket)); the last bucket is shorter when bucket does not divide n.
/// The input is assumed NaN-free (a bucket holding a NaN has an unspecified result, and the
/// host and CUDA results may differ there). Floats are ordered as numbers with −0 before +0,
/// which makes every result independent of the reduction order: the CUDA path returns exactly
/// the host's floats.
#include <cstdint>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::signal {

/// @brief Minimum and maximum of every bucket of `bucket` consecutive samples.
/// @param signal 1-D float32, any stride (negative and zero included), on any device; NaN-free
/// @param bucket samples per bucket, >= 1 (a bucket >= n gives one bucket)
/// @return float32 [ceil(n / bucket), 2] on the signal's device: row b is {min, max} of bucket b
/// @throws zeroflow::invalid_argument on a non-1-D or non-float32 signal or bucket < 1
[[nodiscard]] array minmax_decimate(const array& signal, std::int64_t bucket, stream_view stream);

/// @brief The sample of largest magnitude of every bucket (a positive one on a tie with its
/// negative): a decimation that keeps the R-peak of a zero-centred beat, where taking every
/// k-th sample or averaging would miss or flatten it.
/// @param signal 1-D float32, any stride, on any device; NaN-free
/// @param bucket samples per bucket, >= 1
/// @return float32 [ceil(n / bucket)] on the signal's device
/// @throws zeroflow::invalid_argument on a non-1-D or non-float32 signal or bucket < 1
[[nodiscard]] array absmax_decimate(const array& signal, std::int64_t bucket, stream_view stream);

namespace detail {
/// Device halves of the two functions above: `signal` is a valid 1-D float32 array (any
/// stride) and bucket >= 1, checked by the public entry points.
[[nodiscard]] array minmax_decimate_host(const array& signal, std::int64_t bucket, stream_view stream);
[[nodiscard]] array minmax_decimate_cuda(const array& signal, std::int64_t bucket, stream_view stream);
[[nodiscard]] array absmax_decimate_host(const array& signal, std::int64_t bucket, stream_view stream);
[[nodiscard]] array absmax_decimate_cuda(const array& signal, std::int64_t bucket, stream_view stream);
}  // namespace detail

}  // namespace zeroflow::signal
