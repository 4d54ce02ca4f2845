#pragma once
// The float order shared by the host and CUDA halves of decimate.hpp: numeric order with −0
// before +0. On NaN-free input it is a strict total order on bit patterns, so a min, max or
// largest-magnitude reduction has one answer whatever order the elements are combined in.
#include <cmath>

#include "zeroflow/core/detail/host_device.hpp"

namespace zeroflow::signal::detail::decimate_order {

/// a comes strictly before b.
ZF_HD inline bool before(float a, float b) { return a < b || (a == b && copysignf(1.0f, a) < copysignf(1.0f, b)); }
ZF_HD inline float lower(float a, float b) { return before(b, a) ? b : a; }
ZF_HD inline float upper(float a, float b) { return before(a, b) ? b : a; }
/// The one of larger magnitude; on equal magnitudes the later one in `before` order (+x over −x).
ZF_HD inline float larger_magnitude(float a, float b) {
  const float fa = fabsf(a), fb = fabsf(b);
  return (fa < fb || (fa == fb && before(a, b))) ? b : a;
}

}  // namespace zeroflow::signal::detail::decimate_order
