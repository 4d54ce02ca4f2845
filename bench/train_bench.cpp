// zeroflow_train_bench: the seed's VAE training (30 epochs, batch 1024, Adam, W = 256) on the GPU,
// eager steps against steps replayed from CUDA graphs, with LibTorch's own CUDA allocator and
// with LibTorch routed to a zeroflow pool (route_torch_allocator_to).
//
// Data: 52,000 random-but-smooth rows of 256 floats (one to three Gaussian bumps of random sign,
// place and width on a slow baseline), 25 % held out as in the seed, so 39,000 training rows:
// 38 full batches and one of 88 rows per epoch, 1,170 steps in all. The rows are on the GPU before
// the clock starts; the clock covers vae::train as a caller sees it (split, warm-up and capture
// for graphs, the epochs, the test loss), with the GPU idle before and synchronised after. One
// untimed 1-epoch run per mode first pays LibTorch's and cuDNN's one-off initialisation.
//
// Modes (training paths, model/training_path.hpp): eager / graph-ops with the fused swish and loss
// kernels (cuda_ops.hpp), eager-unfused / graph-unfused with LibTorch's composite ops only (the
// seed's kernels), and graph (fused_kernels, the default on GPUs): forward, loss and backward as
// the two fused step kernels (fused_step.hpp) + fused Adam.
//
// The step is latency-bound, not bandwidth-bound: a batch is 1 MiB of rows, and the ~200 kernels
// of forward, backward and Adam each touch at most a few MiB, so at 3 TB/s the bytes of a step
// take ~10 µs; what costs is launching and running that many small kernels one after another.
//
// The seed (bench/seed_pipeline.py, same GPU): 17.3-19.5 s with its DataLoader, 12.5 s with batches
// gathered on the GPU; the target is <= 1.0 s for the 30 epochs.
//
// An allocator can only be chosen before LibTorch's first CUDA allocation, so each allocator runs
// in a process of its own: without --allocator the program runs itself once per allocator.
//
// Usage: zeroflow_train_bench [--rows=N] [--width=W] [--epochs=E] [--batch=B] [--repeat=R]
//                             [--mode=all|eager|graph|graph-ops|eager-unfused|graph-unfused]
//                             [--allocator=torch|zeroflow]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "zeroflow/config.hpp"

#if ZEROFLOW_HAS_TORCH && ZEROFLOW_HAS_CUDA
#include <torch/cuda.h>

#include <algorithm>
#include <memory>

#include "model/cuda_graph_trainer.hpp"
#include "model/cuda_ops.hpp"
#include "model/fused_step.hpp"
#include "model/light_vae.hpp"
#include "model/tensor_bridge.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/memory/cuda_pool_resource.hpp"
#include "zeroflow/memory/statistics_adaptor.hpp"
#include "zeroflow/model/torch_cuda_allocator.hpp"
#include "zeroflow/model/vae.hpp"
#endif

