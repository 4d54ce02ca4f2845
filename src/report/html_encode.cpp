#include "html_encode.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "zeroflow/core/error.hpp"

namespace zeroflow::report::detail {

namespace {

/// Appends `value` as `bytes` little-endian bytes (the browser's typed arrays are little-endian
/// on every platform it runs on; writing byte by byte keeps this host's order out of it).
template <class T>
void put_le(std::vector<std::uint8_t>& out, T value) {
  using U = std::make_unsigned_t<T>;
  const auto u = static_cast<U>(value);
  for (std::size_t i = 0; i < sizeof(T); ++i) out.push_back(static_cast<std::uint8_t>(u >> (8 * i)));
}

void put_f32(std::vector<std::uint8_t>& out, float value) { put_le(out, std::bit_cast<std::uint32_t>(value)); }
void put_f64(std::vector<std::uint8_t>& out, double value) { put_le(out, std::bit_cast<std::uint64_t>(value)); }

nlohmann::json encoded(const char* dtype, std::size_t n, const std::vector<std::uint8_t>& bytes) {
  return {{"dtype", dtype}, {"n", n}, {"b64", base64(bytes)}};
}

}  // namespace

std::string base64(std::span<const std::uint8_t> bytes) {
  static constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const std::uint32_t v = (std::uint32_t{bytes[i]} << 16) | (std::uint32_t{bytes[i + 1]} << 8) | bytes[i + 2];
    out += alphabet[v >> 18];
    out += alphabet[(v >> 12) & 63];
    out += alphabet[(v >> 6) & 63];
    out += alphabet[v & 63];
  }
  if (const std::size_t rest = bytes.size() - i; rest > 0) {
    const std::uint32_t v = (std::uint32_t{bytes[i]} << 16) | (rest == 2 ? std::uint32_t{bytes[i + 1]} << 8 : 0);
    out += alphabet[v >> 18];
    out += alphabet[(v >> 12) & 63];
    out += rest == 2 ? alphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

nlohmann::json encode_i16(std::span<const float> values, double lo, double hi) {
  if (lo > hi) {
    lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (float v : values)
      if (std::isfinite(v)) lo = std::min<double>(lo, v), hi = std::max<double>(hi, v);
    if (lo > hi) lo = hi = 0;  // nothing finite
  }
  constexpr int code_max = 32767, nan_code = -32768;
  const double offset = (lo + hi) / 2, scale = hi > lo ? (hi - lo) / (2.0 * code_max) : 1.0;
  std::vector<std::uint8_t> bytes;
  bytes.reserve(values.size() * 2);
  for (float v : values) {
    const auto q =
        std::isfinite(v)
            ? static_cast<std::int16_t>(std::clamp<double>(std::round((v - offset) / scale), -code_max, code_max))
            : std::int16_t{nan_code};
    put_le(bytes, q);
  }
  auto j = encoded("i16", values.size(), bytes);
  j["offset"] = offset;
  j["scale"] = scale;
  return j;
}

nlohmann::json encode_f32(std::span<const float> values) {
  std::vector<std::uint8_t> bytes;
  bytes.reserve(values.size() * 4);
  for (float v : values) put_f32(bytes, v);
  return encoded("f32", values.size(), bytes);
}

nlohmann::json encode_rows_i8(std::span<const float> values, std::int64_t width) {
  ZF_EXPECTS(width >= 1 && values.size() % static_cast<std::size_t>(width) == 0, "encode_rows_i8: ", values.size(),
             " values are not rows of ", width);
  constexpr int code_max = 127, nan_code = -128;
  const auto w = static_cast<std::size_t>(width);
  std::vector<float> row_scale(values.size() / w);
  std::vector<std::uint8_t> bytes;
  bytes.reserve(values.size());
  for (std::size_t r = 0; r < row_scale.size(); ++r) {
    const auto row = values.subspan(r * w, w);
    float peak = 0;
    for (float v : row)
      if (std::isfinite(v)) peak = std::max(peak, std::fabs(v));
    row_scale[r] = peak > 0 ? peak / code_max : 1.0f;
    for (float v : row) {
      const auto q =
          std::isfinite(v)
              ? static_cast<std::int8_t>(std::clamp<float>(std::round(v / row_scale[r]), -code_max, code_max))
              : std::int8_t{nan_code};
      put_le(bytes, q);
    }
  }
  auto j = encoded("i8", values.size(), bytes);
  j["width"] = width;
  j["row_scale"] = encode_f32(row_scale);
  return j;
}

nlohmann::json encode_ints(std::span<const std::int64_t> values, bool delta) {
  std::vector<std::int64_t> v(values.begin(), values.end());
  if (delta)
    for (std::size_t i = v.size(); i-- > 1;) v[i] -= v[i - 1];
  const auto [lo_it, hi_it] = std::minmax_element(v.begin(), v.end());
  const std::int64_t lo = v.empty() ? 0 : *lo_it, hi = v.empty() ? 0 : *hi_it;
  const auto fits = [&](auto limits) { return lo >= limits.min() && hi <= limits.max(); };
  std::vector<std::uint8_t> bytes;
  const char* dtype = nullptr;
  if (fits(std::numeric_limits<std::int8_t>{})) {
    dtype = "i8";
    for (auto x : v) put_le(bytes, static_cast<std::int8_t>(x));
  } else if (fits(std::numeric_limits<std::int16_t>{})) {
    dtype = "i16";
    for (auto x : v) put_le(bytes, static_cast<std::int16_t>(x));
  } else if (fits(std::numeric_limits<std::int32_t>{})) {
    dtype = "i32";
    for (auto x : v) put_le(bytes, static_cast<std::int32_t>(x));
  } else {
    dtype = "f64";
    for (auto x : v) put_f64(bytes, static_cast<double>(x));
  }
  auto j = encoded(dtype, v.size(), bytes);
  if (delta) j["delta"] = true;
  return j;
}

nlohmann::json encode_u8(std::span<const std::uint8_t> values) {
  return encoded("u8", values.size(), std::vector<std::uint8_t>(values.begin(), values.end()));
}

}  // namespace zeroflow::report::detail
