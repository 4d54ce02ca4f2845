/// @file torch_backend_impl.cpp
/// The LibTorch backend (torch_backend.hpp): the interface's operations on LibTorch's modules.
#include <c10/util/Exception.h>

#include "torch_backend.hpp"
#include "torch_support.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::model::detail {

namespace {

/// LibTorch's exceptions become zeroflow's at the boundary (their what() carries a C++ stack
/// trace; the message is its first line).
template <class F>
auto translated(F&& f) -> decltype(f()) {
  const auto first_line = [](const std::string& text) { return text.substr(0, text.find('\n')); };
  try {
    return f();
  } catch (const c10::OutOfMemoryError& e) {
    ZF_THROW(out_of_memory, "out of GPU memory while running the model (", first_line(e.msg()),
             "); try a smaller batch, or the CPU");
  } catch (const c10::Error& e) {
    ZF_THROW(error, "the model failed: ", first_line(e.msg()));
  }
}

/// The MLP engine with LibTorch's exceptions translated on every call.
class translating_mlp final : public mlp_engine {
 public:
  explicit translating_mlp(std::unique_ptr<mlp_engine> inner) : inner_{std::move(inner)} {}
  mlp_train_result train(const array& rows, const mlp_train_options& options, stream_view stream) override {
    return translated([&] { return inner_->train(rows, options, stream); });
  }
  array reconstruct(const array& rows, stream_view stream) const override {
    return translated([&] { return inner_->reconstruct(rows, stream); });
  }
  array score(const array& rows, stream_view stream) const override {
    return translated([&] { return inner_->score(rows, stream); });
  }
  std::vector<io::safetensor> weights() const override {
    return translated([&] { return inner_->weights(); });
  }
  const mlp_shape& shape() const override { return inner_->shape(); }
  device where() const override { return inner_->where(); }
  std::int64_t parameter_count() const override { return inner_->parameter_count(); }

 private:
  std::unique_ptr<mlp_engine> inner_;
};

std::unique_ptr<mlp_engine> wrapped(std::unique_ptr<mlp_engine> engine) {
  return std::make_unique<translating_mlp>(std::move(engine));
}

class libtorch_backend final : public torch_backend {
 public:
  void set_cpu_threads(int threads) override {
    translated([&] { set_torch_threads(threads); });
  }
  int cpu_threads() override {
    return translated([&] { return torch_threads(); });
  }
  void train_vae(const packed_vae& weights, const array& rows, const std::vector<std::int64_t>& train,
                 const std::vector<std::int64_t>& test, const train_options& options, train_result& result) override {
    return translated([&] { return torch_train_vae(weights, rows, train, test, options, result); });
  }
  void score_vae(const packed_vae& weights, const array& rows, std::int64_t batch, float* score, float* mu) override {
    return translated([&] { return torch_score_vae(weights, rows, batch, score, mu); });
  }
  void decode_vae(const packed_vae& weights, const float* latents, std::int64_t n, float* out) override {
    return translated([&] { return torch_decode_vae(weights, latents, n, out); });
  }
  void read_vae_format2(std::string_view bytes, const std::string& name, std::vector<float>& params,
                        model_file_header& header) override {
    translated([&] { torch_read_vae_format2(bytes, name, params, header); });
  }
  std::unique_ptr<mlp_engine> create_mlp(const mlp_shape& shape, device where, std::uint64_t seed) override {
    return wrapped(translated([&] { return torch_create_mlp(shape, where, seed); }));
  }
  std::unique_ptr<mlp_engine> mlp_from_bytes(std::string_view bytes, device where, const std::string& what) override {
    return wrapped(translated([&] { return torch_mlp_from_bytes(bytes, where, what); }));
  }
  std::unique_ptr<mlp_engine> mlp_from_weights(const mlp_shape& shape, const io::safetensors_content& content,
                                               device where) override {
    return wrapped(translated([&] { return torch_mlp_from_weights(shape, content, where); }));
  }
  void route_cuda_allocator(memory::resource_ptr resource) override {
    return translated([&] { return torch_route_cuda_allocator(std::move(resource)); });
  }
  bool cuda_allocator_routed() override {
    return translated([&] { return torch_cuda_allocator_routed(); });
  }
  torch_allocation_counts cuda_allocation_counts() override {
    return translated([&] { return torch_cuda_allocation_counts(); });
  }
};

}  // namespace

}  // namespace zeroflow::model::detail

/// The module's one exported symbol: the backend, when the caller speaks this interface version.
extern "C" __attribute__((visibility("default"))) zeroflow::model::detail::torch_backend* zeroflow_torch_backend(
    int version) {
  if (version != zeroflow::model::detail::torch_backend_version) return nullptr;
  static zeroflow::model::detail::libtorch_backend backend;
  return &backend;
}
