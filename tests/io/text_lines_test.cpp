// io::text_lines against hand-worked cases (CRLF, a last line without its line break, empty lines,
// a byte order mark) and against std::getline over seeded random texts.
#include "zeroflow/io/text_lines.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace io = zeroflow::io;

namespace {

using numbered = std::vector<std::pair<std::size_t, std::string>>;

numbered lines_of(std::string_view text) {
  numbered out;
  for (const auto& [number, line] : io::text_lines(text)) out.emplace_back(number, std::string(line));
  return out;
}

/// The reference: std::getline splits at '\n' and gives no line after a final one; then one '\r'
/// at a line's end goes, and a byte order mark before the first line.
numbered getline_reference(std::string text) {
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
  std::istringstream in(text);
  numbered out;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.emplace_back(out.size() + 1, line);
  }
  return out;
}

}  // namespace

TEST(TextLines, LineEndsAndTheLastLine) {
  EXPECT_EQ(lines_of(""), numbered{});
  EXPECT_EQ(lines_of("a"), (numbered{{1, "a"}}));
  EXPECT_EQ(lines_of("a\n"), (numbered{{1, "a"}}));
  EXPECT_EQ(lines_of("a\r\n"), (numbered{{1, "a"}}));
  EXPECT_EQ(lines_of("a\r"), (numbered{{1, "a"}})) << "a CR at the end of the text ends the line too";
  EXPECT_EQ(lines_of("a\nb"), (numbered{{1, "a"}, {2, "b"}}));
  EXPECT_EQ(lines_of("a\r\nb\r\n"), (numbered{{1, "a"}, {2, "b"}}));
  EXPECT_EQ(lines_of("a\r\nb\nc\r\n"), (numbered{{1, "a"}, {2, "b"}, {3, "c"}})) << "mixed line ends";
}

TEST(TextLines, EmptyLinesAreGivenAndCounted) {
  EXPECT_EQ(lines_of("\n"), (numbered{{1, ""}}));
  EXPECT_EQ(lines_of("\r\n\r\n"), (numbered{{1, ""}, {2, ""}}));
  EXPECT_EQ(lines_of("a\n\n\nb"), (numbered{{1, "a"}, {2, ""}, {3, ""}, {4, "b"}}));
  EXPECT_EQ(lines_of("a\n\n"), (numbered{{1, "a"}, {2, ""}}));
  EXPECT_EQ(lines_of("  \n\t"), (numbered{{1, "  "}, {2, "\t"}})) << "blanks are the reader's to trim";
}

TEST(TextLines, AByteOrderMarkIsNoPartOfTheFirstLine) {
  EXPECT_EQ(lines_of("\xEF\xBB\xBFsample,label\r\n1,N\r\n"), (numbered{{1, "sample,label"}, {2, "1,N"}}));
  EXPECT_EQ(lines_of("\xEF\xBB\xBF"), numbered{});
  EXPECT_EQ(lines_of("\xEF\xBB\xBF\n"), (numbered{{1, ""}}));
  // Only a whole mark, and only at the start: elsewhere its bytes are text.
  EXPECT_EQ(lines_of("\xEF\xBBx"), (numbered{{1, "\xEF\xBBx"}}));
  EXPECT_EQ(lines_of("a\n\xEF\xBB\xBF"
                     "b"),
            (numbered{{1, "a"},
                      {2,
                       "\xEF\xBB\xBF"
                       "b"}}));
}

TEST(TextLines, ACarriageReturnInsideALineStays) {
  EXPECT_EQ(lines_of("a\rb\n"), (numbered{{1, "a\rb"}}));
  EXPECT_EQ(lines_of("a\r\r\n"), (numbered{{1, "a\r"}})) << "one CR goes with the line break";
}

TEST(TextLines, LinesViewTheText) {
  const std::string text = "first\r\nsecond";
  std::vector<const char*> starts;
  for (const auto& line : io::text_lines(text)) starts.push_back(line.text.data());
  EXPECT_EQ(starts, (std::vector<const char*>{text.data(), text.data() + 7})) << "no copies";
  // Iterators step like any other: post-increment gives the line before.
  io::text_lines lines(text);
  auto it = lines.begin();
  const auto before = it++;
  EXPECT_EQ(before->text, "first");
  EXPECT_EQ(it->text, "second");
  EXPECT_EQ(it->number, 2U);
  EXPECT_TRUE(++it == lines.end());
}

TEST(TextLines, RandomTextsSplitAsGetlineDoes) {
  std::mt19937_64 rng(2024);
  const std::vector<std::string> pieces = {"a", "bc", ",", " ", "\n", "\r", "\r\n", "\n\n", "\xEF\xBB\xBF", "\xC3\xA9"};
  for (int trial = 0; trial < 2000; ++trial) {
    std::string text;
    const auto count = std::uniform_int_distribution<int>(0, 25)(rng);
    for (int k = 0; k < count; ++k)
      text += pieces[std::uniform_int_distribution<std::size_t>(0, pieces.size() - 1)(rng)];
    ASSERT_EQ(lines_of(text), getline_reference(text)) << "trial " << trial;
  }
}
