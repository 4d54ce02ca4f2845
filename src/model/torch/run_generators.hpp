#pragma once
// Private to src/model: the random streams of one training run, so that runs training at the same
// time in different threads (one GPU, many recordings) neither share nor interleave draws, and a
// run's results depend on its seed alone.
#include <ATen/core/Generator.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <mutex>

namespace zeroflow::model::detail {

/// A run's generators: `split` draws the train/test split on the CPU (the same on every device);
/// `device` draws the shuffles and the noise on the model's device. Both start where
/// torch::manual_seed(seed) puts LibTorch's global generators, and on the CPU they are one
/// generator, so a run draws exactly what the seed's code draws after torch.manual_seed(seed).
struct run_generators {
  at::Generator split;
  at::Generator device;
};

[[nodiscard]] run_generators generators_for(std::uint64_t seed, const c10::Device& where);

/// LibTorch's modules draw their initial weights from the process's default CPU generator. A
/// model's creation holds this lock from seeding that generator to its last draw, so that models
/// created at the same time in other threads cannot take each other's draws.
[[nodiscard]] std::unique_lock<std::mutex> lock_global_generator();

}  // namespace zeroflow::model::detail
