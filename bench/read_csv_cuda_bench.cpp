// zeroflow_read_csv_cuda_bench FILE [COLUMN] [THREADS] [RUNS] [CHUNK_MIB]: times read_csv into
// GPU memory (the CUDA path: pinned staging + GPU parse; the columns are complete when it
// returns) and, for comparison, the host reader alone and the host reader followed by a copy to
// the GPU (what read_csv did for CUDA targets before). Prints medians, GB/s of file bytes, the
// CUDA path's split (staging vs parse) and a RESULT line for scripts. A plain program: one read
// of a 500 MB file is long enough to time without Google Benchmark's repetitions. The file
// should be in the page cache (the first, untimed, read puts it there and pins the staging
// buffers, which later reads reuse).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "zeroflow/core/cuda.hpp"
#include "zeroflow/io/csv.hpp"
#include "zeroflow/io/detail/csv_cuda.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zf = zeroflow;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median wall time of `runs` calls of `f` after one untimed warm-up call.
double time_runs(int runs, const std::function<void()>& f) {
  f();
  std::vector<double> seconds;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return median(seconds);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE [COLUMN|-] [THREADS] [RUNS] [CHUNK_MIB]\n", argv[0]);
    return 2;
  }
  try {
    zf::require_cuda("zeroflow_read_csv_cuda_bench");
    const std::filesystem::path path = argv[1];
    zf::io::csv_options options;
    if (argc > 2 && std::string(argv[2]) != "-") options.columns = {std::string(argv[2])};
    if (argc > 3) options.threads = static_cast<unsigned>(std::atoi(argv[3]));
    const int runs = argc > 4 ? std::max(1, std::atoi(argv[4])) : 7;
    if (argc > 5) options.chunk_bytes = static_cast<std::size_t>(std::atof(argv[5]) * (1 << 20));
    const auto bytes = static_cast<double>(std::filesystem::file_size(path));

    zf::io::csv_options gpu = options;
    gpu.where = zf::cuda_device(0);
    zf::io::csv_options host = options;
    host.where = zf::cpu_device;

    std::int64_t rows = 0;
    std::vector<double> staged, parsed;
    zf::io::detail::csv_cuda_report report;
    const double gpu_seconds = time_runs(runs, [&] {
      const zf::table t = zf::io::detail::read_csv_cuda(path, gpu, zf::stream_view{}, &report);
      rows = t.num_rows();
      staged.push_back(report.staged_seconds);
      parsed.push_back(report.parsed_seconds);
    });                            // the columns are freed inside the timing, as a caller's would be eventually
    staged.erase(staged.begin());  // the warm-up read (it pins the staging chunks)
    parsed.erase(parsed.begin());
    if (!report.gpu_parsed) std::printf("note: the host reader read the file (%s)\n", report.host_reason.c_str());
    const double host_seconds = time_runs(std::max(1, runs / 2), [&] { (void)zf::io::read_csv(path, host); });
    const double host_copy_seconds = time_runs(std::max(1, runs / 2), [&] {
      const zf::table t = zf::io::read_csv(path, host);
      for (const auto& c : t.columns) (void)zf::copy_to(c, gpu.where);
      zf::synchronize(zf::stream_view{});
    });

    std::printf("%s: %.1f MB, %lld rows\n", path.c_str(), bytes / 1e6, static_cast<long long>(rows));
    std::printf(
        "read_csv -> GPU (CUDA path): median %.2f ms of %d runs, %.1f GB/s "
        "(staging+count %.2f ms, parse %.2f ms; %zu chunks of %.1f MiB, %u copy threads, %lld host cells)\n",
        1e3 * gpu_seconds, runs, bytes / gpu_seconds / 1e9, 1e3 * median(staged), 1e3 * median(parsed), report.chunks,
        static_cast<double>(report.chunk_bytes) / (1 << 20), report.copy_threads,
        static_cast<long long>(report.host_cells));
    std::printf("read_csv -> host:            median %.2f ms, %.1f GB/s\n", 1e3 * host_seconds,
                bytes / host_seconds / 1e9);
    std::printf("read_csv -> host, then copy: median %.2f ms, %.1f GB/s (%.1fx the CUDA path's time)\n",
                1e3 * host_copy_seconds, bytes / host_copy_seconds / 1e9, host_copy_seconds / gpu_seconds);
    std::printf(
        "RESULT gpu_seconds=%.6f staged_seconds=%.6f parsed_seconds=%.6f host_seconds=%.6f "
        "host_copy_seconds=%.6f bytes=%.0f rows=%lld\n",
        gpu_seconds, median(staged), median(parsed), host_seconds, host_copy_seconds, bytes,
        static_cast<long long>(rows));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
