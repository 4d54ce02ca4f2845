#include "beat_model.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <utility>

#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/atomic_file.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/model/model_file.hpp"
#include "zeroflow/signal/min_max.hpp"

namespace zeroflow::pipeline::detail {

namespace {

// The seed-004 notebook's MLP widths and optimiser, and the LightVAE's step size (model::train_options).
constexpr std::int64_t mlp_hidden = 32, mlp_code = 32;
constexpr double mlp_learning_rate = 0.01, mlp_weight_decay = 1e-5, vae_learning_rate = 1e-3;
// No MLP model file of sane widths comes near this (a 2^20-wide row's weights are ~270 MB).
constexpr std::uintmax_t largest_mlp_file = std::uintmax_t{512} << 20;
constexpr const char* start_again = "train the model again (a run with `model_kind`=mlp saves it as model.safetensors)";

std::vector<float> host_floats(const array& a, stream_view stream) {
  const array host = a.where().host_accessible() ? a : copy_to(a, cpu_device, stream);
  synchronize(stream);
  const auto s = host.span<const float>();
  return {s.begin(), s.end()};
}

array device_floats(const std::vector<float>& values, device where, stream_view stream) {
  array host = empty({static_cast<std::int64_t>(values.size())}, float32);
  std::copy(values.begin(), values.end(), host.span<float>().begin());
  if (where.host_accessible()) return host;
  array on_device = copy_to(host, where, stream);
  // Waited for: the model is used on other streams (a run's own), and a model's few constants
  // are worth one wait at its creation.
  synchronize(stream);
  return on_device;
}

/// An MLP autoencoder's model file of format 3 (safetensors), already opened and verified.
scaled_mlp load_mlp(const io::safetensors_content& content, const model::model_file_header& header,
                    const std::string& name, device where) {
  try {
    const model::mlp_shape shape{header.width, io::metadata_number<std::int64_t>(content, "hidden"),
                                 io::metadata_number<std::int64_t>(content, "code")};
    if (shape.features < 1 || shape.hidden < 1 || shape.code < 1 || shape.features > (1 << 20) ||
        shape.hidden > (1 << 16) || shape.code > (1 << 16))
      ZF_THROW(error, "its layer widths (", shape.features, ", ", shape.hidden, ", ", shape.code, ") are not sane");
    const std::vector<std::int64_t> columns{shape.features};
    const std::vector<float> scale = model::read_float_tensor(content, "scale", columns);
    const std::vector<float> offset = model::read_float_tensor(content, "offset", columns);
    if (std::any_of(scale.begin(), scale.end(), [](float v) { return v == 0.0F; }))
      ZF_THROW(error, "its input scaling divides by zero");
    auto net = model::mlp_autoencoder::from_weights(shape, content, where);
    const std::size_t known = net.weights().size() + 2;
    if (content.tensors.size() != known) ZF_THROW(error, "it holds tensors no MLP autoencoder has");
    const stream_view stream{};
    return {std::move(net),
            device_floats(scale, where, stream),
            device_floats(offset, where, stream),
            header.rows,
            header.history.init_seed,
            header.history.epochs};
  } catch (const error& e) {
    ZF_THROW(error, "the model ", name, " is damaged: ", e.what(), "; ", start_again);
  }
}

}  // namespace

bool is_mlp_file(std::string_view bytes) {
  return bytes.size() >= mlp_trailer_bytes && bytes.substr(bytes.size() - mlp_file_magic.size()) == mlp_file_magic;
}

std::string mlp_file_bytes(const model::mlp_autoencoder& net, const std::vector<float>& scale,
                           const std::vector<float>& offset, const std::optional<model::row_provenance>& rows,
                           std::uint64_t seed, std::int64_t epochs) {
  io::safetensors_content content;
  model::training_history history;
  history.init_seed = seed;
  if (epochs > 0) history.train_seed = seed;
  history.epochs = epochs;
  const model::mlp_shape& shape = net.shape();
  content.metadata = model::model_file_metadata({"mlp", shape.features, rows, history});
  content.metadata["hidden"] = std::to_string(shape.hidden);
  content.metadata["code"] = std::to_string(shape.code);
  content.tensors = net.weights();
  const std::vector<std::int64_t> columns{static_cast<std::int64_t>(scale.size())};
  content.tensors.push_back(io::make_safetensor("scale", columns, scale.data()));
  content.tensors.push_back(io::make_safetensor("offset", columns, offset.data()));
  return io::sealed_safetensors(std::move(content));
}

beat_model beat_model::create(model_kind kind, std::int64_t row_width, device where, std::uint64_t seed) {
  if (kind == model_kind::light_vae) return beat_model{model::vae::create(row_width, where, seed)};
  auto net = model::mlp_autoencoder::create({row_width, mlp_hidden, mlp_code}, where, seed);
  // Identity scaling until train() learns the rows'.
  const std::vector<float> ones(static_cast<std::size_t>(row_width), 1.0F), zeros(ones.size(), 0.0F);
  const stream_view stream{};
  return beat_model{scaled_mlp{std::move(net), device_floats(ones, where, stream), device_floats(zeros, where, stream),
                               std::nullopt, seed, 0}};
}

beat_model beat_model::load(const std::filesystem::path& file, device where) {
  // The file says which kind it holds: format 3 in its metadata; an MLP file of format 2 (a
  // LibTorch archive in a trailer) is recognised and refused. Anything that is not an MLP
  // autoencoder's is the LightVAE's to read (and to refuse with its own reasons).
  std::error_code ec;
  const auto size = std::filesystem::is_regular_file(file, ec) ? std::filesystem::file_size(file, ec) : 0;
  if (size < mlp_trailer_bytes || ec || size > largest_mlp_file) return beat_model{model::vae::load(file, where)};
  const std::string name = file.string();
  std::ifstream in(file, std::ios::binary);
  std::string bytes(static_cast<std::size_t>(size), '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!in) ZF_THROW(error, "cannot read the model ", name);
  if (io::looks_like_safetensors(bytes)) {
    std::optional<std::pair<io::safetensors_content, model::model_file_header>> opened;
    try {
      opened = model::open_model_file(bytes);
    } catch (const error&) {
    }
    if (opened && opened->second.model == model_kind_name(model_kind::mlp_autoencoder))
      return beat_model{load_mlp(opened->first, opened->second, name, where)};
    return beat_model{model::vae::load(file, where)};
  }
  if (!is_mlp_file(bytes)) return beat_model{model::vae::load(file, where)};
  ZF_THROW(error, "the model ", name,
           " is an MLP model file of format 2 (a LibTorch archive, from earlier builds of zeroflow), which this one "
           "no longer reads; ",
           start_again);
}

trained_model beat_model::train(const array& rows, int epochs, int batch, std::uint64_t seed,
                                const std::function<void(int, double)>& on_epoch, stream_view stream) {
  if (auto* vae = std::get_if<model::vae>(&model_)) {
    model::train_options o;
    o.epochs = epochs;
    o.batch = batch;
    o.seed = seed;
    o.on_epoch = on_epoch;
    return vae->train(rows, o);
  }
  auto& m = std::get<scaled_mlp>(model_);
  // The seed-004 notebook scales its column to [0, 1] before the autoencoder; here each column of the beat
  // matrix (each sample position of a beat), fitted on the rows the model learns from.
  auto scaling = signal::min_max_fit(rows, {0.0, 1.0}, stream);
  m.scale = scaling.scale;
  m.offset = scaling.offset;
  const array scaled = signal::min_max_transform(rows, m.scale, m.offset, std::nullopt, stream);
  synchronize(stream);  // LibTorch reads the rows on its own stream
  model::mlp_train_options o;
  o.epochs = epochs;
  o.batch = batch;
  o.seed = seed;
  o.learning_rate = mlp_learning_rate;
  o.weight_decay = mlp_weight_decay;
  o.on_epoch = on_epoch;
  trained_model r;
  auto trained = m.net.train(scaled, o);
  r.epoch_loss = std::move(trained.epoch_loss);
  r.path = trained.path;
  r.test_loss = std::numeric_limits<double>::quiet_NaN();
  const std::int64_t n = rows.shape(0);
  r.train_index = empty({n}, int64);
  auto index = r.train_index.span<std::int64_t>();
  for (std::int64_t i = 0; i < n; ++i) index[static_cast<std::size_t>(i)] = i;
  r.test_index = empty({0}, int64);
  m.seed = seed;
  m.epochs += epochs;
  return r;
}

model::scores beat_model::score(const array& rows, stream_view stream) const {
  if (const auto* vae = std::get_if<model::vae>(&model_)) return vae->score(rows);
  const auto& m = std::get<scaled_mlp>(model_);
  const array scaled = signal::min_max_transform(rows, m.scale, m.offset, std::nullopt, stream);
  synchronize(stream);
  return {m.net.score(scaled), array{}};
}

array beat_model::decode_grid() const {
  if (const auto* vae = std::get_if<model::vae>(&model_)) return vae->decode_grid(5, 2.0);
  return {};
}

void beat_model::describe_rows(const model::row_provenance& rows) {
  if (auto* vae = std::get_if<model::vae>(&model_)) return vae->describe_rows(rows);
  std::get<scaled_mlp>(model_).rows = rows;
}

std::optional<model::row_provenance> beat_model::described_rows() const {
  if (const auto* vae = std::get_if<model::vae>(&model_)) return vae->described_rows();
  return std::get<scaled_mlp>(model_).rows;
}

std::int64_t beat_model::width() const {
  if (const auto* vae = std::get_if<model::vae>(&model_)) return vae->width();
  return std::get<scaled_mlp>(model_).net.shape().features;
}

model_kind beat_model::kind() const {
  return std::holds_alternative<model::vae>(model_) ? model_kind::light_vae : model_kind::mlp_autoencoder;
}

void beat_model::save(const std::filesystem::path& path, stream_view stream) const {
  if (const auto* vae = std::get_if<model::vae>(&model_)) return vae->save(path);
  const auto& m = std::get<scaled_mlp>(model_);
  const std::string bytes =
      mlp_file_bytes(m.net, host_floats(m.scale, stream), host_floats(m.offset, stream), m.rows, m.seed, m.epochs);
  io::write_atomically(path,
                       [&](std::ostream& out) { out.write(bytes.data(), static_cast<std::streamsize>(bytes.size())); });
}

model_summary beat_model::summary() const {
  model_summary s;
  s.name = model_kind_name(kind());
  if (const auto* vae = std::get_if<model::vae>(&model_)) {
    s.architecture = "LightVAE: conv1d 1-4-8-16 with Swish and stride-2 smoothing, 2-D latent, decoder back to " +
                     std::to_string(vae->width()) + " samples";
    s.parameters = vae->parameter_count();
    s.input_scaling = "none (the rows as segmented)";
    s.learning_rate = vae_learning_rate;
    return s;
  }
  const auto& shape = std::get<scaled_mlp>(model_).net.shape();
  s.architecture = "MLP autoencoder: " + std::to_string(shape.features) + "-" + std::to_string(shape.hidden) + "-" +
                   std::to_string(shape.code) + "-" + std::to_string(shape.hidden) + "-" +
                   std::to_string(shape.features) + ", ReLU, sigmoid output";
  s.parameters = std::get<scaled_mlp>(model_).net.parameter_count();
  s.input_scaling = "min-max per sample position to [0, 1], fitted on the training rows";
  s.learning_rate = mlp_learning_rate;
  s.weight_decay = mlp_weight_decay;
  return s;
}

}  // namespace zeroflow::pipeline::detail
