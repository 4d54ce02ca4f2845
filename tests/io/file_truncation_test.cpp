// A file that shrinks while zeroflow reads it. With a memory map, touching a page past the new end
// raised SIGBUS and killed the process; the bytes are now read with pread, so a file truncated after
// it was opened still gives the bytes it had, and one that ends early while being read is an error
// naming the file and the byte.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "io/io_test_util.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/csv.hpp"
#include "zeroflow/io/mapped_file.hpp"

namespace zf = zeroflow;
using ::testing::HasSubstr;

namespace {

std::string pattern_bytes(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 2654435761u) >> 13);
  return s;
}

struct open_file {
  int fd;
  explicit open_file(const std::filesystem::path& path) : fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
  ~open_file() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

TEST(FileTruncation, TruncatedAfterOpeningKeepsTheBytesItHad) {
  zf::test::scratch_dir dir;
  const std::string content = pattern_bytes(3 << 20);
  const auto path = dir.write("shrinks.bin", content);
  const zf::io::mapped_file file(path);
  ASSERT_EQ(::truncate(path.c_str(), 100), 0);  // every page but the first is gone from the file
  // Under a memory map this read raised SIGBUS at byte 4096.
  EXPECT_EQ(file.view(), content);
  ASSERT_EQ(::truncate(path.c_str(), 0), 0);
  EXPECT_EQ(file.view(), content);
  // As a mapping did, the bytes are followed by zeros to the end of their last page.
  const std::size_t tail = (4096 - content.size() % 4096) % 4096;
  EXPECT_EQ(std::string(file.data() + content.size(), tail), std::string(tail, '\0'));
}

TEST(FileTruncation, EndingWhileBeingReadNamesTheFileAndTheByte) {
  zf::test::scratch_dir dir;
  // Small (one pread) and large (pieces read by several threads: the first piece that ends early
  // is the one reported, not whichever thread noticed first).
  for (const std::size_t size : {std::size_t{100000}, std::size_t{40} << 20}) {
    const auto path = dir.write("ends.bin", pattern_bytes(size));
    const open_file file(path);
    ASSERT_GE(file.fd, 0);
    const std::size_t kept = size / 2 + 123;
    // Deterministic: the file shrinks after it was opened and sized, before its bytes are read.
    ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(kept)), 0);
    std::vector<char> bytes(size);
    try {
      zf::io::detail::read_file_bytes(file.fd, size, bytes.data(), path);
      FAIL() << "no error for a file that ended early";
    } catch (const zf::error& e) {
      EXPECT_THAT(e.what(), HasSubstr(path.string()));
      EXPECT_THAT(e.what(), HasSubstr("ended at byte " + std::to_string(kept)));
      EXPECT_THAT(e.what(), HasSubstr("had " + std::to_string(size) + " bytes"));
      EXPECT_THAT(e.what(), HasSubstr("truncated"));
    }
  }
}

TEST(FileTruncation, ConcurrentTruncationNeverKillsTheReaders) {
  zf::test::scratch_dir dir;
  std::string csv = "x\n";
  while (csv.size() < (std::size_t{2} << 20)) csv += std::to_string(csv.size() % 1000) + ".5\n";
  const auto path = dir.write("flapping.csv", csv);
  std::atomic<bool> stop{false};
  // Another program shrinks the file and writes it back, again and again.
  std::thread other([&] {
    for (unsigned i = 0; !stop.load(); ++i) {
      (void)::truncate(path.c_str(), static_cast<off_t>((i * 7919u) % csv.size()));
      const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd >= 0) {
        (void)::pwrite(fd, csv.data(), csv.size(), 0);
        ::close(fd);
      }
    }
  });
  int read_whole = 0, refused = 0;
  for (int i = 0; i < 200; ++i) {
    try {
      const zf::io::mapped_file file(path);
      for (char c : file.view()) ASSERT_NE(c, '\x7f');  // touch every byte, as a parser does
      ++read_whole;
    } catch (const zf::error& e) {
      EXPECT_THAT(e.what(), HasSubstr("truncated"));
      ++refused;
    }
    try {
      const auto table = zf::io::read_csv(path, {});
      EXPECT_EQ(table.num_columns(), 1u);
    } catch (const zf::error&) {
      // A half-written file may not parse; it must only not crash.
    }
  }
  stop = true;
  other.join();
  EXPECT_EQ(read_whole + refused, 200);
}
