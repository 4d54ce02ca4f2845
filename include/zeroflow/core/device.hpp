#pragma once
/// @file device.hpp
/// Where memory lives, with DLPack's DLDevice encoding.
#include <cstdint>
#include <string>

namespace zeroflow {

/// DLPack device types (DLDeviceType) that zeroflow understands.
enum class device_type : std::int32_t { cpu = 1, cuda = 2, cuda_host = 3, cuda_managed = 13 };

/// A device; the same two fields, in the same order, as DLPack's DLDevice.
struct device {
  device_type type{device_type::cpu};
  std::int32_t id{0};

  /// Host code may dereference pointers on this device (CPU, pinned host, managed).
  [[nodiscard]] constexpr bool host_accessible() const { return type != device_type::cuda; }
  /// The memory belongs to the CUDA runtime (device, pinned host or managed).
  [[nodiscard]] constexpr bool is_cuda() const { return type != device_type::cpu; }
  friend constexpr bool operator==(device, device) = default;
  /// "cpu", "cuda:0", "cuda_host", "cuda_managed:0".
  [[nodiscard]] std::string name() const;
};

inline constexpr device cpu_device{device_type::cpu, 0};
constexpr device cuda_device(std::int32_t id = 0) { return {device_type::cuda, id}; }

}  // namespace zeroflow
