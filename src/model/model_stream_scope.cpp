/// @file model_stream_scope.cpp
/// The models' stream per thread and GPU (model_stream_scope.hpp, model_stream.hpp): zeroflow's own
/// kernels queue on it.
#include "zeroflow/model/model_stream_scope.hpp"

#include <map>

#include "model_stream.hpp"

namespace zeroflow::model {

namespace {

thread_local std::map<int, stream_view> streams;

}  // namespace

namespace detail {

stream_view model_stream(device where) {
  if (where.type != device_type::cuda) return {};
  const auto it = streams.find(where.id);
  return it == streams.end() ? stream_view{} : it->second;
}

}  // namespace detail

struct model_stream_scope::impl {
  device where;
  bool had = false;
  stream_view previous;
};

model_stream_scope::model_stream_scope(device where, stream_view stream) : impl_{std::make_unique<impl>()} {
  impl_->where = where;
  if (where.type != device_type::cuda) return;
  const auto it = streams.find(where.id);
  impl_->had = it != streams.end();
  if (impl_->had) impl_->previous = it->second;
  streams[where.id] = stream;
}

model_stream_scope::~model_stream_scope() {
  if (impl_->where.type != device_type::cuda) return;
  if (impl_->had)
    streams[impl_->where.id] = impl_->previous;
  else
    streams.erase(impl_->where.id);
}

}  // namespace zeroflow::model
