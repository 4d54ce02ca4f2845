// WFDB header files: the record line, the signal lines and comments (see wfdb.hpp for the syntax).
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "../text_encoding.hpp"
#include "wfdb_formats.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/mapped_file.hpp"
#include "zeroflow/io/wfdb.hpp"

namespace zeroflow::io {

namespace {

struct token {
  std::string_view text;
  std::size_t end;  // offset in the line just past the token
};

std::vector<token> split_fields(std::string_view line) {
  std::vector<token> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) out.push_back({line.substr(start, i - start), i});
  }
  return out;
}

// One header line being parsed: its location for messages.
class line_context {
 public:
  line_context(std::string_view file, std::size_t line) : file_(file), line_(line) {}

  template <class... Args>
  [[noreturn]] void fail(Args&&... args) const {
    ZF_THROW(parse_error, file_, ':', line_, ": ", std::forward<Args>(args)...);
  }

  template <class Int>
  Int integer(std::string_view text, std::string_view what) const {
    Int value{};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || text.empty())
      fail("cannot read the ", what, " \"", text, "\": expected a whole number");
    return value;
  }

  double number(std::string_view text, std::string_view what) const {
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || text.empty() || !std::isfinite(value))
      fail("cannot read the ", what, " \"", text, "\": expected a number");
    return value;
  }

 private:
  std::string_view file_;
  std::size_t line_;
};

// FS[/COUNTERFREQ[(BASECOUNTER)]]
void parse_frequency(std::string_view text, const line_context& at, wfdb_header& out) {
  const auto slash = text.find('/');
  out.frame_frequency = at.number(text.substr(0, slash), "sampling frequency");
  if (!(out.frame_frequency > 0)) at.fail("the sampling frequency must be positive, not \"", text, "\"");
  if (slash == std::string_view::npos) return;
  std::string_view counter = text.substr(slash + 1);
  if (const auto paren = counter.find('('); paren != std::string_view::npos) {
    if (counter.back() != ')') at.fail("cannot read the base counter in \"", text, "\": expected FS/COUNTER(BASE)");
    out.base_counter = at.number(counter.substr(paren + 1, counter.size() - paren - 2), "base counter value");
    counter = counter.substr(0, paren);
  }
  out.counter_frequency = at.number(counter, "counter frequency");
}

void parse_record_line(std::string_view line, const line_context& at, wfdb_header& out, std::size_t& num_signals) {
  const auto fields = split_fields(line);
  if (fields.size() < 2)
    at.fail("the record line needs a record name and a number of signals, e.g. \"100 2 360 650000\"");
  out.record_name = std::string(fields[0].text);
  if (out.record_name.find('/') != std::string::npos)
    at.fail("record \"", out.record_name,
            "\" is a multi-segment record, which is not supported; read one segment's own header instead");
  num_signals = at.integer<std::size_t>(fields[1].text, "number of signals");
  if (fields.size() > 2) parse_frequency(fields[2].text, at, out);
  if (fields.size() > 3) {
    out.frames = at.integer<std::int64_t>(fields[3].text, "number of samples");
    if (out.frames < 0) at.fail("the number of samples must not be negative");
  }
  if (fields.size() > 4) out.base_time = std::string(fields[4].text);
  if (fields.size() > 5) out.base_date = std::string(fields[5].text);
}

// FORMAT[xSPF][:SKEW][+OFFSET]
void parse_format(std::string_view text, const line_context& at, wfdb_signal& s) {
  std::size_t i = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
  s.format = at.integer<int>(text.substr(0, i), "storage format");
  while (i < text.size()) {
    const char tag = text[i++];
    const std::size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    const auto digits = text.substr(start, i - start);
    if (tag == 'x')
      s.samples_per_frame = at.integer<int>(digits, "samples per frame");
    else if (tag == ':')
      s.skew = at.integer<int>(digits, "skew");
    else if (tag == '+')
      s.byte_offset = at.integer<std::int64_t>(digits, "byte offset");
    else
      at.fail("cannot read the storage format \"", text, "\": expected FORMAT[xSPF][:SKEW][+OFFSET], e.g. 212 or 16x4");
  }
  if (s.samples_per_frame < 1) at.fail("the samples per frame in \"", text, "\" must be at least 1");
  if (!detail::wfdb_format_supported(s.format))
    at.fail("storage format ", s.format, " is not supported (supported: 8, 16, 24, 32, 61, 80, 160, 212, 310, 311",
            s.format >= 500 && s.format < 600
                ? "; FLAC-compressed records can be converted to format 16 with WFDB's xform"
                : "",
            ")");
  s.adc_resolution = detail::wfdb_default_resolution(s.format);
}

