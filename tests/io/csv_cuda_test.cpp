// read_csv's CUDA path against the host reader: the device columns must be bit-identical to what
// read_csv parses on the host, and every error must carry the host reader's exact message, on
// millions of random decimals, on random files with every quirk, with staging chunk boundaries
// everywhere, from memory and from files. Skipped without a GPU.
#include "zeroflow/io/detail/csv_cuda.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "io/csv_cuda_test_util.hpp"
#include "io/csv_test_util.hpp"
#include "io/io_test_util.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/io/csv.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/memory/statistics_adaptor.hpp"

namespace zf = zeroflow;
namespace io = zeroflow::io;
using io::detail::csv_cuda_report;
using ::testing::HasSubstr;

namespace {

#define ZF_REQUIRE_GPU()                                         \
  do {                                                           \
    if (!zf::cuda_available()) GTEST_SKIP() << "no CUDA device"; \
  } while (0)

io::csv_options on_gpu(io::csv_options o) {
  o.where = zf::cuda_device(0);
  return o;
}

io::csv_options on_host(io::csv_options o) {
  o.where = zf::cpu_device;
  return o;
}

// The GPU path's parse_error message ("" when it parses).
std::string gpu_error(std::string_view text, const io::csv_options& options, std::string_view name = "t.csv") {
  try {
    (void)io::detail::read_csv_cuda_buffer(text, name, on_gpu(options), zf::stream_view{});
  } catch (const zf::parse_error& e) {
    return e.what();
  }
  return "";
}

// Columns equal bit for bit (NaN payloads and signed zeros included), the GPU's on the GPU.
void expect_same_table(const zf::table& gpu, const zf::table& host) {
  ASSERT_EQ(gpu.names, host.names);
  ASSERT_EQ(gpu.num_columns(), host.num_columns());
  for (std::size_t k = 0; k < host.num_columns(); ++k) {
    const zf::array& h = host.columns[k];
    ASSERT_EQ(gpu.columns[k].where(), zf::cuda_device(0)) << host.names[k];
    ASSERT_EQ(gpu.columns[k].type(), h.type()) << host.names[k];
    ASSERT_EQ(gpu.columns[k].size(), h.size()) << host.names[k];
    const zf::array back = zf::copy_to(gpu.columns[k], zf::cpu_device);
    const std::size_t item = h.type().itemsize();
    const auto* a = static_cast<const unsigned char*>(back.data());
    const auto* b = static_cast<const unsigned char*>(h.data());
    if (std::memcmp(a, b, h.nbytes()) == 0) continue;
    int shown = 0;
    for (std::int64_t r = 0; r < h.size() && shown < 8; ++r) {
      const std::size_t at = static_cast<std::size_t>(r) * item;
      if (std::memcmp(a + at, b + at, item) == 0) continue;
      ++shown;
      std::uint64_t got = 0, want = 0;
      std::memcpy(&got, a + at, item);
      std::memcpy(&want, b + at, item);
      ADD_FAILURE() << "column " << host.names[k] << " row " << r << ": GPU bits " << std::hex << got << ", host "
                    << want;
    }
  }
}

// Reads `text` on the GPU and on the host and compares; returns the GPU report.
csv_cuda_report expect_same_as_host(const std::string& text, const io::csv_options& options) {
  csv_cuda_report report;
  const std::string host_message = zf::test::csv_error(text, on_host(options));
  if (!host_message.empty()) {
    EXPECT_EQ(gpu_error(text, options), host_message);
    return report;
  }
  const zf::table gpu = io::detail::read_csv_cuda_buffer(text, "t.csv", on_gpu(options), zf::stream_view{}, &report);
  const zf::table host = io::read_csv_buffer(text, "t.csv", on_host(options));
  expect_same_table(gpu, host);
  return report;
}

std::string join_column(const std::string& header, const std::vector<std::string>& cells) {
  std::string text = header + "\n";
  for (const auto& c : cells) text.append(c).append("\n");
  return text;
}

}  // namespace

