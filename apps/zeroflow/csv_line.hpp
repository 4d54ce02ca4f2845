#pragma once
// CSV cells that zeroflow writes (runs.csv): a quoted cell may hold commas and doubled quotes
// (io::split_csv_row reads them back).
#include <string>
#include <string_view>
#include <vector>

namespace zeroflow::cli {

/// First characters that make a spreadsheet run a cell as a formula (CSV injection): such a cell
/// is written with a leading apostrophe, and read back without it.
inline constexpr std::string_view formula_starts = "=+-@\t\r";

/// `text` as one CSV cell: guarded against formulas, quoted when it holds a comma, quote or newline.
inline std::string csv_field(std::string_view text) {
  const bool formula = !text.empty() && formula_starts.find(text.front()) != std::string_view::npos;
  const std::string safe = formula ? "'" + std::string(text) : std::string(text);
  if (safe.find_first_of(",\"\n\r") == std::string::npos) return safe;
  std::string quoted = "\"";
  for (char ch : safe) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return quoted + "\"";
}

/// A cell that csv_field wrote, with its formula guard removed.
inline std::string unguarded_cell(std::string cell) {
  if (cell.size() > 1 && cell.front() == '\'' && formula_starts.find(cell[1]) != std::string_view::npos)
    cell.erase(0, 1);
  return cell;
}

}  // namespace zeroflow::cli
