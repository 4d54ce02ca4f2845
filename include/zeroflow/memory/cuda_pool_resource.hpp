#pragma once
/// @file cuda_pool_resource.hpp
/// Device memory from a stream-ordered CUDA memory pool (cudaMallocFromPoolAsync /
/// cudaFreeAsync) that this resource creates for one GPU. Freed blocks stay in the pool up to a
/// release threshold, so steady-state allocation costs no driver call. The pool handle is
/// exposed so that frameworks (PyTorch, CuPy, Numba) can allocate from the same pool.
#include <cstdint>
#include <limits>

#include "zeroflow/memory/resource.hpp"

struct CUmemPoolHandle_st;  // cudaMemPool_t is CUmemPoolHandle_st*; CPU builds need no CUDA header

namespace zeroflow::memory {

class cuda_pool_resource final : public resource {
 public:
  using pool_handle = CUmemPoolHandle_st*;

  /// Keep every freed byte in the pool (never trim it back to the driver on synchronisation).
  static constexpr std::uint64_t keep_all = std::numeric_limits<std::uint64_t>::max();

  /// Creates a pool on GPU `device_id`.
  /// @param device_id the GPU whose memory the pool hands out.
  /// @param release_threshold bytes of freed memory the pool keeps reserved when a stream,
  ///        event or device synchronises (cudaMemPoolAttrReleaseThreshold); the rest goes back.
  /// @throws zeroflow::cuda_error when this build has no CUDA, no GPU is visible, `device_id`
  ///         does not exist or the device does not support memory pools.
  explicit cuda_pool_resource(int device_id = 0, std::uint64_t release_threshold = keep_all);
  /// Destroys the pool; blocks still allocated are released by the driver once freed.
  ~cuda_pool_resource() override;
  cuda_pool_resource(const cuda_pool_resource&) = delete;
  cuda_pool_resource& operator=(const cuda_pool_resource&) = delete;

  [[nodiscard]] device where() const override { return cuda_device(device_id_); }
  [[nodiscard]] std::string name() const override { return "cuda_pool"; }

  /// The cudaMemPool_t this resource allocates from (owned by the resource; do not destroy it).
  [[nodiscard]] pool_handle pool() const { return pool_; }
  [[nodiscard]] int device_id() const { return device_id_; }
  [[nodiscard]] std::uint64_t release_threshold() const { return release_threshold_; }
  /// Bytes the pool holds from the driver now (allocated plus cached free blocks).
  /// @throws zeroflow::cuda_error when the query fails.
  [[nodiscard]] std::uint64_t reserved_bytes() const;

 private:
  /// @throws zeroflow::out_of_memory when the pool cannot grow by `bytes`.
  void* do_allocate(std::size_t bytes, stream_view stream) override;
  void do_deallocate(void* p, std::size_t bytes, stream_view stream) override;

  pool_handle pool_ = nullptr;
  int device_id_ = 0;
  std::uint64_t release_threshold_ = keep_all;
};

}  // namespace zeroflow::memory
