#include "beat_model.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <utility>

#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/atomic_file.hpp"
#include "zeroflow/io/byte_fields.hpp"
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

nlohmann::json rows_json(const model::row_provenance& r) {
  return {{"sample_rate", r.sample_rate},     {"segmentation", r.segmentation}, {"normalized", r.normalized},
          {"window_before", r.window_before}, {"window_after", r.window_after}, {"min_length", r.min_length},
          {"max_length", r.max_length}};
}

model::row_provenance rows_of(const nlohmann::json& j) {
  model::row_provenance r;
  r.sample_rate = j.at("sample_rate").get<double>();
  r.segmentation = j.at("segmentation").get<std::string>();
  r.normalized = j.at("normalized").get<bool>();
  r.window_before = j.at("window_before").get<std::int64_t>();
  r.window_after = j.at("window_after").get<std::int64_t>();
  r.min_length = j.at("min_length").get<std::int64_t>();
  r.max_length = j.at("max_length").get<std::int64_t>();
  if (!(std::isfinite(r.sample_rate) && r.sample_rate > 0) ||
      (r.segmentation != "robust" && r.segmentation != "seed") || r.window_before < 0 || r.window_after < 0 ||
      r.min_length < 0 || r.min_length > r.max_length)
    ZF_THROW(error, "its description of the training rows is not sane");
  return r;
}

/// The MLP model file's parts, once its trailer and checksum match.
struct mlp_file_parts {
  std::string_view archive, metadata;
};

mlp_file_parts verified_mlp_file(std::string_view file) {
  if (!is_mlp_file(file)) ZF_THROW(error, "it does not end as a zeroflow MLP model file does");
  const std::string_view trailer = file.substr(file.size() - mlp_trailer_bytes);
  const std::uint64_t format = io::read_u64_le(trailer.substr(24));
  if (format != mlp_file_format)
    ZF_THROW(error, "it is of MLP model format ", format, ", this zeroflow reads format ", mlp_file_format);
  const std::uint64_t archive = io::read_u64_le(trailer), metadata = io::read_u64_le(trailer.substr(8));
  const std::uint64_t content = file.size() - mlp_trailer_bytes;
  if (archive > content || metadata != content - archive)
    ZF_THROW(error, "it is ", file.size(), " bytes long, but its parts add up to another length");
  if (io::fnv1a64_of(file.substr(0, content)) != io::read_u64_le(trailer.substr(16)))
    ZF_THROW(error, "its contents do not match the checksum written with them (changed after it was saved)");
  return {file.substr(0, archive), file.substr(archive, metadata)};
}

scaled_mlp load_mlp(std::string_view bytes, const std::string& name, device where) {
  mlp_file_parts parts;
  try {
    parts = verified_mlp_file(bytes);
  } catch (const error& e) {
    ZF_THROW(error, "the model ", name, " is not a zeroflow model file or is damaged (", e.what(), "); ", start_again);
  }
  nlohmann::json meta;
  std::vector<float> scale, offset;
  std::optional<model::row_provenance> rows;
  std::uint64_t seed = 0;
  std::int64_t epochs = 0;
  try {
    meta = nlohmann::json::parse(parts.metadata);
    if (meta.at("model").get<std::string>() != model_kind_name(model_kind::mlp_autoencoder))
      ZF_THROW(error, "it names another model");
    scale = meta.at("scale").get<std::vector<float>>();
    offset = meta.at("offset").get<std::vector<float>>();
    if (!meta.at("rows").is_null()) rows = rows_of(meta.at("rows"));
    seed = meta.at("seed").get<std::uint64_t>();
    epochs = meta.at("epochs").get<std::int64_t>();
  } catch (const error& e) {
    ZF_THROW(error, "the model ", name, " is damaged: ", e.what(), "; ", start_again);
  } catch (const std::exception&) {
    ZF_THROW(error, "the model ", name, " is damaged: its metadata cannot be read; ", start_again);
  }
  auto net = model::mlp_autoencoder::from_bytes(parts.archive, where, "the model " + name);
  const auto width = static_cast<std::size_t>(net.shape().features);
  bool sane = scale.size() == width && offset.size() == width;
  for (std::size_t i = 0; sane && i < width; ++i)
    sane = std::isfinite(scale[i]) && scale[i] != 0.0F && std::isfinite(offset[i]);
  if (!sane)
    ZF_THROW(error, "the model ", name, " is damaged: its input scaling does not fit its ", width, " inputs; ",
             start_again);
  const stream_view stream{};
  return {std::move(net), device_floats(scale, where, stream), device_floats(offset, where, stream), rows, seed,
          epochs};
}

/// An MLP autoencoder's model file of format 3 (safetensors), already opened and verified.
scaled_mlp load_mlp(const io::safetensors_content& content, const model::model_file_header& header,
                    const std::string& name, device where) {
  try {
    const model::mlp_shape shape{header.width, model::metadata_integer(content.metadata, "hidden"),
                                 model::metadata_integer(content.metadata, "code")};
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
  content.tensors.push_back(model::float_tensor("scale", columns, scale.data()));
  content.tensors.push_back(model::float_tensor("offset", columns, offset.data()));
  return model::sealed_model_file(std::move(content));
}

std::string mlp_format2_file_bytes(const std::string& archive, const std::vector<float>& scale,
                                   const std::vector<float>& offset, const std::optional<model::row_provenance>& rows,
                                   std::uint64_t seed, std::int64_t epochs) {
  std::string content = archive;
  const std::uint64_t archive_bytes = content.size();
  const nlohmann::json meta = {{"model", model_kind_name(model_kind::mlp_autoencoder)},
                               {"rows", rows ? rows_json(*rows) : nlohmann::json(nullptr)},
                               {"scale", scale},
                               {"offset", offset},
                               {"seed", seed},
                               {"epochs", epochs}};
  content += meta.dump();
  const std::uint64_t metadata = content.size() - archive_bytes;
  const std::uint64_t hash = io::fnv1a64_of(content);
  io::append_u64_le(content, archive_bytes);
  io::append_u64_le(content, metadata);
  io::append_u64_le(content, hash);
  io::append_u64_le(content, mlp_file_format);
  content.append(mlp_file_magic);
  return content;
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
  // The file says which kind it holds: format 3 in its metadata, format 2 in its trailer.
  // Anything that is not an MLP autoencoder's is the LightVAE's to read (and to refuse with its
  // own reasons).
  std::error_code ec;
  const auto size = std::filesystem::is_regular_file(file, ec) ? std::filesystem::file_size(file, ec) : 0;
  if (size < mlp_trailer_bytes || ec || size > largest_mlp_file) return beat_model{model::vae::load(file, where)};
  const std::string name = file.string();
  std::ifstream in(file, std::ios::binary);
  std::string bytes(static_cast<std::size_t>(size), '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!in) ZF_THROW(error, "cannot read the model ", name);
  if (model::looks_like_safetensors(bytes)) {
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
  return beat_model{load_mlp(bytes, name, where)};
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
