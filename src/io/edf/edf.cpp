// EDF and EDF+C: the header and the signals' samples (see edf.hpp for the layout).
#include "zeroflow/io/edf.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>

#include "../parallel_tasks.hpp"
#include "../text_encoding.hpp"
#include "edf_parse.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/mapped_file.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zeroflow::io {

namespace detail {

namespace {

constexpr std::size_t fixed_header_bytes = 256, signal_header_bytes = 256;

// Reads the fixed-width ASCII fields of the header, naming the byte offset and field on errors.
class field_reader {
 public:
  field_reader(std::string_view file, const std::string& name) : file_(file), name_(name) {}

  std::string_view raw(std::size_t offset, std::size_t width) const { return trim(file_.substr(offset, width)); }
  std::string text(std::size_t offset, std::size_t width) const { return to_utf8(raw(offset, width)); }

  std::int64_t integer(std::size_t offset, std::size_t width, std::string_view what) const {
    std::string_view s = raw(offset, width);
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc{} || end != s.data() + s.size() || s.empty())
      fail(offset, what, ": cannot read \"", raw(offset, width), "\" as a whole number");
    return value;
  }

  double number(std::size_t offset, std::size_t width, std::string_view what) const {
    std::string_view s = raw(offset, width);
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    double value = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc{} || end != s.data() + s.size() || s.empty() || !std::isfinite(value))
      fail(offset, what, ": cannot read \"", raw(offset, width), "\" as a number");
    return value;
  }

  template <class... Args>
  [[noreturn]] void fail(std::size_t offset, Args&&... args) const {
    ZF_THROW(parse_error, name_, ": byte ", offset, ": ", std::forward<Args>(args)...);
  }

 private:
  std::string_view file_;
  const std::string& name_;
};

}  // namespace

