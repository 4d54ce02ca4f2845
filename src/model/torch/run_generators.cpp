/// @file run_generators.cpp
/// A training run's own generators (see run_generators.hpp).
#include "run_generators.hpp"

#include <ATen/CPUGeneratorImpl.h>

#include "zeroflow/config.hpp"

#if ZEROFLOW_HAS_CUDA
#include <ATen/cuda/CUDAGeneratorImpl.h>
#endif

namespace zeroflow::model::detail {

run_generators generators_for(std::uint64_t seed, const c10::Device& where) {
  at::Generator cpu = at::detail::createCPUGenerator(seed);
#if ZEROFLOW_HAS_CUDA
  if (where.is_cuda()) {
    at::Generator gpu = at::cuda::detail::createCUDAGenerator(where.index());
    gpu.set_current_seed(seed);  // offset 0: where torch::manual_seed(seed) puts the GPU's default generator
    return {cpu, gpu};
  }
#else
  (void)where;
#endif
  return {cpu, cpu};
}

std::unique_lock<std::mutex> lock_global_generator() {
  static std::mutex global;
  return std::unique_lock<std::mutex>{global};
}

}  // namespace zeroflow::model::detail
