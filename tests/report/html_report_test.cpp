// report.html's encodings (src/report/html_encode.hpp) decoded back by an independent decoder,
// and the written page: placeholders filled, the data blob parses back to the run, nothing
// in a file name can end the inlined script.
#include "zeroflow/report/html_report.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "report/html_encode.hpp"
#include "zeroflow/report/summary_json.hpp"

namespace zf = zeroflow;
namespace enc = zeroflow::report::detail;
using nlohmann::json;

namespace {

std::vector<std::uint8_t> unbase64(const std::string& text) {
  std::vector<std::uint8_t> out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (char ch : text) {
    int v;
    if (ch >= 'A' && ch <= 'Z')
      v = ch - 'A';
    else if (ch >= 'a' && ch <= 'z')
      v = ch - 'a' + 26;
    else if (ch >= '0' && ch <= '9')
      v = ch - '0' + 52;
    else if (ch == '+')
      v = 62;
    else if (ch == '/')
      v = 63;
    else
      break;  // padding
    acc = (acc << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<std::uint8_t>(acc >> bits));
    }
  }
  return out;
}

/// Little-endian element i of a decoded byte string, as a signed integer of `size` bytes.
std::int64_t element(const std::vector<std::uint8_t>& bytes, std::size_t i, std::size_t size) {
  std::uint64_t u = 0;
  for (std::size_t b = 0; b < size; ++b) u |= std::uint64_t{bytes[i * size + b]} << (8 * b);
  const std::uint64_t sign = std::uint64_t{1} << (8 * size - 1);
  return size == 8 ? static_cast<std::int64_t>(u)
                   : static_cast<std::int64_t>((u ^ sign)) - static_cast<std::int64_t>(sign);
}

std::size_t size_of(const std::string& dtype) {
  return dtype == "i8" || dtype == "u8" ? 1 : dtype == "i16" ? 2 : dtype == "i32" || dtype == "f32" ? 4 : 8;
}

std::vector<double> decode_floats(const json& j) {
  const auto bytes = unbase64(j["b64"]);
  const std::string dtype = j["dtype"];
  const auto n = j["n"].get<std::size_t>();
  EXPECT_EQ(bytes.size(), n * size_of(dtype));
  std::vector<double> out(n);
  if (dtype == "f32") {
    for (std::size_t i = 0; i < n; ++i) out[i] = std::bit_cast<float>(static_cast<std::uint32_t>(element(bytes, i, 4)));
    return out;
  }
  std::vector<double> row_scale;
  if (j.contains("row_scale")) row_scale = decode_floats(j["row_scale"]);
  const std::int64_t nan_code = dtype == "i8" ? -128 : -32768;
  for (std::size_t i = 0; i < n; ++i) {
    const auto q = element(bytes, i, size_of(dtype));
    if (q == nan_code)
      out[i] = NAN;
    else if (j.contains("row_scale"))
      out[i] = static_cast<double>(q) * row_scale[i / j["width"].get<std::size_t>()];
    else
      out[i] = j["offset"].get<double>() + j["scale"].get<double>() * static_cast<double>(q);
  }
  return out;
}

std::vector<std::int64_t> decode_ints(const json& j) {
  const auto bytes = unbase64(j["b64"]);
  const std::string dtype = j["dtype"];
  const auto n = j["n"].get<std::size_t>();
  std::vector<std::int64_t> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = dtype == "f64"
                 ? static_cast<std::int64_t>(std::bit_cast<double>(static_cast<std::uint64_t>(element(bytes, i, 8))))
                 : element(bytes, i, size_of(dtype));
    if (j.value("delta", false) && i > 0) out[i] += out[i - 1];
  }
  return out;
}

}  // namespace

TEST(ReportHtmlEncoding, Base64MatchesRfc4648) {
  const auto b = [](const std::string& s) {
    return enc::base64(std::span(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()));
  };
  EXPECT_EQ(b(""), "");
  EXPECT_EQ(b("f"), "Zg==");
  EXPECT_EQ(b("fo"), "Zm8=");
  EXPECT_EQ(b("foo"), "Zm9v");
  EXPECT_EQ(b("foob"), "Zm9vYg==");
  EXPECT_EQ(b("fooba"), "Zm9vYmE=");
  EXPECT_EQ(b("foobar"), "Zm9vYmFy");
  std::mt19937_64 rng(1);
  for (int n = 0; n < 70; ++n) {
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(n));
    for (auto& x : bytes) x = static_cast<std::uint8_t>(rng());
    EXPECT_EQ(unbase64(enc::base64(bytes)), bytes) << n;
  }
}

