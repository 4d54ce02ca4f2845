// beats.csv read back (report/beats_table.hpp): columns by name whatever their order, what a reader
// needs checked with the file and line in the message; the table of a run's own beats.csv.
#include "zeroflow/report/beats_table.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "zeroflow/core/error.hpp"

namespace zr = zeroflow::report;

namespace {

/// The message of the parse_error `call` throws (fails the test when it throws none).
template <typename F>
std::string message_of(F call) {
  try {
    call();
  } catch (const zeroflow::parse_error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no parse_error";
  return {};
}

}  // namespace

TEST(BeatsTable, ColumnsAreFoundByNameAndCellsRead) {
  const auto t = zr::parse_beats_table("\xEF\xBB\xBFscore,extra,peak\r\n0.5,\"a,b\",100\r\n\r\n,x,250\n", "b.csv");
  ASSERT_EQ(t.rows.size(), 2U);
  EXPECT_EQ(t.lines, (std::vector<std::size_t>{2, 4}));
  const auto peak = t.column("peak"), score = t.column("score");
  EXPECT_EQ(t.sample(0, peak), 100);
  EXPECT_EQ(t.sample(1, peak), 250);
  EXPECT_DOUBLE_EQ(t.number(0, score), 0.5);
  EXPECT_TRUE(std::isnan(t.number(1, score)));  // empty: not scored
  EXPECT_EQ(t.rows[0][1], "a,b");
  EXPECT_FALSE(t.find("class").has_value());
}

TEST(BeatsTable, WhatIsWrongIsNamedWithItsLine) {
  EXPECT_EQ(message_of([] { (void)zr::parse_beats_table("", "b.csv"); }),
            "b.csv:1: the file is empty; expected beats.csv of `zeroflow run`");
  EXPECT_EQ(message_of([] { (void)zr::parse_beats_table("peak,score\n1,2,3\n", "b.csv"); }),
            "b.csv:2: expected 2 fields as in the header, got 3");
  const auto t = zr::parse_beats_table("peak,score\n12x,abc\n-4,inf\n", "b.csv");
  EXPECT_EQ(message_of([&] { (void)t.column("class"); }),
            "b.csv:1: the header has no 'class' column; is this the beats.csv of `zeroflow run`?");
  EXPECT_EQ(message_of([&] { (void)t.sample(0, 0); }), "b.csv:2: peak '12x' is not a sample index");
  EXPECT_EQ(message_of([&] { (void)t.sample(1, 0); }), "b.csv:3: peak '-4' is not a sample index");
  EXPECT_EQ(message_of([&] { (void)t.number(0, 1); }),
            "b.csv:2: score 'abc' is not a number (leave it empty when a beat has none)");
  EXPECT_NE(message_of([&] { (void)t.number(1, 1); }).find("'inf' is not a number"), std::string::npos);
}
