#pragma once
/// @file cpu_threads.hpp
/// Internal: how many threads zeroflow's own CPU kernels (cpu_vae_kernels.hpp) use — model/vae.hpp's
/// set_cpu_threads and cpu_threads. Until set, the CPUs this process may run on (its affinity
/// mask), or OMP_NUM_THREADS when that is a positive number.
namespace zeroflow::model::detail {

[[nodiscard]] int kernel_threads();
void set_kernel_threads(int threads);

}  // namespace zeroflow::model::detail
