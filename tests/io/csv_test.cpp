// read_csv / read_csv_buffer: every option and every bad input, messages checked.
#include "zeroflow/io/csv.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "io/csv_test_util.hpp"
#include "io/io_test_util.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zf = zeroflow;
namespace io = zeroflow::io;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using zf::test::csv_error;
using zf::test::values;

namespace {
zf::table read(std::string_view text, const io::csv_options& options = {}) {
  return io::read_csv_buffer(text, "t.csv", options);
}
io::csv_options with_delimiter(char d) {
  io::csv_options o;
  o.delimiter = d;
  return o;
}
}  // namespace

// ---- basics ---------------------------------------------------------------------------------

TEST(Csv, SingleColumnWithHeader) {
  const auto t = read("heartbeats\n-0.145\n-0.12\n0.5\n");
  t.validate();
  ASSERT_THAT(t.names, ElementsAre("heartbeats"));
  EXPECT_EQ(t.num_rows(), 3);
  EXPECT_EQ(t.column(0).type(), zf::float32);
  EXPECT_EQ(t.column(0).where(), zf::cpu_device);
  EXPECT_THAT(values<float>(t.column("heartbeats")), ElementsAre(-0.145f, -0.12f, 0.5f));
}

TEST(Csv, NoFinalNewlineIsFine) {
  EXPECT_THAT(values<float>(read("x\n1\n2").column(0)), ElementsAre(1.0f, 2.0f));
  EXPECT_THAT(values<float>(read("x\r\n1\r\n2").column(0)), ElementsAre(1.0f, 2.0f));
  EXPECT_THAT(values<float>(read("x,y\n1,3\n2,4").column(1)), ElementsAre(3.0f, 4.0f));
}

TEST(Csv, CrlfLineEndings) {
  const auto t = read("a,b\r\n1,2\r\n3,4\r\n");
  EXPECT_THAT(t.names, ElementsAre("a", "b"));
  EXPECT_THAT(values<float>(t.column("a")), ElementsAre(1.0f, 3.0f));
  EXPECT_THAT(values<float>(t.column("b")), ElementsAre(2.0f, 4.0f));
}

TEST(Csv, BlankLinesAreSkipped) {
  const auto t = read("\n\nx,y\n\n1,2\n   \n\t\n\r\n3,4\n\n");
  EXPECT_THAT(values<float>(t.column("x")), ElementsAre(1.0f, 3.0f));
  EXPECT_THAT(values<float>(t.column("y")), ElementsAre(2.0f, 4.0f));
}

TEST(Csv, BlankLinesBetweenRowsCanBeRefused) {
  // Where a row's position is its time (a recording), a skipped line moves every later sample.
  io::csv_options o;
  o.blank = io::blank_lines::refuse;
  const std::string refused = "t.csv:4: a blank line between samples";
  EXPECT_THAT(csv_error("x\n1\n2\n\n3\n", o), HasSubstr(refused));
  EXPECT_THAT(csv_error("x\n1\n2\n  \r\n\n3\n", o), HasSubstr(refused));  // the first of several
  EXPECT_THAT(csv_error("x\n1\n2\n\t\n# note\n3\n", o), HasSubstr(refused));
  EXPECT_THAT(csv_error("1\n2\n3\n\n4\n", o),
              "t.csv:4: a blank line between samples: each line is one sample in "
              "time, so skipping it would move every later sample earlier. Delete the line if no sample is missing "
              "there, or write the missing sample's value");
  // Blank lines before the first row and after the last move nothing; a comment is no sample.
  for (const char* fine : {"\n\nx\n1\n2\n", "x\n\n1\n2\n", "x\n1\n2\n\n\n  \n", "x\n1\n# note\n2\n", "x\n1\n2"}) {
    EXPECT_EQ(csv_error(fine, o), "") << fine;
    EXPECT_EQ(read(fine, o).num_rows(), 2) << fine;
  }
  // The grammar takes a line of tabs for a blank line in a tab-separated file too.
  o.delimiter = '\t';
  EXPECT_THAT(csv_error("a\tb\n1\t2\n\t\n3\t4\n", o), HasSubstr("t.csv:3: a blank line between samples"));
  // In small ranges too, wherever the blank line falls.
  io::csv_options small = o;
  small.delimiter = ',';
  small.chunk_bytes = 3;
  small.threads = 4;
  EXPECT_THAT(csv_error("x\n1\n22\n333\n4444\n\n5\n", small), HasSubstr("t.csv:6: a blank line between samples"));
}

