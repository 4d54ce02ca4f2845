// The talk's four ways of bringing a file into GPU memory, measured side by side on the same files
// (docs/loading.md): KvikIO/cuFile, mmap + cudaMemcpy from a warm page cache, mmap + cudaMemcpy
// from disk (the page cache dropped first), mmap + cudaMallocManaged; plus zeroflow's pinned
// pipelined POSIX path. Beside them, in the same run: the disk's own read bandwidth (O_DIRECT,
// every core), the page cache's (pread, every core) and pinned host -> device (cudaMemcpy). Then
// the binary fast path against CSV for one recording. Writes one JSON (bench/loading_chart.py
// draws it).
//
//   zeroflow_loading_bench [--dir DIR] [--sizes 0.5,2,8] [--repeats 3] [--threads N]
//                          [--csv-samples 40000000] [--budget-seconds 330] [--json FILE] [--keep]
#include <cstdio>

#include "zeroflow/config.hpp"

#if !ZEROFLOW_HAS_CUDA
int main() {
  std::fprintf(stderr, "zeroflow_loading_bench needs a CUDA build of zeroflow\n");
  return 1;
}
#else

#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "zeroflow/core/cuda.hpp"
#include "zeroflow/io/binary.hpp"
#include "zeroflow/io/csv.hpp"
#include "zeroflow/io/file_loading.hpp"

namespace fs = std::filesystem;
namespace io = zeroflow::io;
using json = nlohmann::json;
using clock_type = std::chrono::steady_clock;

namespace {

void check(cudaError_t rc, const char* what) {
  if (rc == cudaSuccess) return;
  std::fprintf(stderr, "loading_bench: %s failed: %s\n", what, cudaGetErrorString(rc));
  std::exit(1);
}

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "loading_bench: %s\n", what.c_str());
  std::exit(1);
}

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

struct settings {
  fs::path dir = "/tmp/zeroflow-loading";
  std::vector<double> sizes_gb = {0.5, 2, 8};
  int repeats = 3;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::int64_t csv_samples = 40'000'000;
  double budget_seconds = 330;
  fs::path json_path = "loading.json";
  bool keep = false;
};

settings parse_args(int argc, char** argv) {
  settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) fail(a + " needs a value");
      return argv[++i];
    };
    if (a == "--dir")
      s.dir = value();
    else if (a == "--sizes") {
      s.sizes_gb.clear();
      std::string list = value();
      for (std::size_t p = 0; p <= list.size();) {
        const std::size_t q = std::min(list.find(',', p), list.size());
        s.sizes_gb.push_back(std::stod(list.substr(p, q - p)));
        p = q + 1;
      }
    } else if (a == "--repeats")
      s.repeats = std::max(1, std::stoi(value()));
    else if (a == "--threads")
      s.threads = static_cast<unsigned>(std::max(1, std::stoi(value())));
    else if (a == "--csv-samples")
      s.csv_samples = std::stoll(value());
    else if (a == "--budget-seconds")
      s.budget_seconds = std::stod(value());
    else if (a == "--json")
      s.json_path = value();
    else if (a == "--keep")
      s.keep = true;
    else
      fail("unknown argument " + a + " (see the comment at the top of bench/loading_bench.cpp)");
  }
  return s;
}

std::string fs_type(const fs::path& dir) {
  struct statfs st {};
  if (::statfs(dir.c_str(), &st) != 0) return "unknown";
  switch (static_cast<unsigned long>(st.f_type)) {
    case 0xEF53:
      return "ext4";
    case 0x58465342:
      return "xfs";
    case 0x01021994:
      return "tmpfs";
    case 0x794c7630:
      return "overlayfs";
    case 0x9123683E:
      return "btrfs";
    case 0x6E667364:
      return "nfs";
    default: {
      char hex[32];
      std::snprintf(hex, sizeof hex, "0x%lx", static_cast<unsigned long>(st.f_type));
      return hex;
    }
  }
}

