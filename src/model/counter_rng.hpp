#pragma once
/// @file counter_rng.hpp
/// Internal: Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as
/// 1, 2, 3", SC 2011), a counter-based generator: the random numbers of (key, counter) are a pure
/// function of both, so every GPU thread draws its own without state, a CUDA graph replays the
/// same kernels with a counter read from device memory, and host and device draw the same bits.
/// The training on zeroflow's own kernels draws its shuffles and its noise from it.
#include <cmath>
#include <cstdint>

#include "zeroflow/core/detail/host_device.hpp"

namespace zeroflow::model::detail {

struct philox_block {
  std::uint32_t v[4];
};

/// The 128 random bits of `counter` under the 64-bit `key`.
ZF_HD_INLINE philox_block philox4x32(philox_block counter, std::uint64_t key) {
  std::uint32_t k0 = static_cast<std::uint32_t>(key), k1 = static_cast<std::uint32_t>(key >> 32);
  std::uint32_t* c = counter.v;
  for (int round = 0; round < 10; ++round) {
    const std::uint64_t p0 = std::uint64_t{0xD2511F53U} * c[0];
    const std::uint64_t p1 = std::uint64_t{0xCD9E8D57U} * c[2];
    const auto hi0 = static_cast<std::uint32_t>(p0 >> 32), lo0 = static_cast<std::uint32_t>(p0);
    const auto hi1 = static_cast<std::uint32_t>(p1 >> 32), lo1 = static_cast<std::uint32_t>(p1);
    const philox_block next{{hi1 ^ c[1] ^ k0, lo1, hi0 ^ c[3] ^ k1, lo0}};
    counter = next;
    k0 += 0x9E3779B9U;
    k1 += 0xBB67AE85U;
  }
  return counter;
}

/// What each draw is for: the third counter word, so that the streams never overlap.
enum class rng_stream : std::uint32_t { shuffle = 1, training_noise = 2, test_noise = 3 };

/// Two standard normal draws (Box–Muller) from the first two words of philox4x32(counter, key).
struct normal_pair {
  float a, b;
};
ZF_HD_INLINE normal_pair normal2(std::uint64_t key, std::uint32_t index, std::uint64_t step, rng_stream stream) {
  const philox_block r = philox4x32({{index, static_cast<std::uint32_t>(step), static_cast<std::uint32_t>(step >> 32),
                                      static_cast<std::uint32_t>(stream)}},
                                    key);
  // u1 in (0, 1] so that its logarithm is finite; u2 in [0, 1).
  const float u1 = (static_cast<float>(r.v[0] >> 8) + 1.0F) * (1.0F / 16777216.0F);
  const float u2 = static_cast<float>(r.v[1] >> 8) * (1.0F / 16777216.0F);
  const float radius = sqrtf(-2.0F * logf(u1));
  const float angle = 6.2831853071795864769F * u2;
  return {radius * cosf(angle), radius * sinf(angle)};
}

}  // namespace zeroflow::model::detail