edf_header parse_edf_header(std::string_view file, const std::string& name) {
  const field_reader at(file, name);
  if (file.size() < fixed_header_bytes)
    ZF_THROW(parse_error, name, ": the file has ", file.size(), " bytes, fewer than the 256 of an EDF header",
             file.empty() ? " (it is empty)" : "", "; is it an EDF file?");
  if (static_cast<unsigned char>(file[0]) == 0xFF)
    at.fail(0, "this is a BDF (24-bit) file, which is not supported; only EDF and EDF+ are");
  if (at.raw(0, 8) != "0")
    at.fail(0, "version: \"", at.raw(0, 8), "\" is not an EDF version (\"0\"); is it an EDF file?");

  edf_header h;
  h.patient = at.text(8, 80);
  h.recording = at.text(88, 80);
  h.start_date = at.text(168, 8);
  h.start_time = at.text(176, 8);
  h.header_bytes = at.integer(184, 8, "number of header bytes");
  const std::string_view reserved = at.raw(192, 44);
  h.edf_plus = reserved.substr(0, 4) == "EDF+";
  if (reserved.substr(0, 5) == "EDF+D")
    at.fail(192, "this is a discontinuous EDF+ file (EDF+D), which is not supported; only EDF and EDF+C are");
  h.records = at.integer(236, 8, "number of data records");
  h.record_duration = at.number(244, 8, "duration of a data record");
  const std::int64_t count = at.integer(252, 4, "number of signals");
  if (count < 1) at.fail(252, "number of signals: ", count, "; an EDF file needs at least one");
  const auto ns = static_cast<std::size_t>(count);
  if (h.record_duration < 0) at.fail(244, "duration of a data record: ", h.record_duration, " s is negative");
  const std::size_t expected_header = fixed_header_bytes + ns * signal_header_bytes;
  if (h.header_bytes != static_cast<std::int64_t>(expected_header))
    at.fail(184, "number of header bytes: the header says ", h.header_bytes, " but ", ns, " signals need ",
            expected_header);
  if (file.size() < expected_header)
    ZF_THROW(parse_error, name, ": the file is truncated: it has ", file.size(), " bytes, fewer than the ",
             expected_header, " of the header of its ", ns, " signals");

  // The signal fields are stored field by field: every label, then every transducer, ...
  h.signals.resize(ns);
  std::size_t offset = fixed_header_bytes;
  const auto each = [&](std::size_t width, auto&& read) {
    for (std::size_t i = 0; i < ns; ++i) read(h.signals[i], offset + i * width, width);
    offset += ns * width;
  };
  each(16, [&](edf_signal& s, std::size_t o, std::size_t w) { s.label = at.text(o, w); });
  each(80, [&](edf_signal& s, std::size_t o, std::size_t w) { s.transducer = at.text(o, w); });
  each(8, [&](edf_signal& s, std::size_t o, std::size_t w) { s.units = at.text(o, w); });
  each(8, [&](edf_signal& s, std::size_t o, std::size_t w) { s.physical_min = at.number(o, w, "physical minimum"); });
  each(8, [&](edf_signal& s, std::size_t o, std::size_t w) { s.physical_max = at.number(o, w, "physical maximum"); });
  each(8, [&](edf_signal& s, std::size_t o, std::size_t w) {
    s.digital_min = static_cast<std::int32_t>(at.integer(o, w, "digital minimum"));
  });
  each(8, [&](edf_signal& s, std::size_t o, std::size_t w) {
    s.digital_max = static_cast<std::int32_t>(at.integer(o, w, "digital maximum"));
  });
  each(80, [&](edf_signal& s, std::size_t o, std::size_t w) { s.prefiltering = at.text(o, w); });
  each(8, [&](edf_signal& s, std::size_t o, std::size_t w) {
    s.samples_per_record = at.integer(o, w, "samples per data record");
    if (s.samples_per_record < 0) at.fail(o, "samples per data record: ", s.samples_per_record, " is negative");
  });
  for (auto& s : h.signals) s.annotations = h.edf_plus && s.label == "EDF Annotations";

  const std::int64_t record_bytes = h.record_bytes();
  const auto data_bytes = static_cast<std::int64_t>(file.size() - expected_header);
  // The data and file bytes the header announces; a header may announce more than 63 bits count.
  std::int64_t needed = 0, expected = 0;
  const bool countable = !__builtin_mul_overflow(h.records, record_bytes, &needed) &&
                         !__builtin_add_overflow(needed, static_cast<std::int64_t>(expected_header), &expected);
  if (h.records == -1) {  // unknown (a recording still being written): whatever the file holds
    h.records = record_bytes > 0 ? data_bytes / record_bytes : 0;
  } else if (h.records < 0) {
    at.fail(236, "number of data records: ", h.records, " is negative");
  } else if (!countable || data_bytes < needed) {
    ZF_THROW(parse_error, name, ": the file is truncated: the header announces ", h.records, " data records of ",
             record_bytes, " bytes, the file holds ", record_bytes > 0 ? data_bytes / record_bytes : 0, " (",
             file.size(), " bytes, ", countable ? std::to_string(expected) : std::string("more than 2^63"),
             " expected)");
  }
  return h;
}

}  // namespace detail

double edf_header::sample_rate(std::size_t index) const {
  ZF_EXPECTS(index < signals.size(), "signal ", index, " does not exist: the file has ", signals.size(), " signals");
  return record_duration > 0 ? static_cast<double>(signals[index].samples_per_record) / record_duration : 0.0;
}

std::int64_t edf_header::record_bytes() const {
  std::int64_t samples = 0;
  for (const auto& s : signals) samples += s.samples_per_record;
  return 2 * samples;
}

edf_header read_edf_header(const std::filesystem::path& path) {
  const mapped_file file(path);
  return detail::parse_edf_header(file.view(), path.string());
}

