// zeroflow_train_bench: the seed's VAE training (30 epochs, batch 1024, Adam, W = 256) on zeroflow's
// own kernels, on the GPU when there is one and on the CPU, through vae::train as a caller sees it.
//
// Method. Data: 52,000 random-but-smooth rows of 256 floats (one to three Gaussian bumps of random
// sign, place and width on a slow baseline), 25 % held out as in the seed, so 39,000 training
// rows: 38 full batches and one of 88 rows per epoch, 1,170 steps in all. The rows are on the
// model's device before the clock starts; the clock covers vae::train (split, graph capture on a
// GPU, the epochs, the test loss), the device idle before and synchronised after. One untimed
// 1-epoch run per device first pays the one-off start-up (CUDA context, module loading). Each
// device then trains --repeat times; the best and the median are printed, with ms per step.
//
// Floors: a GPU step is latency-bound (a batch is 1 MiB of rows; forward, backward and Adam are a
// few kernels replayed from a graph), so its floor is the graph's launch and the kernels' serial
// chain, not bandwidth; a CPU step is ~0.35 GFLOP, so cores × FMA width × clock bound it
// (bench/cpu_training.py prints that floor and PyTorch's eager step beside ours).
//
// The seed (bench/seed_pipeline.py, an H200): 17.3-19.5 s with its DataLoader, 12.5 s with batches
// gathered on the GPU.
//
// Usage: zeroflow_train_bench [--rows=N] [--width=W] [--epochs=E] [--batch=B] [--repeat=R]
//                             [--device=all|cpu|cuda]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "zeroflow/core/cuda.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/model/vae.hpp"

namespace {

namespace zf = zeroflow;
using clock_type = std::chrono::steady_clock;

struct settings {
  std::int64_t rows = 52'000;
  std::int64_t width = 256;
  int epochs = 30;
  int batch = 1024;
  int repeat = 3;
  std::string device = "all";
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
    else if (parse_flag(argv[i], "--device", v))
      s.device = v;
    else {
      std::fprintf(stderr, "zeroflow_train_bench: unknown argument %s\n", argv[i]);
      std::exit(2);
    }
  }
  return s;
}

// Smooth rows: one to three Gaussian bumps of random sign, place and width on a slow baseline.
zf::array smooth_rows(std::int64_t n, std::int64_t w, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  zf::array out = zf::empty({n, w}, zf::float32);
  float* values = out.span<float>().data();
  for (std::int64_t i = 0; i < n; ++i) {
    float* row = values + i * w;
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

void bench(const settings& s, zf::device where, const zf::array& host_rows) {
  const zf::array rows = where == zf::cpu_device ? host_rows : zf::copy_to(host_rows, where);
  zf::model::train_options o;
  o.epochs = 1;
  o.batch = s.batch;
  {
    zf::model::vae warm = zf::model::vae::create(s.width, where, 1);
    (void)warm.train(rows, o);
  }
  o.epochs = s.epochs;
  const auto train_rows = static_cast<std::int64_t>(std::floor(0.75 * static_cast<double>(s.rows)));
  const std::int64_t steps = s.epochs * ((train_rows + s.batch - 1) / s.batch);
  std::vector<double> seconds;
  double final_loss = 0;
  for (int r = 0; r < s.repeat; ++r) {
    zf::model::vae m = zf::model::vae::create(s.width, where, 42);
    const auto start = clock_type::now();
    const zf::model::train_result result = m.train(rows, o);  // returns with the device's work done
    seconds.push_back(std::chrono::duration<double>(clock_type::now() - start).count());
    final_loss = result.epoch_loss.back();
  }
  std::sort(seconds.begin(), seconds.end());
  std::printf("%-8s %d epochs, %lld steps: best %.3f s, median %.3f s, %.3f ms/step, final loss %.4f\n",
              where.name().c_str(), s.epochs, static_cast<long long>(steps), seconds.front(),
              seconds[seconds.size() / 2], 1e3 * seconds.front() / static_cast<double>(steps), final_loss);
}

}  // namespace

int main(int argc, char** argv) {
  const settings s = parse(argc, argv);
  const zf::array rows = smooth_rows(s.rows, s.width, 7);
  std::printf("zeroflow_train_bench: %lld rows of %lld, batch %d, CPU kernels %s on %d threads\n",
              static_cast<long long>(s.rows), static_cast<long long>(s.width), s.batch,
              zf::model::cpu_instruction_set(), zf::model::cpu_threads());
  if ((s.device == "all" || s.device == "cuda") && zf::cuda_available()) bench(s, zf::cuda_device(0), rows);
  if (s.device == "all" || s.device == "cpu") bench(s, zf::cpu_device, rows);
  return 0;
}
