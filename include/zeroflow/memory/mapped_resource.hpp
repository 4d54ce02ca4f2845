#pragma once
/// @file mapped_resource.hpp
/// Page-locked host memory mapped into the GPUs' address space (cudaHostAlloc with
/// cudaHostAllocMapped | cudaHostAllocPortable): host code reads and writes it like any pinned
/// memory, and GPU kernels read and write it in place, each access crossing the bus. For data a
/// GPU needs but that does not fit its memory (or a budget of it), read a few times: kernels see
/// it through mapped_device_view, without a device copy.
#include "zeroflow/core/array.hpp"
#include "zeroflow/memory/resource.hpp"

namespace zeroflow::memory {

class mapped_resource final : public resource {
 public:
  /// @param device_id the GPU whose context allocates the memory (CUDA's pointer attributes name
  ///        it); the memory is mapped into every GPU's address space all the same.
  /// @throws zeroflow::cuda_error when this build has no CUDA, no GPU is visible or `device_id`
  ///         does not exist.
  explicit mapped_resource(int device_id = 0);

  [[nodiscard]] device where() const override { return {device_type::cuda_host, 0}; }
  [[nodiscard]] std::string name() const override { return "mapped"; }
  [[nodiscard]] int device_id() const { return device_id_; }

 private:
  /// @throws zeroflow::out_of_memory when the driver cannot page-lock `bytes` more.
  void* do_allocate(std::size_t bytes, stream_view stream) override;
  /// Waits for `stream` first: cudaFreeHost is not stream-ordered, and queued kernels or copies
  /// may still read or write the block.
  void do_deallocate(void* p, std::size_t bytes, stream_view stream) override;

  int device_id_;
};

/// @brief The elements of `mapped` as GPU `gpu` sees them: an array on `gpu` (so that LibTorch
/// and zeroflow's kernels take it as device memory) over the same host bytes, read and written in
/// place across the bus; nothing is copied. The view keeps `mapped`'s buffer alive; like any
/// array's, that buffer goes back to its resource only after work queued on the stream it was
/// allocated on, so work on other streams that reads through the view must be finished first.
/// @param mapped an array of page-locked host memory mapped into the GPUs' address space: from a
///        mapped_resource (on systems with unified addressing, any pinned_resource memory is too)
/// @param gpu a CUDA device
/// @throws zeroflow::invalid_argument when `mapped` is not such memory (pageable host memory, or
///         device memory) or `gpu` is not a CUDA device; zeroflow::cuda_error without a GPU.
[[nodiscard]] array mapped_device_view(const array& mapped, device gpu);

}  // namespace zeroflow::memory
