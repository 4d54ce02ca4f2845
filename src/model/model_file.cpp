/// @file model_file.cpp
/// The metadata and the seal of zeroflow's safetensors model files (model/model_file.hpp).
#include "zeroflow/model/model_file.hpp"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "vae_state.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/byte_fields.hpp"

namespace zeroflow::model {

namespace {

std::string decimal(std::uint64_t v) { return std::to_string(v); }

std::uint64_t read_unsigned(const std::map<std::string, std::string>& m, const std::string& key) {
  const auto it = m.find(key);
  if (it == m.end()) ZF_THROW(error, "its metadata lacks the entry ", key);
  std::uint64_t v = 0;
  const auto* end = it->second.data() + it->second.size();
  const auto [ptr, ec] = std::from_chars(it->second.data(), end, v);
  if (ec != std::errc{} || ptr != end || it->second.empty())
    ZF_THROW(error, "its metadata entry ", key, " is '", it->second, "', not a whole number");
  return v;
}

std::string text_of(const std::map<std::string, std::string>& m, const std::string& key) {
  const auto it = m.find(key);
  if (it == m.end()) ZF_THROW(error, "its metadata lacks the entry ", key);
  return it->second;
}

}  // namespace

std::map<std::string, std::string> model_file_metadata(const model_file_header& header) {
  std::map<std::string, std::string> m;
  m.emplace("format", model_file_format_name);
  m.emplace("format_version", model_file_version);
  m.emplace("model", header.model);
  m["width"] = std::to_string(header.width);
  if (header.rows) {
    const row_provenance& r = *header.rows;
    char rate[32];
    std::snprintf(rate, sizeof rate, "%.17g", r.sample_rate);
    m["rows.sample_rate"] = rate;
    m["rows.segmentation"] = r.segmentation;
    m["rows.normalized"] = r.normalized ? "1" : "0";
    m["rows.window_before"] = std::to_string(r.window_before);
    m["rows.window_after"] = std::to_string(r.window_after);
    m["rows.min_length"] = std::to_string(r.min_length);
    m["rows.max_length"] = std::to_string(r.max_length);
  }
  m["init_seed"] = decimal(header.history.init_seed);
  if (header.history.train_seed) m["train_seed"] = decimal(*header.history.train_seed);
  m["epochs"] = std::to_string(header.history.epochs);
  return m;
}

std::string sealed_model_file(io::safetensors_content content) {
  content.metadata.erase(std::string(io::checksum_key));
  content.metadata[std::string(io::checksum_key)] = io::content_checksum(content);
  return io::to_safetensors(content);
}

bool looks_like_safetensors(std::string_view bytes) {
  if (bytes.size() < 10) return false;
  const std::uint64_t n = io::read_u64_le(bytes);
  return n >= 2 && n <= bytes.size() - 8 && bytes[8] == '{';
}

std::int64_t metadata_integer(const std::map<std::string, std::string>& m, const std::string& key) {
  const std::string text = text_of(m, key);
  std::int64_t v = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc{} || ptr != end || text.empty())
    ZF_THROW(error, "its metadata entry ", key, " is '", text, "', not a whole number");
  return v;
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
  if (text_of(m, "format_version") != model_file_version)
    ZF_THROW(error, "it is of model format ", text_of(m, "format_version"), ", this zeroflow reads format ",
             model_file_version);
  if (text_of(m, std::string(io::checksum_key)) != io::content_checksum(content))
    ZF_THROW(error, "its contents do not match the checksum written with them (changed after it was saved)");

  model_file_header header;
  header.model = text_of(m, "model");
  header.width = metadata_integer(m, "width");
  if (header.width < 1) ZF_THROW(error, "its width is ", header.width);
  if (m.contains("rows.sample_rate")) {
    row_provenance r;
    const std::string rate = text_of(m, "rows.sample_rate");
    char* end = nullptr;
    r.sample_rate = std::strtod(rate.c_str(), &end);
    if (rate.empty() || end != rate.c_str() + rate.size())
      ZF_THROW(error, "its metadata entry rows.sample_rate is '", rate, "', not a number");
    r.segmentation = text_of(m, "rows.segmentation");
    if (r.segmentation == "seed") r.segmentation = "gate-to-gate";  // its earlier name (signal/params.hpp)
    const std::int64_t normalized = metadata_integer(m, "rows.normalized");
    if (normalized != 0 && normalized != 1) ZF_THROW(error, "its normalisation flag is ", normalized, ", not 0 or 1");
    r.normalized = normalized == 1;
    r.window_before = metadata_integer(m, "rows.window_before");
    r.window_after = metadata_integer(m, "rows.window_after");
    r.min_length = metadata_integer(m, "rows.min_length");
    r.max_length = metadata_integer(m, "rows.max_length");
    try {
      detail::check_row_provenance(r);
    } catch (const invalid_argument& e) {
      ZF_THROW(error, "its row description is not one a run makes (", e.what(), ")");
    }
    header.rows = r;
  }
  header.history.init_seed = read_unsigned(m, "init_seed");
  if (m.contains("train_seed")) header.history.train_seed = read_unsigned(m, "train_seed");
  header.history.epochs = metadata_integer(m, "epochs");
  if (header.history.epochs < 0) ZF_THROW(error, "it says it was trained for ", header.history.epochs, " epochs");
  return {std::move(content), std::move(header)};
}

io::safetensor float_tensor(std::string name, std::vector<std::int64_t> shape, const float* values) {
  std::int64_t n = 1;
  for (const auto d : shape) n *= d;
  io::safetensor t{std::move(name), "F32", std::move(shape), std::string(static_cast<std::size_t>(n) * 4, '\0')};
  static_assert(std::endian::native == std::endian::little, "model files are little-endian, as this machine");
  std::memcpy(t.bytes.data(), values, t.bytes.size());
  return t;
}

std::vector<float> read_float_tensor(const io::safetensors_content& content, const std::string& name,
                                     const std::vector<std::int64_t>& shape) {
  const io::safetensor* t = content.find(name);
  if (t == nullptr) ZF_THROW(error, "it lacks the weight ", name);
  if (t->dtype != "F32" || t->shape != shape) {
    std::string want;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      if (i > 0) want += "×";
      want += std::to_string(shape[i]);
    }
    ZF_THROW(error, "its weight ", name, " is not float32 of shape ", want.empty() ? "()" : want);
  }
  std::vector<float> values(t->bytes.size() / 4);
  std::memcpy(values.data(), t->bytes.data(), t->bytes.size());
  std::int64_t bad = 0;
  for (const float v : values) bad += std::isfinite(v) ? 0 : 1;
  if (bad > 0)
    ZF_THROW(error, "it holds ", bad, bad == 1 ? " weight that is" : " weights that are", " NaN or infinite (in ", name,
             "): it cannot score anything");
  return values;
}

}  // namespace zeroflow::model
