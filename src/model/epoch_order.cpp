/// @file epoch_order.cpp
/// The per-epoch order of the CPU trainers (epoch_order.hpp).
#include "epoch_order.hpp"

#include <algorithm>
#include <utility>

#include "counter_rng.hpp"

namespace zeroflow::model::detail {

void epoch_order(const std::int64_t* index, std::int64_t n, std::uint64_t seed, int epoch, int threads,
                 std::vector<std::int64_t>& order) {
  std::vector<std::pair<std::uint32_t, std::int64_t>> keyed(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::int64_t i = 0; i < n; ++i) {
    const philox_block r =
        philox4x32({{static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i >> 32),
                     static_cast<std::uint32_t>(epoch), static_cast<std::uint32_t>(rng_stream::shuffle)}},
                   seed);
    keyed[static_cast<std::size_t>(i)] = {r.v[0], index[i]};
  }
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  order.resize(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < keyed.size(); ++i) order[i] = keyed[i].second;
}

}  // namespace zeroflow::model::detail
