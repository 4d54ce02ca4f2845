/// @file torch_backend_impl.cpp
/// The LibTorch backend (torch_backend.hpp): the interface's operations on LibTorch.
#include <c10/util/Exception.h>

#include "cuda_allocator_routing.hpp"
#include "torch_backend.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::interop::detail {

namespace {

/// LibTorch's exceptions become zeroflow's at the boundary (their what() carries a C++ stack
/// trace; the message is its first line).
template <class F>
auto translated(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const c10::Error& e) {
    const std::string& text = e.msg();
    ZF_THROW(error, "LibTorch failed: ", text.substr(0, text.find('\n')));
  }
}

class libtorch_backend final : public torch_backend {
 public:
  void route_cuda_allocator(memory::resource_ptr resource) override {
    return translated([&] { return torch_route_cuda_allocator(std::move(resource)); });
  }
  bool cuda_allocator_routed() override {
    return translated([&] { return torch_cuda_allocator_routed(); });
  }
  torch_allocation_counts cuda_allocation_counts() override {
    return translated([&] { return torch_cuda_allocation_counts(); });
  }
};

}  // namespace

}  // namespace zeroflow::interop::detail

/// The module's one exported symbol: the backend, when the caller speaks this interface version.
extern "C" __attribute__((visibility("default"))) zeroflow::interop::detail::torch_backend* zeroflow_torch_backend(
    int version) {
  if (version != zeroflow::interop::detail::torch_backend_version) return nullptr;
  static zeroflow::interop::detail::libtorch_backend backend;
  return &backend;
}
