#include <chrono>
#include <cstdio>

#include "commands.hpp"

namespace zeroflow::cli {

void progress(const std::string& line) {
  static const auto start = std::chrono::steady_clock::now();
  const std::chrono::duration<double> t = std::chrono::steady_clock::now() - start;
  std::fprintf(stderr, "[%7.2f s] %s\n", t.count(), line.c_str());
}

}  // namespace zeroflow::cli
