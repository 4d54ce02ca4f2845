#pragma once
/// @file torch_cpu_uniform.hpp
/// Internal: LibTorch's CPU generator as its uniform_ and its Linear / Conv1d default
/// initialisation draw from it, so that zeroflow's own models start exactly where a LibTorch model
/// of the same seed starts.
#include <cmath>
#include <cstdint>
#include <random>

namespace zeroflow::model::detail {

/// LibTorch's CPU uniform_ for float after torch::manual_seed(seed): 24 random bits of one MT19937
/// draw (of the seed's low 32 bits), scaled to [from, to) with the bounds rounded to float and the
/// arithmetic rounded once, as LibTorch's kernel gives.
class torch_cpu_uniform {
 public:
  explicit torch_cpu_uniform(std::uint64_t seed) : engine_{static_cast<std::uint32_t>(seed & 0xFFFFFFFFU)} {}

  void fill(float* out, std::int64_t n, double bound) {
    const double from = static_cast<float>(-bound), to = static_cast<float>(bound);
    for (std::int64_t i = 0; i < n; ++i) {
      const double x = static_cast<double>(engine_() & 0xFFFFFFU) / 16777216.0;
      out[i] = static_cast<float>(x * (to - from) + from);
    }
  }

  /// A layer's reset_parameters(): the weight from kaiming_uniform(a = √5), i.e. bound
  /// gain·√(3 / fan_in) with gain √(2 / (1 + a²)), then the bias from U(−1/√fan_in, 1/√fan_in),
  /// both bounds in double as LibTorch computes them.
  void fill_layer(float* weight, std::int64_t weight_count, float* bias, std::int64_t bias_count, std::int64_t fan_in) {
    const double gain = std::sqrt(2.0 / (1.0 + 5.0));
    fill(weight, weight_count, std::sqrt(3.0) * (gain / std::sqrt(static_cast<double>(fan_in))));
    fill(bias, bias_count, 1.0 / std::sqrt(static_cast<double>(fan_in)));
  }

 private:
  std::mt19937 engine_;
};

}  // namespace zeroflow::model::detail
