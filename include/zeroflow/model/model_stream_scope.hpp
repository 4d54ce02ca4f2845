#pragma once
/// @file model_stream_scope.hpp
/// The stream the models' GPU kernels queue on, set per thread and GPU, so that the models' kernels
/// and the rest of zeroflow's queue on one stream and follow each other in order without host
/// synchronisation. A recording's run does its GPU work on a stream of its own (pooled_stream) for
/// as long as such a scope lives, which lets several runs share one GPU from several threads.
#include <memory>

#include "zeroflow/core/device.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::model {

/// While it lives, the models' GPU work on GPU `where` from the calling thread queues on `stream`;
/// afterwards it is what it was. Nothing changes for the CPU.
class model_stream_scope {
 public:
  model_stream_scope(device where, stream_view stream);
  ~model_stream_scope();
  model_stream_scope(const model_stream_scope&) = delete;
  model_stream_scope& operator=(const model_stream_scope&) = delete;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace zeroflow::model