TEST(CsvCuda, BitIdenticalToTheHostReaderOnMillionsOfDecimals) {
  ZF_REQUIRE_GPU();
  std::mt19937_64 rng(20240918);
  constexpr int rows = 2'100'000;
  std::string text = "f,d\n";
  text.reserve(rows * 48);
  for (int i = 0; i < rows; ++i) {
    text.append(zf::test::random_number(rng)).append(",").append(zf::test::random_number(rng, true));
    text.append(i % 3 == 0 ? "\r\n" : "\n");
  }
  io::csv_options o;
  o.types = {{"d", zf::float64}};
  const auto report = expect_same_as_host(text, o);
  EXPECT_TRUE(report.gpu_parsed) << report.host_reason;
  EXPECT_EQ(report.rows, rows);
  // The float halfway strings (1 in 10, 60+ digits) go to the host; nothing else should.
  EXPECT_GT(report.host_cells, 0);
  EXPECT_LT(report.host_cells, rows / 6);
  std::printf("%lld rows, %lld cells settled by the host\n", static_cast<long long>(report.rows),
              static_cast<long long>(report.host_cells));
}

TEST(CsvCuda, SingleColumnLikeTheSeedFile) {
  ZF_REQUIRE_GPU();
  std::mt19937_64 rng(1);
  std::normal_distribution<double> ecg(0.0, 0.4);
  std::string text = "heartbeats\n";
  for (int i = 0; i < 3'000'000; ++i) {
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, i % 2 ? "%.17g\n" : "%.6f\n", ecg(rng));
    text += buffer;
  }
  const auto report = expect_same_as_host(text, {});
  EXPECT_TRUE(report.gpu_parsed);
  EXPECT_EQ(report.rows, 3'000'000);
  EXPECT_EQ(report.host_cells, 0);  // ordinary decimals never need the host
}

TEST(CsvCuda, RandomFilesWithEveryQuirk) {
  ZF_REQUIRE_GPU();
  std::mt19937_64 rng(42);
  for (int round = 0; round < 16; ++round) {
    zf::test::random_csv_spec spec;
    spec.rows = 20000 + static_cast<std::int64_t>(rng() % 1000);
    spec.delimiter = ",;\t|"[round % 4];
    spec.crlf = round % 3;
    spec.final_newline = round % 5 != 0;
    spec.missing = round % 2 == 1;
    spec.quotes = round % 7 != 3;
    auto f = zf::test::make_random_csv(rng, spec);
    ASSERT_EQ(zf::test::csv_error(f.text, f.options), "");
    for (std::size_t chunk : {std::size_t{0}, std::size_t{1000}, std::size_t{65536}}) {
      for (unsigned threads : {1u, 3u}) {
        SCOPED_TRACE("round " + std::to_string(round) + ", chunk " + std::to_string(chunk) + ", threads " +
                     std::to_string(threads));
        f.options.chunk_bytes = chunk;
        f.options.threads = threads;
        const auto report = expect_same_as_host(f.text, f.options);
        EXPECT_TRUE(report.gpu_parsed) << report.host_reason;
        if (chunk != 0) {
          EXPECT_GT(report.chunks, 1u);
        }
      }
    }
    // every column in file order, types by default: the text column is an error
    io::csv_options all = f.options;
    all.columns.clear();
    all.types.clear();
    EXPECT_NE(gpu_error(f.text, all), "");
    EXPECT_EQ(gpu_error(f.text, all), zf::test::csv_error(f.text, on_host(all)));
  }
}

TEST(CsvCuda, ChunkBoundariesInsideEveryLine) {
  ZF_REQUIRE_GPU();
  const std::string text = "# c\r\nx,y\r\n1.5,-2\r\n\r\n  3e-2 , \"4\"\r\n# mid\r\n5,6\r\n-0,7.25e1";
  for (std::size_t chunk = 1; chunk <= 40; ++chunk) {
    io::csv_options o;
    o.chunk_bytes = chunk;
    o.threads = 2;
    SCOPED_TRACE("chunk " + std::to_string(chunk));
    const auto report = expect_same_as_host(text, o);
    EXPECT_TRUE(report.gpu_parsed);
    EXPECT_EQ(report.chunks, (text.size() - 10 + chunk - 1) / chunk);  // the data after "# c\r\nx,y\r\n"
  }
}