TEST(Csv, SpacesAroundFieldsAndLeadingPlus) {
  const auto t = read("a , b\n 1 ,\t+2.5 \n-3,  +4e1\n");
  EXPECT_THAT(t.names, ElementsAre("a", "b"));
  EXPECT_THAT(values<float>(t.column("a")), ElementsAre(1.0f, -3.0f));
  EXPECT_THAT(values<float>(t.column("b")), ElementsAre(2.5f, 40.0f));
}

TEST(Csv, ByteOrderMarkIsSkipped) {
  const auto t = read("\xEF\xBB\xBFheartbeats\n1\n");
  EXPECT_THAT(t.names, ElementsAre("heartbeats"));
  EXPECT_THAT(values<float>(t.column(0)), ElementsAre(1.0f));
}

// ---- delimiters -----------------------------------------------------------------------------

TEST(Csv, Delimiters) {
  for (char d : {',', ';', '\t', '|'}) {
    std::string text = "a_b_c\n1_2_3\n4_5_6\n";
    for (char& c : text)
      if (c == '_') c = d;
    const auto t = read(text, with_delimiter(d));
    ASSERT_EQ(t.num_columns(), 3u) << "delimiter " << int(d);
    EXPECT_THAT(values<float>(t.column("c")), ElementsAre(3.0f, 6.0f));
  }
}

TEST(Csv, DelimiterAutoDetection) {
  EXPECT_EQ(read("a;b;c\n1;2;3\n", with_delimiter(0)).num_columns(), 3u);
  EXPECT_EQ(read("a\tb\n1\t2\n", with_delimiter(0)).num_columns(), 2u);
  EXPECT_EQ(read("a,b\n1,2\n", with_delimiter(0)).num_columns(), 2u);
  // the most frequent wins; quoted delimiters do not count
  const auto t = read("\"x,y\";\"z,w\";v\n1;2;3\n", with_delimiter(0));
  EXPECT_THAT(t.names, ElementsAre("x,y", "z,w", "v"));
  // one column, no candidate at all
  EXPECT_THAT(values<float>(read("heartbeats\n1.5\n", with_delimiter(0)).column(0)), ElementsAre(1.5f));
  // detected from the first non-comment line
  EXPECT_EQ(read("# a,b,c,d\nx;y\n1;2\n", with_delimiter(0)).num_columns(), 2u);
}

TEST(Csv, RefusedDelimitersAndQuotes) {
  for (char d : {'\n', '\r', '1', '.', '-', '+', 'e', '"'})
    EXPECT_THROW(read("1\n", with_delimiter(d)), zf::invalid_argument);
  io::csv_options o;
  o.quote = '1';
  EXPECT_THROW(read("1\n", o), zf::invalid_argument);
  o = {};
  o.comment = "-";
  EXPECT_THROW(read("1\n", o), zf::invalid_argument);
  o = {};
  o.default_type = zf::int32;
  EXPECT_THROW(read("1\n", o), zf::invalid_argument);
}

// ---- header ---------------------------------------------------------------------------------

TEST(Csv, HeaderAutoDetection) {
  auto t = read("1.5,2\n3,4\n");  // all numeric: no header, pandas-style names
  EXPECT_THAT(t.names, ElementsAre("0", "1"));
  EXPECT_EQ(t.num_rows(), 2);
  EXPECT_THAT(values<float>(t.column("0")), ElementsAre(1.5f, 3.0f));

  t = read("time,2\n3,4\n");  // one text cell is enough
  EXPECT_THAT(t.names, ElementsAre("time", "2"));
  EXPECT_EQ(t.num_rows(), 1);

  // empty cells and missing-value spellings are numeric-looking
  io::csv_options o;
  o.na = io::na_policy::nan;
  t = read("1,,NaN,inf\n2,3,4,5\n", o);
  EXPECT_EQ(t.num_rows(), 2);
  EXPECT_TRUE(std::isnan(values<float>(t.column(1))[0]));

  // comments before the header are skipped, and the header may be quoted
  t = read("# recorded 2021\n\n\"heart beats\",\"a \"\"b\"\"\"\n1,2\n");
  EXPECT_THAT(t.names, ElementsAre("heart beats", "a \"b\""));
}

