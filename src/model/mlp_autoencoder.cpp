/// @file mlp_autoencoder.cpp
/// zeroflow::model::mlp_autoencoder without LibTorch: the LibTorch backend's engine
/// (mlp_engine.hpp) behind the public class, and its files.
#include "zeroflow/model/mlp_autoencoder.hpp"

#include <fstream>
#include <iterator>

#include "mlp_engine.hpp"
#include "model_stream.hpp"
#include "torch_backend.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/atomic_file.hpp"

namespace zeroflow::model {

class mlp_autoencoder::impl {
 public:
  explicit impl(std::unique_ptr<detail::mlp_engine> e) : engine{std::move(e)} {}
  std::unique_ptr<detail::mlp_engine> engine;
};

mlp_autoencoder::mlp_autoencoder(std::unique_ptr<impl> state) : impl_{std::move(state)} {}
mlp_autoencoder::mlp_autoencoder(mlp_autoencoder&&) noexcept = default;
mlp_autoencoder& mlp_autoencoder::operator=(mlp_autoencoder&&) noexcept = default;
mlp_autoencoder::~mlp_autoencoder() = default;

mlp_autoencoder mlp_autoencoder::create(const mlp_shape& shape, device where, std::uint64_t seed) {
  return mlp_autoencoder{std::make_unique<impl>(detail::load_torch_backend().create_mlp(shape, where, seed))};
}

mlp_autoencoder mlp_autoencoder::from_bytes(std::string_view bytes, device where, const std::string& what) {
  return mlp_autoencoder{std::make_unique<impl>(detail::load_torch_backend().mlp_from_bytes(bytes, where, what))};
}

mlp_autoencoder mlp_autoencoder::from_weights(const mlp_shape& shape, const io::safetensors_content& content,
                                              device where) {
  return mlp_autoencoder{std::make_unique<impl>(detail::load_torch_backend().mlp_from_weights(shape, content, where))};
}

mlp_autoencoder mlp_autoencoder::load(const std::filesystem::path& path, device where) {
  std::ifstream in(path, std::ios::binary);
  if (!in) ZF_THROW(error, "cannot open the model file ", path.string());
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) ZF_THROW(error, "cannot read the model file ", path.string());
  return from_bytes(bytes, where, "the model file " + path.string());
}

void mlp_autoencoder::save(const std::filesystem::path& path) const {
  const std::string bytes = to_bytes();
  io::write_atomically(path,
                       [&](std::ostream& out) { out.write(bytes.data(), static_cast<std::streamsize>(bytes.size())); });
}

mlp_train_result mlp_autoencoder::train(const array& rows, const mlp_train_options& options) {
  return impl_->engine->train(rows, options, detail::model_stream(where()));
}

array mlp_autoencoder::reconstruct(const array& rows) const {
  return impl_->engine->reconstruct(rows, detail::model_stream(where()));
}

array mlp_autoencoder::score(const array& rows) const {
  return impl_->engine->score(rows, detail::model_stream(where()));
}

std::vector<io::safetensor> mlp_autoencoder::weights() const { return impl_->engine->weights(); }

std::string mlp_autoencoder::to_bytes() const { return impl_->engine->to_bytes(); }

const mlp_shape& mlp_autoencoder::shape() const { return impl_->engine->shape(); }

device mlp_autoencoder::where() const { return impl_->engine->where(); }

std::int64_t mlp_autoencoder::parameter_count() const { return impl_->engine->parameter_count(); }

}  // namespace zeroflow::model
