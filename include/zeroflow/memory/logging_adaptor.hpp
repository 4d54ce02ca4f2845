#pragma once
/// @file logging_adaptor.hpp
/// Writes one CSV line per allocation and deallocation that passes through to an upstream
/// resource, for replaying or plotting memory use. Columns (a header line comes first):
///   time_ns,thread,action,pointer,bytes,stream
/// time_ns: steady-clock nanoseconds since the adaptor was made; thread: a number per thread
/// (std::thread::id as printed); action: allocate, deallocate or allocate_failed;
/// pointer: hex (0x0 for a failure); bytes: as requested; stream: the handle as an integer.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <ostream>

#include "zeroflow/memory/resource.hpp"

namespace zeroflow::memory {

/// Thread-safe: lines from concurrent threads never interleave.
class logging_adaptor final : public resource {
 public:
  /// Logs to a new file at `path` (truncated if it exists).
  /// @throws zeroflow::invalid_argument when `upstream` is null or the file cannot be opened.
  logging_adaptor(resource_ptr upstream, const std::filesystem::path& path);
  /// Logs to `out`; the caller retains ownership of `out` and keeps it alive while this
  /// adaptor (or any array allocated through it) lives.
  /// @throws zeroflow::invalid_argument when `upstream` is null.
  logging_adaptor(resource_ptr upstream, std::ostream& out);

  [[nodiscard]] device where() const override { return upstream_->where(); }
  [[nodiscard]] std::string name() const override { return "logging(" + upstream_->name() + ")"; }
  [[nodiscard]] const resource_ptr& upstream() const { return upstream_; }

  /// Pushes buffered lines to the file or stream.
  void flush();

  /// The header line (without the newline).
  static constexpr const char* header = "time_ns,thread,action,pointer,bytes,stream";

 private:
  void* do_allocate(std::size_t bytes, stream_view stream) override;
  void do_deallocate(void* p, std::size_t bytes, stream_view stream) override;
  void write_line(const char* action, const void* p, std::size_t bytes, stream_view stream);

  resource_ptr upstream_;
  std::ofstream file_;  // used when constructed with a path
  std::ostream* out_;
  std::mutex mutex_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace zeroflow::memory
