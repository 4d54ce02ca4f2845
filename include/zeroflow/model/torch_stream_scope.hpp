#pragma once
/// @file torch_stream_scope.hpp
/// LibTorch's current stream set to a zeroflow stream, so that the models' kernels and zeroflow's
/// queue on one stream and follow each other in order without host synchronisation. A recording's
/// run does its GPU work on a stream of its own (pooled_stream) for as long as such a scope lives,
/// which lets several runs share one GPU from several threads. This header names no torch type.
#include <memory>

#include "zeroflow/core/device.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::model {

/// While it lives, the models' GPU work on GPU `where` from the calling thread queues on `stream`:
/// zeroflow's own kernels directly, LibTorch's (when a path needs LibTorch) by making it LibTorch's
/// current stream for the call; afterwards it is what it was. Nothing changes for the CPU.
class torch_stream_scope {
 public:
  torch_stream_scope(device where, stream_view stream);
  ~torch_stream_scope();
  torch_stream_scope(const torch_stream_scope&) = delete;
  torch_stream_scope& operator=(const torch_stream_scope&) = delete;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace zeroflow::model
