/// @file vae_file.cpp
/// zeroflow::model::vae's model file: format 3 (safetensors, model_file.hpp) written atomically
/// and read with every check before a model is handed out; format 2 (a LibTorch archive that
/// earlier zeroflows wrote) recognised and refused with what to do.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <string_view>

#include "light_vae_init.hpp"
#include "model_stream.hpp"
#include "vae_state.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/atomic_file.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/model/model_file.hpp"
#include "zeroflow/model/vae.hpp"

namespace zeroflow::model {

namespace detail {

void check_row_provenance(const row_provenance& rows) {
  ZF_EXPECTS(std::isfinite(rows.sample_rate) && rows.sample_rate > 0,
             "rows: the sample rate must be a positive number, got ", rows.sample_rate);
  ZF_EXPECTS(rows.segmentation == "robust" || rows.segmentation == "gate-to-gate",
             "rows: the segmentation is robust or gate-to-gate, got '", rows.segmentation, "'");
  ZF_EXPECTS(
      rows.window_before >= 0 && rows.window_after >= 0 && rows.min_length >= 0 && rows.min_length <= rows.max_length,
      "rows: windows and beat lengths must be >= 0 (and the shortest beat no longer than the longest), got ",
      rows.window_before, " + ", rows.window_after, " samples, beats of ", rows.min_length, " to ", rows.max_length,
      " samples");
}

}  // namespace detail

namespace {

// Widths beyond this are no beat row (a 1 MHz recording's row is 2^20 samples), and no file of
// model size holds their weights, which take about 50 MB at that width.
constexpr std::int64_t largest_width = std::int64_t{1} << 22;
constexpr std::uintmax_t largest_file = std::uintmax_t{256} << 20;

constexpr const char* start_again = "train the model again (`zeroflow run` writes OUT/model.safetensors)";
constexpr const char* filter_name = "down.filter";

/// Refuses bytes that are no safetensors file, saying what they look like: the LibTorch archive
/// of format 2 (zeroflow's trailer: an 8-byte "ZEROFLOW" at the end), a bare LibTorch archive (a
/// zip file), or something else.
[[noreturn]] void refuse_unreadable(std::string_view bytes, const std::string& name) {
  if (bytes.ends_with("ZEROFLOW") || bytes.starts_with("PK\x03\x04"))
    ZF_THROW(
        error, "the model ", name,
        " is a LibTorch archive (model format 2, from earlier builds of zeroflow), which this one no longer reads; ",
        start_again);
  ZF_THROW(error, "the model ", name, " is not a zeroflow model file or is damaged (it is no safetensors file); ",
           start_again);
}

/// The packed weights of a format-3 file (every slot, the fixed filter, nothing else).
std::vector<float> read_weights(const io::safetensors_content& content, std::int64_t width) {
  const auto offsets = detail::light_vae_slot_offsets(width);
  std::vector<float> params(static_cast<std::size_t>(offsets.back()));
  std::set<std::string> expected{filter_name};
  for (std::size_t s = 0; s < detail::light_vae_slot_names.size(); ++s) {
    const char* name = detail::light_vae_slot_names[s];
    expected.insert(name);
    const std::vector<float> values =
        read_float_tensor(content, name, detail::light_vae_slot_shape(static_cast<int>(s), width));
    std::copy(values.begin(), values.end(), params.begin() + offsets[s]);
  }
  const std::vector<float> filter = read_float_tensor(content, filter_name, {1, 1, 3});
  if (filter != std::vector<float>(detail::light_vae_down_filter.begin(), detail::light_vae_down_filter.end()))
    ZF_THROW(error, "its downsampling filter is not [1, 2, 1]");
  for (const auto& t : content.tensors)
    if (!expected.contains(t.name)) ZF_THROW(error, "it holds the tensor ", t.name, ", which no LightVAE has");
  return params;
}

}  // namespace

void vae::describe_rows(const row_provenance& rows) {
  detail::check_row_provenance(rows);
  impl_->rows = rows;
}

const std::optional<row_provenance>& vae::described_rows() const { return impl_->rows; }

const training_history& vae::history() const { return impl_->history; }

void vae::save(const std::filesystem::path& path) const {
  const stream_view stream = detail::model_stream(impl_->place);
  const array host = impl_->place.type == device_type::cpu ? impl_->params : copy_to(impl_->params, cpu_device, stream);
  detail::wait_for_stream(stream, impl_->place);
  const auto* params = static_cast<const float*>(host.data());
  const auto offsets = detail::light_vae_slot_offsets(width());
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < offsets.back(); ++i) bad += std::isfinite(params[i]) ? 0 : 1;
  if (bad > 0)
    ZF_THROW(error, "cannot save the model to ", path.string(), ": ", bad, bad == 1 ? " weight is" : " weights are",
             " NaN or infinite (training went wrong; such a model scores nothing)");
  io::safetensors_content content;
  content.metadata = model_file_metadata({"lightvae", width(), impl_->rows, impl_->history});
  for (std::size_t s = 0; s < detail::light_vae_slot_names.size(); ++s)
    content.tensors.push_back(io::make_safetensor(detail::light_vae_slot_names[s],
                                                  detail::light_vae_slot_shape(static_cast<int>(s), width()),
                                                  params + offsets[s]));
  content.tensors.push_back(io::make_safetensor(filter_name, {1, 1, 3}, detail::light_vae_down_filter.data()));
  const std::string bytes = io::sealed_safetensors(std::move(content));
  io::write_atomically(path,
                       [&](std::ostream& out) { out.write(bytes.data(), static_cast<std::streamsize>(bytes.size())); });
}

