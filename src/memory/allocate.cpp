#include "zeroflow/memory/allocate.hpp"

#include <cstring>

#include "zeroflow/core/error.hpp"

namespace zeroflow {

std::shared_ptr<buffer> allocate_buffer(std::size_t bytes, stream_view stream, memory::resource_ptr mr) {
  ZF_EXPECTS(mr != nullptr, "allocate_buffer needs a resource");
  void* p = mr->allocate(bytes, stream);
  // The release keeps the resource alive, so a buffer may outlive a set_current_resource().
  return buffer::adopt(p, bytes, mr->where(),
                       [mr, stream](void* data, std::size_t n) { mr->deallocate(data, n, stream); });
}

array empty(shape_t shape, dtype type, stream_view stream, memory::resource_ptr mr) {
  std::int64_t n = 1;
  for (auto e : shape) {
    ZF_EXPECTS(e >= 0, "negative extent ", e);
    n *= e;
  }
  ZF_EXPECTS(is_valid(type), "unsupported dtype ", type.name());
  auto bytes = static_cast<std::size_t>(n) * type.itemsize();
  return array(allocate_buffer(bytes, stream, std::move(mr)), type, std::move(shape));
}

array empty(shape_t shape, dtype type, device where, stream_view stream) {
  return empty(std::move(shape), type, stream, memory::current_resource(where));
}

array zeros(shape_t shape, dtype type, device where, stream_view stream) {
  array out = empty(std::move(shape), type, where, stream);
  ZF_EXPECTS(where.host_accessible(), "zeros on ", where.name(), " needs the CUDA build (TODO)");
  std::memset(out.data(), 0, out.nbytes());
  return out;
}

array copy_to(const array& src, device where, stream_view stream) {
  ZF_EXPECTS(src.valid(), "copy_to of an empty array");
  ZF_EXPECTS(src.is_contiguous(), "copy_to needs a contiguous array (TODO strided copies)");
  ZF_EXPECTS(src.where().host_accessible() && where.host_accessible(), "device copies need the CUDA build (TODO)");
  array out = empty(src.shape(), src.type(), where, stream);
  if (src.nbytes() > 0) std::memcpy(out.data(), src.data(), src.nbytes());
  return out;
}

}  // namespace zeroflow
