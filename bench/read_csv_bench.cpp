// zeroflow_read_csv_bench FILE [COLUMN] [THREADS]: times io::read_csv on FILE (float32) and
// prints the median of a few runs, MB/s and rows, so it can be set against pandas/pyarrow
// (bench/csv_vs_pandas.py runs both). A plain program: the file is the workload, and one
// read of a 500 MB file is long enough to time without Google Benchmark's repetitions.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "zeroflow/io/csv.hpp"

namespace zf = zeroflow;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE [COLUMN] [THREADS] [RUNS]\n", argv[0]);
    return 2;
  }
  try {
    const std::filesystem::path path = argv[1];
    zf::io::csv_options options;
    if (argc > 2 && std::string(argv[2]) != "-") options.columns = {std::string(argv[2])};
    if (argc > 3) options.threads = static_cast<unsigned>(std::atoi(argv[3]));
    const int runs = argc > 4 ? std::max(1, std::atoi(argv[4])) : 5;

    const auto bytes = static_cast<double>(std::filesystem::file_size(path));
    // CPU time (all threads) beside wall time: on a shared machine it says what the work costs.
    auto cpu_now = [] {
      timespec ts{};
      clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
      return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
    };
    std::vector<double> seconds, cpu_seconds;
    std::int64_t rows = 0;
    for (int r = 0; r < runs; ++r) {
      const double c0 = cpu_now();
      const auto t0 = std::chrono::steady_clock::now();
      {
        const zf::table t = zf::io::read_csv(path, options);
        rows = t.num_rows();
      }  // the columns are freed inside the timing, as a caller's would be eventually
      const auto t1 = std::chrono::steady_clock::now();
      cpu_seconds.push_back(cpu_now() - c0);
      seconds.push_back(std::chrono::duration<double>(t1 - t0).count());
    }
    std::sort(seconds.begin(), seconds.end());
    std::sort(cpu_seconds.begin(), cpu_seconds.end());
    const double median = seconds[seconds.size() / 2];
    const double cpu_median = cpu_seconds[cpu_seconds.size() / 2];
    std::printf("read_csv %s: median %.4f s of %d runs (min %.4f s, CPU %.4f s), %.1f MB/s, %lld rows\n", path.c_str(),
                median, runs, seconds.front(), cpu_median, bytes / median / 1e6, static_cast<long long>(rows));
    std::printf("RESULT seconds=%.6f min_seconds=%.6f cpu_seconds=%.6f bytes=%.0f rows=%lld\n", median, seconds.front(),
                cpu_median, bytes, static_cast<long long>(rows));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