namespace {

// Where signal `index`'s samples start within each data record.
std::int64_t offset_in_record(const edf_header& header, std::size_t index) {
  std::int64_t offset = 0;
  for (std::size_t i = 0; i < index; ++i) offset += 2 * header.signals[i].samples_per_record;
  return offset;
}

void expect_data_signal(const std::filesystem::path& path, const edf_header& header, std::size_t index) {
  ZF_EXPECTS(index < header.signals.size(), path.string(), ": signal ", index, " does not exist: the file has ",
             header.signals.size(), " signals");
  ZF_EXPECTS(!header.signals[index].annotations, path.string(), ": signal ", index,
             " is the EDF+ annotation signal, which holds annotations, not samples");
}

// Maps the file, checking that it still holds every data record the header counts.
mapped_file open_data(const std::filesystem::path& path, const edf_header& header) {
  mapped_file file(path);
  const std::int64_t expected = header.header_bytes + header.records * header.record_bytes();
  if (static_cast<std::int64_t>(file.size()) < expected)
    ZF_THROW(parse_error, path.string(), ": the file is truncated: it has ", file.size(), " bytes, its header ",
             "needs ", expected);
  return file;
}

// Calls sink(i, digital) for every sample i of the signal; tasks over disjoint records may run
// on several threads.
template <class Sink>
void decode_signal(std::string_view file, const edf_header& header, std::size_t index, unsigned threads,
                   const Sink& sink) {
  const std::int64_t per_record = header.signals[index].samples_per_record;
  if (per_record == 0) return;  // no samples, however many (empty) records the header counts
  const std::int64_t record_bytes = header.record_bytes();
  const auto* base =
      reinterpret_cast<const unsigned char*>(file.data()) + header.header_bytes + offset_in_record(header, index);
  const std::int64_t records_per_task =
      std::max<std::int64_t>(1, (std::int64_t{1} << 18) / std::max<std::int64_t>(1, per_record));
  const auto tasks = static_cast<std::size_t>((header.records + records_per_task - 1) / records_per_task);
  const unsigned workers = threads != 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
  detail::run_tasks(tasks, workers, [&](std::size_t task) {
    const std::int64_t begin = static_cast<std::int64_t>(task) * records_per_task;
    const std::int64_t end = std::min(header.records, begin + records_per_task);
    for (std::int64_t r = begin; r < end; ++r) {
      const unsigned char* p = base + r * record_bytes;
      for (std::int64_t j = 0; j < per_record; ++j)
        sink(r * per_record + j, static_cast<std::int16_t>(p[2 * j] | (p[2 * j + 1] << 8)));
    }
  });
}

}  // namespace

std::vector<std::int16_t> read_edf_samples(const std::filesystem::path& path, const edf_header& header,
                                           std::size_t index) {
  expect_data_signal(path, header, index);
  const mapped_file file = open_data(path, header);
  std::vector<std::int16_t> out(static_cast<std::size_t>(header.records * header.signals[index].samples_per_record));
  decode_signal(file.view(), header, index, 1,
                [&](std::int64_t i, std::int16_t v) { out[static_cast<std::size_t>(i)] = v; });
  return out;
}

array read_edf_signal(const std::filesystem::path& path, const edf_header& header, std::size_t index,
                      unsigned threads) {
  expect_data_signal(path, header, index);
  const edf_signal& s = header.signals[index];
  if (s.digital_max <= s.digital_min)
    ZF_THROW(parse_error, path.string(), ": signal ", index, " (\"", s.label, "\"): the digital range [", s.digital_min,
             ", ", s.digital_max, "] is empty, so its samples cannot be scaled to ", s.units);
  const mapped_file file = open_data(path, header);
  array out = empty({header.records * s.samples_per_record}, float32, cpu_device);
  float* values = out.data_as<float>();
  const double scale = (s.physical_max - s.physical_min) / (static_cast<double>(s.digital_max) - s.digital_min);
  const double digital_min = s.digital_min, physical_min = s.physical_min;
  decode_signal(file.view(), header, index, threads, [&](std::int64_t i, std::int16_t v) {
    values[i] = static_cast<float>(physical_min + (static_cast<double>(v) - digital_min) * scale);
  });
  return out;
}

}  // namespace zeroflow::io
