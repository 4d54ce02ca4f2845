/// @file mlp_autoencoder.cpp
/// zeroflow::model::mlp_autoencoder: zeroflow's own engine (mlp_engine.hpp) and the model's
/// bytes (safetensors) and files.
#include "zeroflow/model/mlp_autoencoder.hpp"

#include <fstream>
#include <iterator>

#include "mlp_engine.hpp"
#include "mlp_init.hpp"
#include "model_checks.hpp"
#include "model_stream.hpp"
#include "vae_state.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/atomic_file.hpp"
#include "zeroflow/model/model_file.hpp"

namespace zeroflow::model {

namespace {

// The bytes of to_bytes(): a safetensors file of the weights whose metadata names this format and
// the widths, with a content checksum. Earlier zeroflows wrote a LibTorch archive (a zip file),
// which from_bytes recognises and refuses.
constexpr const char* bytes_format = "zeroflow_mlp_autoencoder";
constexpr const char* bytes_format_version = "2";
constexpr std::int64_t widest = std::int64_t{1} << 20;

/// The weights of `content` packed in mlp_init.hpp's slot order.
std::vector<float> packed(const mlp_shape& shape, const io::safetensors_content& content) {
  std::vector<float> out;
  for (int s = 0; s < detail::mlp_slots; ++s) {
    const std::vector<float> slot = read_float_tensor(content, detail::mlp_slot_names[static_cast<std::size_t>(s)],
                                                      detail::mlp_slot_shape(s, shape));
    out.insert(out.end(), slot.begin(), slot.end());
  }
  return out;
}

/// zeroflow's own engine for a model of `shape` on `where` (already checked) holding `params`: on
/// the CPU any widths; on a GPU the widths the fused step takes (choose_mlp_training_path refuses
/// the rest, saying so).
std::unique_ptr<detail::mlp_engine> own_engine(const mlp_shape& shape, device where, const std::vector<float>& params) {
  (void)choose_mlp_training_path(where, shape);  // refuses a GPU in a build without CUDA
  return std::make_unique<detail::mlp_engine>(shape, where, params);
}

/// An engine on `where` with the weights of `content` (checked: every slot, its shape, finite).
std::unique_ptr<detail::mlp_engine> engine_from(const mlp_shape& shape, const io::safetensors_content& content,
                                                device where) {
  detail::check_mlp_shape(shape);
  detail::check_model_place(where);
  return own_engine(shape, where, packed(shape, content));
}

io::safetensors_content content_of(const detail::mlp_engine& engine) {
  io::safetensors_content content;
  content.tensors = engine.weights();
  return content;
}

std::int64_t width_of(const io::safetensors_content& content, const std::string& key) {
  const auto v = io::metadata_number<std::int64_t>(content, key);
  if (v < 1 || v > widest) ZF_THROW(error, "its width '", key, "' (", v, ") is not sane");
  return v;
}

std::unique_ptr<detail::mlp_engine> engine_from_safetensors(std::string_view bytes, device where) {
  const io::safetensors_content content = io::from_safetensors(bytes);
  const auto entry = [&](const char* key) -> std::string {
    const auto it = content.metadata.find(key);
    return it == content.metadata.end() ? std::string() : it->second;
  };
  if (entry("format") != bytes_format) ZF_THROW(error, "it is not an MLP autoencoder's weights");
  if (entry("format_version") != bytes_format_version)
    ZF_THROW(error, "it is of another format version (", entry("format_version"), ")");
  if (!io::checksum_holds(content))
    ZF_THROW(error, "its checksum does not match its content (it was changed or damaged)");
  const mlp_shape shape{width_of(content, "features"), width_of(content, "hidden"), width_of(content, "code")};
  return engine_from(shape, content, where);
}

}  // namespace

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
  detail::check_mlp_shape(shape);
  detail::check_model_place(where);
  return mlp_autoencoder{std::make_unique<impl>(own_engine(shape, where, detail::mlp_initial_parameters(shape, seed)))};
}

mlp_autoencoder mlp_autoencoder::from_bytes(std::string_view bytes, device where, const std::string& what) {
  const std::string unreadable = what + " cannot be read as a zeroflow MLP autoencoder: ";
  if (io::looks_like_safetensors(bytes)) {
    try {
      return mlp_autoencoder{std::make_unique<impl>(engine_from_safetensors(bytes, where))};
    } catch (const invalid_argument&) {
      throw;  // the device, not the bytes
    } catch (const cuda_error&) {
      throw;
    } catch (const std::exception& e) {
      ZF_THROW(error, unreadable, e.what());
    }
  }
  if (bytes.substr(0, 4) == std::string_view("PK\x03\x04", 4))
    ZF_THROW(error, unreadable,
             "it is a LibTorch archive (from earlier builds of zeroflow), which this one no longer reads; train the "
             "model again");
  ZF_THROW(error, unreadable, "it is cut short, damaged or not a model this program wrote");
}

mlp_autoencoder mlp_autoencoder::from_weights(const mlp_shape& shape, const io::safetensors_content& content,
                                              device where) {
  return mlp_autoencoder{std::make_unique<impl>(engine_from(shape, content, where))};
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
  detail::check_mlp_train_options(options);
  mlp_train_options on_path = options;
  on_path.path = choose_mlp_training_path(where(), shape(), options.path);
  mlp_train_result result = impl_->engine->train(rows, on_path, detail::model_stream(where()));
  result.path = on_path.path;
  return result;
}

array mlp_autoencoder::reconstruct(const array& rows) const {
  return impl_->engine->reconstruct(rows, detail::model_stream(where()));
}

array mlp_autoencoder::score(const array& rows) const {
  return impl_->engine->score(rows, detail::model_stream(where()));
}

std::vector<io::safetensor> mlp_autoencoder::weights() const { return impl_->engine->weights(); }

std::string mlp_autoencoder::to_bytes() const {
  io::safetensors_content content = content_of(*impl_->engine);
  const mlp_shape& s = shape();
  content.metadata = {{"format", bytes_format},
                      {"format_version", bytes_format_version},
                      {"features", std::to_string(s.features)},
                      {"hidden", std::to_string(s.hidden)},
                      {"code", std::to_string(s.code)}};
  return io::sealed_safetensors(std::move(content));
}

const mlp_shape& mlp_autoencoder::shape() const { return impl_->engine->shape(); }

device mlp_autoencoder::where() const { return impl_->engine->where(); }

std::int64_t mlp_autoencoder::parameter_count() const { return impl_->engine->parameter_count(); }

}  // namespace zeroflow::model
