#include <cctype>
#include <cmath>
#include <string>

#include "zeroflow/core/error.hpp"
#include "zeroflow/pipeline/chunked.hpp"

namespace zeroflow::pipeline {

std::int64_t parse_byte_size(const std::string& text) {
  const auto refuse = [&]() -> std::int64_t {
    ZF_THROW(invalid_argument, "cannot read \"", text,
             "\" as a number of bytes; write it as 2G, 512M, 1.5G, 64MiB or 100000000 (K, M, G, T are powers of "
             "1024)");
  };
  std::size_t end = 0;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) ++end;
  if (end == 0) return refuse();
  double value = 0;
  try {
    std::size_t used = 0;
    value = std::stod(text.substr(0, end), &used);
    if (used != end) return refuse();
  } catch (const std::exception&) {
    return refuse();
  }
  std::string suffix;
  for (std::size_t i = end; i < text.size(); ++i)
    suffix += static_cast<char>(std::toupper(static_cast<unsigned char>(text[i])));
  double scale = 1;
  if (!suffix.empty() && suffix != "B") {
    const char unit = suffix[0];
    const std::string rest = suffix.substr(1);
    if (rest != "" && rest != "B" && rest != "IB") return refuse();
    switch (unit) {
      case 'K':
        scale = 1024.0;
        break;
      case 'M':
        scale = 1024.0 * 1024;
        break;
      case 'G':
        scale = 1024.0 * 1024 * 1024;
        break;
      case 'T':
        scale = 1024.0 * 1024 * 1024 * 1024;
        break;
      default:
        return refuse();
    }
  }
  const double bytes = std::floor(value * scale);
  // Below 2^62: far more than any device holds, and exact in a double.
  if (!std::isfinite(bytes) || bytes > 4.6e18) return refuse();
  return static_cast<std::int64_t>(bytes);
}

}  // namespace zeroflow::pipeline