// Writes `bytes` of pseudo-random data (incompressible, so that no file system shortcut helps),
// then fsyncs it, so that its pages are clean and can be dropped from the cache.
double make_file(const fs::path& path, std::size_t bytes) {
  std::error_code ec;
  if (fs::exists(path, ec) && fs::file_size(path, ec) == bytes) return 0;
  const auto t0 = clock_type::now();
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot create " + path.string() + ": " + std::strerror(errno));
  constexpr std::size_t block = std::size_t{64} << 20;
  std::vector<std::uint64_t> buf(block / 8);
  std::uint64_t x = 0x9E3779B97F4A7C15ull ^ bytes;
  for (std::size_t done = 0; done < bytes;) {
    for (auto& w : buf) {  // splitmix64
      x += 0x9E3779B97F4A7C15ull;
      std::uint64_t z = x;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      w = z ^ (z >> 31);
    }
    const std::size_t n = std::min(block, bytes - done);
    if (::write(fd, buf.data(), n) != static_cast<ssize_t>(n)) fail("cannot write " + path.string());
    done += n;
  }
  ::fsync(fd);
  ::close(fd);
  return seconds_since(t0);
}

// Drops the file's pages from the page cache (posix_fadvise works for clean pages without root;
// /proc/sys/vm/drop_caches needs root and a writable /proc) and returns the share still resident.
double drop_cache(const fs::path& path, bool use_proc) {
  if (use_proc) {
    ::sync();
    std::ofstream("/proc/sys/vm/drop_caches") << "1\n";
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 1;
  ::fdatasync(fd);
  (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  const std::size_t size = fs::file_size(path);
  double resident = 0;
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  if (map != MAP_FAILED) {
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    std::vector<unsigned char> in((size + page - 1) / page);
    if (::mincore(map, size, in.data()) == 0)
      resident = static_cast<double>(std::count_if(in.begin(), in.end(), [](unsigned char c) { return c & 1; })) /
                 static_cast<double>(in.size());
    ::munmap(map, size);
  }
  ::close(fd);
  return resident;
}

bool proc_drop_caches_allowed() {
  std::ofstream out("/proc/sys/vm/drop_caches");
  if (!out) return false;
  out << "1\n";
  out.flush();
  return static_cast<bool>(out);
}

// Reads the whole file with `threads` threads, 16 MiB at a time, into per-thread buffers that are
// thrown away: the bandwidth of the source alone. O_DIRECT bypasses the page cache (the disk).
double parallel_read(const fs::path& path, unsigned threads, bool direct) {
  const std::size_t size = fs::file_size(path);
  constexpr std::size_t piece = std::size_t{16} << 20;
  const std::size_t pieces = (size + piece - 1) / piece;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  const auto t0 = clock_type::now();
  std::vector<std::jthread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (direct ? O_DIRECT : 0));
      if (fd < 0) {
        failed = true;
        return;
      }
      void* buf = nullptr;
      if (::posix_memalign(&buf, 4096, piece) != 0) {
        failed = true;
        ::close(fd);
        return;
      }
      for (std::size_t i = next++; i < pieces; i = next++) {
        const std::size_t off = i * piece;
        const std::size_t want = std::min(piece, size - off);
        // O_DIRECT wants whole blocks: the last piece is read rounded up (the read stops at the end).
        const std::size_t ask = direct ? (want + 4095) / 4096 * 4096 : want;
        if (::pread(fd, buf, ask, static_cast<off_t>(off)) < static_cast<ssize_t>(want)) failed = true;
      }
      std::free(buf);
      ::close(fd);
    });
  pool.clear();
  if (failed) return -1;
  return seconds_since(t0);
}

double pinned_h2d(std::size_t bytes, void* device, int repeats) {
  void* host = nullptr;
  check(cudaMallocHost(&host, bytes), "cudaMallocHost");
  std::memset(host, 1, bytes);
  double best = 1e30;
  for (int r = 0; r < repeats + 1; ++r) {
    const auto t0 = clock_type::now();
    check(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    if (r > 0) best = std::min(best, seconds_since(t0));  // the first copy warms up
  }
  check(cudaFreeHost(host), "cudaFreeHost");
  return best;
}

// mmap + cudaMallocManaged: the mapping copied into managed memory by every core, then migrated to
// the GPU (cudaMemPrefetchAsync) until it is resident there. The managed memory is new each time
// (allocated before the clock starts), as a load into a fresh buffer finds it.
double mmap_managed(const fs::path& path, void*& managed, unsigned threads) {
  const std::size_t capacity = fs::file_size(path);
  check(cudaFree(managed), "cudaFree");
  check(cudaMallocManaged(&managed, capacity), "cudaMallocManaged");
  const auto t0 = clock_type::now();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  const std::size_t size = fs::file_size(path);
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (map == MAP_FAILED) fail("cannot map " + path.string());
  (void)::madvise(map, size, MADV_SEQUENTIAL);
  const std::size_t slice = (size + threads - 1) / threads;
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        const std::size_t from = std::min(size, t * slice);
        const std::size_t to = std::min(size, from + slice);
        std::memcpy(static_cast<char*>(managed) + from, static_cast<const char*>(map) + from, to - from);
      });
  }
  cudaMemLocation location{};
  location.type = cudaMemLocationTypeDevice;
  location.id = 0;
  check(cudaMemPrefetchAsync(managed, size, location, 0, cudaStreamLegacy), "cudaMemPrefetchAsync");
  check(cudaStreamSynchronize(cudaStreamLegacy), "cudaStreamSynchronize");
  const double s = seconds_since(t0);
  ::munmap(map, size);
  ::close(fd);
  return s;
}

