#pragma once
/// @file peer.hpp
/// Handing an array from one GPU to another: a view of the same bytes where the target GPU can
/// reach the source's memory over the link between them (CUDA peer access), a copy otherwise.
#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow {

/// How to_device may hand an array to another GPU.
enum class peer_policy {
  view_where_possible,  ///< a view when the target can access the source's memory, else a copy
  always_copy,          ///< a copy into the target's memory (copy_to), even where a view would do
};

/// What to_device handed over.
struct device_handoff {
  array data;              ///< on the target device
  bool zero_copy = false;  ///< true: `data` views the source's bytes (no copy was made)
};

/// `src` as an array on `target`. The same device: `src` itself. GPU to GPU with
/// view_where_possible, where CUDA reports that `target` can access `src`'s device: `target` is
/// given access to the memory — peer access (once per pair of devices, for the whole process) and,
/// for memory of a stream-ordered pool such as zeroflow's cuda_pool_resource, the pool's access
/// for `target`, which then covers all of that pool's memory — and the result views `src`'s bytes
/// while saying it lives on `target`, so a consumer there (a kernel, or a DLPack / CUDA Array
/// Interface importer told `target`'s device) reads them over the link; the view keeps `src`'s
/// memory alive. Otherwise a C-contiguous copy on `target` (copy_to, on `stream`).
///
/// A view carries no ordering: work queued on `src`'s device that writes it must have finished,
/// or be awaited by the consumer's stream, before the target reads it.
/// @throws cuda_error when CUDA refuses to enable peer access, or a copy fails.
[[nodiscard]] device_handoff to_device(const array& src, device target,
                                       peer_policy policy = peer_policy::view_where_possible, stream_view stream = {});

/// Whether GPU `target` can read and write GPU `source`'s memory directly (CUDA peer access);
/// false for the same device, for host devices and in builds without CUDA.
[[nodiscard]] bool peer_access_possible(device target, device source);

}  // namespace zeroflow
