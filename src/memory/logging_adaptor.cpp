#include "zeroflow/memory/logging_adaptor.hpp"

#include <sstream>
#include <thread>

#include "zeroflow/core/error.hpp"

namespace zeroflow::memory {

logging_adaptor::logging_adaptor(resource_ptr upstream, const std::filesystem::path& path)
    : upstream_{std::move(upstream)}, file_{path, std::ios::out | std::ios::trunc}, out_{&file_} {
  ZF_EXPECTS(upstream_ != nullptr, "logging_adaptor needs an upstream resource");
  ZF_EXPECTS(file_.is_open(), "logging_adaptor cannot open ", path.string(), " for writing");
  *out_ << header << '\n';
  out_->flush();
}

logging_adaptor::logging_adaptor(resource_ptr upstream, std::ostream& out)
    : upstream_{std::move(upstream)}, out_{&out} {
  ZF_EXPECTS(upstream_ != nullptr, "logging_adaptor needs an upstream resource");
  *out_ << header << '\n';
}

void logging_adaptor::flush() {
  std::lock_guard lock(mutex_);
  out_->flush();
}

void logging_adaptor::write_line(const char* action, const void* p, std::size_t bytes, stream_view stream) {
  const auto ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start_).count();
  // Formatted outside the lock; written as one piece so concurrent lines do not interleave.
  std::ostringstream line;
  line << ns << ',' << std::this_thread::get_id() << ',' << action << ",0x" << std::hex
       << reinterpret_cast<std::uintptr_t>(p) << std::dec << ',' << bytes << ',' << stream.as_integer() << '\n';
  const std::string text = line.str();
  std::lock_guard lock(mutex_);
  out_->write(text.data(), static_cast<std::streamsize>(text.size()));
}

void* logging_adaptor::do_allocate(std::size_t bytes, stream_view stream) {
  void* p = nullptr;
  try {
    p = upstream_->allocate(bytes, stream);
  } catch (...) {
    write_line("allocate_failed", nullptr, bytes, stream);
    throw;
  }
  write_line("allocate", p, bytes, stream);
  return p;
}

void logging_adaptor::do_deallocate(void* p, std::size_t bytes, stream_view stream) {
  // Logged before the upstream call, so the line is there even when a release is refused.
  write_line("deallocate", p, bytes, stream);
  upstream_->deallocate(p, bytes, stream);
}

}  // namespace zeroflow::memory
