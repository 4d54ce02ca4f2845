// The GPU CSV parser's host-side logic, run on the CPU: the header planning of csv_cuda_layout,
// and the line and row functions of csv_cuda_row.hpp that the kernels call (compiled here as
// host code), driven line by line as the kernels drive them. Their values and their first bad
// line must be the host reader's on random files with every quirk. The GPU scaffolding (blocks,
// scans, staging) is tested against the host reader in csv_cuda_test.cpp.
#include "io/csv/csv_cuda_row.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "io/csv/csv_cells.hpp"
#include "io/csv/csv_cuda_layout.hpp"
#include "io/csv/csv_cuda_segments.hpp"
#include "io/csv/csv_lexer.hpp"
#include "io/csv_cuda_test_util.hpp"
#include "io/csv_test_util.hpp"
#include "zeroflow/io/csv.hpp"

namespace zf = zeroflow;
namespace io = zeroflow::io;
namespace row = zeroflow::io::detail::csv_row;
namespace num = zeroflow::io::detail::csv_number;
namespace seg = zeroflow::io::detail::csv_segments;
using zf::io::detail::csv_layout;

namespace {

// What the GPU path computes for `text`, emulated on the CPU: the columns (as raw 8-byte slots)
// or the first bad line; nullopt when plan_layout declines the input. The two GPU passes run
// here block by block, `block_threads` segments a block, with csv_cuda_segments.hpp's per-thread
// code; the scans are plain sums. Undecided cells are then settled as csv_cuda.cpp does.
struct emulated {
  std::vector<std::string> names;
  std::vector<std::vector<std::uint64_t>> columns;  // one 8-byte slot per row (float32: 4-byte elements)
  std::vector<zf::dtype> types;
  std::int64_t rows{0};
  std::int64_t bad_line{0};  // 0: none
  std::int64_t bad_offset{0};
  std::int64_t undecided{0};
  std::size_t data_offset{0};
};

std::optional<emulated> emulate(std::string_view text, const io::csv_options& options, int block_threads = 256) {
  const io::detail::memory_source source(text);
  std::string why;
  const std::optional<csv_layout> layout = io::detail::plan_layout(source, options, why);
  if (!layout) return std::nullopt;
  row::row_dialect d{layout->delimiter, layout->quote, static_cast<std::uint8_t>(layout->comment.size()), {}};
  std::memcpy(d.comment, layout->comment.data(), layout->comment.size());
  // The device buffer: the data rows, padded to whole segments (with bytes that must not matter).
  const auto n = static_cast<std::int64_t>(text.size() - layout->data_offset);
  std::string buffer(text.substr(layout->data_offset));
  buffer.resize(static_cast<std::size_t>((n + seg::segment_bytes - 1) / seg::segment_bytes * seg::segment_bytes), '\n');
  const char* const device_text = buffer.data();
  const std::int64_t tile = std::int64_t{seg::segment_bytes} * block_threads;
  const std::int64_t blocks = (n + tile - 1) / tile;

  // pass 1 and the scan over blocks
  std::vector<seg::line_counts> offsets(static_cast<std::size_t>(blocks) + 1, seg::line_counts{0, 0});
  for (std::int64_t b = 0; b < blocks; ++b) {
    seg::line_counts total{0, 0};
    for (int t = 0; t < block_threads; ++t) {
      const auto s = seg::load_segment(device_text, n, b * block_threads + t);
      total = seg::add(total, seg::count_segment(device_text, n, s, d));
    }
    offsets[static_cast<std::size_t>(b) + 1] = seg::add(offsets[static_cast<std::size_t>(b)], total);
  }
  emulated out;
  out.data_offset = layout->data_offset;
  out.rows = offsets.back().rows;
  if (out.rows == 0) return std::nullopt;  // csv_cuda.cpp hands such files to the host reader

  // pass 2
  std::vector<row::column_out> plans(layout->names.size());
  for (std::size_t index : layout->selected) {
    out.names.push_back(layout->names[index]);
    out.types.push_back(layout->types[index]);
    out.columns.emplace_back(static_cast<std::size_t>(out.rows), 0xdeadbeefdeadbeefull);  // poisoned
    const zf::dtype t = layout->types[index];
    plans[index] = {t == zf::float64 ? row::column_kind::f64
                    : t == zf::int64 ? row::column_kind::i64
                                     : row::column_kind::f32,
                    out.columns.back().data()};
  }
  const row::row_params params{d, options.na == io::na_policy::nan, static_cast<std::int32_t>(plans.size()),
                               plans.data(), num::host_pow5_table()};
  struct cell {
    long long row, line, line_begin, begin, end;
    int column;
  };
  std::vector<cell> undecided;
  std::uint64_t bad_line = ~0ull, bad_offset = ~0ull;
  for (std::int64_t b = 0; b < blocks; ++b) {
    seg::line_counts before{0, 0};  // the block's exclusive scan
    for (int t = 0; t < block_threads; ++t) {
      const auto s = seg::load_segment(device_text, n, b * block_threads + t);
      const auto mine = seg::count_segment(device_text, n, s, d);
      const auto& start = offsets[static_cast<std::size_t>(b)];
      seg::parse_segment(
          device_text, n, s, params, start.rows + before.rows,
          static_cast<long long>(layout->data_line) + start.lines + before.lines,
          [&](long long line, long long line_begin) {
            bad_line = std::min(bad_line, static_cast<std::uint64_t>(line));
            bad_offset = std::min(bad_offset, static_cast<std::uint64_t>(line_begin));
          },
          [&](long long r, long long line, long long line_begin, int column, long long b0, long long e0) {
            undecided.push_back({r, line, line_begin, b0, e0, column});
          });
      before = seg::add(before, mine);
    }
  }
  // the host settles the undecided cells (from the original text, as csv_cuda.cpp reads them)
  for (const cell& c : undecided) {
    const std::string_view text_of_cell =
        text.substr(layout->data_offset + static_cast<std::size_t>(c.begin), static_cast<std::size_t>(c.end - c.begin));
    const auto& plan = plans[static_cast<std::size_t>(c.column)];
    io::detail::cell_status status;
    if (plan.kind == row::column_kind::f64) {
      double v = 0;
      status = io::detail::parse_float_cell(text_of_cell, v);
      static_cast<std::uint64_t*>(plan.out)[c.row] = num::bits_of(v);
    } else {
      float v = 0;
      status = io::detail::parse_float_cell(text_of_cell, v);
      static_cast<std::uint32_t*>(plan.out)[c.row] = num::bits_of(v);
    }
    const bool refused = status == io::detail::cell_status::bad ||
                         (status != io::detail::cell_status::ok && options.na != io::na_policy::nan);
    if (refused && static_cast<std::uint64_t>(c.line) < bad_line) {
      bad_line = static_cast<std::uint64_t>(c.line);
      bad_offset = static_cast<std::uint64_t>(c.line_begin);
    }
  }
  out.undecided = static_cast<std::int64_t>(undecided.size());
  if (bad_line != ~0ull) {
    out.bad_line = static_cast<std::int64_t>(bad_line);
    out.bad_offset = static_cast<std::int64_t>(bad_offset);
  }
  return out;
}

// "t.csv:LINE: ..." -> LINE (0 when the message has no line).
std::int64_t line_of(const std::string& message) {
  const auto colon = message.find(':');
  if (colon == std::string::npos) return 0;
  return std::atoll(message.c_str() + colon + 1);
}

template <class T>
std::uint64_t slot_bits(const std::vector<std::uint64_t>& column, std::size_t r) {
  if constexpr (sizeof(T) == 4) {
    return static_cast<const std::uint32_t*>(static_cast<const void*>(column.data()))[r];
  } else {
    return column[r];
  }
}

// The emulation must match read_csv_buffer (host) exactly: values bit for bit, or the line of
// its error.
void expect_same_as_host(const std::string& text, const io::csv_options& options, const std::string& what,
                         int block_threads = 256) {
  SCOPED_TRACE(what);
  const std::optional<emulated> mine = emulate(text, options, block_threads);
  const std::string host_error = zf::test::csv_error(text, options);
  if (!mine) {
    EXPECT_NE(host_error, "") << "the GPU path declined an input the host reader takes";
    return;
  }
  if (!host_error.empty()) {
    ASSERT_EQ(mine->bad_line, line_of(host_error)) << host_error;
    // the offset names the start of that very line
    const std::size_t at = mine->data_offset + static_cast<std::size_t>(mine->bad_offset);
    std::int64_t line = 1;
    for (std::size_t i = 0; i < at; ++i) line += text[i] == '\n';
    EXPECT_EQ(line, mine->bad_line);
    EXPECT_TRUE(at == 0 || text[at - 1] == '\n');
    return;
  }
  ASSERT_EQ(mine->bad_line, 0) << "the host reader takes the file";
  const zf::table t = io::read_csv_buffer(text, "t.csv", options);
  ASSERT_EQ(t.names, mine->names);
  ASSERT_EQ(t.num_rows(), mine->rows);
  for (std::size_t k = 0; k < t.columns.size(); ++k) {
    const auto& column = mine->columns[k];
    int shown = 0;
    for (std::size_t r = 0; r < static_cast<std::size_t>(mine->rows) && shown < 5; ++r) {
      std::uint64_t want = 0, got = 0;
      if (mine->types[k] == zf::float32) {
        want = num::bits_of(t.column(k).data_as<const float>()[r]);
        got = slot_bits<float>(column, r);
      } else if (mine->types[k] == zf::float64) {
        want = num::bits_of(t.column(k).data_as<const double>()[r]);
        got = slot_bits<double>(column, r);
      } else {
        want = static_cast<std::uint64_t>(t.column(k).data_as<const std::int64_t>()[r]);
        got = column[r];
      }
      if (want != got) {
        ++shown;
        ADD_FAILURE() << "column " << t.names[k] << " row " << r << ": " << std::hex << got << " vs host " << want;
      }
    }
  }
}

}  // namespace

