// zeroflow_peer_copy_bench: GPU 0 -> GPU 1 hand-offs of the pipeline's arrays (docs/scaling.md,
// "Two GPUs"): an 80 MB signal (20 M float32 samples) and a 100 MB beat matrix (~100 k rows of 256
// float32).
//
// Method. Each way is timed with CUDA events over one transfer, 2 untimed warm-ups then the median
// of 10, both devices idle before each; GB/s = bytes / time (10^9 bytes):
// - peer copy, peer access on: cudaMemcpyPeerAsync after cudaDeviceEnablePeerAccess both ways;
// - peer copy, peer access off: the same call after cudaDeviceDisablePeerAccess (the driver then
//   chooses the path, which may stage through the host);
// - staged: device -> pinned host buffer -> device, whole buffer, the two copies one after the
//   other (what a framework without peer support does), and pipelined in 8 MiB chunks on two
//   streams (the best a staged hand-off can do);
// - zero-copy read: zeroflow::to_device hands GPU 0's signal to GPU 1 as a view, and a kernel on
//   GPU 1 (min/max decimation, one read of every sample) reads it over the link, against the same
//   kernel on a local copy.
//
// Usage: zeroflow_peer_copy_bench   (needs two GPUs)
#include <algorithm>
#include <cstdio>
#include <exception>
#include <functional>
#include <utility>
#include <vector>

#include "zeroflow/config.hpp"

#if ZEROFLOW_HAS_CUDA
#include <cuda_runtime.h>

#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/memory/peer.hpp"
#include "zeroflow/signal/decimate.hpp"

