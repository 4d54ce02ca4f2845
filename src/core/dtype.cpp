#include "zeroflow/core/dtype.hpp"

#include <string>

namespace zeroflow {

std::string dtype::name() const {
  std::string base;
  switch (code) {
    case type_code::int_:
      base = "int";
      break;
    case type_code::uint:
      base = "uint";
      break;
    case type_code::float_:
      base = "float";
      break;
    case type_code::bfloat:
      base = "bfloat";
      break;
    case type_code::complex:
      base = "complex";
      break;
    case type_code::bool_:
      return lanes == 1 ? "bool" : "bool x" + std::to_string(lanes);
    default:
      return "unknown(code=" + std::to_string(static_cast<int>(code)) + ")";
  }
  std::string out = base + std::to_string(bits);
  if (lanes != 1) out += " x" + std::to_string(lanes);
  return out;
}

bool is_valid(dtype t) {
  if (t.lanes < 1 || t.bits == 0 || t.bits % 8 != 0) return false;
  switch (t.code) {
    case type_code::int_:
    case type_code::uint:
      return t.bits <= 64;
    case type_code::float_:
      return t.bits == 16 || t.bits == 32 || t.bits == 64;
    case type_code::bfloat:
      return t.bits == 16;
    case type_code::complex:
      return t.bits == 64 || t.bits == 128;
    case type_code::bool_:
      return t.bits == 8;
  }
  return false;
}

}  // namespace zeroflow
