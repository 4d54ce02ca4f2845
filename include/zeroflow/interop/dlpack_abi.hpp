#pragma once
/// @file dlpack_abi.hpp
/// zeroflow's own declaration of the DLPack 1.1 C ABI (https://dmlc.github.io/dlpack/latest/),
/// written from the specification. Everything lives in namespace zeroflow::dlpack, so a
/// translation unit may also include a framework's dlpack.h (whose structs are global, e.g.
/// ATen/dlpack.h) without a clash; the layouts are identical, so pointers convert with
/// reinterpret_cast. The spec's macros (DLPACK_MAJOR_VERSION, DLPACK_FLAG_BITMASK_*) are
/// deliberately NOT defined here: they would collide with the real header; use the constants
/// below instead.
///
/// Ownership, as the spec sets it out:
/// - A DLManagedTensor(Versioned) belongs to whoever holds it; the consumer that took it must call
///   `deleter(self)` exactly once when done (a NULL deleter means there is nothing to release).
///   The deleter frees the struct itself, its shape/strides storage and whatever keeps `data`
///   alive. After it runs, nothing in the struct may be touched.
/// - DLTensor never owns memory; `shape` and `strides` are owned by the managed tensor's producer.
/// - A consumer of a versioned tensor must check `version.major` before reading anything other
///   than `version`, `manager_ctx` and `deleter` (those three keep their place in every version).
#include <cstddef>
#include <cstdint>

namespace zeroflow::dlpack {

/// Major version of the DLPack ABI zeroflow speaks; tensors of another major are refused.
inline constexpr std::uint32_t major_version = 1;
/// Minor version zeroflow writes into its exports (minor versions only add enum values).
inline constexpr std::uint32_t minor_version = 1;

/// DLManagedTensorVersioned::flags bit: the consumer must not write through the tensor.
inline constexpr std::uint64_t flag_bitmask_read_only = std::uint64_t{1} << 0;
/// DLManagedTensorVersioned::flags bit: the producer made a copy the consumer solely owns.
inline constexpr std::uint64_t flag_bitmask_is_copied = std::uint64_t{1} << 1;

/// The ABI version a DLManagedTensorVersioned was produced with.
struct DLPackVersion {
  std::uint32_t major;  ///< A change means the layout after `deleter` changed.
  std::uint32_t minor;  ///< A change means new enum values; the layout is the same.
};

/// Where the memory lives (a C enum, so 32 bits wide). zeroflow maps CPU, CUDA, CUDAHost and
/// CUDAManaged to zeroflow::device and refuses the others.
enum DLDeviceType : std::int32_t {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,  ///< pinned host memory (cudaMallocHost)
  kDLOpenCL = 4,
  kDLVulkan = 7,
  kDLMetal = 8,
  kDLVPI = 9,
  kDLROCM = 10,
  kDLROCMHost = 11,
  kDLExtDev = 12,
  kDLCUDAManaged = 13,  ///< unified memory (cudaMallocManaged)
  kDLOneAPI = 14,
  kDLWebGPU = 15,
  kDLHexagon = 16,
  kDLMAIA = 17,
};

/// A device: its type and its index among devices of that type (0 for the host).
struct DLDevice {
  DLDeviceType device_type;
  std::int32_t device_id;
};

/// Element kinds (DLDataType::code).
enum DLDataTypeCode : std::uint8_t {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLOpaqueHandle = 3,  ///< pointers or handles; zeroflow refuses them
  kDLBfloat = 4,
  kDLComplex = 5,
  kDLBool = 6,  ///< stored as one byte per element (bits = 8)
};

/// An element type: `lanes` vectors of `bits`-wide values of kind `code` (a DLDataTypeCode).
struct DLDataType {
  std::uint8_t code;
  std::uint8_t bits;
  std::uint16_t lanes;
};

/// A strided tensor view; owns nothing.
struct DLTensor {
  /// The allocation (the spec asks for 256-byte alignment, but producers do not all honour it).
  /// Element 0 is at `(char*)data + byte_offset`. May be NULL for a tensor of size 0.
  void* data;
  DLDevice device;
  std::int32_t ndim;
  DLDataType dtype;
  /// `ndim` extents; may be NULL when ndim == 0.
  std::int64_t* shape;
  /// `ndim` strides in ELEMENTS (may be negative or 0), or NULL meaning C-contiguous.
  std::int64_t* strides;
  /// Bytes from `data` to element 0.
  std::uint64_t byte_offset;
};

/// The pre-1.0 ("legacy") managed tensor: no version and no flags.
struct DLManagedTensor {
  DLTensor dl_tensor;
  /// The producer's bookkeeping; opaque to the consumer. May be NULL.
  void* manager_ctx;
  /// Releases everything, `self` included; called once by the consumer. May be NULL.
  void (*deleter)(DLManagedTensor* self);
};

/// The DLPack 1.x managed tensor. `version`, `manager_ctx` and `deleter` come first so that a
/// consumer can always release a tensor whose version it does not understand.
struct DLManagedTensorVersioned {
  DLPackVersion version;
  /// The producer's bookkeeping; opaque to the consumer. May be NULL.
  void* manager_ctx;
  /// Releases everything, `self` included; called once by the consumer. May be NULL.
  void (*deleter)(DLManagedTensorVersioned* self);
  /// flag_bitmask_* bits; 0 by default.
  std::uint64_t flags;
  DLTensor dl_tensor;
};

// The ABI on LP64 targets (x86-64 and AArch64 Linux), as every other DLPack implementation
// lays it out; a mismatch here would corrupt every exchange silently.
#if UINTPTR_MAX == UINT64_MAX
static_assert(sizeof(DLPackVersion) == 8 && offsetof(DLPackVersion, major) == 0 && offsetof(DLPackVersion, minor) == 4);
static_assert(sizeof(DLDeviceType) == 4);
static_assert(sizeof(DLDevice) == 8 && offsetof(DLDevice, device_type) == 0 && offsetof(DLDevice, device_id) == 4);
static_assert(sizeof(DLDataType) == 4 && offsetof(DLDataType, code) == 0 && offsetof(DLDataType, bits) == 1 &&
              offsetof(DLDataType, lanes) == 2);
static_assert(sizeof(DLTensor) == 48);
static_assert(offsetof(DLTensor, data) == 0 && offsetof(DLTensor, device) == 8 && offsetof(DLTensor, ndim) == 16 &&
              offsetof(DLTensor, dtype) == 20 && offsetof(DLTensor, shape) == 24 && offsetof(DLTensor, strides) == 32 &&
              offsetof(DLTensor, byte_offset) == 40);
static_assert(sizeof(DLManagedTensor) == 64 && offsetof(DLManagedTensor, dl_tensor) == 0 &&
              offsetof(DLManagedTensor, manager_ctx) == 48 && offsetof(DLManagedTensor, deleter) == 56);
static_assert(sizeof(DLManagedTensorVersioned) == 80 && offsetof(DLManagedTensorVersioned, version) == 0 &&
              offsetof(DLManagedTensorVersioned, manager_ctx) == 8 &&
              offsetof(DLManagedTensorVersioned, deleter) == 16 && offsetof(DLManagedTensorVersioned, flags) == 24 &&
              offsetof(DLManagedTensorVersioned, dl_tensor) == 32);
#endif

}  // namespace zeroflow::dlpack
