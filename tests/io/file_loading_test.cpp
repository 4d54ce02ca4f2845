// File -> device loading (zeroflow/io/file_loading.hpp) and the binary fast path on a GPU. The
// GPU tests compare every method's device bytes with the file's bytes as read by the C++ standard
// library, and skip without a CUDA device; the rest runs everywhere.
#include "zeroflow/io/file_loading.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "io/io_test_util.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/binary.hpp"
#include "zeroflow/io/csv.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zf = zeroflow;
namespace io = zeroflow::io;
using zeroflow::test::message_of;
using zeroflow::test::scratch_dir;

namespace {

std::vector<io::io_method> methods_here() {
  std::vector<io::io_method> out = {io::io_method::automatic, io::io_method::posix, io::io_method::mmap};
  if (io::query_gds().kvikio_built_in) out.push_back(io::io_method::kvikio);
  return out;
}

std::string random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

std::string device_bytes_to_host(const zf::array& device) {
  const zf::array host = zf::copy_to(device, zf::cpu_device);
  zf::synchronize({});
  return {static_cast<const char*>(host.data()), host.nbytes()};
}

#define SKIP_WITHOUT_GPU() \
  if (!zf::cuda_available()) GTEST_SKIP() << "no CUDA device"

}  // namespace

TEST(FileLoading, MethodNamesRoundTrip) {
  for (auto m : {io::io_method::automatic, io::io_method::kvikio, io::io_method::posix, io::io_method::mmap})
    EXPECT_EQ(io::parse_io_method(io::to_string(m)), m);
  const std::string msg = message_of([] { (void)io::parse_io_method("gds"); });
  EXPECT_NE(msg.find("choose auto, kvikio, posix or mmap"), std::string::npos) << msg;
  EXPECT_THROW((void)io::parse_io_method("Auto"), zf::invalid_argument);
}

TEST(FileLoading, GdsStatusIsConsistent) {
  const io::gds_status& s = io::query_gds();
  EXPECT_FALSE(s.reason.empty());
  EXPECT_TRUE(s.mode == "GDS" || s.mode == "compatibility" || s.mode == "unavailable") << s.mode;
  EXPECT_EQ(s.gds_active, s.mode == "GDS");
  if (s.gds_active) {
    EXPECT_TRUE(s.kvikio_built_in && s.cufile_library && s.nvidia_fs_driver);
  }
  if (!s.kvikio_built_in) {
    EXPECT_EQ(s.mode, "unavailable");
  }
  // auto picks KvikIO only where cuFile does true GDS.
  EXPECT_EQ(io::resolve_io_method(io::io_method::automatic),
            s.gds_active ? io::io_method::kvikio : io::io_method::posix);
}

TEST(FileLoading, KvikioIsRefusedClearlyWithoutIt) {
  if (io::query_gds().kvikio_built_in) GTEST_SKIP() << "this build has KvikIO";
  const std::string msg = message_of([] { (void)io::resolve_io_method(io::io_method::kvikio); });
  EXPECT_NE(msg.find("built without KvikIO"), std::string::npos) << msg;
}

TEST(FileLoading, RefusesHostTargets) {
  scratch_dir dir;
  const auto path = dir.write("x.bin", "abcd");
  char dst[4];
  EXPECT_THROW(io::read_file_to_device(path, 0, 4, dst, zf::cpu_device, {}), zf::invalid_argument);
}

TEST(FileLoading, WithoutAGpuTheReadSaysSo) {
  if (zf::cuda_available()) GTEST_SKIP() << "a CUDA device is present";
  scratch_dir dir;
  const auto path = dir.write("x.bin", "abcd");
  EXPECT_THROW(io::read_file_to_device(path, 0, 4, nullptr, zf::cuda_device(0), {}, io::io_method::posix),
               zf::cuda_error);
}