TEST(Csv, HeaderForcedOnOrOff) {
  io::csv_options o;
  o.header = io::header_mode::yes;
  auto t = read("1,2\n3,4\n", o);
  EXPECT_THAT(t.names, ElementsAre("1", "2"));
  EXPECT_THAT(values<float>(t.column("2")), ElementsAre(4.0f));

  o.header = io::header_mode::no;
  t = read("1,2\n3,4\n", o);
  EXPECT_THAT(t.names, ElementsAre("0", "1"));
  EXPECT_EQ(t.num_rows(), 2);
  // without a header a text first line is data, and an error without a column name
  EXPECT_EQ(csv_error("x,y\n1,2\n", o), "t.csv:1: column 1: cannot parse \"x\" as float32");
}

// ---- columns and dtypes -------------------------------------------------------------------------

TEST(Csv, ColumnSelectionByNameAndIndex) {
  const std::string text = "t,label,a,b\n0,x,1,2\n1,y,3,4\n";  // label is text: never parsed unless asked
  io::csv_options o;
  o.columns = {"b", "a"};
  auto t = read(text, o);
  EXPECT_THAT(t.names, ElementsAre("b", "a"));
  EXPECT_THAT(values<float>(t.column(0)), ElementsAre(2.0f, 4.0f));
  EXPECT_THAT(values<float>(t.column(1)), ElementsAre(1.0f, 3.0f));

  o.columns = {3, std::size_t{0}};
  t = read(text, o);
  EXPECT_THAT(t.names, ElementsAre("b", "t"));
  EXPECT_THAT(values<float>(t.column("t")), ElementsAre(0.0f, 1.0f));

  o.columns = {std::string("label")};
  EXPECT_EQ(csv_error(text, o), "t.csv:2: column 2 (\"label\"): cannot parse \"x\" as float32");
}

TEST(Csv, SkippedColumnsMayHoldQuotedText) {
  io::csv_options o;
  o.columns = {"v"};
  const auto t = read("name,v,note\n\"a, b\",1,\"say \"\"hi\"\"\"\r\nc,2,plain\r\n\"\",3,\n", o);
  EXPECT_THAT(values<float>(t.column(0)), ElementsAre(1.0f, 2.0f, 3.0f));
}

TEST(Csv, MissingRequestedColumn) {
  io::csv_options o;
  o.columns = {"beats"};
  EXPECT_EQ(csv_error("time,heartbeats\n1,2\n", o),
            "t.csv: no column named \"beats\" (requested column); available: \"time\", \"heartbeats\"");
  o.columns = {2};
  EXPECT_EQ(csv_error("time,heartbeats\n1,2\n", o),
            "t.csv: requested column index 2 is out of range: the file has 2 column(s) (indices are 0-based)");
  o.columns = {-1};
  EXPECT_THAT(csv_error("a\n1\n", o), HasSubstr("negative index is out of range"));
  o.columns = {"x"};
  EXPECT_EQ(csv_error("x,x\n1,2\n", o),
            "t.csv: requested column \"x\" is ambiguous: columns 1 and 2 have that name; select by index");
  o.columns = {"a", "a"};
  EXPECT_THROW(read("a\n1\n", o), zf::invalid_argument);
  o.columns = {};
  o.types = {{"nope", zf::float64}};
  EXPECT_THAT(csv_error("a\n1\n", o), HasSubstr("no column named \"nope\" (typed column)"));
}

TEST(Csv, DtypesDefaultAndPerColumn) {
  const std::string text = "f,d,i\n0.1,0.1,-9223372036854775808\n1e-40,1e-310,9223372036854775807\n";
  io::csv_options o;
  o.types = {{"d", zf::float64}, {2, zf::int64}};
  o.na = io::na_policy::nan;
  auto t = read(text, o);
  EXPECT_EQ(t.column("f").type(), zf::float32);
  EXPECT_EQ(t.column("d").type(), zf::float64);
  EXPECT_EQ(t.column("i").type(), zf::int64);
  EXPECT_THAT(values<float>(t.column("f")), ElementsAre(0.1f, std::strtof("1e-40", nullptr)));
  EXPECT_THAT(values<double>(t.column("d")), ElementsAre(0.1, std::strtod("1e-310", nullptr)));
  EXPECT_THAT(values<std::int64_t>(t.column("i")),
              ElementsAre(std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()));

  o = {};
  o.default_type = zf::float64;
  t = read("a,b\n0.1,2\n", o);
  EXPECT_EQ(t.column("a").type(), zf::float64);
  EXPECT_THAT(values<double>(t.column("b")), ElementsAre(2.0));
}

