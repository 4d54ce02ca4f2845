// write_atomically and abandon_writes: a file is either complete or not there, and a process ending
// on a signal leaves no hidden temporary behind.
#include "zeroflow/io/atomic_file.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "io/io_test_util.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::test {
namespace {

std::size_t entries_in(const std::filesystem::path& folder) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(folder)) ++n;
  return n;
}

TEST(AtomicFile, AFailedWriteLeavesTheOldFileAndNoTemporary) {
  scratch_dir dir;
  const auto file = dir.write("out.txt", "old\n");
  EXPECT_THROW(io::write_atomically(file,
                                    [](std::ostream& out) {
                                      out << "half";
                                      throw std::runtime_error("stopped");
                                    }),
               std::runtime_error);
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "old\n");
  EXPECT_EQ(entries_in(dir.path()), 1U);
}

TEST(AtomicFile, AbandonWritesRemovesTemporariesInFlightAndStopsNewOnes) {
  scratch_dir dir;
  // In a child process: abandon_writes is for a process that ends right after it.
  EXPECT_EXIT(
      {
        std::atomic<bool> writing{false};
        std::thread writer([&] {
          io::write_atomically(dir.path() / "big.csv", [&](std::ostream& out) {
            out << "partial\n";
            out.flush();
            writing = true;
            for (;;) std::this_thread::sleep_for(std::chrono::milliseconds(10));  // a long write
          });
        });
        writer.detach();
        while (!writing) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        const bool temporary_seen = entries_in(dir.path()) == 1;
        io::abandon_writes();
        const bool removed = entries_in(dir.path()) == 0;
        // A write that starts now never creates its temporary.
        std::thread late([&] { io::write_atomically(dir.path() / "late.csv", [](std::ostream& out) { out << "x"; }); });
        late.detach();
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        const bool none_made = entries_in(dir.path()) == 0;
        ::_exit(temporary_seen && removed && none_made ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
  EXPECT_EQ(entries_in(dir.path()), 0U);
}

}  // namespace
}  // namespace zeroflow::test