namespace {

namespace zf = zeroflow;
using zf::detail::cuda_device_guard;

constexpr int warmups = 2;
constexpr int runs = 10;
constexpr std::size_t chunk = std::size_t{8} << 20;

// Median milliseconds of `work`, timed by events on `stream` of `device`.
double median_ms(int device, cudaStream_t stream, const std::function<void()>& work) {
  cuda_device_guard on(device);
  cudaEvent_t start, stop;
  ZF_CUDA_TRY(cudaEventCreate(&start));
  ZF_CUDA_TRY(cudaEventCreate(&stop));
  std::vector<float> ms;
  for (int i = 0; i < warmups + runs; ++i) {
    ZF_CUDA_TRY(cudaDeviceSynchronize());
    ZF_CUDA_TRY(cudaEventRecord(start, stream));
    work();
    ZF_CUDA_TRY(cudaEventRecord(stop, stream));
    ZF_CUDA_TRY(cudaEventSynchronize(stop));
    float t = 0;
    ZF_CUDA_TRY(cudaEventElapsedTime(&t, start, stop));
    if (i >= warmups) ms.push_back(t);
  }
  ZF_CUDA_TRY(cudaEventDestroy(start));
  ZF_CUDA_TRY(cudaEventDestroy(stop));
  std::sort(ms.begin(), ms.end());
  return (ms[runs / 2 - 1] + ms[runs / 2]) / 2.0;
}

void set_peer_access(bool on) {
  for (const auto& [from, to] : {std::pair{0, 1}, std::pair{1, 0}}) {
    cuda_device_guard g(from);
    const cudaError_t rc = on ? cudaDeviceEnablePeerAccess(to, 0) : cudaDeviceDisablePeerAccess(to);
    if (rc == cudaErrorPeerAccessAlreadyEnabled || rc == cudaErrorPeerAccessNotEnabled) {
      (void)cudaGetLastError();
    } else {
      ZF_CUDA_TRY(rc);
    }
  }
}

void row(const char* what, std::size_t bytes, double ms) {
  std::printf("%-44s %7.1f MB %9.3f ms %8.1f GB/s\n", what, bytes / 1e6, ms, bytes / 1e6 / ms);
}

int bench() {
  if (zf::cuda_device_count() < 2) {
    std::fprintf(stderr, "zeroflow_peer_copy_bench needs two GPUs, found %d\n", zf::cuda_device_count());
    return 2;
  }
  int can01 = 0, can10 = 0;
  ZF_CUDA_TRY(cudaDeviceCanAccessPeer(&can01, 0, 1));
  ZF_CUDA_TRY(cudaDeviceCanAccessPeer(&can10, 1, 0));
  std::printf("peer access possible: GPU 0 -> 1 %s, GPU 1 -> 0 %s\n", can01 ? "yes" : "no", can10 ? "yes" : "no");
  cudaStream_t s0, s1;
  {
    cuda_device_guard g(0);
    ZF_CUDA_TRY(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
  }
  {
    cuda_device_guard g(1);
    ZF_CUDA_TRY(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  }
  struct item {
    const char* name;
    std::size_t bytes;
  };
  for (const item it :
       {item{"signal, 20 M float32", 80'000'000}, item{"beat matrix, 97,656 x 256 float32", 100'000'000}}) {
    std::printf("\n%s\n", it.name);
    void *src = nullptr, *dst = nullptr, *host = nullptr;
    {
      cuda_device_guard g(0);
      ZF_CUDA_TRY(cudaMalloc(&src, it.bytes));
      ZF_CUDA_TRY(cudaMemset(src, 1, it.bytes));
    }
    {
      cuda_device_guard g(1);
      ZF_CUDA_TRY(cudaMalloc(&dst, it.bytes));
    }
    ZF_CUDA_TRY(cudaMallocHost(&host, it.bytes));
    const auto peer_copy = [&] { ZF_CUDA_TRY(cudaMemcpyPeerAsync(dst, 1, src, 0, it.bytes, s0)); };
    if (can01 && can10) {
      set_peer_access(true);
      row("peer copy, peer access on", it.bytes, median_ms(0, s0, peer_copy));
    }
    set_peer_access(false);
    row("peer copy, peer access off", it.bytes, median_ms(0, s0, peer_copy));
    // Staged: chunk k goes down on GPU 0's stream while chunk k-1 goes up on GPU 1's; with one
    // chunk of the whole buffer, the two copies one after the other.
    // An event belongs to its device: one on each side.
    cudaEvent_t down_done, up_done;
    {
      cuda_device_guard g(0);
      ZF_CUDA_TRY(cudaEventCreateWithFlags(&down_done, cudaEventDisableTiming));
    }
    {
      cuda_device_guard g(1);
      ZF_CUDA_TRY(cudaEventCreateWithFlags(&up_done, cudaEventDisableTiming));
    }
    const auto staged = [&](std::size_t piece) {
      return [&, piece] {
        for (std::size_t at = 0; at < it.bytes; at += piece) {
          const std::size_t n = std::min(piece, it.bytes - at);
          auto* h = static_cast<char*>(host) + at;
          ZF_CUDA_TRY(cudaMemcpyAsync(h, static_cast<char*>(src) + at, n, cudaMemcpyDeviceToHost, s0));
          ZF_CUDA_TRY(cudaEventRecord(down_done, s0));
          cuda_device_guard on1(1);
          ZF_CUDA_TRY(cudaStreamWaitEvent(s1, down_done, 0));
          ZF_CUDA_TRY(cudaMemcpyAsync(static_cast<char*>(dst) + at, h, n, cudaMemcpyHostToDevice, s1));
        }
        {
          cuda_device_guard on1(1);
          ZF_CUDA_TRY(cudaEventRecord(up_done, s1));  // the clock's stop waits for GPU 1's last copy
        }
        ZF_CUDA_TRY(cudaStreamWaitEvent(s0, up_done, 0));
      };
    };
    row("staged through pinned host, whole", it.bytes, median_ms(0, s0, staged(it.bytes)));
    row("staged through pinned host, 8 MiB pipelined", it.bytes, median_ms(0, s0, staged(chunk)));
    ZF_CUDA_TRY(cudaEventDestroy(down_done));
    ZF_CUDA_TRY(cudaEventDestroy(up_done));
    ZF_CUDA_TRY(cudaFreeHost(host));
    {
      cuda_device_guard g(0);
      ZF_CUDA_TRY(cudaFree(src));
    }
    {
      cuda_device_guard g(1);
      ZF_CUDA_TRY(cudaFree(dst));
    }
  }

  // zeroflow's hand-off of the signal: a view over the link against a local copy, read by a kernel.
  const std::int64_t samples = 20'000'000;
  const zf::array on0 = zf::zeros({samples}, zf::float32, zf::cuda_device(0));
  const zf::device_handoff view = zf::to_device(on0, zf::cuda_device(1));
  const zf::device_handoff copy = zf::to_device(on0, zf::cuda_device(1), zf::peer_policy::always_copy);
  const zf::stream_view on1{s1};
  std::printf("\nzeroflow::to_device, 80 MB signal to GPU 1: %s; a kernel on GPU 1 reads it once\n",
              view.zero_copy ? "a view of GPU 0's memory" : "copied (no peer access)");
  row("handed over as a copy (to_device, always_copy)", on0.nbytes(),
      median_ms(1, s1, [&] { (void)zf::to_device(on0, zf::cuda_device(1), zf::peer_policy::always_copy, on1); }));
  row("kernel on GPU 1 reading the view (over the link)", on0.nbytes(),
      median_ms(1, s1, [&] { (void)zf::signal::minmax_decimate(view.data, 256, on1); }));
  row("kernel on GPU 1 reading its local copy", on0.nbytes(),
      median_ms(1, s1, [&] { (void)zf::signal::minmax_decimate(copy.data, 256, on1); }));
  return 0;
}

}  // namespace

int main() {
  try {
    return bench();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zeroflow_peer_copy_bench: %s\n", e.what());
    return 1;
  }
}

#else

int main() {
  std::fprintf(stderr, "zeroflow_peer_copy_bench needs a CUDA build of zeroflow\n");
  return 2;
}

#endif
