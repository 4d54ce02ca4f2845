// The GPU side of copy_to for non-contiguous device arrays: one thread per element (grid-stride),
// each decoding its C-order index into a byte offset and copying the element in the widest
// word that every address allows.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "strided_copy.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::memory::detail {

namespace {

constexpr int max_dims = 16;  // after collapsing; passed by value as a kernel argument

struct gather_params {
  std::int64_t shape[max_dims];
  std::int64_t strides[max_dims];  // bytes
  int ndim;
  std::int64_t count;           // elements
  std::int64_t words_per_item;  // itemsize / sizeof(Word)
};

struct alignas(16) word16 {
  std::uint64_t low, high;
};

template <class Word>
__global__ void gather_kernel(const char* __restrict__ src, Word* __restrict__ dst, gather_params p) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < p.count; i += step) {
    std::int64_t rest = i;
    std::int64_t offset = 0;
    for (int d = p.ndim - 1; d >= 0; --d) {
      const std::int64_t extent = p.shape[d];
      offset += (rest % extent) * p.strides[d];
      rest /= extent;
    }
    const auto* from = reinterpret_cast<const Word*>(src + offset);
    Word* to = dst + i * p.words_per_item;
    for (std::int64_t w = 0; w < p.words_per_item; ++w) to[w] = from[w];
  }
}

template <class Word>
void launch(const char* src, void* dst, gather_params p, std::int64_t itemsize, cudaStream_t stream) {
  p.words_per_item = itemsize / static_cast<std::int64_t>(sizeof(Word));
  constexpr int threads = 256;
  // Enough blocks to fill any current GPU; the grid-stride loop covers the rest.
  const std::int64_t wanted = (p.count + threads - 1) / threads;
  const int blocks = static_cast<int>(wanted < 65535 ? wanted : 65535);
  gather_kernel<Word><<<blocks, threads, 0, stream>>>(src, static_cast<Word*>(dst), p);
  ZF_CUDA_TRY(cudaGetLastError());
}

}  // namespace

void gather_device(const array& src, void* dst, stream_view stream) {
  if (src.size() == 0) return;
  const byte_layout layout = collapse(src);
  ZF_EXPECTS(layout.shape.size() <= static_cast<std::size_t>(max_dims), "copy_to: a strided device array with ",
             layout.shape.size(), " non-mergeable dimensions (at most ", max_dims, " supported)");
  gather_params p{};
  p.ndim = static_cast<int>(layout.shape.size());
  p.count = src.size();
  for (int d = 0; d < p.ndim; ++d) {
    p.shape[d] = layout.shape[static_cast<std::size_t>(d)];
    p.strides[d] = layout.strides[static_cast<std::size_t>(d)];
  }
  // The widest word that divides the item size, both base addresses and every stride, so each
  // access is aligned (DLPack producers may hand over oddly offset views).
  auto bits = static_cast<std::uint64_t>(layout.itemsize) | reinterpret_cast<std::uintptr_t>(src.data()) |
              reinterpret_cast<std::uintptr_t>(dst);
  for (auto s : layout.strides) bits |= static_cast<std::uint64_t>(s < 0 ? -s : s);
  std::int64_t word = 16;
  while (word > 1 && (bits % static_cast<std::uint64_t>(word)) != 0) word /= 2;

  ::zeroflow::detail::cuda_device_guard guard(src.where().id);
  const auto* base = static_cast<const char*>(src.data());
  cudaStream_t s = stream.value();
  switch (word) {
    case 16:
      launch<word16>(base, dst, p, layout.itemsize, s);
      break;
    case 8:
      launch<std::uint64_t>(base, dst, p, layout.itemsize, s);
      break;
    case 4:
      launch<std::uint32_t>(base, dst, p, layout.itemsize, s);
      break;
    case 2:
      launch<std::uint16_t>(base, dst, p, layout.itemsize, s);
      break;
    default:
      launch<std::uint8_t>(base, dst, p, layout.itemsize, s);
      break;
  }
}

}  // namespace zeroflow::memory::detail
