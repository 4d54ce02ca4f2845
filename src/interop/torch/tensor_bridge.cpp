/// @file tensor_bridge.cpp
/// zeroflow arrays ⇄ LibTorch tensors through DLPack. zeroflow's DLPack structs are its own
/// ABI-identical copy (interop/dlpack_abi.hpp, static_assert-ed), so the pointers convert with
/// reinterpret_cast; ownership travels with the deleter, nothing is copied.
#include "tensor_bridge.hpp"

#include <ATen/DLConvertor.h>
#include <c10/util/Exception.h>

#include "zeroflow/core/error.hpp"
#include "zeroflow/interop/dlpack.hpp"

namespace zeroflow::interop::detail {

at::Tensor to_tensor(const array& a) {
  ZF_EXPECTS(a.valid(), "to_tensor: the array has no buffer");
  dlpack::DLManagedTensor* managed = to_dlpack(a);
  try {
    return at::fromDLPack(reinterpret_cast<::DLManagedTensor*>(managed));
  } catch (const c10::Error& e) {
    // LibTorch refused the tensor before taking ownership (its checks come first): release it.
    if (managed->deleter != nullptr) managed->deleter(managed);
    ZF_THROW(invalid_argument, "LibTorch cannot view a ", a.type().name(), " array on ", a.where().name(), ": ",
             e.what_without_backtrace());
  }
}

array to_array(const at::Tensor& t) {
  ZF_EXPECTS(t.defined(), "to_array: undefined tensor");
  ::DLManagedTensor* managed = at::toDLPack(t);
  return from_dlpack(reinterpret_cast<dlpack::DLManagedTensor*>(managed));
}

c10::Device to_torch(device d) {
  switch (d.type) {
    case device_type::cpu:
    case device_type::cuda_host:
      return c10::Device(c10::DeviceType::CPU);
    case device_type::cuda:
    case device_type::cuda_managed:
      return c10::Device(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(d.id));
  }
  ZF_THROW(invalid_argument, "no LibTorch device for ", d.name());
}

device from_torch(const c10::Device& d) {
  if (d.is_cpu()) return cpu_device;
  if (d.is_cuda()) return cuda_device(d.has_index() ? d.index() : 0);
  ZF_THROW(invalid_argument, "zeroflow has no device for LibTorch's ", d.str());
}

}  // namespace zeroflow::interop::detail
