/// @file device.cpp
/// Devices by name (device.hpp).
#include "zeroflow/core/device.hpp"

#include <string>

namespace zeroflow {

std::string device::name() const {
  switch (type) {
    case device_type::cpu:
      return "cpu";
    case device_type::cuda:
      return "cuda:" + std::to_string(id);
    case device_type::cuda_host:
      return "cuda_host";
    case device_type::cuda_managed:
      return "cuda_managed:" + std::to_string(id);
  }
  return "device(" + std::to_string(static_cast<int>(type)) + ")";
}

}  // namespace zeroflow
