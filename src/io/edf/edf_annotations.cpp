// EDF+ annotations: time-stamped annotation lists (TALs) in the `EDF Annotations` signals.
// A TAL is "+ONSET[\x15DURATION]\x14[TEXT\x14]...\x00"; the rest of the signal's bytes in a
// record are zero. The first annotation of each record is empty, its onset keeping the record's
// time; empty annotations are left out.
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "../text_encoding.hpp"
#include "edf_parse.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/edf.hpp"
#include "zeroflow/io/mapped_file.hpp"

namespace zeroflow::io {

namespace {

constexpr char onset_end = '\x14', duration_mark = '\x15', tal_end = '\0';

double seconds(std::string_view text, bool signed_onset, const std::string& name, std::size_t at,
               std::string_view what) {
  std::string_view digits = text;
  bool negative = false;
  if (signed_onset) {
    if (digits.empty() || (digits.front() != '+' && digits.front() != '-'))
      ZF_THROW(parse_error, name, ": byte ", at, ": an EDF+ annotation onset must start with '+' or '-', not \"", text,
               "\"");
    negative = digits.front() == '-';
    digits.remove_prefix(1);
  }
  double value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  // from_chars takes a sign of its own: "+-5" or a duration "-5" would pass. EDF+ writes digits.
  const bool digit_first = !digits.empty() && digits.front() >= '0' && digits.front() <= '9';
  if (ec != std::errc{} || end != digits.data() + digits.size() || !digit_first || !std::isfinite(value))
    ZF_THROW(parse_error, name, ": byte ", at, ": cannot read the annotation ", what, " \"", text, "\" as seconds");
  return negative ? -value : value;
}

// Appends the annotations of one record's annotation signal (`bytes`, starting at file offset `base`).
void read_tals(std::string_view bytes, std::size_t base, const std::string& name, std::vector<edf_annotation>& out) {
  std::size_t pos = 0;
  while (pos < bytes.size() && bytes[pos] != tal_end) {
    const std::size_t end = bytes.find(tal_end, pos);
    if (end == std::string_view::npos)
      ZF_THROW(parse_error, name, ": byte ", base + pos, ": an EDF+ annotation list does not end (no NUL byte)");
    const std::string_view tal = bytes.substr(pos, end - pos);
    const std::size_t stamp_end = tal.find(onset_end);
    if (stamp_end == std::string_view::npos)
      ZF_THROW(parse_error, name, ": byte ", base + pos, ": an EDF+ annotation list lacks the byte 20 after its onset");
    std::string_view stamp = tal.substr(0, stamp_end);
    double duration = -1;
    if (const auto mark = stamp.find(duration_mark); mark != std::string_view::npos) {
      duration = seconds(stamp.substr(mark + 1), false, name, base + pos + mark + 1, "duration");
      stamp = stamp.substr(0, mark);
    }
    const double onset = seconds(stamp, true, name, base + pos, "onset");
    std::string_view texts = tal.substr(stamp_end + 1);
    while (!texts.empty()) {
      const std::size_t stop = texts.find(onset_end);
      const std::string_view text = texts.substr(0, stop);
      if (!text.empty()) out.push_back({onset, duration, detail::to_utf8(text)});
      texts = stop == std::string_view::npos ? std::string_view{} : texts.substr(stop + 1);
    }
    pos = end + 1;
  }
}

}  // namespace

std::vector<edf_annotation> read_edf_annotations(const std::filesystem::path& path) {
  const mapped_file file(path);
  const std::string name = path.string();
  const edf_header header = detail::parse_edf_header(file.view(), name);
  std::vector<edf_annotation> out;
  // Without annotation bytes there is nothing to read, however many (empty) records the header counts.
  std::int64_t annotation_samples = 0;
  for (const auto& s : header.signals)
    if (s.annotations) annotation_samples += s.samples_per_record;
  if (annotation_samples == 0) return out;
  const std::int64_t record_bytes = header.record_bytes();
  for (std::int64_t r = 0; r < header.records; ++r) {
    std::int64_t offset = header.header_bytes + r * record_bytes;
    for (const auto& s : header.signals) {
      const std::int64_t bytes = 2 * s.samples_per_record;
      if (s.annotations)
        read_tals(file.view().substr(static_cast<std::size_t>(offset), static_cast<std::size_t>(bytes)),
                  static_cast<std::size_t>(offset), name, out);
      offset += bytes;
    }
  }
  return out;
}

}  // namespace zeroflow::io
