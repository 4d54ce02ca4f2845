#pragma once
/// @file row_split.hpp
/// Internal: how vae::train splits its rows into training and test rows, the same on
/// every path and device, so that a CPU and a GPU run of one seed hold out the same beats.
#include <cstdint>
#include <vector>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/device.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::model::detail {

struct row_split {
  std::vector<std::int64_t> train;  ///< ascending
  std::vector<std::int64_t> test;   ///< ascending
};

/// A Fisher–Yates shuffle of 0..n−1 driven by MT19937-64 of `seed` (position i, from n−1 down to 1,
/// swaps with draw % (i + 1)); the first floor((1 − test_fraction)·n) shuffled rows train.
[[nodiscard]] row_split split_rows(std::int64_t n, double test_fraction, std::uint64_t seed);

/// Host indices (a split's) as an int64 array on `where`, for the trainers to read there.
[[nodiscard]] array indices_on(const std::vector<std::int64_t>& values, device where, stream_view stream);

}  // namespace zeroflow::model::detail
