#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/host_resource.hpp"

namespace zeroflow::memory {

// Host-only default; the CUDA resources replace this file's role for cuda devices (TODO memory helper).
resource_ptr make_default_resource(device where) {
  if (where.type == device_type::cpu) return std::make_shared<host_resource>();
  ZF_THROW(cuda_error, "no default memory resource for ", where.name(), " in this build");
}

}  // namespace zeroflow::memory