TEST(CsvCuda, ManyBlocksAndLongLines) {
  ZF_REQUIRE_GPU();
  // Lines longer than a block's 8 KiB tile, lines that start in one block and end in another, a
  // row count that is not a multiple of anything.
  std::mt19937_64 rng(9);
  std::string text = "a,b,c\n";
  for (int i = 0; i < 3001; ++i) {
    const std::size_t pad = rng() % 7 == 0 ? 9000 + rng() % 20000 : rng() % 40;
    text += std::to_string(i) + "," + std::string(pad, ' ') + zf::test::random_number(rng) +
            std::string(pad % 13, ' ') + "," + zf::test::random_number(rng) + "\n";
  }
  const auto report = expect_same_as_host(text, {});
  EXPECT_TRUE(report.gpu_parsed);
  EXPECT_EQ(report.rows, 3001);
}

TEST(CsvCuda, UndecidedCellsAreSettledByTheHost) {
  ZF_REQUIRE_GPU();
  // Exact halfway points with 60+ digits: the GPU cannot settle them, the host does. More than
  // the first list's capacity (4096), so the GPU parses a second time with room for all.
  std::mt19937_64 rng(4);
  std::vector<std::string> cells;
  for (int i = 0; i < 10000; ++i) {
    float f;
    auto bits = static_cast<std::uint32_t>(rng()) & 0x7f7fffffu;
    if (bits == 0x7f7fffffu) --bits;  // the largest float has no finite neighbour above
    std::memcpy(&f, &bits, sizeof f);
    const double mid = (static_cast<double>(f) + static_cast<double>(std::nextafter(f, 2 * f + 1))) / 2;
    char buffer[200];
    std::snprintf(buffer, sizeof buffer, "%.*e", 80, mid);
    cells.emplace_back(buffer);
    cells.push_back(zf::test::random_number(rng));
  }
  const std::string text = join_column("x", cells);
  const auto report = expect_same_as_host(text, {});
  EXPECT_TRUE(report.gpu_parsed);
  EXPECT_GT(report.host_cells, 5000);  // midpoints with short expansions are settled on the GPU
  // an undecided cell that overflows is an error on the line the host reader names
  std::vector<std::string> overflow(5000, "1.5");
  overflow[4321] = "3.40282356779733661637539395458142568448000000001e38";  // just past float's last rounding point
  EXPECT_EQ(gpu_error(join_column("x", overflow), {}), zf::test::csv_error(join_column("x", overflow)));
  EXPECT_THAT(gpu_error(join_column("x", overflow), {}), HasSubstr("t.csv:4323: column 1 (\"x\")"));
}

TEST(CsvCuda, NanPolicyValuesAndErrors) {
  ZF_REQUIRE_GPU();
  io::csv_options o;
  o.na = io::na_policy::nan;
  o.types = {{"b", zf::float64}};
  const std::string text = "a,b\n,nan\nNA,-inf\nn/a,Infinity\nnull,+INF\nNone,1e39\n-NaN,-1e309\n  ,2\n\"\",\"NaN\"\n";
  EXPECT_TRUE(expect_same_as_host(text, o).gpu_parsed);
  o.na = io::na_policy::error;
  for (std::string s : {"", "nan", "NaN", "-nan", "+nan", "NA", "n/a", "null", "None", "inf", "-inf", "+Infinity",
                        "1e39", "-1e39", "\"\"", "\"nan\""}) {
    const std::string bad = "a,b\n1,2\n3," + s + "\n";
    EXPECT_EQ(gpu_error(bad, {}), zf::test::csv_error(bad)) << s;
    EXPECT_NE(gpu_error(bad, {}), "") << s;
  }
}

