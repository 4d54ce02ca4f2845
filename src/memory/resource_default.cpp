#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/cuda_pool_resource.hpp"
#include "zeroflow/memory/host_resource.hpp"
#include "zeroflow/memory/pinned_resource.hpp"
#include "zeroflow/memory/resource.hpp"

namespace zeroflow::memory {

resource_ptr make_default_resource(device where) {
  switch (where.type) {
    case device_type::cpu:
      return std::make_shared<host_resource>();
    case device_type::cuda_host:
      return std::make_shared<pinned_resource>();
    case device_type::cuda:
      return std::make_shared<cuda_pool_resource>(where.id);
    case device_type::cuda_managed:
      break;
  }
  ZF_THROW(cuda_error, "no default memory resource for ", where.name(),
           "; set one with zeroflow::memory::set_current_resource");
}

}  // namespace zeroflow::memory