vae vae::load(const std::filesystem::path& path, device where) {
  detail::check_model_place(where);
  const std::string name = path.string();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) ZF_THROW(error, "cannot read the model ", name, ": no such file");
  if (!std::filesystem::is_regular_file(path, ec))
    ZF_THROW(error, "cannot read the model ", name,
             ": not a file (a model is the model.safetensors that `zeroflow run` writes)");
  const auto size = std::filesystem::file_size(path, ec);
  if (size == 0) ZF_THROW(error, "the model ", name, " is an empty file; ", start_again);
  if (size > largest_file)
    ZF_THROW(error, "the model ", name, " is ", size >> 20, " MiB, larger than any zeroflow model; ", start_again);

  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) ZF_THROW(error, "cannot read the model ", name);
  }
  std::vector<float> params;
  model_file_header header;
  if (io::looks_like_safetensors(bytes)) {
    try {
      auto [content, read] = open_model_file(bytes);
      if (read.model != "lightvae")
        ZF_THROW(error, "it holds a model of kind '", read.model,
                 "', not a LightVAE (`zeroflow score` reads either kind)");
      if (!detail::is_light_vae_width(read.width) || read.width > largest_width)
        ZF_THROW(error, "its row width ", read.width, " is not a power of two from 16 to ", largest_width);
      params = read_weights(content, read.width);
      header = std::move(read);
    } catch (const error& e) {
      ZF_THROW(error, "the model ", name, " is not a zeroflow model file or is damaged (", e.what(), "); ",
               start_again);
    }
  } else {
    refuse_unreadable(bytes, name);
  }
  array host = empty({static_cast<std::int64_t>(params.size())}, float32, cpu_device);
  std::memcpy(host.data(), params.data(), params.size() * sizeof(float));
  auto state = std::make_unique<impl>();
  state->width = header.width;
  state->place = where;
  state->rows = header.rows;
  state->history = header.history;
  const stream_view stream = detail::model_stream(where);
  state->params = where.type == device_type::cpu ? host : copy_to(host, where, stream);
  detail::wait_for_stream(stream, where);
  return vae{std::move(state)};
}

}  // namespace zeroflow::model
