#include "zeroflow/io/mapped_file.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "io/io_test_util.hpp"
#include "zeroflow/core/error.hpp"

namespace zf = zeroflow;
using ::testing::HasSubstr;

TEST(MappedFile, MapsTheBytes) {
  zf::test::scratch_dir dir;
  std::string content;
  for (int i = 0; i < 100000; ++i) content += static_cast<char>('a' + i % 26);
  content[5] = '\0';  // binary content maps as is
  const auto path = dir.write("bytes.bin", content);
  zf::io::mapped_file file(path);
  ASSERT_EQ(file.size(), content.size());
  EXPECT_FALSE(file.empty());
  EXPECT_EQ(file.view(), content);
  EXPECT_EQ(file.path(), path);
}

TEST(MappedFile, EmptyFileIsFine) {
  zf::test::scratch_dir dir;
  zf::io::mapped_file file(dir.write("empty.csv", ""));
  EXPECT_TRUE(file.empty());
  EXPECT_EQ(file.size(), 0u);
  EXPECT_EQ(file.data(), nullptr);
  EXPECT_EQ(file.view(), "");
}

TEST(MappedFile, MissingFileNamesPathAndReason) {
  zf::test::scratch_dir dir;
  const auto path = dir.path() / "absent.csv";
  try {
    zf::io::mapped_file file(path);
    FAIL() << "no exception";
  } catch (const zf::error& e) {
    EXPECT_THAT(e.what(), HasSubstr(path.string()));
    EXPECT_THAT(e.what(), HasSubstr(std::strerror(ENOENT)));
  }
}

TEST(MappedFile, DirectoryIsRefused) {
  zf::test::scratch_dir dir;
  try {
    zf::io::mapped_file file(dir.path());
    FAIL() << "no exception";
  } catch (const zf::error& e) {
    EXPECT_THAT(e.what(), HasSubstr(dir.path().string()));
    EXPECT_THAT(e.what(), HasSubstr("directory"));
  }
}

TEST(MappedFile, MoveTransfersTheMapping) {
  zf::test::scratch_dir dir;
  zf::io::mapped_file a(dir.write("a.txt", "alpha"));
  zf::io::mapped_file b(dir.write("b.txt", "beta!!"));
  const char* a_data = a.data();
  zf::io::mapped_file c(std::move(a));
  EXPECT_EQ(c.data(), a_data);
  EXPECT_EQ(c.view(), "alpha");
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
  EXPECT_EQ(a.size(), 0u);
  c = std::move(b);
  EXPECT_EQ(c.view(), "beta!!");
  EXPECT_EQ(b.size(), 0u);  // NOLINT(bugprone-use-after-move)
}