TEST(CsvCudaRow, LexerMatchesTheHostLexer) {
  // Every field boundary, content and status of random lines, as csv_lexer.hpp finds them.
  const std::string alphabet = "1.5\",; \t\r\nab#";
  std::mt19937_64 rng(3);
  for (int i = 0; i < 300000; ++i) {
    std::string line;
    const auto length = rng() % 14;
    for (std::size_t k = 0; k < length; ++k) line += alphabet[rng() % alphabet.size()];
    const char delimiter = rng() % 3 == 0 ? '\t' : rng() % 2 ? ',' : ';';
    const char quote = rng() % 5 == 0 ? '\0' : '"';
    const io::detail::dialect hd{delimiter, quote, "#"};
    const row::row_dialect dd{delimiter, quote, 1, {'#'}};
    const char* const b = line.data();
    const char* const e = b + line.size();
    ASSERT_EQ(row::maybe_skipped(line.empty() ? '\n' : line[0], dd),
              io::detail::maybe_skipped(line.empty() ? '\n' : line[0], hd));
    if (!line.empty()) {
      ASSERT_EQ(row::skipped_line(b, e, dd), io::detail::skipped_line(b, io::detail::line_end(b, e), hd)) << line;
    }
    for (const char* p = b;;) {
      const auto mine = row::lex_field(p, e, dd);
      const auto theirs = io::detail::lex_field(p, e, hd);
      ASSERT_EQ(static_cast<int>(mine.status), static_cast<int>(theirs.status)) << line;
      ASSERT_EQ(mine.stop, theirs.stop) << line;
      if (mine.status == row::lex_status::ok) {
        ASSERT_EQ(mine.begin, theirs.begin) << line;
        ASSERT_EQ(mine.end, theirs.end) << line;
      }
      const bool ends = row::at_line_end(mine.stop, e);
      ASSERT_EQ(ends, io::detail::at_line_end(theirs.stop, e));
      if (mine.status != row::lex_status::ok || ends) break;
      p = mine.stop + 1;
    }
  }
}

