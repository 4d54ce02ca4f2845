#pragma once
// The generators' random streams and portable random numbers: std::mt19937_64 is specified bit
// for bit by the standard, the std distributions are not, so we transform its output ourselves.
#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>

namespace zeroflow::synth::detail {

/// A full turn in radians: the phase step of every wave the generators draw.
inline constexpr double two_pi = 2.0 * std::numbers::pi;

namespace streams {
// Independent random streams, so that e.g. switching the noise off or changing the sample rate
// leaves the beats exactly where they were, and options that are off draw nothing from the
// streams that older recordings used.
enum stream_id : std::uint64_t {
  rhythm_stream = 1,
  shape_stream = 2,
  noise_stream = 3,
  apb_stream = 4,          // APB P wave, which beats are APBs, their timing
  burst_stream = 5,        // when the noise bursts come, how long and how strong they are
  burst_noise_stream = 6,  // the noise of the bursts (its length depends on the sample rate)
  jump_stream = 7,         // when the baseline jumps come, their size and decay
};
}  // namespace streams

/// SplitMix64 step; derives independent engine seeds from one user seed.
inline std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t stream) {
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * (stream + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Uniform and normal variates from one mt19937_64 stream.
class random_source {
 public:
  random_source(std::uint64_t seed, std::uint64_t stream) : engine_(mix_seed(seed, stream)) {}

  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

  /// True with probability p.
  bool bernoulli(double p) { return uniform() < p; }

  /// Standard normal by Marsaglia's polar method (no trigonometry); pairs are used in full.
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u, v, s;
    do {
      u = 2.0 * uniform() - 1.0;
      v = 2.0 * uniform() - 1.0;
      s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    const double f = std::sqrt(-2.0 * std::log(s) / s);
    spare_ = v * f;
    has_spare_ = true;
    return u * f;
  }

 private:
  std::mt19937_64 engine_;
  double spare_ = 0.0;
  bool has_spare_ = false;
};

}  // namespace zeroflow::synth::detail
