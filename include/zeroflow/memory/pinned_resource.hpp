#pragma once
/// @file pinned_resource.hpp
/// Page-locked host memory (cudaMallocHost): host code can read and write it, and copies to
/// and from the GPU run asynchronously at full bandwidth.
#include "zeroflow/memory/resource.hpp"

namespace zeroflow::memory {

class pinned_resource final : public resource {
 public:
  /// @throws zeroflow::cuda_error when this build has no CUDA or no GPU is visible.
  pinned_resource();

  [[nodiscard]] device where() const override { return {device_type::cuda_host, 0}; }
  [[nodiscard]] std::string name() const override { return "pinned"; }

 private:
  /// @throws zeroflow::out_of_memory when the driver cannot pin `bytes` more.
  void* do_allocate(std::size_t bytes, stream_view stream) override;
  /// Waits for `stream` first: cudaFreeHost is not stream-ordered, and queued copies may still
  /// read or write the block.
  void do_deallocate(void* p, std::size_t bytes, stream_view stream) override;
};

}  // namespace zeroflow::memory