TEST(FileLoadingCuda, EveryMethodDeliversTheFilesBytes) {
  SKIP_WITHOUT_GPU();
  scratch_dir dir;
  // Sizes around the staging chunk and KvikIO's task size, and an odd offset.
  const std::string content = random_bytes((std::size_t{37} << 20) + 4097, 11);
  const auto path = dir.write("x.bin", content);
  for (auto m : methods_here()) {
    for (auto [offset, bytes] : {std::pair<std::size_t, std::size_t>{0, content.size()},
                                 {4097, 5},
                                 {12345, (std::size_t{17} << 20) + 3},
                                 {content.size(), 0}}) {
      zf::array dst = zf::empty({static_cast<std::int64_t>(bytes)}, zf::uint8, zf::cuda_device(0));
      io::file_load_report report;
      io::read_file_to_device(path, offset, bytes, dst.data(), zf::cuda_device(0), {}, m, 0, &report);
      EXPECT_NE(report.method, io::io_method::automatic);
      EXPECT_EQ(report.bytes, bytes);
      ASSERT_EQ(device_bytes_to_host(dst), content.substr(offset, bytes)) << io::to_string(m) << " at " << offset;
    }
  }
}

TEST(FileLoadingCuda, ShortFilesAreNamed) {
  SKIP_WITHOUT_GPU();
  scratch_dir dir;
  const auto path = dir.write("short.bin", "0123456789");
  zf::array dst = zf::empty({64}, zf::uint8, zf::cuda_device(0));
  for (auto m : methods_here()) {
    const std::string msg =
        message_of([&] { io::read_file_to_device(path, 4, 20, dst.data(), zf::cuda_device(0), {}, m); });
    EXPECT_NE(msg.find("short.bin"), std::string::npos) << io::to_string(m) << ": " << msg;
    EXPECT_NE(msg.find("fewer than the 24"), std::string::npos) << io::to_string(m) << ": " << msg;
  }
}

TEST(FileLoadingCuda, BinarySignalsMatchTheHostReader) {
  SKIP_WITHOUT_GPU();
  scratch_dir dir;
  const std::string bytes = random_bytes(6 * 300001, 5);
  const auto path = dir.write("x.raw", bytes);
  for (auto m : methods_here()) {
    for (auto type : {io::binary_sample::int16, io::binary_sample::float32}) {
      io::binary_options o;
      o.type = type;
      o.frame_samples = type == io::binary_sample::int16 ? 3 : 1;
      o.channel = o.frame_samples - 1;
      o.byte_offset = type == io::binary_sample::int16 ? 0 : 2;
      o.frames = 150000;
      o.gain = type == io::binary_sample::int16 ? 200 : 1;
      o.invalid = type == io::binary_sample::int16 ? std::optional<std::int32_t>(-32768) : std::nullopt;
      const zf::array host = io::read_binary_signal(path, o);
      o.where = zf::cuda_device(0);
      o.io = m;
      const zf::array gpu = io::read_binary_signal(path, o);
      ASSERT_EQ(device_bytes_to_host(gpu), std::string(static_cast<const char*>(host.data()), host.nbytes()))
          << io::to_string(m);
    }
  }
}

TEST(FileLoadingCuda, CsvReadsTakeTheirOwnMethod) {
  SKIP_WITHOUT_GPU();
  scratch_dir dir;
  std::string csv = "v\n";
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> d(-5, 5);
  while (csv.size() < (std::size_t{6} << 20)) csv += std::to_string(d(rng)) + "\n";  // past the direct-copy size
  const auto path = dir.write("x.csv", csv);
  zf::io::csv_options host_options;
  host_options.default_type = zf::float32;
  const zf::table host = io::read_csv(path, host_options);
  for (auto m : methods_here()) {
    zf::io::csv_options o = host_options;
    o.where = zf::cuda_device(0);
    o.io = m;
    const zf::table gpu = io::read_csv(path, o);
    ASSERT_EQ(device_bytes_to_host(gpu.columns[0]),
              std::string(static_cast<const char*>(host.columns[0].data()), host.columns[0].nbytes()))
        << io::to_string(m);
  }
}