TEST(Csv, Int64Errors) {
  io::csv_options o;
  o.default_type = zf::int64;
  EXPECT_EQ(csv_error("n\n1\n1.5\n", o), "t.csv:3: column 1 (\"n\"): cannot parse \"1.5\" as int64");
  EXPECT_EQ(csv_error("n\n9223372036854775808\n", o),
            "t.csv:2: column 1 (\"n\"): \"9223372036854775808\" is out of range for int64");
  EXPECT_EQ(csv_error("n\n+-1\n", o), "t.csv:2: column 1 (\"n\"): cannot parse \"+-1\" as int64");
  EXPECT_THAT(values<std::int64_t>(read("n\n+7\n-0\n\"12\"\n", o).column(0)), ElementsAre(7, 0, 12));
  o.na = io::na_policy::nan;  // int64 has no NaN, whatever the policy
  EXPECT_EQ(
      csv_error("a,n\n1,\n", o),
      "t.csv:2: column 2 (\"n\"): empty cell in an int64 column (int64 has no NaN; read the column as a float dtype)");
  EXPECT_THAT(csv_error("a,n\n1,NA\n", o), HasSubstr("column 2 (\"n\"): missing value \"NA\" in an int64 column"));
}

// ---- comments and quotes --------------------------------------------------------------------------

TEST(Csv, CommentsAnywhereCountAsLines) {
  auto t = read("# header comment\nx\n1\n# middle\n  # indented\n2\n#\n");
  EXPECT_THAT(values<float>(t.column("x")), ElementsAre(1.0f, 2.0f));
  EXPECT_EQ(csv_error("# c\nx\n1\n# c\n\nbad\n"), "t.csv:6: column 1 (\"x\"): cannot parse \"bad\" as float32");

  io::csv_options o;
  o.comment = "//";
  t = read("// c\nx\n1\n// c\n2\n", o);
  EXPECT_THAT(values<float>(t.column("x")), ElementsAre(1.0f, 2.0f));
  EXPECT_EQ(csv_error("x\n1\n#2\n", o), "t.csv:3: column 1 (\"x\"): cannot parse \"#2\" as float32");

  o.comment = "";
  EXPECT_EQ(csv_error("x\n1\n# no comments\n", o),
            "t.csv:3: column 1 (\"x\"): cannot parse \"# no comments\" as float32");
  // a comment after data on the same line is not a comment
  EXPECT_EQ(csv_error("x\n1 # one\n"), "t.csv:2: column 1 (\"x\"): cannot parse \"1 # one\" as float32");
}

TEST(Csv, QuotedFields) {
  const auto t = read("\"a\",\"b,c\"\n\"1.5\", \"2\" \n3,\"4\"\n");
  EXPECT_THAT(t.names, ElementsAre("a", "b,c"));
  EXPECT_THAT(values<float>(t.column("a")), ElementsAre(1.5f, 3.0f));
  EXPECT_THAT(values<float>(t.column("b,c")), ElementsAre(2.0f, 4.0f));

  EXPECT_EQ(csv_error("a,b\n1,\"2\n3\"\n"),
            "t.csv:2: column 2 (\"b\"): quoted field is not closed on its line (a quoted field may not contain a line "
            "break)");
  EXPECT_EQ(csv_error("a,b\n1,\"2\"x\n"), "t.csv:2: column 2 (\"b\"): unexpected text after the closing quote: \"x\"");
  EXPECT_EQ(csv_error("a\n\"1\"\"\"\n"), "t.csv:2: column 1 (\"a\"): cannot parse \"1\"\"\" as float32");
  EXPECT_THAT(csv_error("\"a,b\n1\n"), HasSubstr("t.csv:1: column 1: quoted field is not closed"));

  io::csv_options o;  // quoting off: a quote is an ordinary character
  o.quote = 0;
  const auto plain = read("\"a\",b\n1,2\n", o);
  EXPECT_THAT(plain.names, ElementsAre("\"a\"", "b"));
  EXPECT_EQ(csv_error("a\n\"1\"\n", o), "t.csv:2: column 1 (\"a\"): cannot parse \"\"1\"\" as float32");
}

