#pragma once
// Compact encodings of the report's arrays for the browser: raw little-endian bytes as base64,
// with floats quantised to 16 or 8 bits (scale and offset given beside them) and integers in
// the narrowest type that holds them, optionally as differences. Each encoding is a small JSON
// object that report_data.js's decode() turns back into a typed array:
//   {"dtype": "i8|u8|i16|i32|f32|f64", "n": count, "b64": bytes,
//    "offset": o, "scale": s    -> value = o + s·q, the lowest code of the type meaning NaN
//    "row_scale": {...}, "width": w -> value = q · row_scale[i / w] (per-row 8-bit rows)
//    "delta": true}             -> value = running sum of the decoded numbers
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

namespace zeroflow::report::detail {

/// RFC 4648 base64 (standard alphabet, '=' padding), what the browser's atob() reads.
[[nodiscard]] std::string base64(std::span<const std::uint8_t> bytes);

/// Floats as 16-bit codes over [lo, hi] (the finite range of `values` when lo > hi is passed):
/// error at most (hi − lo) / 131068; non-finite values decode as NaN.
[[nodiscard]] nlohmann::json encode_i16(std::span<const float> values, double lo = 1, double hi = 0);

/// Floats as float32 bits, exactly.
[[nodiscard]] nlohmann::json encode_f32(std::span<const float> values);

/// Rows of `width` floats as 8-bit codes with one float32 scale per row (max |x| / 127), so that
/// every row keeps its own resolution; non-finite values decode as NaN.
[[nodiscard]] nlohmann::json encode_rows_i8(std::span<const float> values, std::int64_t width);

/// Integers in the narrowest of i8, i16, i32 (or f64, exact up to 2^53) that holds them, or
/// their successive differences (the first one from 0) when `delta`.
[[nodiscard]] nlohmann::json encode_ints(std::span<const std::int64_t> values, bool delta = false);

/// Bytes as they are.
[[nodiscard]] nlohmann::json encode_u8(std::span<const std::uint8_t> values);

}  // namespace zeroflow::report::detail