// Spot check that the device holds the file: 1 MiB at the start, the middle and the end.
bool device_matches(const fs::path& path, const void* device, std::size_t size) {
  const std::size_t probe = std::min<std::size_t>(size, 1 << 20);
  std::vector<char> a(probe), b(probe);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  bool ok = true;
  for (std::size_t off : {std::size_t{0}, (size - probe) / 2, size - probe}) {
    if (::pread(fd, a.data(), probe, static_cast<off_t>(off)) != static_cast<ssize_t>(probe)) ok = false;
    check(cudaMemcpy(b.data(), static_cast<const char*>(device) + off, probe, cudaMemcpyDefault), "check copy");
    ok = ok && a == b;
  }
  ::close(fd);
  return ok;
}

struct stats {
  double best = 0, median = 0;
  std::vector<double> all;
};

stats measure(int repeats, const std::function<double()>& once) {
  stats s;
  for (int r = 0; r < repeats; ++r) s.all.push_back(once());
  std::vector<double> v = s.all;
  std::sort(v.begin(), v.end());
  s.best = v.front();
  s.median = v[v.size() / 2];
  return s;
}

json row(const std::string& method, const std::string& cache, std::size_t bytes, const stats& s, bool verified,
         const std::string& note = {}) {
  json r = {{"method", method},
            {"cache", cache},
            {"bytes", bytes},
            {"seconds_best", s.best},
            {"seconds_median", s.median},
            {"seconds_all", s.all},
            {"gb_per_s", bytes / s.best / 1e9},
            {"verified", verified}};
  if (!note.empty()) r["note"] = note;
  std::printf("  %-28s %-5s %8.3f s  %7.2f GB/s%s%s\n", method.c_str(), cache.c_str(), s.best, bytes / s.best / 1e9,
              verified ? "" : "  (device bytes differ from the file!)", note.empty() ? "" : ("  " + note).c_str());
  std::fflush(stdout);
  return r;
}