TEST(CsvCudaRow, RandomFilesParseLikeTheHostReader) {
  std::mt19937_64 rng(42);
  for (int round = 0; round < 24; ++round) {
    zf::test::random_csv_spec spec;
    spec.rows = 2000;
    spec.delimiter = ",;\t|"[round % 4];
    spec.crlf = round % 3;
    spec.final_newline = round % 5 != 0;
    spec.missing = round % 2 == 1;
    spec.quotes = round % 7 != 3;
    const auto f = zf::test::make_random_csv(rng, spec);
    ASSERT_EQ(zf::test::csv_error(f.text, f.options), "") << "the generator makes good files";
    expect_same_as_host(f.text, f.options, "round " + std::to_string(round));
    // every column, label included: a text column is an error on its first row
    io::csv_options all = f.options;
    all.columns.clear();
    expect_same_as_host(f.text, all, "all columns, round " + std::to_string(round));
  }
}

TEST(CsvCudaRow, BlockSizesDoNotMatter) {
  // The scans over blocks and within them: with 1, 3 or 256 segments a block, segment and block
  // boundaries fall everywhere (1 segment a block: every 32 bytes).
  std::mt19937_64 rng(8);
  for (int round = 0; round < 6; ++round) {
    zf::test::random_csv_spec spec;
    spec.rows = 3000;
    spec.crlf = round % 3;
    spec.missing = round % 2 == 0;
    auto f = zf::test::make_random_csv(rng, spec);
    for (int threads : {1, 3, 256}) {
      expect_same_as_host(f.text, f.options, "block of " + std::to_string(threads), threads);
      const std::string bad = zf::test::replace_line(f.text, f.data_lines[rng() % f.data_lines.size()],
                                                     zf::test::bad_line(rng, spec.delimiter));
      expect_same_as_host(bad, f.options, "bad, block of " + std::to_string(threads), threads);
    }
  }
  // tiny inputs: a single line, no final newline, CRLF, blank tails
  for (const std::string& text :
       std::vector<std::string>{"x\n1", "x\n1\n", "x\r\n1\r\n", "x\n1\n\n\n", "x\n1\n  ", "x\n1\n#", "x\n\n\n1", "1",
                                "1\n2", "x\n" + std::string(31, '1') + "\n2", "x\n" + std::string(30, '1') + "\n2\n",
                                "x\n" + std::string(32, '\n') + "5"})
    for (int threads : {1, 2, 256}) expect_same_as_host(text, {}, "tiny " + text, threads);
}

