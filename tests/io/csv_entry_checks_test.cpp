// read_csv's entry checks: files that are not CSV text (compressed, binary, UTF-16/32) are named by
// their first bytes, and a FIFO is refused before it is opened for reading (which would wait for a
// writer forever). The magic numbers are those of the formats' own specifications (gzip RFC 1952,
// ZIP APPNOTE, Unicode byte-order marks), not zeroflow's output.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <string>

#include "io/csv_test_util.hpp"
#include "io/io_test_util.hpp"

namespace zeroflow::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

/// True when every byte of `text` is printable ASCII: no raw file bytes reach the message.
bool printable(const std::string& text) {
  for (const char c : text)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7F) return false;
  return true;
}

std::string file_error(const std::filesystem::path& path) {
  try {
    (void)io::read_csv(path, {});
  } catch (const parse_error& e) {
    return e.what();
  }
  return "";
}

std::string utf16le(std::string_view ascii) {
  std::string out;
  for (const char c : ascii) out += std::string{c, '\0'};
  return out;
}

TEST(CsvEntryChecks, CompressedFilesAreNamed) {
  scratch_dir dir;
  // gzip: ID1 31, ID2 139, CM 8 (RFC 1952); then arbitrary compressed bytes.
  const auto gz = dir.write("x.csv.gz", std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xcb\x48\xcd\xc9", 14));
  const auto message = file_error(gz);
  EXPECT_THAT(message, HasSubstr("x.csv.gz: this looks like a gzip file; decompress it first"));
  EXPECT_TRUE(printable(message)) << message;
  // ZIP local file header "PK\3\4" (also every .xlsx workbook).
  const auto zip = dir.write("book.xlsx", std::string("PK\x03\x04\x14\x00\x06\x00", 8) + "[Content_Types].xml");
  EXPECT_THAT(file_error(zip), HasSubstr("ZIP archive (or an Excel .xlsx workbook)"));
  const auto xz = dir.write("x.xz", std::string("\xfd"
                                                "7zXZ\x00\x00\x04",
                                                8));
  EXPECT_THAT(file_error(xz), HasSubstr("an xz file"));
  const auto bz = dir.write("x.bz2", "BZh91AY&SY\x01\x02");
  EXPECT_THAT(file_error(bz), HasSubstr("a bzip2 file"));
}

TEST(CsvEntryChecks, Utf16And32AreNamedWithTheirFix) {
  const std::string text = "ecg\n0.1\n0.2\n";
  EXPECT_THAT(csv_error("\xff\xfe" + utf16le(text)), HasSubstr("t.csv: this looks like UTF-16 text; save it as UTF-8"));
  std::string big_endian = "\xfe\xff";
  for (const char c : text) big_endian += std::string{'\0', c};
  EXPECT_THAT(csv_error(big_endian), HasSubstr("UTF-16 text"));
  EXPECT_THAT(csv_error(std::string("\xff\xfe\0\0", 4) + "e\0\0\0"), HasSubstr("UTF-32 text"));
  // Without a byte-order mark: a NUL in every other byte.
  EXPECT_THAT(csv_error(utf16le(text)), HasSubstr("UTF-16 text"));
}

TEST(CsvEntryChecks, OtherBinaryFilesNameTheirFirstNulByte) {
  const std::string message = csv_error(std::string("ecg\n1.0\n\0\x01\x02\xff", 12));
  EXPECT_THAT(message, HasSubstr("t.csv: byte 9 is a NUL byte: this is a binary file, not CSV text"));
  EXPECT_TRUE(printable(message)) << message;
}

TEST(CsvEntryChecks, TextThatOnlyStartsLikeAMagicNumberIsRead) {
  // A header named like a magic number prefix is still a CSV: only whole signatures count.
  const auto t = io::read_csv_buffer("BZh,PAR1\n1,2\n3,4\n", "t.csv", {});
  ASSERT_EQ(t.num_columns(), 2);
  EXPECT_EQ(values<float>(t.columns[0]), (std::vector<float>{1, 3}));
  EXPECT_EQ(csv_error("\xef\xbb\xbf"
                      "ecg\n1\n"),
            "");  // a UTF-8 byte-order mark is text
}

TEST(CsvEntryChecks, AFifoIsRefusedWithoutWaitingForAWriter) {
  scratch_dir dir;
  const auto fifo = dir.path() / "stream.csv";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Opened for reading the usual way, a FIFO blocks until a writer comes: the check must not.
  auto refused = std::async(std::launch::async, [&] { return file_error(fifo); });
  if (refused.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    const int writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);  // lets the reader go
    if (writer >= 0) ::close(writer);
    FAIL() << "read_csv waits on a FIFO";
  }
  EXPECT_THAT(refused.get(), HasSubstr("stream.csv is not a regular file (a FIFO, socket, device or folder)"));
}

TEST(CsvEntryChecks, AFolderIsRefused) {
  scratch_dir dir;
  EXPECT_THAT(file_error(dir.path()), HasSubstr("is not a regular file"));
  EXPECT_THAT(file_error(dir.path()), Not(HasSubstr("\n")));
}

}  // namespace
}  // namespace zeroflow::test
