#include "atomic_file.hpp"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <random>
#include <string>
#include <system_error>

#include "zeroflow/core/error.hpp"

namespace zeroflow::synth::detail {
namespace {

std::string errno_message(int code) { return std::generic_category().message(code); }

/// A name no other writer (thread or process) picks at the same time.
std::string unique_suffix() {
  static const std::uint64_t process_token = [] {
    std::random_device device;
    return (static_cast<std::uint64_t>(device()) << 32) ^ device();
  }();
  static std::atomic<std::uint64_t> counter{0};
  return std::to_string(process_token) + "." + std::to_string(counter.fetch_add(1));
}

}  // namespace

atomic_file::atomic_file(std::filesystem::path destination) : destination_(std::move(destination)) {
  ZF_EXPECTS(!destination_.filename().empty(), "cannot write to '", destination_.string(), "': no file name");
  // Built by appending: GCC 12 warns falsely (-Wrestrict) on "." + std::string.
  std::string name(1, '.');
  name += destination_.filename().string();
  name += ".tmp.";
  name += unique_suffix();
  temporary_ = destination_.parent_path() / name;
  file_ = std::fopen(temporary_.c_str(), "wb");
  if (file_ == nullptr) {
    const int code = errno;
    ZF_THROW(error, "cannot create '", temporary_.string(), "' to write '", destination_.string(),
             "': ", errno_message(code));
  }
}

atomic_file::~atomic_file() {
  if (file_ != nullptr) std::fclose(file_);
  if (!committed_) {
    std::error_code ignored;
    std::filesystem::remove(temporary_, ignored);
  }
}

void atomic_file::write(std::string_view bytes) {
  ZF_EXPECTS(file_ != nullptr, "atomic_file::write after commit");
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
    const int code = errno;
    ZF_THROW(error, "cannot write '", temporary_.string(), "': ", errno_message(code));
  }
}

void atomic_file::commit() {
  ZF_EXPECTS(file_ != nullptr, "atomic_file::commit called twice");
  std::FILE* file = file_;
  file_ = nullptr;
  // fclose flushes; a full disk often only shows here.
  const bool failed = std::ferror(file) != 0;
  if (std::fclose(file) != 0 || failed) {
    const int code = errno;
    ZF_THROW(error, "cannot write '", temporary_.string(), "': ", errno_message(code));
  }
  std::error_code ec;
  std::filesystem::rename(temporary_, destination_, ec);
  if (ec) ZF_THROW(error, "cannot rename '", temporary_.string(), "' to '", destination_.string(), "': ", ec.message());
  committed_ = true;
}

}  // namespace zeroflow::synth::detail
