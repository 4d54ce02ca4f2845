#pragma once
/// @file epoch_order.hpp
/// Internal: the order an epoch of zeroflow's own CPU trainers visits its rows in — the
/// GPU trainer's shuffle (gpu_light_vae_trainer.cu: a 32-bit Philox key per position, radix-sorted)
/// computed on the host, so that both devices cut the same batches.
#include <cstdint>
#include <vector>

namespace zeroflow::model::detail {

/// `index` (n rows) ordered by the key philox4x32((position, epoch, the shuffle stream), seed),
/// ties in position order, into `order` (resized to n); the keys are drawn on `threads` threads
/// (the order does not depend on how many).
void epoch_order(const std::int64_t* index, std::int64_t n, std::uint64_t seed, int epoch, int threads,
                 std::vector<std::int64_t>& order);

}  // namespace zeroflow::model::detail
