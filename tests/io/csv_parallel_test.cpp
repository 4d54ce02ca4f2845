// Multi-threaded read_csv must give exactly the single-threaded result, whatever the thread
// count and wherever the byte ranges fall (inside "\r\n", on comments, blank lines, quotes),
// and both must match the C library's reading of every cell.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "io/csv_test_util.hpp"
#include "io/io_test_util.hpp"
#include "zeroflow/io/csv.hpp"

namespace zf = zeroflow;
namespace io = zeroflow::io;

namespace {

struct random_file {
  std::string text;
  std::vector<std::int64_t> t;
  std::vector<float> x;
  std::vector<double> y;
};

std::string format(const char* spec, double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, spec, v);
  return buffer;
}

// About `bytes` of CSV: columns t (int64), label (text, sometimes quoted with delimiters and
// doubled quotes inside), x (float32), y (float64); comments, blank lines, spaces and quoted
// numbers sprinkled in; line ends by `crlf_mode`.
random_file make_file(std::mt19937_64& rng, std::size_t bytes, int crlf_mode, bool final_newline) {
  random_file f;  // crlf_mode 0: LF, 1: CRLF, 2: mixed
  auto eol = [&] {
    return crlf_mode == 1 || (crlf_mode == 2 && rng() % 2 == 0) ? std::string("\r\n") : std::string("\n");
  };
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  f.text = "# generated\r\n";
  f.text.append("t,label,x,y").append(eol());
  while (f.text.size() < bytes) {
    const auto r = rng() % 100;
    if (r == 0) {
      f.text.append("# comment, with, commas").append(eol());
      continue;
    }
    if (r == 1) {
      f.text.append(rng() % 2 ? "" : "  ").append(eol());
      continue;
    }
    const auto t = static_cast<std::int64_t>(rng()) >> (rng() % 64);
    const double scale = std::pow(10.0, static_cast<double>(rng() % 20) - 10.0);
    const std::string xs = format(rng() % 2 ? "%.9g" : "%.5e", uniform(rng) * scale);
    const std::string ys = format(rng() % 2 ? "%.17g" : "%g", uniform(rng) * scale);
    std::string label = rng() % 5 == 0 ? "\"a, \"\"quoted\"\" label\"" : "plain" + std::to_string(rng() % 1000);
    f.text.append(std::to_string(t)).append(",").append(label).append(",");
    f.text.append(rng() % 10 == 0 ? "\"" + xs + "\"" : xs).append(",").append(rng() % 10 == 0 ? " " + ys + " " : ys);
    f.text.append(eol());
    f.t.push_back(t);
    f.x.push_back(std::strtof(xs.c_str(), nullptr));
    f.y.push_back(std::strtod(ys.c_str(), nullptr));
  }
  if (!final_newline) {
    while (!f.text.empty() && (f.text.back() == '\n' || f.text.back() == '\r')) f.text.pop_back();
    if (f.text.back() == ' ' || f.text.back() == ',') f.text.push_back('0');
  }
  return f;
}

void expect_same_bits(const zf::table& a, const zf::table& b, const std::string& what) {
  ASSERT_EQ(a.names, b.names) << what;
  ASSERT_EQ(a.num_rows(), b.num_rows()) << what;
  for (std::size_t c = 0; c < a.num_columns(); ++c) {
    const auto& u = a.column(c);
    const auto& v = b.column(c);
    ASSERT_EQ(u.type(), v.type()) << what;
    ASSERT_EQ(std::memcmp(u.data(), v.data(), u.nbytes()), 0) << what << ", column " << a.names[c];
  }
}

}  // namespace

TEST(CsvParallel, SameBitsForEveryThreadCountAndRangeSplit) {
  zf::test::scratch_dir dir;
  std::mt19937_64 rng(12345);
  for (int file = 0; file < 3; ++file) {
    const random_file f = make_file(rng, 2'500'000 + rng() % 1'000'000, file % 3, file != 1);
    const auto path = dir.write("random" + std::to_string(file) + ".csv", f.text);

    io::csv_options o;
    o.columns = {"t", "x", "y"};
    o.types = {{"t", zf::int64}, {"y", zf::float64}};
    o.threads = 1;
    const zf::table single = io::read_csv(path, o);

    // the single-threaded read against the C library, cell by cell
    ASSERT_EQ(single.num_rows(), static_cast<std::int64_t>(f.t.size()));
    EXPECT_EQ(zf::test::values<std::int64_t>(single.column("t")), f.t);
    const auto x = zf::test::values<float>(single.column("x"));
    const auto y = zf::test::values<double>(single.column("y"));
    ASSERT_EQ(std::memcmp(x.data(), f.x.data(), x.size() * sizeof(float)), 0);
    ASSERT_EQ(std::memcmp(y.data(), f.y.data(), y.size() * sizeof(double)), 0);

    // tiny ranges put boundaries everywhere, inside "\r\n" included; large ones are the usual case
    const std::size_t chunks[] = {0, 1, 2, 3, 7, 61, 1000, 4096, 65536, 1 + rng() % 300000};
    for (std::size_t chunk : chunks) {
      o.threads = 1 + static_cast<unsigned>(rng() % 8);
      o.chunk_bytes = chunk;
      expect_same_bits(single, io::read_csv(path, o),
                       "file " + std::to_string(file) + ", " + std::to_string(o.threads) + " threads, chunks of " +
                           std::to_string(chunk));
    }
    o.threads = 0;  // hardware concurrency
    o.chunk_bytes = 0;
    expect_same_bits(single, io::read_csv(path, o), "default threads");
  }
}

TEST(CsvParallel, LineNumbersHoldAcrossRanges) {
  // an error deep in the file, after comments and blank lines, reports the physical line
  std::string text = "# c\r\nv\r\n";
  int line = 2;
  for (int i = 0; i < 50000; ++i) {
    text.append(i % 7 == 0 ? "# note\r\n" : i % 11 == 0 ? "\r\n" : std::to_string(i) + "\r\n");
    ++line;
  }
  text.append("1.2.3\r\n");
  ++line;
  for (std::size_t chunk : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{777}}) {
    io::csv_options o;
    o.threads = 4;
    o.chunk_bytes = chunk;
    EXPECT_EQ(zf::test::csv_error(text, o),
              "t.csv:" + std::to_string(line) + ": column 1 (\"v\"): cannot parse \"1.2.3\" as float32")
        << "chunks of " << chunk;
  }
}
