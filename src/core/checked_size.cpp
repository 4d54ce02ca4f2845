#include "zeroflow/core/checked_size.hpp"

#include <string>

#include "zeroflow/core/error.hpp"

namespace zeroflow {

namespace {

std::string shape_text(std::span<const std::int64_t> shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

/// The product of the non-zero extents, or nullopt when it overflows; throws for a negative extent.
std::optional<std::int64_t> nonzero_product(std::span<const std::int64_t> shape) {
  std::int64_t n = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    ZF_EXPECTS(shape[d] >= 0, "dimension ", d, " of shape ", shape_text(shape), " has a negative extent");
    if (shape[d] == 0) continue;
    const auto next = checked_mul(n, shape[d]);
    if (!next) return std::nullopt;
    n = *next;
  }
  return n;
}

bool has_zero(std::span<const std::int64_t> shape) {
  for (auto e : shape)
    if (e == 0) return true;
  return false;
}

}  // namespace

std::int64_t multiply_sizes(std::int64_t a, std::int64_t b, const char* what) {
  const auto product = checked_mul(a, b);
  ZF_EXPECTS(product.has_value(), what, ": ", a, " x ", b, " does not fit in 64 bits");
  return *product;
}

std::int64_t element_count(std::span<const std::int64_t> shape) {
  const auto n = nonzero_product(shape);
  ZF_EXPECTS(n.has_value(), "an array of shape ", shape_text(shape),
             " is too large: its number of elements does not fit in 64 bits");
  return has_zero(shape) ? 0 : *n;
}

std::size_t contiguous_bytes(std::span<const std::int64_t> shape, dtype type) {
  const auto n = nonzero_product(shape);
  const auto bytes = n ? checked_mul(*n, static_cast<std::int64_t>(type.itemsize())) : std::nullopt;
  ZF_EXPECTS(bytes.has_value(), "an array of shape ", shape_text(shape), " and dtype ", type.name(),
             " is too large: its size in bytes does not fit in 64 bits");
  return has_zero(shape) ? 0 : static_cast<std::size_t>(*bytes);
}

}  // namespace zeroflow
