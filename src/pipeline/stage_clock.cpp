#include "zeroflow/pipeline/stage_clock.hpp"

#include <cstdio>

#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/transfers.hpp"

namespace zeroflow::pipeline {

std::int64_t stage_clock::begin(const char* name) {
  if (progress_ && lines_ == stage_lines::starts) progress_(std::string(name) + "...");
  return device_to_host_transfers().bytes;
}

void stage_clock::end(const char* name, clock::time_point start, std::int64_t copied_before) {
  synchronize(stream_);
  const std::chrono::duration<double, std::milli> took = clock::now() - start;
  stages_.push_back({name, took.count(), device_to_host_transfers().bytes - copied_before});
  if (progress_ && lines_ == stage_lines::times) {
    char line[96];
    std::snprintf(line, sizeof line, "%s: %.1f ms", name, took.count());
    progress_(line);
  }
}

}  // namespace zeroflow::pipeline
