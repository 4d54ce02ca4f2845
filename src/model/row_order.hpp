#pragma once
/// @file row_order.hpp
/// Internal: which rows zeroflow's own trainers take and in which order, the same on every device
/// so that a CPU and a GPU run of one seed hold out the same beats and cut the same batches.
#include <cstdint>
#include <vector>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/device.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::model::detail {

/// How vae::train splits its rows into training and test rows.
struct row_split {
  std::vector<std::int64_t> train;  ///< ascending
  std::vector<std::int64_t> test;   ///< ascending
};

/// A Fisher–Yates shuffle of 0..n−1 driven by MT19937-64 of `seed` (position i, from n−1 down to 1,
/// swaps with draw % (i + 1)); the first floor((1 − test_fraction)·n) shuffled rows train.
[[nodiscard]] row_split split_rows(std::int64_t n, double test_fraction, std::uint64_t seed);

/// Host indices (a split's) as an int64 array on `where`, for the trainers to read there.
[[nodiscard]] array indices_on(const std::vector<std::int64_t>& values, device where, stream_view stream);

/// The order an epoch of the CPU trainers visits its rows in — the GPU trainer's shuffle
/// (gpu_light_vae_trainer.cu: a 32-bit Philox key per position, radix-sorted) computed on the host:
/// `index` (n rows) ordered by the key philox4x32((position, epoch, the shuffle stream), seed),
/// ties in position order, into `order` (resized to n); the keys are drawn on `threads` threads
/// (the order does not depend on how many).
void epoch_order(const std::int64_t* index, std::int64_t n, std::uint64_t seed, int epoch, int threads,
                 std::vector<std::int64_t>& order);

}  // namespace zeroflow::model::detail
