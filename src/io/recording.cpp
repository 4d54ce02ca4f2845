// read_recording: picks the reader by the file's kind and the lead by name, index or default.
#include "zeroflow/io/recording.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>

#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/binary.hpp"
#include "zeroflow/io/csv.hpp"
#include "zeroflow/io/edf.hpp"
#include "zeroflow/io/wfdb.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zeroflow::io {

namespace {

// Far more than any recording has; a bound keeps a mistyped count from naming millions of leads.
constexpr std::size_t most_raw_channels = std::size_t{1} << 16;

void check_raw_layout(const std::string& where, const raw_layout& layout) {
  ZF_EXPECTS(layout.channels >= 1 && layout.channels <= most_raw_channels, where, "a raw recording has 1 to ",
             most_raw_channels, " channels, not ", layout.channels);
  ZF_EXPECTS(layout.gain != 0 && std::isfinite(layout.gain), where,
             "the gain of a raw recording must be a finite number other than 0");
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool is_index(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

// A 0-based index written in decimal; one too large for size_t reads as the largest (never valid).
std::size_t index_of(std::string_view text) {
  std::size_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc{} ? value : std::numeric_limits<std::size_t>::max();
}

bool in_ecg_units(const std::string& units) {
  const std::string u = lower(units);
  return u == "mv" || u == "uv" || u == "\xc2\xb5v";  // µV
}

std::string list_of(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(i) + " \"" + names[i] + "\"";
  }
  return out.empty() ? "none" : out;
}

// The signal `wanted` names among `names`: a name (case-insensitive), else a 0-based index.
std::size_t choose_lead(const std::filesystem::path& path, const std::string& wanted,
                        const std::vector<std::string>& names, const std::vector<std::string>& units) {
  if (wanted.empty()) return default_lead(names, units);
  const std::string key = lower(wanted);
  for (std::size_t i = 0; i < names.size(); ++i)
    if (lower(names[i]) == key) return i;
  if (is_index(wanted) && index_of(wanted) < names.size()) return index_of(wanted);
  ZF_THROW(invalid_argument, path.string(), ": no lead \"", wanted, "\"; the signals there are ", list_of(names),
           " (give a name or a 0-based index)");
}

// The host array on its way to `where` (a copy ordered on `stream` that is complete on return).
array to_device(const array& host, device where, stream_view stream) {
  if (where == cpu_device) return host;
  array out = copy_to(host, where, stream);
  synchronize(stream);  // the host array dies with the caller's frame
  return out;
}

recording read_wfdb_recording(const std::filesystem::path& header_path, const recording_options& options,
                              stream_view stream) {
  const wfdb_header header = read_wfdb_header(header_path);
  recording out;
  std::vector<std::string> units;
  for (const auto& s : header.signals) {
    out.leads.push_back(s.description);
    units.push_back(s.units);
  }
  if (header.signals.empty()) ZF_THROW(parse_error, header_path.string(), ": the record has no signals");
  const std::size_t index = choose_lead(header_path, options.lead, out.leads, units);
  // Formats 16 and 32 travel to the device as raw bytes and are converted there; the others are
  // decoded on the host. Both give the same float32 values.
  out.signal = read_wfdb_signal_to(header_path, header, index, options.where, stream, options.io, options.threads,
                                   options.files);
  out.sample_rate = header.sample_rate(index);
  out.lead = out.leads[index];
  out.units = units[index];
  return out;
}

recording read_edf_recording(const std::filesystem::path& path, const recording_options& options, stream_view stream) {
  const edf_header header = read_edf_header(path);
  recording out;
  std::vector<std::string> units;
  std::vector<std::size_t> data_signals;  // the annotation signals are no leads
  for (std::size_t i = 0; i < header.signals.size(); ++i) {
    if (header.signals[i].annotations) continue;
    data_signals.push_back(i);
    out.leads.push_back(header.signals[i].label);
    units.push_back(header.signals[i].units);
  }
  if (data_signals.empty()) ZF_THROW(parse_error, path.string(), ": the file has no signals, only EDF+ annotations");
  const std::size_t chosen = choose_lead(path, options.lead, out.leads, units);
  const std::size_t index = data_signals[chosen];
  if (!(header.record_duration > 0))
    ZF_THROW(parse_error, path.string(), ": the data record duration is 0 s, so signal \"", out.leads[chosen],
             "\" has no sample rate");
  out.signal = to_device(read_edf_signal(path, header, index, options.threads), options.where, stream);
  out.sample_rate = header.sample_rate(index);
  out.lead = out.leads[chosen];
  out.units = units[chosen];
  return out;
}

recording read_raw_recording(const std::filesystem::path& path, binary_sample type, const recording_options& options,
                             stream_view stream) {
  const raw_layout& layout = options.raw;
  check_raw_layout(path.string() + ": ", layout);
  recording out;
  for (std::size_t c = 0; c < layout.channels; ++c) out.leads.push_back("channel " + std::to_string(c));
  const std::size_t index = choose_lead(path, options.lead, out.leads, {});
  binary_options binary;
  binary.type = type;
  binary.frame_samples = layout.channels;
  binary.channel = index;
  binary.gain = layout.gain;
  binary.where = options.where;
  binary.threads = options.threads;
  binary.io = options.io;
  out.signal = read_binary_signal(path, binary, stream);
  out.lead = out.leads[index];
  return out;
}

recording read_csv_recording(const std::filesystem::path& path, const recording_options& options, stream_view stream) {
  csv_options csv;
  // Only the wanted column is parsed; the others may hold text. Without `lead`, the lead a header
  // names as ECG, as in the other formats (default_lead), else the first column.
  std::vector<std::string> names;  // the file's columns, read from its head once
  if (options.lead.empty()) {
    names = csv_column_names(path, csv);
    csv.columns = {column_ref(default_lead(names, {}))};
  } else if (is_index(options.lead)) {
    ZF_EXPECTS(index_of(options.lead) != std::numeric_limits<std::size_t>::max(), path.string(), ": no column ",
               options.lead, " (give a column name or a 0-based index)");
    csv.columns = {column_ref(index_of(options.lead))};
  } else {
    csv.columns = {column_ref(options.lead)};
  }
  csv.default_type = float32;
  csv.blank = blank_lines::refuse;  // a row's position is its time
  csv.threads = options.threads;
  csv.progress = options.progress;
  csv.where = options.where;
  csv.io = options.io;
  table columns = read_csv(path, csv, stream);
  ZF_EXPECTS(columns.num_columns() >= 1, path.string(), ": no columns");
  // A first column named "sample" counts samples: the beat labels' own file (sample,symbol) or
  // an index column, either of which would be analysed as a ramp. Said rather than analysed.
  ZF_EXPECTS(!options.lead.empty() || lower(columns.names[0]) != "sample", path.string(),
             ": its first column, \"sample\", counts samples (a file of beat labels, or an index), it is no "
             "signal; give the recording rather than its labels, or name the signal's column with `lead`");
  recording out;
  out.signal = columns.columns[0];
  out.lead = columns.names[0];
  // Every column, so that a run can read the other leads.
  out.leads = names.empty() ? csv_column_names(path, csv) : std::move(names);
  return out;
}

}  // namespace

std::optional<binary_sample> raw_sample_type(const std::filesystem::path& path) {
  const std::string extension = lower(path.extension().string());
  if (extension == ".f32") return binary_sample::float32;
  if (extension == ".i16") return binary_sample::int16;
  if (extension == ".i32") return binary_sample::int32;
  return std::nullopt;
}

bool named_like_ecg(const std::string& name) {
  static constexpr std::array<std::string_view, 15> lead_names = {"i",  "ii", "iii", "avr", "avl", "avf",  "v1",   "v2",
                                                                  "v3", "v4", "v5",  "v6",  "mli", "mlii", "mliii"};
  const std::string n = lower(name);
  if (n.find("ecg") != std::string::npos || n.find("ekg") != std::string::npos) return true;
  return std::find(lead_names.begin(), lead_names.end(), n) != lead_names.end();
}

std::size_t default_lead(const std::vector<std::string>& names, const std::vector<std::string>& units) {
  const auto find = [&](std::string_view wanted) {
    for (std::size_t i = 0; i < names.size(); ++i)
      if (lower(names[i]) == wanted) return i;
    return names.size();
  };
  for (std::string_view preferred : {"mlii", "ecg ii", "ii"})
    if (const std::size_t i = find(preferred); i < names.size()) return i;
  // A name says more than units: test generators and EEG records put other signals in uV too.
  for (std::size_t i = 0; i < names.size(); ++i)
    if (named_like_ecg(names[i])) return i;
  for (std::size_t i = 0; i < units.size() && i < names.size(); ++i)
    if (in_ecg_units(units[i])) return i;
  return 0;
}

recording_format format_of(const std::filesystem::path& path) {
  const std::string extension = lower(path.extension().string());
  if (extension == ".hea") return recording_format::wfdb;
  if (extension == ".edf") return recording_format::edf;
  if (raw_sample_type(path)) return recording_format::raw;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec) && std::filesystem::is_regular_file(path.string() + ".hea", ec))
    return recording_format::wfdb;
  return recording_format::csv;
}

recording read_recording(const std::filesystem::path& path, const recording_options& options, stream_view stream) {
  switch (format_of(path)) {
    case recording_format::wfdb:
      return read_wfdb_recording(
          lower(path.extension().string()) == ".hea" ? path : std::filesystem::path(path.string() + ".hea"), options,
          stream);
    case recording_format::edf:
      return read_edf_recording(path, options, stream);
    case recording_format::raw:
      return read_raw_recording(path, *raw_sample_type(path), options, stream);
    case recording_format::csv:
      break;
  }
  return read_csv_recording(path, options, stream);
}

}  // namespace zeroflow::io
