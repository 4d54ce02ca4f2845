// zeroflow_segment_bench: every segmentation stage and the whole segment_beats on a 20 M-sample
// synthetic ECG (the seed's size: 250 Hz, about 22 hours) on the GPU, timed with CUDA events on a
// stream of its own (Google Benchmark's manual time), and the host versions on 2 M samples.
//
// Each benchmark reports the bytes its stage must move at least (bytes_per_second) and
// `floor_us`, those bytes at 3 TB/s (an H100's copy bandwidth), so a time reads directly against
// the physical limit. Host synchronisations inside a stage (the read-back of a count that sizes
// an output) are part of its time, as they are for a caller.
//
// Usage: zeroflow_segment_bench [--samples=N] [google benchmark flags]
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "../src/signal/detail_cuda/bandpass_gate.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/segment.hpp"
#include "zeroflow/synth/ecg.hpp"

#if ZEROFLOW_HAS_CUDA
#include <cuda_runtime_api.h>
#endif

namespace zf = zeroflow;
namespace sig = zeroflow::signal;

namespace {

std::int64_t gpu_samples = 20'000'000;
constexpr std::int64_t cpu_samples = 2'000'000;
constexpr double floor_bytes_per_second = 3e12;

std::vector<float> ecg_samples(std::int64_t n) {
  zf::synth::ecg_options o;
  o.sample_rate = 250;
  o.hours = static_cast<double>(n) / (o.sample_rate * 3600.0) + 1e-6;
  auto r = zf::synth::generate_ecg(o);
  r.samples.resize(static_cast<std::size_t>(n));
  return std::move(r.samples);
}

zf::array host_array(const std::vector<float>& v) {
  zf::array a = zf::empty({static_cast<std::int64_t>(v.size())}, zf::float32, zf::cpu_device, {});
  std::memcpy(a.data(), v.data(), v.size() * sizeof(float));
  return a;
}

/// The recording and every intermediate, so that each stage can be timed on its real input.
struct workload {
  zf::array signal;
  sig::segmentation s;
};

workload make_workload(zf::device where, std::int64_t n, zf::stream_view stream) {
  workload w;
  w.signal = zf::copy_to(host_array(ecg_samples(n)), where, stream);
  w.s = sig::segment_beats(w.signal, {}, stream);
  zf::synchronize(stream);
  return w;
}

void set_bytes(benchmark::State& state, double bytes) {
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
  state.counters["floor_us"] = bytes / floor_bytes_per_second * 1e6;
}

// ---- GPU -------------------------------------------------------------------------------------

#if ZEROFLOW_HAS_CUDA
// The stream, the events and the device workload are created on first use and live until exit
// (the process ends without tearing the CUDA context down first).
struct gpu_context {
  cudaStream_t stream{};
  cudaEvent_t start{}, stop{};
  workload w;
  gpu_context() {
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    w = make_workload(zf::cuda_device(0), gpu_samples, zf::stream_view{stream});
  }
  [[nodiscard]] zf::stream_view view() const { return zf::stream_view{stream}; }
};

gpu_context* gpu() {
  static gpu_context* context = zf::cuda_available() ? new gpu_context() : nullptr;  // never freed, see above
  return context;
}
#endif  // ZEROFLOW_HAS_CUDA

// Sizes of the workload's intermediates, for the byte counts.
struct sizes {
  double n, gate, positions, rows, row_width;
};
sizes sizes_of(const workload& w) {
  return {static_cast<double>(w.signal.size()), static_cast<double>(w.s.gate.size()),
          static_cast<double>(w.s.positions.size()), static_cast<double>(w.s.beats.rows.shape(0)),
          static_cast<double>(w.s.sizes.row_width)};
}

/// Bytes each stage must move at least: its inputs read once and its outputs written once.
double stage_bytes(const std::string& stage, const sizes& z) {
  if (stage == "bandpass") return 4 * z.n + 4 * z.n;
  if (stage == "nms_gate") return 4 * z.n + z.gate;
  if (stage == "bandpass_gate_fused") return 4 * z.n + 4 * z.n + z.gate;
  if (stage == "fused_gate_positions") return 4 * z.n + 4 * z.n + 2 * z.gate + 8 * z.positions;
  if (stage == "gate_positions") return z.gate + 8 * z.positions;
  if (stage == "beat_lengths") return 8 * z.positions + 8 * z.positions;
  if (stage == "length_histogram") return 8 * z.positions;
  if (stage == "locate_peaks") return 8 * z.positions + 8 * z.positions + 4 * 31 * z.positions;
  if (stage == "robust_zscore") return 4 * z.n;  // one read; the selection itself reads it 4 times
  if (stage == "robust_zscore_subsample")
    return 4 * z.n /
           static_cast<double>(
               std::max<std::int64_t>(1, static_cast<std::int64_t>(z.n) >> sig::statistics_sample_bits));
  if (stage == "embed_beats") return 16 * z.positions + 4 * z.rows * z.row_width + z.positions;
  // segment_beats: every stage's outputs plus one read of the signal per stage that needs it
  return 4 * z.n * 4 + 4 * z.n + z.gate + 8 * 3 * z.positions + 4 * z.rows * z.row_width;
}

using stage_fn = std::function<void(const workload&, zf::stream_view)>;

/// Runs a stage and drops its outputs; their memory goes back to the pool on the stream.
stage_fn stage(const std::string& name) {
  if (name == "bandpass")
    return [](const workload& w, zf::stream_view st) { (void)sig::bandpass(w.signal, w.s.sizes.ricker_width, st); };
  if (name == "nms_gate")
    return [](const workload& w, zf::stream_view st) { (void)sig::nms_gate(w.s.filtered, w.s.sizes.nms_window, st); };
  if (name == "bandpass_gate_fused")
    return [](const workload& w, zf::stream_view st) {
      (void)sig::detail::bandpass_gate_cuda(w.signal, w.s.sizes.ricker_width, w.s.sizes.nms_window, st);
    };
  if (name == "gate_positions")
    return [](const workload& w, zf::stream_view st) { (void)sig::gate_positions(w.s.gate, st); };
  if (name == "beat_lengths")
    return [](const workload& w, zf::stream_view st) { (void)sig::beat_lengths(w.s.positions, st); };
  if (name == "length_histogram")
    return [](const workload& w, zf::stream_view st) {
      (void)sig::length_histogram(w.s.lengths, 2 * w.s.sizes.max_length + 1, st);
    };
  if (name == "locate_peaks")
    return [](const workload& w, zf::stream_view st) {
      (void)sig::locate_peaks(w.signal, w.s.positions, w.s.sizes.nms_window, w.s.sizes.ricker_width, w.s.norm.center,
                              st);
    };
  if (name == "robust_zscore")
    return [](const workload& w, zf::stream_view st) { (void)sig::robust_zscore(w.signal, st); };
  if (name == "robust_zscore_subsample")  // what segment_beats does: the strided subsample, then its statistics
    return [](const workload& w, zf::stream_view st) {
      const std::int64_t n = w.signal.size(), stride = std::max<std::int64_t>(1, n >> sig::statistics_sample_bits);
      (void)sig::robust_zscore(zf::copy_to(w.signal.slice(0, 0, n, stride), w.signal.where(), st), st);
    };
  if (name == "embed_beats")
    return [](const workload& w, zf::stream_view st) {
      (void)sig::embed_beats(w.signal, w.s.positions, w.s.lengths, w.s.sizes.min_length, w.s.sizes.max_length,
                             w.s.sizes.row_width, w.s.norm, st);
    };
  if (name == "fused_gate_positions")
    return [](const workload& w, zf::stream_view st) {
      const auto fg = sig::detail::bandpass_gate_cuda(w.signal, w.s.sizes.ricker_width, w.s.sizes.nms_window, st);
      (void)sig::detail::fused_gate_positions(fg, st);
    };
  return [](const workload& w, zf::stream_view st) { (void)sig::segment_beats(w.signal, {}, st); };
}

void gpu_stage(benchmark::State& state, const std::string& name) {
#if ZEROFLOW_HAS_CUDA
  gpu_context* g = gpu();
  if (g == nullptr) {
    state.SkipWithError("no CUDA device");
    return;
  }
  const stage_fn run = stage(name);
  run(g->w, g->view());  // warm-up: module loading, pool growth
  zf::synchronize(g->view());
  for (auto _ : state) {
    cudaEventRecord(g->start, g->stream);
    run(g->w, g->view());
    cudaEventRecord(g->stop, g->stream);
    cudaEventSynchronize(g->stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, g->start, g->stop);
    state.SetIterationTime(static_cast<double>(ms) / 1e3);
  }
  set_bytes(state, stage_bytes(name, sizes_of(g->w)));
  state.counters["samples"] = sizes_of(g->w).n;
#else
  (void)name;
  state.SkipWithError("this build has no CUDA");
#endif
}

// ---- host ------------------------------------------------------------------------------------

const workload& cpu_workload() {
  static const workload w = make_workload(zf::cpu_device, cpu_samples, {});
  return w;
}

void cpu_stage(benchmark::State& state, const std::string& name) {
  const workload& w = cpu_workload();
  const stage_fn run = stage(name);
  for (auto _ : state) run(w, {});
  set_bytes(state, stage_bytes(name, sizes_of(w)));
  state.counters["samples"] = sizes_of(w).n;
}

const char* const gpu_stages[] = {"bandpass",
                                  "nms_gate",
                                  "bandpass_gate_fused",
                                  "gate_positions",
                                  "beat_lengths",
                                  "length_histogram",
                                  "locate_peaks",
                                  "robust_zscore",
                                  "robust_zscore_subsample",
                                  "embed_beats",
                                  "fused_gate_positions",
                                  "segment_beats"};
const char* const cpu_stages[] = {"bandpass",     "nms_gate",      "gate_positions", "beat_lengths", "length_histogram",
                                  "locate_peaks", "robust_zscore", "embed_beats",    "segment_beats"};

}  // namespace

int main(int argc, char** argv) {
  // --samples=N (our flag) is taken out before Google Benchmark parses the rest.
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--samples=", 10) == 0) {
      gpu_samples = std::atoll(argv[i] + 10);
      continue;
    }
    args.push_back(argv[i]);
  }
  int count = static_cast<int>(args.size());
#if ZEROFLOW_HAS_CUDA
  for (const char* name : gpu_stages)
    benchmark::RegisterBenchmark((std::string("gpu/") + name).c_str(), gpu_stage, std::string(name))
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
#endif
  for (const char* name : cpu_stages)
    benchmark::RegisterBenchmark((std::string("cpu/") + name).c_str(), cpu_stage, std::string(name))
        ->UseRealTime()  // the host stages run on several threads
        ->Unit(benchmark::kMillisecond);
  benchmark::Initialize(&count, args.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
