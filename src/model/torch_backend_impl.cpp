/// @file torch_backend_impl.cpp
/// The LibTorch backend (torch_backend.hpp): the interface's operations on LibTorch's modules.
#include "torch_backend.hpp"
#include "torch_support.hpp"

namespace zeroflow::model::detail {

namespace {

class libtorch_backend final : public torch_backend {
 public:
  void set_cpu_threads(int threads) override { set_torch_threads(threads); }
  int cpu_threads() override { return torch_threads(); }
  void train_vae(const packed_vae& weights, const array& rows, const std::vector<std::int64_t>& train,
                 const std::vector<std::int64_t>& test, const train_options& options, train_result& result) override {
    torch_train_vae(weights, rows, train, test, options, result);
  }
  void score_vae(const packed_vae& weights, const array& rows, std::int64_t batch, float* score, float* mu) override {
    torch_score_vae(weights, rows, batch, score, mu);
  }
  void decode_vae(const packed_vae& weights, const float* latents, std::int64_t n, float* out) override {
    torch_decode_vae(weights, latents, n, out);
  }
  void read_vae_format2(std::string_view bytes, const std::string& name, std::vector<float>& params,
                        model_file_header& header) override {
    torch_read_vae_format2(bytes, name, params, header);
  }
};

}  // namespace

torch_backend& load_torch_backend() {
  static libtorch_backend backend;
  return backend;
}

}  // namespace zeroflow::model::detail