// ---- missing values ----------------------------------------------------------------------------

TEST(Csv, NaPolicyErrorRefusesEveryMissingSpelling) {
  EXPECT_EQ(csv_error("a,b\n1,\n"),
            "t.csv:2: column 2 (\"b\"): empty cell (fill it in; zeroflow.read_csv reads missing values as NaN with "
            "na=\"nan\")");
  EXPECT_EQ(csv_error("a,b\n1,2\n,3\n"),
            "t.csv:3: column 1 (\"a\"): empty cell (fill it in; zeroflow.read_csv reads missing values as NaN with "
            "na=\"nan\")");
  for (std::string s : {"nan", "NaN", "NAN", "-nan", "+nan", "NA", "n/a", "N/A", "null", "NULL", "None"})
    EXPECT_EQ(csv_error("a,b\n1," + s + "\n"),
              "t.csv:2: column 2 (\"b\"): missing value \"" + s +
                  "\" (fill it in; zeroflow.read_csv reads missing values as NaN with na=\"nan\")");
  for (std::string s : {"inf", "-inf", "+inf", "Inf", "INF", "infinity", "-Infinity", "INFINITY"})
    EXPECT_EQ(csv_error("a,b\n1," + s + "\n"),
              "t.csv:2: column 2 (\"b\"): infinite value \"" + s +
                  "\" (zeroflow.read_csv reads non-finite values as NaN with na=\"nan\")");
  EXPECT_EQ(csv_error("a\n1e39\n"),
            "t.csv:2: column 1 (\"a\"): \"1e39\" is out of range for float32 (zeroflow.read_csv reads it as infinity "
            "with na=\"nan\")");
  io::csv_options o;
  o.default_type = zf::float64;
  EXPECT_THAT(csv_error("a\n-1e309\n", o), HasSubstr("\"-1e309\" is out of range for float64"));
  EXPECT_EQ(csv_error("a\n1e308\n", o), "");
}

TEST(Csv, NaPolicyNanReadsMissingAndInfinite) {
  io::csv_options o;
  o.na = io::na_policy::nan;
  const auto t = read("a,b\n,nan\nNA,-inf\nn/a,Infinity\nnull,+INF\nNone,1e39\n-NaN,-1e39\n  ,2\n", o);
  const auto a = values<float>(t.column("a"));
  const auto b = values<float>(t.column("b"));
  ASSERT_EQ(a.size(), 7u);
  for (float v : a) EXPECT_TRUE(std::isnan(v));
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(std::isnan(b[0]));
  EXPECT_EQ(b[1], -inf);
  EXPECT_EQ(b[2], inf);
  EXPECT_EQ(b[3], inf);
  EXPECT_EQ(b[4], inf);  // strtof's answer to overflow
  EXPECT_EQ(b[5], -inf);
  EXPECT_EQ(b[6], 2.0f);
  // spellings that are not on the list stay errors
  EXPECT_EQ(csv_error("a\nnan(1)\n", o), "t.csv:2: column 1 (\"a\"): cannot parse \"nan(1)\" as float32");
  EXPECT_EQ(csv_error("a,b\n1,#N/A\n", o), "t.csv:2: column 2 (\"b\"): cannot parse \"#N/A\" as float32");
}

// ---- bad input -------------------------------------------------------------------------------

TEST(Csv, NonNumericCellNamesFileLineColumnAndText) {
  EXPECT_EQ(csv_error("time,heartbeats\n0,1\n1,1.2.3\n", {}, "ecg.csv"),
            "ecg.csv:3: column 2 (\"heartbeats\"): cannot parse \"1.2.3\" as float32");
  EXPECT_EQ(csv_error("x\n1e\n"), "t.csv:2: column 1 (\"x\"): cannot parse \"1e\" as float32");
  EXPECT_EQ(csv_error("x\n0x10\n"), "t.csv:2: column 1 (\"x\"): cannot parse \"0x10\" as float32");
  EXPECT_EQ(csv_error("x\n.\n"), "t.csv:2: column 1 (\"x\"): cannot parse \".\" as float32");
  EXPECT_EQ(csv_error("x\n1\r2\n"), "t.csv:2: column 1 (\"x\"): cannot parse \"1\\r2\" as float32");
  const std::string long_text(100, 'z');
  EXPECT_EQ(csv_error("x\n" + long_text + "\n"),
            "t.csv:2: column 1 (\"x\"): cannot parse \"" + long_text.substr(0, 60) + "...\" as float32");
}