// The binary fast path against CSV for one recording: the same samples as CSV text (shortest
// round-trip digits, ~450 MB for 40 M samples, the size of the seed's file) and float32, and as
// int16 at a resolution of 1/1000 (read back with a gain of 1000).
json binary_vs_csv(const settings& s) {
  json out;
  const std::int64_t n = s.csv_samples;
  if (n <= 0) return out;
  const fs::path csv = s.dir / "recording.csv", f32 = s.dir / "recording.f32", i16 = s.dir / "recording.i16";
  {
    std::mt19937 rng(42);
    std::normal_distribution<float> noise(0.f, 0.05f);
    std::string text = "heartbeats\n";
    std::vector<float> values(static_cast<std::size_t>(n));
    std::vector<std::int16_t> codes(static_cast<std::size_t>(n));
    text.reserve(static_cast<std::size_t>(n) * 10);
    char cell[32];
    for (std::int64_t i = 0; i < n; ++i) {
      const float v = static_cast<float>(std::sin(i * 0.0251)) + noise(rng);  // ~11 characters a cell
      codes[static_cast<std::size_t>(i)] = static_cast<std::int16_t>(std::lround(v * 1000.0));
      values[static_cast<std::size_t>(i)] = v;
      const auto [end, ec] = std::to_chars(cell, cell + sizeof cell, v);
      text.append(cell, end);
      text += '\n';
    }
    std::ofstream(csv, std::ios::binary).write(text.data(), static_cast<std::streamsize>(text.size()));
    std::ofstream(f32, std::ios::binary)
        .write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * 4));
    std::ofstream(i16, std::ios::binary)
        .write(reinterpret_cast<const char*>(codes.data()), static_cast<std::streamsize>(codes.size() * 2));
  }
  const auto where = zeroflow::cuda_device(0);
  io::prepare_csv_reads(where);
  std::printf("binary fast path against CSV, %lld samples\n", static_cast<long long>(n));
  auto time_it = [&](const std::function<void()>& f) {
    return measure(s.repeats + 1, [&] {  // +1: the first read fills the page cache
      const auto t0 = clock_type::now();
      f();
      return seconds_since(t0);
    });
  };
  io::csv_options o;
  o.where = where;
  o.default_type = zeroflow::float32;
  const stats csv_t = time_it([&] { (void)io::read_csv(csv, o); });
  io::binary_options b;
  b.where = where;
  const stats f32_t = time_it([&] { (void)io::read_binary_signal(f32, b); });
  b.type = io::binary_sample::int16;
  b.gain = 1000;
  const stats i16_t = time_it([&] { (void)io::read_binary_signal(i16, b); });
  const auto bytes_of = [](const fs::path& p) { return static_cast<std::size_t>(fs::file_size(p)); };
  for (const auto& [name, path, t] :
       {std::tuple{"csv", csv, csv_t}, std::tuple{"float32", f32, f32_t}, std::tuple{"int16", i16, i16_t}}) {
    out.push_back({{"format", name},
                   {"bytes", bytes_of(path)},
                   {"seconds_best", t.best},
                   {"seconds_median", t.median},
                   {"samples_per_s", static_cast<double>(n) / t.best}});
    std::printf("  %-8s %10zu bytes  best %8.2f ms  median %8.2f ms\n", name, bytes_of(path), t.best * 1e3,
                t.median * 1e3);
  }
  if (!s.keep)
    for (const auto& p : {csv, f32, i16}) fs::remove(p);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const settings s = parse_args(argc, argv);
  const auto started = clock_type::now();
  if (!zeroflow::cuda_available()) fail("no CUDA device");
  fs::create_directories(s.dir);
  json report;
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  const io::gds_status& gds = io::query_gds();
  const bool proc_drop = proc_drop_caches_allowed();
  report["machine"] = {{"gpu", prop.name},
                       {"cpu_threads", std::thread::hardware_concurrency()},
                       {"threads_used", s.threads},
                       {"dir", s.dir.string()},
                       {"file_system", fs_type(s.dir)},
                       {"kvikio", gds.kvikio_built_in ? gds.kvikio_version : "not built in"},
                       {"gds_mode", gds.mode},
                       {"gds_reason", gds.reason},
                       {"page_cache_drop", proc_drop ? "/proc/sys/vm/drop_caches and posix_fadvise(DONTNEED)"
                                                     : "posix_fadvise(DONTNEED) only (/proc/sys/vm/drop_caches is "
                                                       "not writable here)"}};
  std::printf("GPU %s, %u threads, %s on %s; GDS mode: %s (%s)\n", prop.name, s.threads, s.dir.c_str(),
              fs_type(s.dir).c_str(), gds.mode.c_str(), gds.reason.c_str());

  const std::size_t largest =
      static_cast<std::size_t>(*std::max_element(s.sizes_gb.begin(), s.sizes_gb.end()) * 1e9) / 4096 * 4096;
  void* device = nullptr;
  check(cudaMalloc(&device, largest), "cudaMalloc");
  const std::size_t h2d_bytes = std::min<std::size_t>(largest, std::size_t{1} << 30);
  const double h2d = h2d_bytes / pinned_h2d(h2d_bytes, device, 5) / 1e9;
  report["pinned_h2d_gb_per_s"] = h2d;
  std::printf("pinned host -> device: %.2f GB/s\n", h2d);

  void* managed = nullptr;
  check(cudaMallocManaged(&managed, largest), "cudaMallocManaged");

  for (double gb : s.sizes_gb) {
    const std::size_t bytes = static_cast<std::size_t>(gb * 1e9) / 4096 * 4096;
    const fs::path file = s.dir / ("loading-" + std::to_string(bytes) + ".bin");
    const double write_s = make_file(file, bytes);
    std::printf("%.1f GB file %s%s\n", gb, file.c_str(),
                write_s > 0 ? (" (written at " + std::to_string(bytes / write_s / 1e9) + " GB/s)").c_str() : "");
    json size_report = {{"gb", gb}, {"bytes", bytes}, {"rows", json::array()}};
    auto& rows = size_report["rows"];
    const auto left = [&] { return s.budget_seconds - seconds_since(started); };
    double disk_gbps = 0;

    // Cold: each read after dropping the file's pages; skipped when the disk is too slow for the
    // time left (said in the row).
    auto cold = [&](const std::string& name, const std::function<double()>& once) {
      const double expect = disk_gbps > 0 ? bytes / (disk_gbps * 1e9) : 0;
      if (expect > 0 && expect * 1.5 > left()) {
        rows.push_back({{"method", name}, {"cache", "cold"}, {"bytes", bytes}, {"skipped", "time budget"}});
        std::printf("  %-28s cold  skipped (about %.0f s, %.0f s left of the budget)\n", name.c_str(), expect, left());
        return;
      }
      const double resident = drop_cache(file, proc_drop);
      stats st = measure(1, once);
      rows.push_back(row(name, "cold", bytes, st, device_matches(file, device, bytes),
                         resident > 0.01 ? "resident before: " + std::to_string(resident) : ""));
    };
    // `landed`: where the bytes end up (checked against the file), null for a read that keeps none.
    // (a pointer to the pointer: mmap + cudaMallocManaged allocates anew every time).
    auto warm = [&](const std::string& name, const std::function<double()>& once, void* const* landed) {
      (void)once();  // fills the page cache and warms up
      stats st = measure(s.repeats, once);
      rows.push_back(row(name, "warm", bytes, st, landed == nullptr || device_matches(file, *landed, bytes)));
    };
    auto load = [&](io::io_method m) {
      return [&, m] {
        const auto t0 = clock_type::now();
        io::read_file_to_device(file, 0, bytes, device, zeroflow::cuda_device(0), {}, m, s.threads);
        return seconds_since(t0);
      };
    };

    {  // the disk's own bandwidth first: it sizes the cold runs' time
      double resident = drop_cache(file, proc_drop);
      double t = parallel_read(file, s.threads, true);
      std::string name = "disk read (O_DIRECT)";
      if (t <= 0) {  // a file system without O_DIRECT: buffered reads of the dropped file instead
        name = "disk read (buffered, cold)";
        resident = drop_cache(file, proc_drop);
        t = parallel_read(file, s.threads, false);
      }
      if (t > 0) {
        disk_gbps = bytes / t / 1e9;
        rows.push_back(row(name, "cold", bytes, stats{t, t, {t}}, true,
                           resident > 0.01 ? "resident before: " + std::to_string(resident) : ""));
      } else {
        rows.push_back({{"method", name}, {"cache", "cold"}, {"skipped", "the file could not be read"}});
      }
    }
    warm(
        "page cache read (pread)", [&] { return parallel_read(file, s.threads, false); }, nullptr);
    if (gds.kvikio_built_in) {
      cold("KvikIO (cuFile " + gds.mode + ")", load(io::io_method::kvikio));
      warm("KvikIO (cuFile " + gds.mode + ")", load(io::io_method::kvikio), &device);
    }
    cold("mmap + cudaMemcpy", load(io::io_method::mmap));
    warm("mmap + cudaMemcpy", load(io::io_method::mmap), &device);
    warm(
        "mmap + cudaMallocManaged", [&] { return mmap_managed(file, managed, s.threads); }, &managed);
    cold("pinned pipelined (posix)", load(io::io_method::posix));
    warm("pinned pipelined (posix)", load(io::io_method::posix), &device);
    size_report["write_gb_per_s"] = write_s > 0 ? bytes / write_s / 1e9 : 0;
    report["sizes"].push_back(size_report);
    if (!s.keep) fs::remove(file);
  }
  check(cudaFree(managed), "cudaFree");
  check(cudaFree(device), "cudaFree");
  report["binary_vs_csv"] = binary_vs_csv(s);
  report["seconds"] = seconds_since(started);
  std::ofstream(s.json_path) << report.dump(2) << "\n";
  std::printf("wrote %s (%.0f s in all)\n", s.json_path.c_str(), seconds_since(started));
  return 0;
}

#endif
