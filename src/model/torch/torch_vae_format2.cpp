/// @file torch_vae_format2.cpp
/// The LightVAE's model files through LibTorch (torch_vae_format2.hpp): reading format 2, which
/// earlier zeroflows wrote, for the backend, and the writers the tests make files with.
#include "torch_vae_format2.hpp"

#include <torch/serialize/output-archive.h>
#include <torch/torch.h>

#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string_view>

#include "light_vae_init.hpp"
#include "torch_support.hpp"
#include "vae_state.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/atomic_file.hpp"
#include "zeroflow/io/byte_fields.hpp"
#include "zeroflow/model/model_file.hpp"

namespace zeroflow::model {

namespace detail {

namespace {

// Widths beyond this are no beat row (a 1 MHz recording's row is 2^20 samples), and no file of
// model size holds their weights.
constexpr std::int64_t largest_width = std::int64_t{1} << 22;

std::int64_t segmentation_code(const std::string& name) { return name == "robust" ? 1 : name == "seed" ? 2 : -1; }

torch::Tensor longs(std::initializer_list<std::int64_t> values) {
  return torch::tensor(std::vector<std::int64_t>(values), torch::TensorOptions().dtype(torch::kLong));
}

std::int64_t bits_of(std::uint64_t v) { return std::bit_cast<std::int64_t>(v); }
std::uint64_t unsigned_of(std::int64_t v) { return std::bit_cast<std::uint64_t>(v); }

/// The layout's entries: name, dtype and element count.
struct entry_spec {
  const char* name;
  torch::ScalarType type;
  std::int64_t elements;
};
constexpr entry_spec layout[] = {
    {"zeroflow_format", torch::kLong, 1},
    {"width", torch::kLong, 1},
    {"rows_described", torch::kLong, 1},
    {"rows_sample_rate", torch::kDouble, 1},
    {"rows_segmentation", torch::kLong, 1},
    {"rows_normalized", torch::kLong, 1},
    {"rows_window", torch::kLong, 2},
    {"rows_lengths", torch::kLong, 2},
    {"init_seed", torch::kLong, 1},
    {"train_seed", torch::kLong, 2},
    {"epochs", torch::kLong, 1},
};
constexpr char magic[8] = {'Z', 'E', 'R', 'O', 'F', 'L', 'O', 'W'};

}  // namespace

metadata_entries metadata_to_entries(const model_metadata& meta) {
  const row_provenance rows = meta.rows.value_or(row_provenance{});
  const auto& h = meta.history;
  metadata_entries e;
  e.emplace_back("zeroflow_format", longs({model_file_format}));
  e.emplace_back("width", longs({meta.width}));
  e.emplace_back("rows_described", longs({meta.rows ? 1 : 0}));
  e.emplace_back("rows_sample_rate", torch::tensor({rows.sample_rate}, torch::TensorOptions().dtype(torch::kDouble)));
  e.emplace_back("rows_segmentation", longs({meta.rows ? segmentation_code(rows.segmentation) : 0}));
  e.emplace_back("rows_normalized", longs({rows.normalized ? 1 : 0}));
  e.emplace_back("rows_window", longs({rows.window_before, rows.window_after}));
  e.emplace_back("rows_lengths", longs({rows.min_length, rows.max_length}));
  e.emplace_back("init_seed", longs({bits_of(h.init_seed)}));
  e.emplace_back("train_seed", longs({h.train_seed ? 1 : 0, bits_of(h.train_seed.value_or(0))}));
  e.emplace_back("epochs", longs({h.epochs}));
  return e;
}

metadata_entries read_metadata_entries(torch::serialize::InputArchive& archive) {
  metadata_entries e;
  for (const auto& spec : layout) {
    torch::Tensor t;
    if (!archive.try_read(spec.name, t)) ZF_THROW(error, "its metadata lacks the entry ", spec.name);
    if (t.scalar_type() != spec.type || t.numel() != spec.elements)
      ZF_THROW(error, "its metadata entry ", spec.name, " has the wrong type or size");
    e.emplace_back(spec.name, t.reshape({-1}).contiguous());
  }
  return e;
}

model_metadata entries_to_metadata(const metadata_entries& entries) {
  auto at = [&](std::string_view name) -> const torch::Tensor& {
    for (const auto& [key, t] : entries)
      if (key == name) return t;
    ZF_THROW(error, "its metadata lacks the entry ", name);
  };
  auto longs_of = [&](std::string_view name, int i = 0) { return at(name)[i].item<std::int64_t>(); };
  model_metadata meta;
  if (longs_of("zeroflow_format") != model_file_format)
    ZF_THROW(error, "its metadata names model format ", longs_of("zeroflow_format"));
  meta.width = longs_of("width");
  if (meta.width < 16 || meta.width > largest_width || (meta.width & (meta.width - 1)) != 0)
    ZF_THROW(error, "its row width ", meta.width, " is not a power of two from 16 to ", largest_width);
  if (longs_of("rows_described") == 1) {
    row_provenance rows;
    rows.sample_rate = at("rows_sample_rate").item<double>();
    const std::int64_t code = longs_of("rows_segmentation");
    if (code != 1 && code != 2) ZF_THROW(error, "it names an unknown segmentation (code ", code, ")");
    rows.segmentation = code == 1 ? "robust" : "seed";
    const std::int64_t normalized = longs_of("rows_normalized");
    if (normalized != 0 && normalized != 1) ZF_THROW(error, "its normalisation flag is ", normalized, ", not 0 or 1");
    rows.normalized = normalized == 1;
    rows.window_before = longs_of("rows_window", 0);
    rows.window_after = longs_of("rows_window", 1);
    rows.min_length = longs_of("rows_lengths", 0);
    rows.max_length = longs_of("rows_lengths", 1);
    check_row_provenance(rows);
    meta.rows = rows;
  } else if (longs_of("rows_described") != 0) {
    ZF_THROW(error, "its row description flag is ", longs_of("rows_described"), ", not 0 or 1");
  }
  meta.history.init_seed = unsigned_of(longs_of("init_seed"));
  if (longs_of("train_seed", 0) == 1) meta.history.train_seed = unsigned_of(longs_of("train_seed", 1));
  meta.history.epochs = longs_of("epochs");
  if (meta.history.epochs < 0) ZF_THROW(error, "it says it was trained for ", meta.history.epochs, " epochs");
  return meta;
}

std::uint64_t fnv1a(std::string_view bytes) { return io::fnv1a64_of(bytes); }

std::string model_file_bytes(const model_metadata& meta, const light_vae& module) {
  io::safetensors_content content;
  content.metadata = model_file_metadata({"lightvae", meta.width, meta.rows, meta.history});
  const auto add = [&](const std::string& name, const torch::Tensor& value) {
    const torch::Tensor t = value.detach().to(torch::kCPU, torch::kFloat).contiguous();
    content.tensors.push_back(float_tensor(name, t.sizes().vec(), t.data_ptr<float>()));
  };
  for (const auto& p : module->named_parameters(true)) add(p.key(), p.value());
  for (const auto& b : module->named_buffers(true)) add(b.key(), b.value());
  return sealed_model_file(std::move(content));
}

void write_format2_file(const model_metadata& meta, const light_vae& module, std::ostream& file) {
  torch::serialize::OutputArchive archive;
  for (const auto& [name, t] : metadata_to_entries(meta)) archive.write(name, t);
  module->save(archive);
  std::ostringstream bytes;
  archive.save_to(bytes);
  std::string content = std::move(bytes).str();
  const std::uint64_t length = content.size();
  const std::uint64_t hash = fnv1a(content);
  io::append_u64_le(content, length);
  io::append_u64_le(content, hash);
  io::append_u64_le(content, static_cast<std::uint64_t>(model_file_format));
  content.append(magic, sizeof magic);
  file.write(content.data(), static_cast<std::streamsize>(content.size()));
}

std::string_view verified_archive(std::string_view file) {
  if (file.size() < trailer_bytes || file.substr(file.size() - sizeof magic) != std::string_view(magic, sizeof magic))
    ZF_THROW(error, "it does not end as a zeroflow model file does");
  const std::string_view trailer = file.substr(file.size() - trailer_bytes);
  const std::uint64_t format = io::read_u64_le(trailer.substr(16));
  if (format != static_cast<std::uint64_t>(model_file_format))
    ZF_THROW(error, "it is of model format ", format, ", this zeroflow reads formats ", model_file_format, " and ",
             model::model_file_version);
  const std::uint64_t length = io::read_u64_le(trailer);
  if (length != file.size() - trailer_bytes)
    ZF_THROW(error, "it is ", file.size(), " bytes long, but was written ", length + trailer_bytes, " bytes long");
  const std::string_view archive = file.substr(0, length);
  if (fnv1a(archive) != io::read_u64_le(trailer.substr(8)))
    ZF_THROW(error, "its contents do not match the checksum written with them (changed after it was saved)");
  return archive;
}

}  // namespace detail

namespace {

/// How many weights (parameters and buffers) are NaN or infinite.
std::int64_t non_finite_weights(const detail::light_vae& module) {
  std::int64_t bad = 0;
  for (const auto& p : module->parameters(true))
    bad += torch::logical_not(torch::isfinite(p.detach())).sum().item<std::int64_t>();
  for (const auto& b : module->buffers(true))
    bad += torch::logical_not(torch::isfinite(b.detach())).sum().item<std::int64_t>();
  return bad;
}

constexpr const char* start_again = "train the model again (`zeroflow run` writes OUT/model.safetensors)";

}  // namespace

namespace detail {

void torch_read_vae_format2(std::string_view bytes, const std::string& name, std::vector<float>& params,
                            model_file_header& header) {
  configure_torch_threads();
  std::string_view verified;
  try {
    verified = detail::verified_archive(bytes);
  } catch (const error& e) {
    // A bare LibTorch archive is what zeroflow wrote before format 2 (or another program writes).
    const bool zip = bytes.starts_with("PK\x03\x04");
    ZF_THROW(error, "the model ", name, " is not a zeroflow model file or is damaged (", e.what(), ")",
             zip && std::string_view(e.what()).starts_with("it does not end")
                 ? "; a LibTorch archive without zeroflow's trailer comes from an older zeroflow or another program"
                 : "",
             "; ", start_again);
  }
  torch::serialize::InputArchive archive;
  detail::model_metadata meta;
  try {
    archive.load_from(verified.data(), verified.size(), torch::Device(torch::kCPU));
    meta = detail::entries_to_metadata(detail::read_metadata_entries(archive));
  } catch (const error& e) {
    ZF_THROW(error, "the model ", name, " is damaged: ", e.what(), "; ", start_again);
  } catch (const std::exception&) {
    ZF_THROW(error, "the model ", name, " is damaged: its metadata cannot be read; ", start_again);
  }

  light_vae module(meta.width);
  // LibTorch's reader replaces a parameter with whatever tensor the file holds, of any shape.
  std::vector<std::vector<std::int64_t>> shapes;
  for (const auto& p : module->parameters(true)) shapes.push_back(p.sizes().vec());
  for (const auto& b : module->buffers(true)) shapes.push_back(b.sizes().vec());
  try {
    module->load(archive);
  } catch (const std::exception&) {
    ZF_THROW(error, "the model ", name, " is damaged: its weights cannot be read; ", start_again);
  }
  std::size_t k = 0;
  bool shapes_match = true;
  for (const auto& p : module->parameters(true))
    shapes_match = shapes_match && p.sizes().vec() == shapes[k++] && p.scalar_type() == torch::kFloat;
  for (const auto& b : module->buffers(true))
    shapes_match = shapes_match && b.sizes().vec() == shapes[k++] && b.scalar_type() == torch::kFloat;
  if (!shapes_match)
    ZF_THROW(error, "the model ", name, " is damaged: its weights do not fit a model of width ", meta.width, "; ",
             start_again);
  if (const std::int64_t bad = non_finite_weights(module); bad > 0)
    ZF_THROW(error, "the model ", name, " holds ", bad, bad == 1 ? " weight that is" : " weights that are",
             " NaN or infinite: it cannot score anything; ", start_again);
  const torch::Tensor filter = module->named_buffers()["down.filter"].reshape({-1});
  if (!torch::equal(filter, torch::tensor({1.0F, 2.0F, 1.0F})))
    ZF_THROW(error, "the model ", name, " is damaged: its downsampling filter is not [1, 2, 1]; ", start_again);
  params.assign(static_cast<std::size_t>(light_vae_slot_offsets(meta.width).back()), 0.0F);
  store_weights(module, {params.data(), meta.width, cpu_device, {}});
  header.model = "lightvae";
  header.width = meta.width;
  header.rows = meta.rows;
  header.history = meta.history;
}

}  // namespace detail

}  // namespace zeroflow::model
