// WFDB annotation files in MIT format: a stream of 16-bit little-endian words, each a 6-bit
// annotation code and a 10-bit sample interval, with escape codes for long intervals (SKIP) and
// for fields of the annotation before (NUM, SUB, CHN, AUX). Beats, rhythm changes and
// ventricular flutter episodes are kept.
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>

#include "wfdb_annotation_codes.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/labels.hpp"
#include "zeroflow/io/mapped_file.hpp"

namespace zeroflow::io {

namespace {

// MIT-BIH symbols of the WFDB annotation codes (WFDB's ecgcodes.h); "" for unused codes.
constexpr std::array<std::string_view, 42> symbols = {" ", "N", "L",  "R", "a", "V", "F", "J", "A", "S",  // 0-9
                                                      "E", "j", "/",  "Q", "~", "",  "|", "",  "s", "T",  // 10-19
                                                      "*", "D", "\"", "=", "p", "B", "^", "t", "+", "u",  // 20-29
                                                      "?", "!", "[",  "]", "e", "n", "@", "x", "f", "(",  // 30-39
                                                      ")", "r"};                                          // 40-41

// Codes that mark a QRS complex (WFDB's isqrs): the beats. Rhythm, noise, waves and comments are not.
constexpr bool is_beat(unsigned code) {
  return (code >= 1 && code <= 13) || code == 25 || code == 30 || code == 34 || code == 35 || code == 38 || code == 41;
}

constexpr unsigned flutter_on_code = 32, flutter_off_code = 33;
constexpr unsigned last_annotation_code = 49;  // WFDB's ACMAX
constexpr unsigned note_code = 22;
constexpr unsigned rhythm_code = 28, num_code = 60, sub_code = 61, chn_code = 62;
using detail::aux_code;
using detail::skip_code;

}  // namespace

beat_labels read_wfdb_annotations(const std::filesystem::path& path) {
  const mapped_file file(path, access_pattern::sequential);
  const auto* bytes = reinterpret_cast<const unsigned char*>(file.data());
  const std::size_t size = file.size();
  const std::string name = path.string();
  const auto word_at = [&](std::size_t offset) -> unsigned {
    if (offset + 2 > size)
      ZF_THROW(parse_error, name, ": byte ", offset, ": the file ends inside an annotation (", size,
               " bytes); is it truncated, or not a WFDB annotation file in MIT format?");
    return static_cast<unsigned>(bytes[offset] | (bytes[offset + 1] << 8));
  };

  beat_labels out;
  std::int64_t sample = 0;
  std::size_t offset = 0;
  bool rhythm_before = false;      // the annotation before was a rhythm change (its text follows)
  bool note_before = false;        // the annotation before was a note (its text may state the time unit)
  std::int64_t flutter_from = -1;  // the sample of an open `[` (ventricular flutter's onset)
  bool ended = false;              // the end-of-file marker was read
  while (offset < size) {
    const std::size_t at = offset;
    const unsigned word = word_at(offset);
    offset += 2;
    const unsigned code = word >> 10, interval = word & 0x3FFu;
    if (word == 0) {
      ended = true;  // the end-of-file marker
      break;
    }
    // Codes 50-58 are neither annotations (1-49) nor escapes (59-63): not MIT format.
    if (code > last_annotation_code && code < skip_code)
      ZF_THROW(parse_error, name, ": byte ", at, ": ", code, " is no MIT annotation code; is this a WFDB annotation ",
               "file in MIT format (e.g. 100.atr), or a labels CSV with the header sample,symbol?");
    switch (code) {
      case skip_code: {
        // A 32-bit signed interval follows, high 16-bit word first (PDP-11 order).
        const unsigned high = word_at(offset), low = word_at(offset + 2);
        offset += 4;
        sample += static_cast<std::int32_t>((high << 16) | low);
        continue;
      }
      case num_code:
      case sub_code:
      case chn_code:
        continue;  // fields of the annotation before
      case aux_code: {
        if (offset + interval > size)
          ZF_THROW(parse_error, name, ": byte ", at, ": the file ends inside an annotation's text; is it truncated?");
        if (note_before) {
          // WFDB's statement of the annotations' time unit (wfdb-python's wrann, zeroflow's beats.atr).
          constexpr std::string_view prefix = "## time resolution:";
          std::string_view text(reinterpret_cast<const char*>(bytes + offset), interval);
          while (!text.empty() && text.back() == '\0') text.remove_suffix(1);
          if (text.substr(0, prefix.size()) == prefix) {
            const std::string number(text.substr(prefix.size()));
            char* end = nullptr;
            const double hz = std::strtod(number.c_str(), &end);
            if (end == number.c_str() || !(hz > 0) || !std::isfinite(hz))
              ZF_THROW(parse_error, name, ": byte ", at, ": the time resolution '", number, "' is not a rate in Hz");
            out.time_resolution = hz;
          }
          note_before = false;
        }
        if (rhythm_before) {
          std::string_view text(reinterpret_cast<const char*>(bytes + offset), interval);
          while (!text.empty() && text.back() == '\0') text.remove_suffix(1);  // MIT-BIH pads with NUL
          if (!text.empty() && text.front() == '(') text.remove_prefix(1);
          out.rhythm.push_back({sample, std::string(text)});
          rhythm_before = false;
        }
        offset += interval + (interval & 1u);
        continue;  // a string padded to even length
      }
      default:
        break;
    }
    sample += interval;
    rhythm_before = code == rhythm_code;
    note_before = code == note_code;
    if (code == flutter_on_code && flutter_from < 0) flutter_from = sample;
    if (code == flutter_off_code && flutter_from >= 0) {
      out.ventricular_flutter.emplace_back(flutter_from, sample);
      flutter_from = -1;
    }
    if (code >= symbols.size() || !is_beat(code)) continue;
    const std::string_view symbol = symbols[code];
    const char aami = aami_class_of(symbol);
    // Writers put notes before the start (wfdb-python's time resolution at sample -1); a beat there
    // is no beat of the recording, as the CSV reader says of a negative sample.
    if (sample < 0)
      ZF_THROW(parse_error, name, ": byte ", at, ": a beat (", symbol, ") at sample ", sample,
               ", before the recording's start; a sample index is a whole number >= 0");
    if (!out.samples.empty() && sample <= out.samples.back()) {
      // Several channels may annotate one beat: one beat when they agree on its class (labels.hpp).
      if (sample == out.samples.back() && aami == out.classes.back()) continue;
      if (sample == out.samples.back())
        ZF_THROW(parse_error, name, ": byte ", at, ": two beats of different classes at sample ", sample, " (",
                 out.symbols.back(), " and ", symbol, "); keep one annotation per beat");
      ZF_THROW(parse_error, name, ": byte ", at, ": beat annotations go back in time (sample ", sample,
               " after sample ", out.samples.back(), ")");
    }
    out.samples.push_back(sample);
    out.symbols.emplace_back(symbol);
    out.classes.push_back(aami);
  }
  if (offset > size)
    ZF_THROW(parse_error, name, ": byte ", size, ": the file ends inside an annotation's text; is it truncated?");
  if (!ended)
    ZF_THROW(parse_error, name, ": byte ", size, ": no end-of-file marker (a zero word); is it truncated, or not a ",
             "WFDB annotation file in MIT format?");
  // The zero word ends the file: anything after it that is not padding says the structure only
  // happened to parse (another binary file's first bytes can read as a few annotations).
  for (std::size_t at = offset; at < size; ++at)
    if (bytes[at] != 0)
      ZF_THROW(parse_error, name, ": byte ", at, ": data after the end-of-file marker (byte ", offset - 2,
               "); is this a WFDB annotation file in MIT format (e.g. 100.atr)?");
  if (flutter_from >= 0) out.ventricular_flutter.emplace_back(flutter_from, std::numeric_limits<std::int64_t>::max());
  if (out.samples.empty())
    ZF_THROW(parse_error, name, ": no beat annotations (", size,
             " bytes); give the record's reference beat annotations, such as 100.atr");
  return out;
}

}  // namespace zeroflow::io