TEST(CsvCudaRow, FirstBadLineIsTheHostReadersErrorLine) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 300; ++round) {
    zf::test::random_csv_spec spec;
    spec.rows = 200;
    spec.delimiter = round % 2 ? ',' : ';';
    spec.crlf = round % 3;
    spec.missing = round % 4 == 1;
    auto f = zf::test::make_random_csv(rng, spec);
    std::string text = f.text;
    // one to three bad lines; the earliest must be reported
    const int bad = 1 + static_cast<int>(rng() % 3);
    for (int b = 0; b < bad; ++b)
      text = zf::test::replace_line(text, f.data_lines[rng() % f.data_lines.size()],
                                    zf::test::bad_line(rng, spec.delimiter));
    expect_same_as_host(text, f.options, "round " + std::to_string(round));
  }
}

TEST(CsvCudaRow, LayoutDeclinesWhatTheHostReaderRefuses) {
  // Inputs plan_layout must hand to the host reader (which throws): the GPU path never sees them.
  const io::detail::memory_source empty("");
  std::string why;
  EXPECT_FALSE(io::detail::plan_layout(empty, {}, why));
  const std::vector<std::string> declined = {"", "\xEF\xBB\xBF", "\n# c\n  \n", "\"a,b\n1\n", "a,\"b\"x\n1,2\n"};
  for (const auto& text : declined) {
    const io::detail::memory_source source(text);
    EXPECT_FALSE(io::detail::plan_layout(source, {}, why)) << text;
    EXPECT_NE(zf::test::csv_error(text), "") << text;
  }
  io::csv_options o;
  o.columns = {"nope"};
  const io::detail::memory_source ab("a,b\n1,2\n");
  EXPECT_FALSE(io::detail::plan_layout(ab, o, why));
  o.columns = {"a", "a"};
  EXPECT_FALSE(io::detail::plan_layout(ab, o, why));
  o = {};
  o.delimiter = '1';
  EXPECT_FALSE(io::detail::plan_layout(ab, o, why));
  o = {};
  o.types = {{"b", zf::int32}};
  EXPECT_FALSE(io::detail::plan_layout(ab, o, why));

  // A header line longer than the first read (64 KiB), after many comment lines.
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "# a comment line to skip\n";
  std::string header;
  for (int i = 0; i < 20000; ++i) header += (i ? ",c" : "c") + std::to_string(i);
  text += header + "\n";
  for (int i = 0; i < 20000; ++i) text += (i ? ",1" : "1");
  text += "\n";
  const io::detail::memory_source big(text);
  const auto layout = io::detail::plan_layout(big, {}, why);
  ASSERT_TRUE(layout);
  EXPECT_TRUE(layout->has_header);
  EXPECT_EQ(layout->names.size(), 20000u);
  EXPECT_EQ(layout->names.back(), "c19999");
  EXPECT_EQ(layout->header_line, 5001);
  EXPECT_EQ(layout->data_line, 5002);
  EXPECT_EQ(layout->data_offset, text.size() - (2 * 20000));
}