TEST(ReportHtmlEncoding, Int16FloatsRoundTripWithinHalfAStep) {
  std::mt19937_64 rng(2);
  std::normal_distribution<float> normal(3, 40);
  std::vector<float> v(5000);
  for (auto& x : v) x = normal(rng);
  v[10] = NAN;
  v[11] = std::numeric_limits<float>::infinity();
  const auto j = enc::encode_i16(v);
  EXPECT_EQ(j["dtype"], "i16");
  const auto back = decode_floats(j);
  const double step = j["scale"];
  double lo = 1e300, hi = -1e300;
  for (float x : v)
    if (std::isfinite(x)) lo = std::min<double>(lo, x), hi = std::max<double>(hi, x);
  EXPECT_NEAR(step, (hi - lo) / 65534, 1e-12 * (hi - lo));
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i])) {
      EXPECT_TRUE(std::isnan(back[i])) << i;
      continue;
    }
    ASSERT_LE(std::fabs(back[i] - v[i]), step / 2 * (1 + 1e-9)) << i;
  }
  // A given range (shared by the overview's min and max bands), and a constant array.
  const auto k = decode_floats(enc::encode_i16(std::vector<float>{1, 2, 3}, 0, 10));
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(k[static_cast<std::size_t>(i)], i + 1, 10.0 / 65534);
  EXPECT_EQ(decode_floats(enc::encode_i16(std::vector<float>{7, 7})), (std::vector<double>{7, 7}));
  EXPECT_EQ(enc::encode_i16(std::vector<float>{})["n"], 0);
}

TEST(ReportHtmlEncoding, Float32AndRowsOfInt8) {
  const std::vector<float> v = {1.5f, -0.1f, 3e-8f, 12345.678f};
  const auto exact = decode_floats(enc::encode_f32(v));
  for (std::size_t i = 0; i < v.size(); ++i) EXPECT_EQ(static_cast<float>(exact[i]), v[i]);

  std::mt19937_64 rng(3);
  std::normal_distribution<float> normal(0, 1);
  const std::int64_t width = 16;
  std::vector<float> rows(40 * width);
  for (std::size_t i = 0; i < rows.size(); ++i)
    rows[i] = normal(rng) * static_cast<float>(1 + i / width);  // growing scales
  rows[5] = NAN;
  const auto j = enc::encode_rows_i8(rows, width);
  EXPECT_EQ(j["dtype"], "i8");
  const auto back = decode_floats(j);
  for (std::size_t r = 0; r < 40; ++r) {
    float peak = 0;
    for (std::size_t t = 0; t < 16; ++t)
      if (std::isfinite(rows[r * 16 + t])) peak = std::max(peak, std::fabs(rows[r * 16 + t]));
    for (std::size_t t = 0; t < 16; ++t) {
      const auto i = r * 16 + t;
      if (std::isnan(rows[i]))
        EXPECT_TRUE(std::isnan(back[i]));
      else
        ASSERT_LE(std::fabs(back[i] - rows[i]), peak / 127 / 2 * 1.0001 + 1e-7) << r << ' ' << t;
    }
  }
  EXPECT_THROW((void)enc::encode_rows_i8(rows, 17), zf::invalid_argument);
}

TEST(ReportHtmlEncoding, IntegersTakeTheNarrowestType) {
  EXPECT_EQ(enc::encode_ints(std::vector<std::int64_t>{-128, 127})["dtype"], "i8");
  EXPECT_EQ(enc::encode_ints(std::vector<std::int64_t>{-129, 0})["dtype"], "i16");
  EXPECT_EQ(enc::encode_ints(std::vector<std::int64_t>{0, 32768})["dtype"], "i32");
  EXPECT_EQ(enc::encode_ints(std::vector<std::int64_t>{0, std::int64_t{1} << 40})["dtype"], "f64");
  // Ascending positions: differences are beat lengths (16 bits), the first one the start.
  std::vector<std::int64_t> starts = {120};
  std::mt19937_64 rng(4);
  for (int i = 0; i < 1000; ++i) starts.push_back(starts.back() + 100 + static_cast<std::int64_t>(rng() % 200));
  const auto j = enc::encode_ints(starts, true);
  EXPECT_EQ(j["dtype"], "i16");
  EXPECT_EQ(decode_ints(j), starts);
  const std::vector<std::int64_t> wide = {-5, std::int64_t{1} << 45, 3};
  EXPECT_EQ(decode_ints(enc::encode_ints(wide)), wide);
  EXPECT_EQ(decode_ints(enc::encode_ints(wide, true)), wide);
  EXPECT_EQ(enc::encode_ints(std::vector<std::int64_t>{})["n"], 0);
}

