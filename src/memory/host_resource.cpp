#include "zeroflow/memory/host_resource.hpp"

#include <new>

#include "zeroflow/core/error.hpp"

namespace zeroflow::memory {

namespace {
constexpr std::align_val_t host_alignment{256};
}

void* host_resource::do_allocate(std::size_t bytes, stream_view) {
  void* p = ::operator new(bytes, host_alignment, std::nothrow);
  if (p == nullptr) ZF_THROW(out_of_memory, "host allocation of ", bytes, " bytes failed");
  return p;
}

void host_resource::do_deallocate(void* p, std::size_t, stream_view) { ::operator delete(p, host_alignment); }

}  // namespace zeroflow::memory
