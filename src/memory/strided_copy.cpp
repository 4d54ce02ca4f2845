#include "strided_copy.hpp"

#include <cstring>

namespace zeroflow::memory::detail {

byte_layout collapse(const array& a) {
  byte_layout out;
  out.itemsize = static_cast<std::int64_t>(a.type().itemsize());
  for (std::size_t d = 0; d < a.shape().size(); ++d) {
    const std::int64_t extent = a.shape()[d];
    if (extent == 1) continue;  // any stride: it is never stepped
    const std::int64_t stride = a.strides()[d] * out.itemsize;
    // Merge into the previous (outer) dimension when stepping it equals stepping this one
    // `extent` times: the pair then walks one arithmetic sequence.
    if (!out.shape.empty() && out.strides.back() == stride * extent) {
      out.shape.back() *= extent;
      out.strides.back() = stride;
      continue;
    }
    out.shape.push_back(extent);
    out.strides.push_back(stride);
  }
  return out;
}

void gather_host(const array& src, void* dst) {
  if (src.size() == 0) return;
  const byte_layout layout = collapse(src);
  const auto item = static_cast<std::size_t>(layout.itemsize);
  const auto* base = static_cast<const char*>(src.data());
  auto* out = static_cast<char*>(dst);
  if (layout.shape.empty()) {  // a single element
    std::memcpy(out, base, item);
    return;
  }
  const std::size_t ndim = layout.shape.size();
  const std::int64_t inner_extent = layout.shape.back();
  const std::int64_t inner_stride = layout.strides.back();
  // An odometer over the outer dimensions; the innermost one is a tight loop (one memcpy when
  // its elements are adjacent).
  const std::int64_t rows = src.size() / inner_extent;
  std::vector<std::int64_t> index(ndim - 1, 0);
  std::int64_t offset = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    const char* row = base + offset;
    if (inner_stride == layout.itemsize) {
      const auto run = static_cast<std::size_t>(inner_extent) * item;
      std::memcpy(out, row, run);
      out += run;
    } else {
      for (std::int64_t i = 0; i < inner_extent; ++i, out += item) std::memcpy(out, row + i * inner_stride, item);
    }
    for (std::size_t d = ndim - 1; d-- > 0;) {
      offset += layout.strides[d];
      if (++index[d] < layout.shape[d]) break;
      offset -= layout.strides[d] * layout.shape[d];
      index[d] = 0;
    }
  }
}

}  // namespace zeroflow::memory::detail