namespace {

zf::pipeline::run_result tiny_run(const std::string& input) {
  zf::pipeline::run_result r;
  r.input = input;
  r.where = zf::cpu_device;
  r.samples = 5000;
  r.sample_rate = 250;
  r.sizes = {30, 180, 100, 256, 256};
  for (int c = 0; c < 20; ++c) {
    r.start.push_back(100 + 200 * c);
    r.peak.push_back(150 + 200 * c);
    r.length.push_back(c == 3 ? 90 : 200);
    r.kept.push_back(c == 3 ? 0 : 1);
    r.split.push_back(c == 3 ? '-' : c % 4 == 0 ? 'v' : 't');
    r.score.push_back(c == 3 ? NAN : 0.01f * static_cast<float>(c));
    r.mu0.push_back(c == 3 ? NAN : 0.1f * static_cast<float>(c));
    r.mu1.push_back(c == 3 ? NAN : -0.2f * static_cast<float>(c));
  }
  r.histogram.assign(513, 0);
  r.histogram[200] = 19;
  r.histogram[90] = 1;
  r.epoch_loss = {3, 2, 1.5};
  r.test_loss = 1.6;
  r.trained = true;
  r.decoded_grid.assign(25 * 256, 0.5f);
  r.figures.overview_bucket = 1;
  r.figures.overview_min.assign(5000, 0.f);
  r.figures.overview_max.assign(5000, 1.f);
  r.stages = {{"load", 1.5}, {"segment", 2.5}, {"train", 100}};
  return r;
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST(ReportHtmlPage, PlaceholdersFilledAndTheDataParsesBack) {
  const auto dir = std::filesystem::temp_directory_path() / ("zf_html_report_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  // A hostile file name: it must not end the data's <script> element or inject markup.
  const auto r = tiny_run("/data/</script><script>alert(1)</script>&\"x'.csv");
  zf::pipeline::run_options options;
  options.epochs = 3;
  zf::report::write_report_html(r, options, dir / "report.html");
  const auto html = read_text(dir / "report.html");
  std::filesystem::remove_all(dir);

  for (const char* placeholder : {"@TITLE@", "@CSS@", "@DATA@", "@JS@", "@UPLOT_CSS@", "@UPLOT_JS@"})
    EXPECT_EQ(count(html, placeholder), 0u) << placeholder;
  EXPECT_EQ(count(html, "</script>"), 3u);  // the data element's, uPlot's and the report's script
  EXPECT_EQ(count(html, "<script"), 3u);
  EXPECT_NE(html.find("window.zeroflowReport"), std::string::npos);
  // uPlot is inlined whole, its licence notice included; addresses occur only in its comments.
  const auto uplot = html.find("var uPlot = (function");
  ASSERT_NE(uplot, std::string::npos);
  EXPECT_NE(html.rfind("Copyright (c) 2021, Leon Sorokin", uplot), std::string::npos);
  EXPECT_NE(html.find("The MIT License"), std::string::npos);
  for (const char* scheme : {"http://", "https://"}) {
    for (auto at = html.find(scheme); at != std::string::npos; at = html.find(scheme, at + 1)) {
      const auto line_start = html.rfind('\n', at) + 1;
      const auto line = html.substr(line_start, at - line_start);
      const auto code = line.find_first_not_of(" \t");
      ASSERT_NE(code, std::string::npos) << line;
      EXPECT_TRUE(line.compare(code, 2, "//") == 0 || line[code] == '*') << "an address outside a comment: " << line;
    }
  }

  const std::string open = "<script id=\"zf-data\" type=\"application/json\">";
  const auto from = html.find(open);
  ASSERT_NE(from, std::string::npos);
  const auto to = html.find("</script>", from);
  const auto data = json::parse(html.substr(from + open.size(), to - from - open.size()));
  EXPECT_EQ(data["format"], 1);
  EXPECT_EQ(data["summary"], zf::report::summary_json(r, options));
  EXPECT_EQ(data["summary"]["input"], r.input);
  EXPECT_EQ(data["candidates"]["n"], 20);
  EXPECT_EQ(decode_ints(data["candidates"]["start"]), r.start);
  EXPECT_EQ(decode_ints(data["candidates"]["length"]), r.length);
  const auto status = unbase64(data["candidates"]["status"]["b64"]);
  EXPECT_EQ(status[0], 2);  // test
  EXPECT_EQ(status[1], 1);  // train
  EXPECT_EQ(status[3], 0);  // pruned
  const auto score = decode_floats(data["kept"]["score"]);
  ASSERT_EQ(score.size(), 19u);
  EXPECT_EQ(static_cast<float>(score[3]), r.score[4]);  // kept order skips the pruned candidate
  EXPECT_EQ(data["stages"][2]["name"], "train");
  EXPECT_EQ(data["overview"]["n"], 5000);
  EXPECT_EQ(decode_floats(data["overview"]["max"])[17], 1.0);
}
