#include "zeroflow/core/array.hpp"

#include <limits>

#include "zeroflow/core/checked_size.hpp"

namespace zeroflow {

shape_t contiguous_strides(const shape_t& shape) {
  shape_t strides(shape.size());
  (void)element_count(shape);  // every partial product below fits once the whole one does
  std::int64_t step = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    strides[i] = step;
    step *= shape[i] > 0 ? shape[i] : 1;
  }
  return strides;
}

array::array(std::shared_ptr<buffer> owner, dtype type, shape_t shape, std::optional<shape_t> strides,
             std::int64_t byte_offset, bool read_only)
    : owner_{std::move(owner)},
      dtype_{type},
      shape_{std::move(shape)},
      strides_{strides ? std::move(*strides) : contiguous_strides(shape_)},
      byte_offset_{byte_offset},
      read_only_{read_only} {
  validate();
}

void array::validate() const {
  ZF_EXPECTS(owner_ != nullptr, "array needs a buffer");
  ZF_EXPECTS(is_valid(dtype_), "unsupported dtype ", dtype_.name(), " (code ", static_cast<int>(dtype_.code), ", bits ",
             int{dtype_.bits}, ", lanes ", dtype_.lanes, ")");
  ZF_EXPECTS(strides_.size() == shape_.size(), "strides have ", strides_.size(), " dimensions, shape has ",
             shape_.size());
  ZF_EXPECTS(byte_offset_ >= 0, "negative byte offset ", byte_offset_);
  bool empty = false;
  for (std::size_t d = 0; d < shape_.size(); ++d) {
    ZF_EXPECTS(shape_[d] >= 0, "dimension ", d, " has negative extent ", shape_[d]);
    empty = empty || shape_[d] == 0;
  }
  // size(), nbytes() and the byte strides that exports hand out must fit in 64 bits, even for a
  // view that repeats one element (stride 0) or addresses nothing.
  (void)contiguous_bytes(shape_, dtype_);
  const auto item = static_cast<std::int64_t>(dtype_.itemsize());
  for (std::size_t d = 0; d < shape_.size(); ++d)
    ZF_EXPECTS(checked_mul(strides_[d], item).has_value(), "the stride ", strides_[d], " of dimension ", d,
               " is too large: in bytes it does not fit in 64 bits");
  if (empty) return;  // a 0-size array addresses nothing, whatever its strides
  // The lowest and highest element offsets the view can reach must lie inside the buffer; an
  // offset that does not even fit in 64 bits lies outside any buffer.
  std::optional<std::int64_t> low = 0, high = 0;
  for (std::size_t d = 0; d < shape_.size() && low && high; ++d) {
    const auto reach = checked_mul(shape_[d] - 1, strides_[d]);
    if (!reach)
      low.reset();
    else if (*reach < 0)
      low = checked_add(*low, *reach);
    else
      high = checked_add(*high, *reach);
  }
  const auto low_bytes = low ? checked_mul(*low, item) : std::nullopt;
  const auto high_bytes = high ? checked_mul(*high, item) : std::nullopt;
  const auto first = low_bytes ? checked_add(byte_offset_, *low_bytes) : std::nullopt;
  const auto end = high_bytes ? checked_add(byte_offset_, *high_bytes) : std::nullopt;
  const auto last = end ? checked_add(*end, item) : std::nullopt;  // one past the last byte
  ZF_EXPECTS(first && last, "shape and strides reach element offsets that do not fit in 64 bits");
  ZF_EXPECTS(*first >= 0 && *last <= static_cast<std::int64_t>(owner_->size()), "shape and strides reach bytes [",
             *first, ", ", *last, ") outside the ", owner_->size(), "-byte buffer");
}

std::int64_t array::shape(std::int64_t dim) const {
  ZF_EXPECTS(dim >= 0 && dim < ndim(), "dimension ", dim, " out of range for a ", ndim(), "-d array");
  return shape_[static_cast<std::size_t>(dim)];
}

std::int64_t array::size() const {
  std::int64_t n = 1;
  for (auto extent : shape_) n *= extent;
  return n;
}

bool array::is_contiguous() const {
  std::int64_t expected = 1;
  for (std::size_t i = shape_.size(); i-- > 0;) {
    if (shape_[i] == 0) return true;
    if (shape_[i] != 1 && strides_[i] != expected) return false;
    expected *= shape_[i];
  }
  return true;
}

void* array::data() const {
  if (!owner_) return nullptr;
  return static_cast<char*>(owner_->data()) + byte_offset_;
}

void array::check_access(dtype wanted, bool write) const {
  ZF_EXPECTS(valid(), "access to an empty array");
  ZF_EXPECTS(wanted == dtype_, "array holds ", dtype_.name(), ", accessed as ", wanted.name());
  ZF_EXPECTS(!write || !read_only_, "array is read-only");
}

array array::as_read_only() const {
  array out = *this;
  out.read_only_ = true;
  return out;
}

array array::slice(std::int64_t dim, std::int64_t start, std::int64_t stop, std::int64_t step) const {
  const std::int64_t extent = shape(dim);
  ZF_EXPECTS(step != 0, "slice step must not be 0");
  const auto d = static_cast<std::size_t>(dim);
  std::int64_t count = 0;
  if (step > 0) {
    ZF_EXPECTS(0 <= start && start <= stop && stop <= extent, "slice [", start, ", ", stop,
               ") out of range for extent ", extent);
    count = stop == start ? 0 : 1 + (stop - start - 1) / step;  // not (n + step - 1) / step: it wraps for huge steps
  } else {
    // Negative steps walk from start down to (but excluding) stop; stop may be -1.
    ZF_EXPECTS(-1 <= stop && stop <= start && start < extent, "slice [", start, ", ", stop, ") step ", step,
               " out of range for extent ", extent);
    // |step| as unsigned: -step does not fit for INT64_MIN.
    const std::uint64_t stride_steps = 0 - static_cast<std::uint64_t>(step);
    count =
        stop == start ? 0 : 1 + static_cast<std::int64_t>(static_cast<std::uint64_t>(start - stop - 1) / stride_steps);
  }
  array out = *this;
  out.shape_[d] = count;
  // start < extent, so start * stride lies within the reach validate() checked.
  if (count > 0) out.byte_offset_ += start * strides_[d] * static_cast<std::int64_t>(dtype_.itemsize());
  // A huge step leaves at most one element, whose stride is never used: keep the old one when the
  // new one (in bytes, as exports give it) does not fit.
  auto stride = checked_mul(strides_[d], step);
  if (stride && !checked_mul(*stride, static_cast<std::int64_t>(dtype_.itemsize()))) stride.reset();
  ZF_EXPECTS(stride || count <= 1, "slice step ", step, " is too large for stride ", strides_[d]);
  out.strides_[d] = stride ? *stride : strides_[d];
  out.validate();
  return out;
}

array array::reshape(shape_t shape) const {
  ZF_EXPECTS(is_contiguous(), "reshape needs a contiguous array");
  const std::int64_t n = element_count(shape);
  ZF_EXPECTS(n == size(), "cannot reshape ", size(), " elements into ", n);
  return array(owner_, dtype_, std::move(shape), std::nullopt, byte_offset_, read_only_);
}

}  // namespace zeroflow
