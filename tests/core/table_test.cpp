#include "zeroflow/core/table.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "zeroflow/memory/allocate.hpp"

namespace zf = zeroflow;
using ::testing::HasSubstr;

namespace {
zf::array filled(std::int64_t n, float first) {
  zf::array a = zf::empty({n}, zf::float32);
  auto s = a.span<float>();
  for (std::int64_t i = 0; i < n; ++i) s[static_cast<std::size_t>(i)] = first + static_cast<float>(i);
  return a;
}
}  // namespace

TEST(Table, ColumnsByNameAndIndex) {
  zf::table t{{"time", "heartbeats"}, {filled(4, 0), filled(4, 10)}};
  EXPECT_NO_THROW(t.validate());
  EXPECT_EQ(t.num_columns(), 2u);
  EXPECT_EQ(t.num_rows(), 4);
  EXPECT_EQ(t.column("heartbeats").span<float>()[0], 10.0f);
  EXPECT_EQ(t.column(std::size_t{0}).span<float>()[3], 3.0f);
  EXPECT_EQ(t.column(1).data(), t.column("heartbeats").data());
}

TEST(Table, UnknownNameListsTheAvailableOnes) {
  zf::table t{{"time", "heartbeats"}, {filled(2, 0), filled(2, 0)}};
  try {
    (void)t.column("beats");
    FAIL() << "no exception";
  } catch (const zf::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("\"beats\""));
    EXPECT_THAT(e.what(), HasSubstr("\"time\", \"heartbeats\""));
  }
  EXPECT_THROW((void)t.column(2), zf::invalid_argument);
}

TEST(Table, EmptyTableHasNoRows) {
  zf::table t;
  EXPECT_EQ(t.num_rows(), 0);
  EXPECT_EQ(t.num_columns(), 0u);
  EXPECT_NO_THROW(t.validate());
  EXPECT_THROW((void)t.column(0), zf::invalid_argument);
}

TEST(Table, ValidateCatchesBrokenInvariants) {
  EXPECT_THROW((zf::table{{"a"}, {filled(2, 0), filled(2, 0)}}.validate()), zf::invalid_argument);
  EXPECT_THROW((zf::table{{"a", "b"}, {filled(2, 0), filled(3, 0)}}.validate()), zf::invalid_argument);
  EXPECT_THROW((zf::table{{"a"}, {zf::empty({2, 2}, zf::float32)}}.validate()), zf::invalid_argument);
  EXPECT_THROW((zf::table{{"a"}, {zf::array{}}}.validate()), zf::invalid_argument);
}
