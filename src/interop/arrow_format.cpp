#include "arrow_format.hpp"

namespace zeroflow::arrow::detail {

const char* format_of(dtype t) {
  if (t.lanes != 1) return nullptr;
  switch (t.code) {
    case type_code::int_:
      switch (t.bits) {
        case 8:
          return "c";
        case 16:
          return "s";
        case 32:
          return "i";
        case 64:
          return "l";
        default:
          return nullptr;
      }
    case type_code::uint:
      switch (t.bits) {
        case 8:
          return "C";
        case 16:
          return "S";
        case 32:
          return "I";
        case 64:
          return "L";
        default:
          return nullptr;
      }
    case type_code::float_:
      switch (t.bits) {
        case 16:
          return "e";
        case 32:
          return "f";
        case 64:
          return "g";
        default:
          return nullptr;
      }
    case type_code::bool_:
      return t.bits == 8 ? "b" : nullptr;
    default:
      return nullptr;  // bfloat16 and complex have no Arrow primitive
  }
}

std::optional<dtype> dtype_of_format(std::string_view format) {
  if (format.size() != 1) return std::nullopt;
  switch (format[0]) {
    case 'c':
      return int8;
    case 's':
      return int16;
    case 'i':
      return int32;
    case 'l':
      return int64;
    case 'C':
      return uint8;
    case 'S':
      return uint16;
    case 'I':
      return uint32;
    case 'L':
      return uint64;
    case 'e':
      return float16;
    case 'f':
      return float32;
    case 'g':
      return float64;
    case 'b':
      return bool8;
    default:
      return std::nullopt;
  }
}

}  // namespace zeroflow::arrow::detail
