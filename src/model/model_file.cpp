/// @file model_file.cpp
/// The metadata and the seal of zeroflow's safetensors model files (model/model_file.hpp).
#include "zeroflow/model/model_file.hpp"

#include <charconv>
#include <cmath>

#include "vae_state.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::model {

std::map<std::string, std::string> model_file_metadata(const model_file_header& header) {
  std::map<std::string, std::string> m;
  m.emplace("format", model_file_format_name);
  m.emplace("format_version", model_file_version);
  m.emplace("model", header.model);
  m["width"] = std::to_string(header.width);
  if (header.rows) {
    const row_provenance& r = *header.rows;
    char rate[32];
    const auto written = std::to_chars(rate, rate + sizeof rate, r.sample_rate, std::chars_format::general, 17);
    m["rows.sample_rate"] = std::string(rate, written.ptr);  // as "%.17g" writes it, in any locale
    m["rows.segmentation"] = r.segmentation;
    m["rows.normalized"] = std::to_string(r.normalized ? 1 : 0);
    m["rows.window_before"] = std::to_string(r.window_before);
    m["rows.window_after"] = std::to_string(r.window_after);
    m["rows.min_length"] = std::to_string(r.min_length);
    m["rows.max_length"] = std::to_string(r.max_length);
  }
  m["init_seed"] = std::to_string(header.history.init_seed);
  if (header.history.train_seed) m["train_seed"] = std::to_string(*header.history.train_seed);
  m["epochs"] = std::to_string(header.history.epochs);
  return m;
}

std::pair<io::safetensors_content, model_file_header> open_model_file(std::string_view bytes) {
  io::safetensors_content content;
  try {
    content = io::from_safetensors(bytes);
  } catch (const parse_error& e) {
    ZF_THROW(error, "it is not a readable safetensors file: ", e.what());
  }
  const auto& m = content.metadata;
  const auto format = m.find("format");
  if (format == m.end() || format->second != model_file_format_name)
    ZF_THROW(error, "it is a safetensors file, but not one zeroflow wrote (its metadata has no format '",
             model_file_format_name, "')");
  const std::string& version = io::metadata_entry(content, "format_version");
  if (version != model_file_version)
    ZF_THROW(error, "it is of model format ", version, ", this zeroflow reads format ", model_file_version);
  (void)io::metadata_entry(content, std::string(io::checksum_key));  // "lacks the entry checksum"
  if (!io::checksum_holds(content))
    ZF_THROW(error, "its contents do not match the checksum written with them (changed after it was saved)");

  const auto integer = [&](const char* key) { return io::metadata_number<std::int64_t>(content, key); };
  model_file_header header;
  header.model = io::metadata_entry(content, "model");
  header.width = integer("width");
  if (header.width < 1) ZF_THROW(error, "its width is ", header.width);
  if (m.contains("rows.sample_rate")) {
    row_provenance r;
    r.sample_rate = io::metadata_number<double>(content, "rows.sample_rate");
    r.segmentation = io::metadata_entry(content, "rows.segmentation");
    if (r.segmentation == "seed") r.segmentation = "gate-to-gate";  // its earlier name (signal/params.hpp)
    const std::int64_t normalized = integer("rows.normalized");
    if (normalized != 0 && normalized != 1) ZF_THROW(error, "its normalisation flag is ", normalized, ", not 0 or 1");
    r.normalized = normalized == 1;
    r.window_before = integer("rows.window_before");
    r.window_after = integer("rows.window_after");
    r.min_length = integer("rows.min_length");
    r.max_length = integer("rows.max_length");
    try {
      detail::check_row_provenance(r);
    } catch (const invalid_argument& e) {
      ZF_THROW(error, "its row description is not one a run makes (", e.what(), ")");
    }
    header.rows = r;
  }
  header.history.init_seed = io::metadata_number<std::uint64_t>(content, "init_seed");
  if (m.contains("train_seed")) header.history.train_seed = io::metadata_number<std::uint64_t>(content, "train_seed");
  header.history.epochs = integer("epochs");
  if (header.history.epochs < 0) ZF_THROW(error, "it says it was trained for ", header.history.epochs, " epochs");
  return {std::move(content), std::move(header)};
}

std::vector<float> read_float_tensor(const io::safetensors_content& content, const std::string& name,
                                     const std::vector<std::int64_t>& shape) {
  const std::vector<float> values = io::safetensor_values<float>(content, name, shape);
  std::int64_t bad = 0;
  for (const float v : values) bad += std::isfinite(v) ? 0 : 1;
  if (bad > 0)
    ZF_THROW(error, "it holds ", bad, bad == 1 ? " weight that is" : " weights that are", " NaN or infinite (in ", name,
             "): it cannot score anything");
  return values;
}

}  // namespace zeroflow::model
