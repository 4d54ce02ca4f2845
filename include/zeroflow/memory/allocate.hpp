#pragma once
/// @file allocate.hpp
/// Arrays and buffers whose memory comes from a resource (the current one by default).
#include "zeroflow/core/array.hpp"
#include "zeroflow/memory/resource.hpp"

namespace zeroflow {

/// A buffer of `bytes` from `mr`, given back to `mr` on `stream` when the last owner goes.
[[nodiscard]] std::shared_ptr<buffer> allocate_buffer(std::size_t bytes, stream_view stream, memory::resource_ptr mr);

/// An uninitialised C-contiguous array on `where`, from the current resource of that device.
[[nodiscard]] array empty(shape_t shape, dtype type, device where = cpu_device, stream_view stream = {});
/// The same from an explicit resource (its device).
[[nodiscard]] array empty(shape_t shape, dtype type, stream_view stream, memory::resource_ptr mr);
/// A zero-filled array (host or device).
[[nodiscard]] array zeros(shape_t shape, dtype type, device where = cpu_device, stream_view stream = {});

/// Copies `bytes` contiguous bytes from `src` (memory of `from`) to `dst` (memory of `to`),
/// stream-ordered; returns once they are readable when `to` is host-accessible (the copy is then
/// in the device-to-host ledger, transfers.hpp, when `from` is not).
void copy_bytes(void* dst, device to, const void* src, device from, std::size_t bytes, stream_view stream = {});

/// Copies `src` into a new C-contiguous array on `where` (host<->device as needed, stream-ordered).
[[nodiscard]] array copy_to(const array& src, device where, stream_view stream = {});

}  // namespace zeroflow
