/// @file safetensors.cpp
/// zeroflow::io's safetensors reader and writer (safetensors.hpp).
#include "zeroflow/io/safetensors.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "zeroflow/core/error.hpp"
#include "zeroflow/io/byte_fields.hpp"

namespace zeroflow::io {

namespace {

using nlohmann::json;

// The reference implementation refuses headers above this size: no model's header comes near it,
// and it keeps a damaged length from making the reader allocate without bound.
constexpr std::uint64_t largest_header = 100'000'000;
constexpr std::string_view metadata_key = "__metadata__";

/// "float32 of shape 3×4": a dtype and shape in a person's words, for messages.
std::string described(std::string_view dtype, const std::vector<std::int64_t>& shape) {
  const std::string type = dtype == "F32"   ? "float32"
                           : dtype == "F64" ? "float64"
                           : dtype == "I64" ? "int64"
                                            : std::string(dtype);
  std::string dims;
  for (std::size_t i = 0; i < shape.size(); ++i) dims += (i > 0 ? "×" : "") + std::to_string(shape[i]);
  return type + " of shape " + (dims.empty() ? "()" : dims);
}

/// Elements of `shape`, or -1 when a size is negative or the product overflows.
std::int64_t element_count(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (const std::int64_t d : shape) {
    if (d < 0 || (d > 0 && n > std::numeric_limits<std::int64_t>::max() / d)) return -1;
    n *= d;
  }
  return n;
}

}  // namespace

const safetensor* safetensors_content::find(std::string_view name) const {
  for (const auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

std::int64_t safetensors_element_bytes(std::string_view dtype) {
  static const std::map<std::string_view, std::int64_t> sizes = {
      {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E4M3", 1}, {"F8_E5M2", 1}, {"U16", 2}, {"I16", 2}, {"F16", 2},
      {"BF16", 2}, {"U32", 4}, {"I32", 4}, {"F32", 4},     {"U64", 8},     {"I64", 8}, {"F64", 8}};
  const auto it = sizes.find(dtype);
  return it == sizes.end() ? 0 : it->second;
}

std::string to_safetensors(const safetensors_content& content) {
  json header = json::object();
  if (!content.metadata.empty()) header[std::string(metadata_key)] = content.metadata;
  std::set<std::string_view> names;
  std::uint64_t offset = 0;
  for (const auto& t : content.tensors) {
    ZF_EXPECTS(!t.name.empty() && t.name != metadata_key, "safetensors: a tensor may not be called '", t.name, "'");
    ZF_EXPECTS(names.insert(t.name).second, "safetensors: two tensors are called '", t.name, "'");
    const std::int64_t size = safetensors_element_bytes(t.dtype);
    ZF_EXPECTS(size > 0, "safetensors: tensor '", t.name, "' has the unknown dtype '", t.dtype, "'");
    const std::int64_t n = element_count(t.shape);
    ZF_EXPECTS(n >= 0, "safetensors: tensor '", t.name, "' has a negative or too large shape");
    ZF_EXPECTS(static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(size) == t.bytes.size(),
               "safetensors: tensor '", t.name, "' has ", t.bytes.size(), " bytes, its shape needs ", n * size);
    header[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {offset, offset + t.bytes.size()}}};
    offset += t.bytes.size();
  }
  // nlohmann's object is ordered by key, which the format allows: readers go by data_offsets.
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::string out;
  out.reserve(8 + text.size() + offset);
  append_u64_le(out, text.size());
  out += text;
  for (const auto& t : content.tensors) out += t.bytes;
  return out;
}

safetensors_content from_safetensors(std::string_view file) {
  if (file.size() < 8) ZF_THROW(parse_error, "it is ", file.size(), " bytes long, too short for a safetensors file");
  const std::uint64_t header_bytes = read_u64_le(file);
  if (header_bytes < 2 || header_bytes > largest_header || header_bytes > file.size() - 8)
    ZF_THROW(parse_error, "its first 8 bytes give a header of ", header_bytes, " bytes, which does not fit its ",
             file.size(), " bytes");
  const std::string_view text = file.substr(8, header_bytes);
  if (text.front() != '{') ZF_THROW(parse_error, "its header is not a JSON object");
  const json header = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (header.is_discarded() || !header.is_object()) ZF_THROW(parse_error, "its header is not valid JSON");
  const std::string_view data = file.substr(8 + header_bytes);

  safetensors_content content;
  struct placed {
    std::uint64_t begin, end;
    safetensor tensor;
  };
  std::vector<placed> found;
  for (const auto& item : header.items()) {
    // Named copies, not structured bindings: lambdas below capture them.
    const std::string key = item.key();
    const json& entry = item.value();
    if (key == metadata_key) {
      if (!entry.is_object()) ZF_THROW(parse_error, "its __metadata__ is not a JSON object");
      for (const auto& [name, value] : entry.items()) {
        if (!value.is_string()) ZF_THROW(parse_error, "its __metadata__ entry '", name, "' is not a string");
        content.metadata[name] = value.get<std::string>();
      }
      continue;
    }
    const auto bad = [&](const char* what) { ZF_THROW(parse_error, "its tensor '", key, "' ", what); };
    if (!entry.is_object() || !entry.contains("dtype") || !entry.contains("shape") || !entry.contains("data_offsets"))
      bad("lacks dtype, shape or data_offsets");
    safetensor t;
    t.name = key;
    if (!entry["dtype"].is_string()) bad("has a dtype that is not a string");
    t.dtype = entry["dtype"].get<std::string>();
    const std::int64_t size = safetensors_element_bytes(t.dtype);
    if (size == 0) ZF_THROW(parse_error, "its tensor '", key, "' has the unknown dtype '", t.dtype, "'");
    const json& shape = entry["shape"];
    if (!shape.is_array()) bad("has a shape that is not a list");
    for (const auto& d : shape) {
      if (!d.is_number_unsigned()) bad("has a shape with a size that is not a whole number >= 0");
      if (d.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        bad("has a shape too large for any file");
      t.shape.push_back(d.get<std::int64_t>());
    }
    const json& offsets = entry["data_offsets"];
    if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
        !offsets[1].is_number_unsigned())
      bad("has data_offsets that are not two whole numbers");
    const auto begin = offsets[0].get<std::uint64_t>();
    const auto end = offsets[1].get<std::uint64_t>();
    if (begin > end || end > data.size())
      ZF_THROW(parse_error, "its tensor '", key, "' lies at bytes ", begin, " to ", end, " of data that has ",
               data.size());
    const std::int64_t n = element_count(t.shape);
    if (n < 0 || static_cast<std::uint64_t>(n) > (end - begin) / static_cast<std::uint64_t>(size) ||
        static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(size) != end - begin)
      ZF_THROW(parse_error, "its tensor '", key, "' has ", end - begin, " bytes, which do not hold its shape of ",
               t.dtype);
    t.bytes.assign(data.substr(begin, end - begin));
    found.push_back({begin, end, std::move(t)});
  }
  std::sort(found.begin(), found.end(),
            [](const placed& a, const placed& b) { return a.begin != b.begin ? a.begin < b.begin : a.end < b.end; });
  std::uint64_t next = 0;
  for (auto& p : found) {
    if (p.begin != next)
      ZF_THROW(parse_error, "its tensor '", p.tensor.name, "' starts at data byte ", p.begin, ", not at ", next,
               p.begin < next ? " (it overlaps another)" : " (a gap before it)");
    next = p.end;
    content.tensors.push_back(std::move(p.tensor));
  }
  if (next != data.size())
    ZF_THROW(parse_error, "it has ", data.size() - next, " bytes after its last tensor (cut or appended to)");
  return content;
}

std::string content_checksum(const safetensors_content& content) {
  fnv1a64 hash;
  const auto add = [&](std::string_view bytes) {
    hash.add(bytes);
    hash.add_byte(0);  // the NUL after each field
  };
  for (const auto& [key, value] : content.metadata) {
    if (key == checksum_key) continue;
    add(key);
    add(value);
  }
  std::vector<const safetensor*> by_name;
  for (const auto& t : content.tensors) by_name.push_back(&t);
  std::sort(by_name.begin(), by_name.end(), [](const safetensor* a, const safetensor* b) { return a->name < b->name; });
  for (const safetensor* t : by_name) {
    add(t->name);
    add(t->dtype);
    std::string dims;
    for (std::size_t i = 0; i < t->shape.size(); ++i) {
      if (i > 0) dims += ',';
      dims += std::to_string(t->shape[i]);
    }
    add(dims);
    hash.add(t->bytes);
  }
  static constexpr char hex[] = "0123456789abcdef";
  std::string out = "fnv1a64:";
  for (int i = 15; i >= 0; --i) out += hex[(hash.value() >> (4 * i)) & 0xF];
  return out;
}

std::string sealed_safetensors(safetensors_content content) {
  content.metadata[std::string(checksum_key)] = content_checksum(content);  // the hash skips the old one
  return to_safetensors(content);
}

bool checksum_holds(const safetensors_content& content) {
  const auto it = content.metadata.find(std::string(checksum_key));
  return it != content.metadata.end() && it->second == content_checksum(content);
}

bool looks_like_safetensors(std::string_view bytes) {
  if (bytes.size() < 10) return false;
  const std::uint64_t n = read_u64_le(bytes);
  return n >= 2 && n <= bytes.size() - 8 && bytes[8] == '{';
}

const std::string& metadata_entry(const safetensors_content& content, const std::string& key) {
  const auto it = content.metadata.find(key);
  if (it == content.metadata.end()) ZF_THROW(parse_error, "its metadata lacks the entry ", key);
  return it->second;
}

template <class T>
T metadata_number(const safetensors_content& content, const std::string& key) {
  const std::string& text = metadata_entry(content, key);
  T value{};
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc{} || ptr != end || text.empty())
    ZF_THROW(parse_error, "its metadata entry ", key, " is '", text, "', not ",
             std::is_integral_v<T> ? "a whole number" : "a number");
  return value;
}

template int metadata_number<int>(const safetensors_content&, const std::string&);
template std::int64_t metadata_number<std::int64_t>(const safetensors_content&, const std::string&);
template std::uint64_t metadata_number<std::uint64_t>(const safetensors_content&, const std::string&);
template float metadata_number<float>(const safetensors_content&, const std::string&);
template double metadata_number<double>(const safetensors_content&, const std::string&);

const safetensor& tensor_of_shape(const safetensors_content& content, const std::string& name, std::string_view dtype,
                                  const std::vector<std::int64_t>& shape) {
  const safetensor* t = content.find(name);
  if (t == nullptr) ZF_THROW(parse_error, "it lacks the tensor ", name);
  if (t->dtype != dtype || t->shape != shape)
    ZF_THROW(parse_error, "its tensor ", name, " is not ", described(dtype, shape), " (it is ",
             described(t->dtype, t->shape), ")");
  const std::int64_t n = element_count(shape);
  if (n < 0 || t->bytes.size() != static_cast<std::uint64_t>(n) * safetensors_element_bytes(dtype))
    ZF_THROW(parse_error, "its tensor ", name, " has ", t->bytes.size(), " bytes, not those of ",
             described(dtype, shape));
  return *t;
}

safetensor make_safetensor(std::string name, std::string_view dtype, std::vector<std::int64_t> shape,
                           const void* values) {
  static_assert(std::endian::native == std::endian::little, "safetensors are little-endian, as this machine");
  const std::int64_t element_bytes = safetensors_element_bytes(dtype);
  const std::int64_t n = element_count(shape);
  ZF_EXPECTS(element_bytes > 0, "make_safetensor: unknown dtype '", dtype, "'");
  ZF_EXPECTS(n >= 0 && n <= std::numeric_limits<std::int64_t>::max() / element_bytes, "make_safetensor: the shape of ",
             name, " has a negative size or too many elements to count");
  safetensor t{std::move(name), std::string(dtype), std::move(shape),
               std::string(static_cast<std::size_t>(n * element_bytes), '\0')};
  if (n > 0) std::memcpy(t.bytes.data(), values, t.bytes.size());
  return t;
}

}  // namespace zeroflow::io