namespace {

struct settings {
  std::int64_t rows = 52'000;
  std::int64_t width = 256;
  int epochs = 30;
  int batch = 1024;
  int repeat = 3;
  std::string mode = "all";
  std::string allocator;  // empty: run one process per allocator
};

bool parse_flag(const char* arg, const char* name, std::string& value) {
  const std::size_t n = std::strlen(name);
  if (std::strncmp(arg, name, n) != 0 || arg[n] != '=') return false;
  value = arg + n + 1;
  return true;
}

settings parse(int argc, char** argv) {
  settings s;
  for (int i = 1; i < argc; ++i) {
    std::string v;
    if (parse_flag(argv[i], "--rows", v))
      s.rows = std::stoll(v);
    else if (parse_flag(argv[i], "--width", v))
      s.width = std::stoll(v);
    else if (parse_flag(argv[i], "--epochs", v))
      s.epochs = std::stoi(v);
    else if (parse_flag(argv[i], "--batch", v))
      s.batch = std::stoi(v);
    else if (parse_flag(argv[i], "--repeat", v))
      s.repeat = std::stoi(v);
    else if (parse_flag(argv[i], "--mode", v))
      s.mode = v;
    else if (parse_flag(argv[i], "--allocator", v))
      s.allocator = v;
    else {
      std::fprintf(stderr, "unknown argument %s\n", argv[i]);
      std::exit(2);
    }
  }
  return s;
}

int run_all_allocators(const char* self, int argc, char** argv) {
  int rc = 0;
  for (const char* allocator : {"torch", "zeroflow"}) {
    std::string command = std::string("'") + self + "'";
    for (int i = 1; i < argc; ++i) command += std::string(" '") + argv[i] + "'";
    command += std::string(" --allocator=") + allocator;
    std::fflush(stdout);
    if (std::system(command.c_str()) != 0) rc = 1;
  }
  return rc;
}

#if ZEROFLOW_HAS_TORCH && ZEROFLOW_HAS_CUDA

namespace zf = zeroflow;
namespace zmd = zeroflow::model::detail;
using clock_type = std::chrono::steady_clock;

// Smooth rows: one to three Gaussian bumps of random sign, place and width on a slow baseline.
std::vector<float> smooth_rows(std::int64_t n, std::int64_t w, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<float> out(static_cast<std::size_t>(n * w));
  for (std::int64_t i = 0; i < n; ++i) {
    float* row = out.data() + i * w;
    const double slope = 0.2 * (unit(rng) - 0.5), offset = 0.1 * (unit(rng) - 0.5);
    for (std::int64_t t = 0; t < w; ++t) row[t] = static_cast<float>(offset + slope * t / w);
    const int bumps = 1 + static_cast<int>(unit(rng) * 3);
    for (int b = 0; b < bumps; ++b) {
      const double amp = (unit(rng) < 0.3 ? -1 : 1) * (0.3 + 1.2 * unit(rng));
      const double centre = w * (0.2 + 0.6 * unit(rng)), width = w * (0.02 + 0.1 * unit(rng));
      for (std::int64_t t = 0; t < w; ++t) {
        const double u = (static_cast<double>(t) - centre) / width;
        row[t] += static_cast<float>(amp * std::exp(-0.5 * u * u));
      }
    }
  }
  return out;
}

int bench(const settings& s) {
  std::shared_ptr<zf::memory::statistics_adaptor> pool_stats;
  if (s.allocator == "zeroflow") {
    pool_stats = std::make_shared<zf::memory::statistics_adaptor>(std::make_shared<zf::memory::cuda_pool_resource>(0));
    zf::model::route_torch_allocator_to(pool_stats);
  } else if (s.allocator != "torch") {
    std::fprintf(stderr, "--allocator must be torch or zeroflow\n");
    return 2;
  }
  const std::vector<float> host = smooth_rows(s.rows, s.width, 7);
  zf::array host_rows = zf::empty({s.rows, s.width}, zf::float32);
  std::copy(host.begin(), host.end(), host_rows.data_as<float>());
  const zf::array rows = zf::copy_to(host_rows, zf::cuda_device(0));
  zf::synchronize(zf::stream_view{});

  zf::model::train_options opt;
  opt.epochs = s.epochs;
  opt.batch = s.batch;
  const std::int64_t n_train = static_cast<std::int64_t>(std::floor(0.75 * static_cast<double>(s.rows)));
  const std::int64_t steps = static_cast<std::int64_t>(s.epochs) * ((n_train + s.batch - 1) / s.batch);
  std::printf("allocator %-8s rows %lld x %lld, %lld training rows, %d epochs, batch %d: %lld steps\n",
              s.allocator.c_str(), static_cast<long long>(s.rows), static_cast<long long>(s.width),
              static_cast<long long>(n_train), s.epochs, s.batch, static_cast<long long>(steps));

  for (const char* mode : {"eager-unfused", "eager", "graph-unfused", "graph-ops", "graph"}) {
    if (s.mode != "all" && s.mode != mode) continue;
    opt.path = std::strcmp(mode, "graph") == 0       ? zf::model::training_path::fused_kernels
               : std::strncmp(mode, "graph", 5) == 0 ? zf::model::training_path::cuda_graph
                                                     : zf::model::training_path::eager;
    opt.fused_ops = std::strstr(mode, "unfused") == nullptr;
    {  // one-off initialisation (cuDNN handles and plans, cuBLAS, lazy CUDA modules)
      zf::model::train_options once = opt;
      once.epochs = 1;
      auto m = zf::model::vae::create(s.width, zf::cuda_device(0), 42);
      (void)m.train(rows, once);
    }
    std::vector<double> seconds;
    zf::model::train_result last;
    for (int r = 0; r < s.repeat; ++r) {
      auto m = zf::model::vae::create(s.width, zf::cuda_device(0), 42);
      torch::cuda::synchronize();
      const auto t0 = clock_type::now();
      last = m.train(rows, opt);
      torch::cuda::synchronize();
      seconds.push_back(std::chrono::duration<double>(clock_type::now() - t0).count());
    }
    std::sort(seconds.begin(), seconds.end());
    const double best = seconds.front(), median = seconds[seconds.size() / 2];
    std::printf(
        "  %-13s %.3f s (median of %d, best %.3f)  %.3f ms/step  loss %.6f, test %.6f  target 1.0 s: %s  "
        "seed 12.5 s / this: %.1fx\n",
        mode, median, s.repeat, best, 1e3 * median / static_cast<double>(steps), last.epoch_loss.back(), last.test_loss,
        median <= 1.0 ? "met" : "missed", 12.5 / median);
    if (opt.path != zf::model::training_path::eager) {
      // Where a graph run's time goes: warm-up and capture, then the replayed epochs alone.
      torch::manual_seed(42);
      zmd::light_vae net(s.width);
      net->to(torch::Device(torch::kCUDA, 0));
      net->train();
      const torch::Tensor data = zmd::to_tensor(rows);
      const torch::Tensor index =
          torch::arange(n_train, torch::TensorOptions().dtype(torch::kLong).device(torch::kCUDA, 0));
      clock_type::time_point epochs_start;
      zmd::epoch_loop_hooks hooks;
      hooks.before_first_epoch = [&] { epochs_start = clock_type::now(); };
      torch::cuda::synchronize();
      const auto t0 = clock_type::now();
      const auto report = zmd::train_with_cuda_graphs(net, data, index, opt, hooks);
      torch::cuda::synchronize();
      const auto t1 = clock_type::now();
      const double setup = std::chrono::duration<double>(epochs_start - t0).count();
      const double epochs = std::chrono::duration<double>(t1 - epochs_start).count();
      std::printf("  %-13s warm-up + capture of %d graphs%s %.1f ms; %lld replays %.3f s = %.3f ms/step\n", "",
                  report.graphs, report.fused ? " (fused step)" : "", 1e3 * setup,
                  static_cast<long long>(report.replays), epochs, 1e3 * epochs / static_cast<double>(report.replays));
    }
  }
  if (pool_stats) {
    const auto st = pool_stats->statistics();
    const auto counts = zf::model::torch_allocation_counts_now();
    std::printf(
        "  zeroflow pool: %lld allocations, peak %.1f MiB, now %.1f MiB; graph pools left %lld, failed frees %lld\n",
        static_cast<long long>(st.total_count), st.peak_bytes / 1048576.0, st.current_bytes / 1048576.0,
        static_cast<long long>(counts.graph_pools), static_cast<long long>(counts.failed_frees));
  }
  std::fflush(stdout);
  return 0;
}

#endif

}  // namespace

int main(int argc, char** argv) {
  const settings s = parse(argc, argv);
  if (s.allocator.empty()) return run_all_allocators(argv[0], argc, argv);
#if ZEROFLOW_HAS_TORCH && ZEROFLOW_HAS_CUDA
  if (!zeroflow::cuda_available() || !torch::cuda::is_available()) {
    std::printf("no GPU: nothing to time\n");
    return 0;
  }
  return bench(s);
#else
  std::printf("zeroflow_train_bench needs a build with LibTorch and CUDA\n");
  return 0;
#endif
}