TEST(CsvCudaRow, LayoutFollowsTheHeaderRules) {
  std::string why;
  auto plan = [&](const std::string& text, const io::csv_options& o = {}) {
    const io::detail::memory_source source(text);
    auto l = io::detail::plan_layout(source, o, why);
    EXPECT_TRUE(l) << text << ": " << why;
    return l.value_or(csv_layout{});
  };
  auto l = plan("1.5,2\n3,4\n");
  EXPECT_FALSE(l.has_header);
  EXPECT_THAT(l.names, ::testing::ElementsAre("0", "1"));
  EXPECT_EQ(l.data_offset, 0u);
  l = plan("\xEF\xBB\xBF# c\r\n\r\n\"a \"\"b\"\"\";c\r\n1;2\r\n", [] {
    io::csv_options o;
    o.delimiter = 0;
    return o;
  }());
  EXPECT_TRUE(l.has_header);
  EXPECT_EQ(l.delimiter, ';');
  EXPECT_THAT(l.names, ::testing::ElementsAre("a \"b\"", "c"));
  EXPECT_EQ(l.header_line, 3);
  EXPECT_EQ(l.data_line, 4);
  io::csv_options o;
  o.header = io::header_mode::yes;
  o.columns = {1, std::size_t{0}};
  o.types = {{"2", zf::int64}};
  l = plan("1,2,3\n4,5,6\n", o);
  EXPECT_THAT(l.names, ::testing::ElementsAre("1", "2", "3"));
  EXPECT_THAT(l.selected, ::testing::ElementsAre(1u, 0u));
  EXPECT_EQ(l.types[1], zf::int64);
  EXPECT_EQ(l.types[0], zf::float32);
  EXPECT_EQ(l.data_offset, 6u);
}
