#pragma once
// Internal: gathering a strided array into a C-contiguous block (copy_to's non-contiguous path).
#include <cstdint>
#include <vector>

#include "zeroflow/config.hpp"
#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::memory::detail {

/// A strided view reduced to the fewest dimensions that visit the same bytes in the same (C)
/// order: extent-1 dimensions dropped, neighbours merged where the outer stride equals
/// inner extent × inner stride. Strides are in BYTES here.
struct byte_layout {
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;
  std::int64_t itemsize = 0;
};

/// The collapsed layout of `a` (a 0-d or fully collapsible array gives 0 or 1 dimension).
[[nodiscard]] byte_layout collapse(const array& a);

/// Writes the elements of host-accessible `src` in C order to `dst` (src.nbytes() bytes).
void gather_host(const array& src, void* dst);

#if ZEROFLOW_HAS_CUDA
/// The same on the GPU, queued on `stream`: `src` lives on a CUDA device and `dst` is device
/// memory on that device. Defined in strided_copy.cu.
void gather_device(const array& src, void* dst, stream_view stream);
#endif

}  // namespace zeroflow::memory::detail