TEST(CsvCuda, ErrorsCarryTheHostReadersMessage) {
  ZF_REQUIRE_GPU();
  struct bad_case {
    std::string text;
    io::csv_options options;
  };
  io::csv_options int64s;
  int64s.default_type = zf::int64;
  io::csv_options no_header;
  no_header.header = io::header_mode::no;
  io::csv_options only_a;
  only_a.columns = {"a"};
  io::csv_options hash_comments_off;
  hash_comments_off.comment = "";
  io::csv_options quotes_off;
  quotes_off.quote = 0;
  io::csv_options missing_column;
  missing_column.columns = {"beats"};
  io::csv_options bad_delimiter;
  bad_delimiter.delimiter = '1';
  const std::vector<bad_case> cases = {
      {"time,heartbeats\n0,1\n1,1.2.3\n", {}},
      {"x\n1e\n", {}},
      {"x\n0x10\n", {}},
      {"x\n.\n", {}},
      {"x\n1\r2\n", {}},
      {"x\n" + std::string(100, 'z') + "\n", {}},
      {"x\n1 # one\n", {}},
      {"# c\nx\n1\n# c\n\nbad\n", {}},
      {"a,b,c\n1,2,3\n4,5\n", {}},
      {"a,b,c\n1,2,3\n4,5,6,7,8\n", {}},
      {"a,b\n1,2,\n", {}},
      {"a,b,c\n1,2,3\n4,5", {}},
      {"a,b,c\n1,2,3\n4,5\r", {}},
      {"1,2\n3\n", no_header},
      {"x,y\n1,2\n", no_header},
      {"a,b,c\n1,2\n", only_a},
      {"a,b\n1,\"2\n3\"\n", {}},
      {"a,b\n1,\"2\"x\n", {}},
      {"a\n\"1\"\"\"\n", {}},
      {"a\n\"1\"\n", quotes_off},
      {"x\n1\n# no comments\n", hash_comments_off},
      {"n\n1\n1.5\n", int64s},
      {"n\n9223372036854775808\n", int64s},
      {"n\n+-1\n", int64s},
      {"a,n\n1,\n", int64s},
      {"", {}},
      {"\xEF\xBB\xBF", {}},
      {"\n\n# only a comment\n  \n", {}},
      {"heartbeats\n", {}},
      {"# c\nheartbeats\n\n# c\n", {}},
      {"\"a,b\n1\n", {}},
      {"time,heartbeats\n1,2\n", missing_column},
      {"a\n1e39\n", {}},
      {"a,b\n1,2\n,3\n", {}},
  };
  for (const auto& c : cases) {
    const std::string want = zf::test::csv_error(c.text, on_host(c.options));
    ASSERT_NE(want, "") << c.text;
    for (std::size_t chunk : {std::size_t{0}, std::size_t{3}}) {
      io::csv_options o = c.options;
      o.chunk_bytes = chunk;
      EXPECT_EQ(gpu_error(c.text, o), want) << c.text;
    }
  }
  // Refused options are invalid_argument, as on the host.
  EXPECT_THROW((void)io::detail::read_csv_cuda_buffer("a\n1\n", "t.csv", on_gpu(bad_delimiter), zf::stream_view{}),
               zf::invalid_argument);
  only_a.columns = {"a", "a"};
  EXPECT_THROW((void)io::detail::read_csv_cuda_buffer("a\n1\n", "t.csv", on_gpu(only_a), zf::stream_view{}),
               zf::invalid_argument);
}

TEST(CsvCuda, RandomBadLinesGiveTheHostReadersMessage) {
  ZF_REQUIRE_GPU();
  std::mt19937_64 rng(77);
  for (int round = 0; round < 120; ++round) {
    zf::test::random_csv_spec spec;
    spec.rows = 3000;
    spec.delimiter = round % 2 ? ',' : '\t';
    spec.crlf = round % 3;
    spec.missing = round % 4 == 1;
    auto f = zf::test::make_random_csv(rng, spec);
    std::string text = f.text;
    const int bad = 1 + static_cast<int>(rng() % 3);
    for (int b = 0; b < bad; ++b)
      text = zf::test::replace_line(text, f.data_lines[rng() % f.data_lines.size()],
                                    zf::test::bad_line(rng, spec.delimiter));
    f.options.chunk_bytes = round % 2 ? 0 : 777;
    EXPECT_EQ(gpu_error(text, f.options), zf::test::csv_error(text, on_host(f.options))) << "round " << round;
  }
}

