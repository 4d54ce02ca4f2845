#include "checks.hpp"

#include <cstring>

#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zeroflow::signal::detail {

void expect_1d(const array& x, const char* what, std::initializer_list<dtype> types) {
  ZF_EXPECTS(x.valid(), what, " is an empty placeholder array (no buffer)");
  ZF_EXPECTS(x.ndim() == 1, what, " must be 1-D, got ", x.ndim(), " dimensions");
  bool ok = false;
  std::string names;
  for (dtype t : types) {
    ok = ok || x.type() == t;
    names += (names.empty() ? "" : " or ") + t.name();
  }
  ZF_EXPECTS(ok, what, " must be ", names, ", got ", x.type().name());
}

void expect_same_device(const array& a, const array& b, const char* what) {
  ZF_EXPECTS(a.where() == b.where(), what, ": arrays on different devices (", a.where().name(), " and ",
             b.where().name(), ")");
}

array host_input(const array& x, stream_view stream) {
  // Pinned or managed memory may still be the target of queued GPU work.
  if (x.where().is_cuda()) synchronize(stream);
  if (x.is_contiguous()) return x;
  array out = empty(x.shape(), x.type(), x.where(), stream);
  const auto item = static_cast<std::int64_t>(x.type().itemsize());
  const auto* src = static_cast<const char*>(x.data());
  auto* dst = static_cast<char*>(out.data());
  const std::int64_t n = x.shape(0), step = x.strides()[0] * item;
  for (std::int64_t i = 0; i < n; ++i) std::memcpy(dst + i * item, src + i * step, static_cast<std::size_t>(item));
  return out;
}

array cuda_input(const array& x, const char* what) {
  ZF_EXPECTS(x.is_contiguous(), what, " on ", x.where().name(),
             " must be contiguous (strided device arrays are not supported yet)");
  return x;
}

}  // namespace zeroflow::signal::detail
