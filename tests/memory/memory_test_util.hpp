#pragma once
// Helpers shared by the memory tests: moving bytes to and from any kind of memory, a poisoning
// and a call-counting resource, a scoped current-resource swap and scratch file paths.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "zeroflow/config.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/resource.hpp"

#if ZEROFLOW_HAS_CUDA
#include <cuda_runtime_api.h>
#endif

#include <unistd.h>

namespace zf_test {

namespace zf = zeroflow;
namespace zm = zeroflow::memory;

#if ZEROFLOW_HAS_CUDA
#define ZF_TEST_CUDA(call) ASSERT_EQ((call), cudaSuccess) << #call
inline void check_cuda(cudaError_t rc, const char* what) {
  if (rc != cudaSuccess) throw zf::cuda_error(std::string(what) + ": " + cudaGetErrorName(rc));
}
#endif

/// Copies host bytes to `dst` on `where` (any memory), done when this returns.
inline void write_bytes(zf::device where, void* dst, const void* src, std::size_t n, zf::stream_view s = {}) {
  if (n == 0) return;
  if (!where.is_cuda()) {
    std::memcpy(dst, src, n);
    return;
  }
#if ZEROFLOW_HAS_CUDA
  check_cuda(cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, s.value()), "cudaMemcpyAsync");
  check_cuda(cudaStreamSynchronize(s.value()), "cudaStreamSynchronize");
#else
  (void)s;
  throw zf::cuda_error("write_bytes to CUDA memory in a CPU build");
#endif
}

/// Reads `n` bytes at `src` on `where` (any memory) into a host vector.
inline std::vector<unsigned char> read_bytes(zf::device where, const void* src, std::size_t n, zf::stream_view s = {}) {
  std::vector<unsigned char> out(n);
  if (n == 0) return out;
  if (!where.is_cuda()) {
    std::memcpy(out.data(), src, n);
    return out;
  }
#if ZEROFLOW_HAS_CUDA
  check_cuda(cudaMemcpyAsync(out.data(), src, n, cudaMemcpyDefault, s.value()), "cudaMemcpyAsync");
  check_cuda(cudaStreamSynchronize(s.value()), "cudaStreamSynchronize");
#else
  (void)s;
  throw zf::cuda_error("read_bytes from CUDA memory in a CPU build");
#endif
  return out;
}

/// A deterministic byte pattern that differs per `seed`, so a block overwritten by another
/// block's pattern is noticed.
inline std::vector<unsigned char> pattern(std::size_t n, std::uint64_t seed) {
  std::vector<unsigned char> out(n);
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (auto& b : out) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    b = static_cast<unsigned char>(x);
  }
  return out;
}

/// Fills every new block with 0xCD (host or device), so that code which forgets to write an
/// element reads garbage instead of a lucky zero.
class poison_resource final : public zm::resource {
 public:
  static constexpr unsigned char poison = 0xCD;
  explicit poison_resource(zm::resource_ptr upstream) : upstream_{std::move(upstream)} {}
  [[nodiscard]] zf::device where() const override { return upstream_->where(); }
  [[nodiscard]] std::string name() const override { return "poison(" + upstream_->name() + ")"; }

 private:
  void* do_allocate(std::size_t bytes, zf::stream_view stream) override {
    void* p = upstream_->allocate(bytes, stream);
    if (!where().is_cuda()) {
      std::memset(p, poison, bytes);
    } else {
#if ZEROFLOW_HAS_CUDA
      check_cuda(cudaMemsetAsync(p, poison, bytes, stream.value()), "cudaMemsetAsync");
      check_cuda(cudaStreamSynchronize(stream.value()), "cudaStreamSynchronize");
#endif
    }
    return p;
  }
  void do_deallocate(void* p, std::size_t bytes, zf::stream_view stream) override {
    upstream_->deallocate(p, bytes, stream);
  }
  zm::resource_ptr upstream_;
};

/// Forwards to an upstream and counts the calls that reach it.
class counting_resource final : public zm::resource {
 public:
  explicit counting_resource(zm::resource_ptr upstream) : upstream_{std::move(upstream)} {}
  [[nodiscard]] zf::device where() const override { return upstream_->where(); }
  [[nodiscard]] std::string name() const override { return "counting(" + upstream_->name() + ")"; }
  std::atomic<int> allocations{0};
  std::atomic<int> deallocations{0};

 private:
  void* do_allocate(std::size_t bytes, zf::stream_view stream) override {
    ++allocations;
    return upstream_->allocate(bytes, stream);
  }
  void do_deallocate(void* p, std::size_t bytes, zf::stream_view stream) override {
    ++deallocations;
    upstream_->deallocate(p, bytes, stream);
  }
  zm::resource_ptr upstream_;
};

/// Makes `r` the current resource of its device for a scope, then puts the previous one back.
class scoped_current_resource {
 public:
  explicit scoped_current_resource(zm::resource_ptr r) {
    (void)zm::current_resource(r->where());  // materialise the default, so there is one to restore
    previous_ = zm::set_current_resource(std::move(r));
  }
  scoped_current_resource(const scoped_current_resource&) = delete;
  scoped_current_resource& operator=(const scoped_current_resource&) = delete;
  ~scoped_current_resource() { zm::set_current_resource(previous_); }

 private:
  zm::resource_ptr previous_;
};

/// A stream other than the legacy default: a real non-blocking stream when a GPU is here
/// (stream-ordered memory must then be used through that very stream), else the per-thread
/// default handle, which host resources must accept and ignore.
class test_stream {
 public:
  test_stream() {
#if ZEROFLOW_HAS_CUDA
    if (zf::cuda_available()) {
      check_cuda(cudaStreamCreateWithFlags(&handle_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
      view_ = zf::stream_view{handle_};
    }
#endif
  }
  test_stream(const test_stream&) = delete;
  test_stream& operator=(const test_stream&) = delete;
  ~test_stream() {
#if ZEROFLOW_HAS_CUDA
    if (handle_ != nullptr) (void)cudaStreamDestroy(handle_);
#endif
  }
  [[nodiscard]] zf::stream_view view() const { return view_; }

 private:
#if ZEROFLOW_HAS_CUDA
  cudaStream_t handle_ = nullptr;
#endif
  zf::stream_view view_ = zf::stream_view::per_thread();
};

/// A file path in the test scratch folder ($ZEROFLOW_TEST_TMP, else the system temp folder),
/// unique to this process.
inline std::filesystem::path scratch_path(const std::string& name) {
  const char* env = std::getenv("ZEROFLOW_TEST_TMP");
  std::filesystem::path dir = env && *env ? std::filesystem::path(env) : std::filesystem::temp_directory_path();
  std::filesystem::create_directories(dir);
  return dir / ("zeroflow_memory_" + std::to_string(::getpid()) + "_" + name);
}

}  // namespace zf_test