TEST(CsvCuda, EarliestErrorWins) {
  ZF_REQUIRE_GPU();
  std::string text = "x,y\n";
  for (int i = 0; i < 400000; ++i) text += std::to_string(i) + "," + std::to_string(i) + "\n";
  auto line_start = [&](int row) {
    std::size_t p = 0;
    for (int l = 0; l < row + 1; ++l) p = text.find('\n', p) + 1;
    return p;
  };
  text.replace(line_start(350000), 6, "oops,1");
  text.replace(line_start(120000), 7, "1,2,3,4");
  text.replace(line_start(70000), 7, "1      ");  // too few
  EXPECT_EQ(gpu_error(text, {}), "t.csv:70002: too few fields: found 1, expected 2 (column 2 (\"y\") is missing)");
}

TEST(CsvCuda, FilesOnDisk) {
  ZF_REQUIRE_GPU();
  zf::test::scratch_dir dir;
  // A file big enough for several 4 MiB chunks, each filled by 4 threads.
  std::mt19937_64 rng(12);
  std::string text = "\xEF\xBB\xBF# recorded\r\nheartbeats\r\n";
  while (text.size() < (std::size_t{14} << 20)) text.append(zf::test::random_number(rng)).append("\r\n");
  const auto path = dir.write("ecg.csv", text);
  io::csv_options o;
  o.chunk_bytes = std::size_t{4} << 20;
  o.threads = 4;
  csv_cuda_report report;
  const zf::table gpu = io::detail::read_csv_cuda(path, on_gpu(o), zf::stream_view{}, &report);
  EXPECT_TRUE(report.gpu_parsed) << report.host_reason;
  EXPECT_EQ(report.chunks, 4u);
  EXPECT_EQ(report.copy_threads, 4u);
  expect_same_table(gpu, io::read_csv(path, on_host(o)));
  // and through read_csv itself
  expect_same_table(io::read_csv(path, on_gpu({})), io::read_csv(path, on_host({})));

  const auto bad = dir.write("bad.csv", "heartbeats\n1.25\n1.2.3\n");
  auto message = [&](const std::filesystem::path& p, const io::csv_options& options) {
    try {
      (void)io::read_csv(p, options);
    } catch (const zf::parse_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(message(bad, on_gpu({})),
            bad.string() + ":3: column 1 (\"heartbeats\"): cannot parse \"1.2.3\" as float32");
  const auto missing = dir.path() / "missing.csv";
  EXPECT_EQ(message(missing, on_gpu({})), message(missing, on_host({})));
  EXPECT_THAT(message(missing, on_gpu({})), HasSubstr("No such file or directory"));
  EXPECT_EQ(message(dir.path(), on_gpu({})), message(dir.path(), on_host({})));
  const auto empty = dir.write("empty.csv", "");
  EXPECT_EQ(message(empty, on_gpu({})), message(empty, on_host({})));
}

TEST(CsvCuda, DeclinedInputsStillReadCorrectly) {
  ZF_REQUIRE_GPU();
  io::csv_options o;
  o.comment = "////////////////////";  // longer than the GPU path takes
  csv_cuda_report report;
  const std::string text = "//////////////////// c\nx\n1\n2\n";
  const zf::table t = io::detail::read_csv_cuda_buffer(text, "t.csv", on_gpu(o), zf::stream_view{}, &report);
  EXPECT_FALSE(report.gpu_parsed);
  EXPECT_NE(report.host_reason, "");
  expect_same_table(t, io::read_csv_buffer(text, "t.csv", on_host(o)));
}

TEST(CsvCuda, OptionsAndStreams) {
  ZF_REQUIRE_GPU();
  // delimiter detection, forced header, column selection by index, per-column dtypes
  io::csv_options o;
  o.delimiter = 0;
  o.header = io::header_mode::yes;
  o.columns = {2, std::size_t{0}};
  o.types = {{2, zf::int64}, {0, zf::float64}};
  const std::string text = "1;2;3\n0.1;x;-7\n+0.5e1;y;+8\n";
  EXPECT_TRUE(expect_same_as_host(text, o).gpu_parsed);
  // a non-default stream: the columns are complete when read_csv returns
  io::csv_options plain;
  plain.where = zf::cuda_device(0);
  const zf::table t = io::detail::read_csv_cuda_buffer("x\n1\n2\n3\n", "t.csv", plain, zf::stream_view::per_thread());
  const zf::array back = zf::copy_to(t.column(0), zf::cpu_device, zf::stream_view::per_thread());
  zf::synchronize(zf::stream_view::per_thread());
  EXPECT_THAT(zf::test::values<float>(back), ::testing::ElementsAre(1.0f, 2.0f, 3.0f));
}

TEST(CsvCuda, ProgressReachesTheTotal) {
  ZF_REQUIRE_GPU();
  std::string text = "x\n";
  for (int i = 0; i < 200000; ++i) text += std::to_string(i * 0.25) + "\n";
  io::csv_options o;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> calls;
  o.progress = [&](std::uint64_t done, std::uint64_t total) { calls.emplace_back(done, total); };
  (void)io::detail::read_csv_cuda_buffer(text, "t.csv", on_gpu(o), zf::stream_view{});
  ASSERT_FALSE(calls.empty());
  for (std::size_t i = 0; i < calls.size(); ++i) {
    EXPECT_EQ(calls[i].second, text.size());
    if (i > 0) {
      EXPECT_GE(calls[i].first, calls[i - 1].first);
    }
  }
  EXPECT_EQ(calls.back().first, text.size());
  o.progress = [](std::uint64_t, std::uint64_t) { throw std::runtime_error("cancelled"); };
  EXPECT_THROW((void)io::detail::read_csv_cuda_buffer(text, "t.csv", on_gpu(o), zf::stream_view{}), std::runtime_error);
  // the staging chunks are still usable afterwards
  EXPECT_TRUE(expect_same_as_host(text, {}).gpu_parsed);
}

TEST(CsvCuda, PreparedReadsPinNothingMore) {
  ZF_REQUIRE_GPU();
  // Counts pinned allocations made on this thread (the staging chunks come from the current
  // cuda_host resource of the thread that reads).
  const zf::device pinned_memory{zf::device_type::cuda_host, 0};
  auto pinned = std::make_shared<zf::memory::statistics_adaptor>(zf::memory::current_resource(pinned_memory));
  const zf::memory::scoped_resource counting(pinned);

  io::detail::free_cached_staging_chunks();
  ASSERT_EQ(io::detail::staging_chunks_cached(), 0u);
  io::prepare_csv_reads(zf::cuda_device(0));
  EXPECT_EQ(io::detail::staging_chunks_cached(), 3u);
  EXPECT_EQ(pinned->statistics().total_count, 3);
  io::prepare_csv_reads(zf::cuda_device(0));  // a second time: the chunks are there already
  EXPECT_EQ(pinned->statistics().total_count, 3);

  // A read big enough to be staged (over 4 MiB) with the default chunk size takes the chunks
  // prepared for it and pins nothing of its own.
  std::mt19937_64 rng(3);
  std::string text = "x\n";
  while (text.size() < (std::size_t{40} << 20)) text.append(zf::test::random_number(rng)).append("\n");
  const csv_cuda_report report = expect_same_as_host(text, {});
  EXPECT_TRUE(report.gpu_parsed) << report.host_reason;
  EXPECT_EQ(report.chunks, 3u);
  EXPECT_EQ(pinned->statistics().total_count, 3);
  EXPECT_EQ(io::detail::staging_chunks_cached(), 3u);  // given back for the next read
}
