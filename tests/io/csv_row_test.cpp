// io::split_csv_row (csv_row.hpp): cells at commas, quoted cells with commas and doubled quotes.
#include "zeroflow/io/csv_row.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using cells = std::vector<std::string>;

TEST(CsvRow, SplitsAtCommasAndKeepsEmptyCells) {
  EXPECT_EQ(zeroflow::io::split_csv_row("a,b,c"), (cells{"a", "b", "c"}));
  EXPECT_EQ(zeroflow::io::split_csv_row(",x,"), (cells{"", "x", ""}));
  EXPECT_EQ(zeroflow::io::split_csv_row(""), (cells{""}));
  EXPECT_EQ(zeroflow::io::split_csv_row(" a , b"), (cells{" a ", " b"}));  // nothing trimmed
}

TEST(CsvRow, QuotedCellsHoldCommasAndDoubledQuotes) {
  EXPECT_EQ(zeroflow::io::split_csv_row(R"("a,b",c)"), (cells{"a,b", "c"}));
  EXPECT_EQ(zeroflow::io::split_csv_row(R"("say ""hi""",2)"), (cells{R"(say "hi")", "2"}));
  EXPECT_EQ(zeroflow::io::split_csv_row(R"("open,to the end)"), (cells{"open,to the end"}));
}
