#pragma once
// Private to the pipeline: the one way its stages hand device values to the host (the beat table,
// a lead's detections, the figures' inputs).
#include <vector>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zeroflow::pipeline::detail {

/// The values of an array of any shape and strides, on any device, in order, in a host vector;
/// returns once they are there.
template <class T>
[[nodiscard]] std::vector<T> to_host_vector(const array& a, stream_view stream) {
  if (!a.valid() || a.size() == 0) return {};
  const array flat = a.is_contiguous() ? a.reshape({a.size()}) : copy_to(a, a.where(), stream).reshape({a.size()});
  const array host = flat.where().host_accessible() ? flat : copy_to(flat, cpu_device, stream);
  synchronize(stream);
  const auto s = host.span<const T>();
  return {s.begin(), s.end()};
}

}  // namespace zeroflow::pipeline::detail