// GAIN[(BASELINE)][/UNITS]; returns whether a baseline was given.
bool parse_gain(std::string_view text, const line_context& at, wfdb_signal& s) {
  const auto slash = text.find('/');
  if (slash != std::string_view::npos) {
    s.units = detail::to_utf8(text.substr(slash + 1));
    text = text.substr(0, slash);
  }
  bool has_baseline = false;
  if (const auto paren = text.find('('); paren != std::string_view::npos) {
    if (text.back() != ')')
      at.fail("cannot read the ADC gain \"", text, "\": expected GAIN(BASELINE)/UNITS, e.g. 200(1024)/mV");
    s.baseline = at.integer<std::int64_t>(text.substr(paren + 1, text.size() - paren - 2), "baseline");
    has_baseline = true;
    text = text.substr(0, paren);
  }
  s.gain = at.number(text, "ADC gain");
  if (s.gain == 0) s.gain = 200;  // WFDB: an uncalibrated signal has the default gain
  return has_baseline;
}

wfdb_signal parse_signal_line(std::string_view line, const line_context& at) {
  const auto fields = split_fields(line);
  if (fields.size() < 2) at.fail("a signal line needs a file name and a storage format, e.g. \"100.dat 212\"");
  wfdb_signal s;
  s.file_name = std::string(fields[0].text);
  parse_format(fields[1].text, at, s);
  bool has_baseline = false;
  if (fields.size() > 2) has_baseline = parse_gain(fields[2].text, at, s);
  if (fields.size() > 3) s.adc_resolution = at.integer<int>(fields[3].text, "ADC resolution");
  if (fields.size() > 4) s.adc_zero = at.integer<std::int64_t>(fields[4].text, "ADC zero");
  s.initial_value = fields.size() > 5 ? at.integer<std::int64_t>(fields[5].text, "initial value") : s.adc_zero;
  // Format 8 adds its differences to the initial value; WFDB samples are 32-bit.
  if (s.initial_value < std::numeric_limits<std::int32_t>::min() ||
      s.initial_value > std::numeric_limits<std::int32_t>::max())
    at.fail(fields.size() > 5 ? "the initial value " : "the ADC zero (the initial value when none is given) ",
            s.initial_value, " does not fit the 32 bits of a WFDB sample");
  if (fields.size() > 6) s.checksum = at.integer<int>(fields[6].text, "checksum");
  if (fields.size() > 7) s.block_size = at.integer<int>(fields[7].text, "block size");
  if (fields.size() > 8) s.description = detail::to_utf8(detail::trim(line.substr(fields[7].end)));
  if (!has_baseline) s.baseline = s.adc_zero;
  return s;
}

}  // namespace

double wfdb_header::sample_rate(std::size_t index) const {
  ZF_EXPECTS(index < signals.size(), "signal ", index, " does not exist: the record has ", signals.size(), " signals");
  return frame_frequency * signals[index].samples_per_frame;
}

wfdb_header parse_wfdb_header(std::string_view text, std::string_view name_for_errors) {
  wfdb_header out;
  std::size_t num_signals = 0, line_number = 0, last_line = 0;
  bool have_record_line = false;
  while (!text.empty()) {
    const auto newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
    ++line_number;
    line = detail::trim(line);
    if (line.empty()) continue;
    if (line.front() == '#') {
      out.comments.push_back(detail::to_utf8(detail::trim(line.substr(1))));
      continue;
    }
    const line_context at(name_for_errors, line_number);
    if (!have_record_line) {
      parse_record_line(line, at, out, num_signals);
      have_record_line = true;
    } else if (out.signals.size() < num_signals) {
      out.signals.push_back(parse_signal_line(line, at));
    } else {
      at.fail("unexpected line \"", line, "\": the record line announces ", num_signals,
              " signals and all of them are described already");
    }
    last_line = line_number;
  }
  if (!have_record_line) ZF_THROW(parse_error, name_for_errors, ": no record line; is this a WFDB header?");
  if (out.signals.size() < num_signals)
    ZF_THROW(parse_error, name_for_errors, ':', last_line, ": the record line announces ", num_signals,
             " signals but the header describes only ", out.signals.size());
  return out;
}

wfdb_header read_wfdb_header(const std::filesystem::path& header_path) {
  const mapped_file file(header_path);
  return parse_wfdb_header(file.view(), header_path.string());
}

}  // namespace zeroflow::io
