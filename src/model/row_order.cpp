/// @file row_order.cpp
/// vae::train's split of its rows and the CPU trainers' per-epoch order (row_order.hpp).
#include "row_order.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <utility>

#include "counter_rng.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zeroflow::model::detail {

row_split split_rows(std::int64_t n, double test_fraction, std::uint64_t seed) {
  std::vector<std::int64_t> order(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)));
  std::iota(order.begin(), order.end(), std::int64_t{0});
  std::mt19937_64 engine(seed);
  for (std::int64_t i = n - 1; i >= 1; --i)
    std::swap(order[static_cast<std::size_t>(i)], order[engine() % static_cast<std::uint64_t>(i + 1)]);
  const auto n_train = static_cast<std::int64_t>(std::floor((1.0 - test_fraction) * static_cast<double>(n)));
  row_split split;
  split.train.assign(order.begin(), order.begin() + n_train);
  split.test.assign(order.begin() + n_train, order.end());
  std::sort(split.train.begin(), split.train.end());
  std::sort(split.test.begin(), split.test.end());
  return split;
}

array indices_on(const std::vector<std::int64_t>& values, device where, stream_view stream) {
  array host = empty({static_cast<std::int64_t>(values.size())}, int64, cpu_device);
  if (!values.empty()) std::memcpy(host.data(), values.data(), values.size() * sizeof(std::int64_t));
  return where.type == device_type::cpu ? host : copy_to(host, where, stream);
}

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
