#include <cstdio>
#include <string>
#include <thread>

#include "commands.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/interop/torch_cuda_allocator.hpp"
#include "zeroflow/io/file_loading.hpp"
#include "zeroflow/model/vae.hpp"

namespace zeroflow::cli {

void add_info(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "Versions, devices and memory");
  cmd->callback([] {
    std::printf("zeroflow      %s\n", ZEROFLOW_VERSION);
#if ZEROFLOW_HAS_TORCH
    // Found, not loaded: this command does not map LibTorch.
    const std::string backend = interop::torch_backend_file();
    std::printf("LibTorch      %s, %s\n", ZEROFLOW_TORCH_VERSION,
                backend.empty() ? "backend not found (only routing PyTorch's CUDA memory to zeroflow's pool needs it)"
                                : ("backend " + backend + " (loaded when PyTorch's CUDA memory is routed)").c_str());
#else
    std::printf("LibTorch      not built in (only routing PyTorch's CUDA memory to zeroflow's pool needs it)\n");
#endif
    std::printf("PNG figures   %s\n",
                ZEROFLOW_HAS_CAIRO ? "cairo (--figures png)" : "not built in (install libcairo2-dev and rebuild)");
    std::printf("CUDA build    %s\n", ZEROFLOW_HAS_CUDA ? "yes" : "no");
    if (ZEROFLOW_HAS_CUDA) std::printf("GPU code      %s\n", cuda_architectures().c_str());
    std::printf("CUDA runtime  %s, driver %s\n", cuda_runtime_version().c_str(), cuda_driver_version().c_str());
    std::printf("CPU kernels   %s, %d threads (of %u)\n", model::cpu_instruction_set(), model::cpu_threads(),
                std::thread::hardware_concurrency());
    const auto gpus = cuda_devices();
    if (gpus.empty()) std::printf("GPUs          none (the pipeline runs on the CPU)\n");
    for (const auto& g : gpus)
      std::printf(
          "GPU %d         %s, compute %d.%d, %.1f GiB (%.1f GiB free)%s\n", g.id, g.name.c_str(), g.compute_major,
          g.compute_minor, static_cast<double>(g.total_bytes) / (1 << 30),
          static_cast<double>(g.free_bytes) / (1 << 30),
          g.has_code ? "" : "; this build has no code for it (rebuild with -DZEROFLOW_CUDA_ARCHITECTURES=native)");
    // How files reach the GPU (--io): KvikIO and its GDS mode, and what --io auto picks here.
    const io::gds_status& gds = io::query_gds();
    if (gds.kvikio_built_in)
      std::printf("KvikIO        %s\n", gds.kvikio_version.c_str());
    else
      std::printf("KvikIO        not built in\n");
    std::printf("GDS mode      %s: %s\n", gds.mode.c_str(), gds.reason.c_str());
    std::printf("--io auto     %s\n",
                std::string(io::to_string(io::resolve_io_method(io::io_method::automatic))).c_str());
  });
}

}  // namespace zeroflow::cli
