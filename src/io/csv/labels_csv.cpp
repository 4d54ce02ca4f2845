#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstddef>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zeroflow/core/error.hpp"
#include "zeroflow/io/labels.hpp"
#include "zeroflow/io/text_lines.hpp"

namespace zeroflow::io {
namespace {

constexpr std::string_view accepted_headers = "'sample,label', 'sample,symbol' or 'sample,symbol,aami'";

/// Quotes text for an error message, cut short when long.
std::string shown(std::string_view text) {
  constexpr std::size_t max_shown = 60;
  std::string out = "'";
  out += text.substr(0, max_shown);
  if (text.size() > max_shown) out += "...";
  return out + "'";
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// Splits one CSV line into trimmed cells; a cell in double quotes may hold commas and doubled
/// quotes (the MIT-BIH comment annotation is the symbol `"`). Empty when a quote is left open.
std::optional<std::vector<std::string>> cells_of(std::string_view line) {
  std::vector<std::string> cells;
  std::size_t i = 0;
  while (true) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::string cell;
    if (i < line.size() && line[i] == '"') {
      for (++i;; ++i) {
        if (i >= line.size()) return std::nullopt;
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            cell += '"';
            ++i;
          } else {
            ++i;
            break;
          }
        } else {
          cell += line[i];
        }
      }
      const std::size_t comma = line.find(',', i);
      if (!trimmed(line.substr(i, comma == std::string_view::npos ? line.size() - i : comma - i)).empty())
        return std::nullopt;  // text after the closing quote
      i = comma;
    } else {
      const std::size_t comma = line.find(',', i);
      cell = trimmed(line.substr(i, comma == std::string_view::npos ? line.size() - i : comma - i));
      i = comma;
    }
    cells.push_back(std::move(cell));
    if (i == std::string_view::npos) return cells;
    ++i;  // past the comma
  }
}

/// Where each column of the header is; npos when absent.
struct layout {
  std::size_t columns = 0;
  std::size_t sample = std::string::npos, symbol = std::string::npos, aami = std::string::npos;
};

layout layout_of(const std::vector<std::string>& header, std::string_view line, const std::string& name) {
  layout l;
  l.columns = header.size();
  bool ok = true;
  for (std::size_t c = 0; c < header.size(); ++c) {
    const std::string column = lowercase(header[c]);
    std::size_t* slot = column == "sample"                        ? &l.sample
                        : column == "label" || column == "symbol" ? &l.symbol
                        : column == "aami"                        ? &l.aami
                                                                  : nullptr;
    if (slot == nullptr || *slot != std::string::npos) {
      ok = false;
      break;
    }
    *slot = c;
  }
  if (!ok || l.sample == std::string::npos || l.symbol == std::string::npos)
    ZF_THROW(parse_error, name, ":1: expected the header ", accepted_headers, ", got ", shown(line),
             "; the first line of a labels file names its columns");
  return l;
}

/// The AAMI class of a row, or 0 when the row is no beat. An `aami` cell that names a class
/// wins; an empty one leaves the class to the symbol.
char class_of_row(const std::vector<std::string>& cells, const layout& l, const std::string& where,
                  std::string_view line) {
  const std::string symbol = l.symbol < cells.size() ? cells[l.symbol] : std::string{};
  if (is_non_beat_annotation(symbol)) return 0;  // rhythm, noise, waves, comments
  const char from_symbol = aami_class_of(symbol);
  if (l.aami == std::string::npos || l.aami >= cells.size() || cells[l.aami].empty()) {
    // Dropped quietly, an unknown symbol would lose its beat from every count (labels.hpp).
    if (from_symbol == 0)
      ZF_THROW(parse_error, where, ": unknown beat symbol ", shown(symbol), " in ", shown(line),
               "; expected an MIT-BIH beat symbol (N L R e j A a J S V E F / f Q B ? n r), an AAMI class (N S V F "
               "Q) or an annotation of no beat (+ ~ | ...): map yours to one of them");
    return from_symbol;
  }
  const std::string& aami = cells[l.aami];
  if (aami.size() == 1 && std::string_view("NSVFQ").find(aami.front()) != std::string_view::npos) return aami.front();
  ZF_THROW(parse_error, where, ": the aami column holds ", shown(aami), " for the beat ", shown(symbol), " in ",
           shown(line), "; expected one of N, S, V, F, Q (or leave it empty to map the symbol)");
}

}  // namespace

beat_labels read_labels_csv(const std::filesystem::path& path) {
  const std::string name = path.string();
  std::ifstream in(path, std::ios::binary);
  if (!in) ZF_THROW(error, "cannot open labels file '", name, "': check the path and its permissions");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) ZF_THROW(error, "cannot read labels file '", name, "'");

  beat_labels out;
  std::optional<layout> columns;
  for (const auto& [line_number, line] : text_lines(text)) {
    if (trimmed(line).empty()) continue;
    const std::string where = name + ':' + std::to_string(line_number);
    const auto cells = cells_of(line);
    if (!columns) {
      if (!cells) ZF_THROW(parse_error, where, ": expected the header ", accepted_headers, ", got ", shown(line));
      columns = layout_of(*cells, line, name);
      continue;
    }
    if (!cells) ZF_THROW(parse_error, where, ": a quote is not closed in ", shown(line));
    // Whether the row is a beat is decided first: rhythm, noise and comment rows are skipped
    // whatever else they hold.
    const char aami = class_of_row(*cells, *columns, where, line);
    if (aami == 0) continue;
    if (cells->size() != columns->columns)
      ZF_THROW(parse_error, where, ": expected ", columns->columns, " fields as in the header, got ", cells->size(),
               " in ", shown(line));
    const std::string& cell = (*cells)[columns->sample];
    std::int64_t sample = -1;
    const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), sample);
    if (ec != std::errc{} || end != cell.data() + cell.size() || cell.empty() || sample < 0)
      ZF_THROW(parse_error, where, ": the sample ", shown(cell), " is not a whole number >= 0 in ", shown(line),
               "; the sample column holds each beat's R-peak as a sample index");
    if (!out.samples.empty() && sample == out.samples.back()) {
      // Several channels may annotate one beat: one beat when they agree on its class (labels.hpp).
      if (aami == out.classes.back()) continue;
      ZF_THROW(parse_error, where, ": two beats of different classes at sample ", sample, " (",
               shown(out.symbols.back()), " and ", shown((*cells)[columns->symbol]), "); keep one row per beat");
    }
    if (!out.samples.empty() && sample < out.samples.back())
      ZF_THROW(parse_error, where, ": beat samples must increase, but ", sample, " follows ", out.samples.back(),
               "; sort the rows by sample and keep one beat per sample");
    out.samples.push_back(sample);
    out.symbols.push_back((*cells)[columns->symbol]);
    out.classes.push_back(aami);
  }
  if (!columns)
    ZF_THROW(parse_error, name, ":1: the file is empty; expected the header ", accepted_headers,
             " and one row per beat");
  if (out.samples.empty())
    ZF_THROW(parse_error, name,
             ": no beats: no row names a beat (rows of rhythm, noise or comments only, or none); "
             "expected one row per beat");
  return out;
}

}  // namespace zeroflow::io