TEST(Csv, RaggedRows) {
  EXPECT_EQ(csv_error("a,b,c\n1,2,3\n4,5\n"),
            "t.csv:3: too few fields: found 2, expected 3 (column 3 (\"c\") is missing)");
  EXPECT_EQ(csv_error("a,b,c\n1,2,3\n4,5,6,7,8\n"), "t.csv:3: too many fields: found 5, expected 3");
  EXPECT_EQ(csv_error("a,b\n1,2,\n"), "t.csv:2: too many fields: found 3, expected 2");
  io::csv_options o;
  o.header = io::header_mode::no;
  EXPECT_EQ(csv_error("1,2\n3\n", o), "t.csv:2: too few fields: found 1, expected 2 (column 2 is missing)");
  // a truncated last line is the ragged-row error, with a hint
  EXPECT_EQ(csv_error("a,b,c\n1,2,3\n4,5"),
            "t.csv:3: too few fields: found 2, expected 3 (column 3 (\"c\") is missing); the last line has no final "
            "newline: is the file truncated?");
  // selected or not, every column must be there
  o = {};
  o.columns = {"a"};
  EXPECT_THAT(csv_error("a,b,c\n1,2\n", o), HasSubstr("t.csv:2: too few fields: found 2, expected 3"));
}

TEST(Csv, EmptyInputsSayWhatIsMissing) {
  EXPECT_EQ(csv_error(""), "t.csv: the file is empty");
  EXPECT_EQ(csv_error("\xEF\xBB\xBF"), "t.csv: the file is empty");
  EXPECT_EQ(csv_error("\n\n# only a comment\n  \n"), "t.csv: no data: the file holds only blank lines and comments");
  EXPECT_EQ(csv_error("heartbeats\n"), "t.csv:1: the file has a header but no data rows");
  EXPECT_EQ(csv_error("# c\nheartbeats\n\n# c\n"), "t.csv:2: the file has a header but no data rows");
}

TEST(Csv, FilesOnDisk) {
  zf::test::scratch_dir dir;
  const auto path = dir.write("ecg.csv", "heartbeats\n1.25\n-2\n");
  const auto t = io::read_csv(path);
  EXPECT_THAT(values<float>(t.column("heartbeats")), ElementsAre(1.25f, -2.0f));

  const auto bad = dir.write("bad.csv", "heartbeats\n1.25\n1.2.3\n");
  try {
    (void)io::read_csv(bad);
    FAIL() << "no exception";
  } catch (const zf::parse_error& e) {
    EXPECT_EQ(std::string(e.what()), bad.string() + ":3: column 1 (\"heartbeats\"): cannot parse \"1.2.3\" as float32");
  }

  const auto empty = dir.write("empty.csv", "");
  EXPECT_THROW((void)io::read_csv(empty), zf::parse_error);

  const auto missing = dir.path() / "missing.csv";
  try {
    (void)io::read_csv(missing);
    FAIL() << "no exception";
  } catch (const zf::parse_error& e) {
    EXPECT_THAT(e.what(), HasSubstr(missing.string()));
    EXPECT_THAT(e.what(), HasSubstr("No such file or directory"));
  }
  EXPECT_THROW((void)io::read_csv(dir.path()), zf::parse_error);
}

TEST(Csv, EarliestErrorWinsAcrossThreads) {
  std::string text = "x,y\n";
  for (int i = 0; i < 200000; ++i) text += std::to_string(i) + "," + std::to_string(i) + "\n";
  // line 2 + i holds row i: break rows 150000 (bad text) and 70000 (ragged) and 120000
  auto line_start = [&](int row) {
    std::size_t p = 0;
    for (int l = 0; l < row + 1; ++l) p = text.find('\n', p) + 1;
    return p;
  };
  text.replace(line_start(150000), 6, "oops,1");
  text.replace(line_start(120000), 7, "1,2,3,4");
  text.replace(line_start(70000), 7, "1      ");  // too few
  for (unsigned threads : {1u, 2u, 3u, 8u}) {
    for (std::size_t chunk : {std::size_t{0}, std::size_t{4096}, std::size_t{100000}}) {
      io::csv_options o;
      o.threads = threads;
      o.chunk_bytes = chunk;
      EXPECT_EQ(csv_error(text, o), "t.csv:70002: too few fields: found 1, expected 2 (column 2 (\"y\") is missing)")
          << threads << " threads, chunks of " << chunk;
    }
  }
}

