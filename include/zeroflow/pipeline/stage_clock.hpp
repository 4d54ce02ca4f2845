#pragma once
/// @file stage_clock.hpp
/// The pipelines' stage clock: times each stage of a run into a list of stage_time (summary.json's
/// `stages_ms`), and tells a person about the stages as they run.
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "zeroflow/core/stream.hpp"
#include "zeroflow/pipeline/run_types.hpp"

namespace zeroflow::pipeline {

/// What a stage clock tells its progress callback.
enum class stage_lines {
  starts,  ///< "load..." as each stage begins (`zeroflow run`)
  times,   ///< "read: 12.3 ms" as each stage ends (`zeroflow timeseries`)
};

/// Times stages into `stages`. The stream is synchronised at the end of each stage, so that a
/// stage's GPU work is counted in that stage and not in a later one that waits for it.
class stage_clock {
 public:
  using clock = std::chrono::steady_clock;

  /// @param stages where each finished stage is appended; must outlive the clock.
  /// @param stream the stream the stages queue their work on.
  /// @param progress called with one line per stage (see `lines`); may be empty.
  stage_clock(std::vector<stage_time>& stages, stream_view stream, std::function<void(const std::string&)> progress,
              stage_lines lines = stage_lines::starts)
      : stages_{stages}, stream_{stream}, progress_{std::move(progress)}, lines_{lines} {}

  /// Runs `fn` as the stage `name`; returns what it returns.
  template <class Fn>
  decltype(auto) operator()(const char* name, Fn&& fn) {
    return (*this)(name, clock::now(), std::forward<Fn>(fn));
  }

  /// A stage whose first part already ran, from `start` (work that had to come first).
  template <class Fn>
  decltype(auto) operator()(const char* name, clock::time_point start, Fn&& fn) {
    const std::int64_t copied_before = begin(name);
    if constexpr (std::is_void_v<decltype(fn())>) {
      fn();
      end(name, start, copied_before);
    } else {
      decltype(auto) value = fn();
      end(name, start, copied_before);
      return value;
    }
  }

 private:
  /// Says the stage starts (stage_lines::starts); returns the device-to-host bytes so far.
  std::int64_t begin(const char* name);
  /// Synchronises, records the stage and says its time (stage_lines::times).
  void end(const char* name, clock::time_point start, std::int64_t copied_before);

  std::vector<stage_time>& stages_;
  stream_view stream_;
  std::function<void(const std::string&)> progress_;
  stage_lines lines_;
};

}  // namespace zeroflow::pipeline