// ---- threads, progress, devices --------------------------------------------------------------

TEST(Csv, ProgressIsMonotoneAndEndsAtTotal) {
  std::string text = "x\n";
  for (int i = 0; i < 300000; ++i) text += std::to_string(i * 0.5) + "\n";
  io::csv_options o;
  o.threads = 2;
  o.chunk_bytes = 4096;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> calls;
  const auto caller = std::this_thread::get_id();
  bool same_thread = true;
  o.progress = [&](std::uint64_t done, std::uint64_t total) {
    calls.emplace_back(done, total);
    same_thread = same_thread && std::this_thread::get_id() == caller;
  };
  const auto t = read(text, o);
  EXPECT_EQ(t.num_rows(), 300000);
  ASSERT_FALSE(calls.empty());
  EXPECT_TRUE(same_thread);
  for (std::size_t i = 0; i < calls.size(); ++i) {
    EXPECT_EQ(calls[i].second, text.size());
    EXPECT_LE(calls[i].first, calls[i].second);
    if (i > 0) {
      EXPECT_GE(calls[i].first, calls[i - 1].first);
    }
  }
  EXPECT_EQ(calls.back().first, text.size());

  // an exception from the callback stops the read and comes out of read_csv
  o.progress = [](std::uint64_t, std::uint64_t) { throw std::runtime_error("cancelled"); };
  EXPECT_THROW(read(text, o), std::runtime_error);
}

TEST(Csv, CudaOutput) {
  io::csv_options o;
  o.where = zf::cuda_device(0);
  io::prepare_csv_reads(zf::cpu_device);  // nothing to prepare on the host
  if (!zf::cuda_available()) {
    EXPECT_THROW(read("x\n1\n", o), zf::cuda_error);
    EXPECT_THROW(io::prepare_csv_reads(o.where), zf::cuda_error);
    GTEST_SKIP() << "no CUDA device";
  }
  const auto t = read("x,y\n1,2\n3,4\n", o);
  EXPECT_EQ(t.column("y").where(), zf::cuda_device(0));
  const auto back = zf::copy_to(t.column("y"), zf::cpu_device);
  EXPECT_THAT(values<float>(back), ElementsAre(2.0f, 4.0f));
}

TEST(Csv, NeverReadsPastTheEndOfTheInput) {
  // The text ends right before a page that may not be touched: any over-read crashes.
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  void* block = ::mmap(nullptr, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(block, MAP_FAILED);
  char* guard = static_cast<char*>(block) + 2 * page;
  ASSERT_EQ(::mprotect(guard, page, PROT_NONE), 0);
  for (const std::string tail :
       {"7", "7\r", "7,", "\"7", "\"7\"", "\"7\" ", "7.5e", "-", "nan", "# c", "   ", "\r", ""}) {
    std::string text = "a,b\n";
    std::int64_t rows = 1;  // the last line
    for (; text.size() + 200 < 2 * page; ++rows) text += "1,2\n";
    const std::string last = "1," + tail;
    text += "#" + std::string(2 * page - text.size() - last.size() - 2, '-') + "\n" + last;
    ASSERT_EQ(text.size(), 2 * page);
    std::memcpy(block, text.data(), text.size());
    const std::string_view view(static_cast<const char*>(block), text.size());
    for (unsigned threads : {1u, 3u}) {
      io::csv_options o;
      o.threads = threads;
      o.chunk_bytes = threads == 1 ? 0 : 100;
      o.na = io::na_policy::nan;
      try {
        const auto t = io::read_csv_buffer(view, "t.csv", o);
        EXPECT_EQ(t.num_rows(), rows) << tail;
        const bool parses = tail == "7" || tail == "7\r" || tail == "nan" || tail == "   " || tail == "\r" ||
                            tail.empty() || (tail[0] == '"' && tail.size() > 2);
        EXPECT_TRUE(parses) << '"' << tail << "\" should not parse";
      } catch (const zf::parse_error& e) {
        EXPECT_THAT(e.what(), HasSubstr("t.csv:")) << tail;
      }
    }
  }
  ::munmap(block, 3 * page);
}
