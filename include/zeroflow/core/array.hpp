#pragma once
/// @file array.hpp
/// A strided N-d view of a reference-counted buffer: zeroflow's exchange format.
/// dtype and device are DLPack's; strides are in elements (may be negative or zero);
/// the view keeps its buffer alive.
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "zeroflow/core/buffer.hpp"
#include "zeroflow/core/device.hpp"
#include "zeroflow/core/dtype.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow {

using shape_t = std::vector<std::int64_t>;

class array {
 public:
  /// An empty, 0-d-less placeholder (no buffer); valid() is false.
  array() = default;

  /// A view of `owner`. `strides` (elements) default to C-contiguous; `byte_offset` is from
  /// owner->data(). Throws invalid_argument when the dtype is invalid, a dimension is negative,
  /// or any addressed element falls outside the buffer.
  array(std::shared_ptr<buffer> owner, dtype type, shape_t shape, std::optional<shape_t> strides = std::nullopt,
        std::int64_t byte_offset = 0, bool read_only = false);

  [[nodiscard]] bool valid() const { return owner_ != nullptr; }
  [[nodiscard]] dtype type() const { return dtype_; }
  [[nodiscard]] device where() const { return owner_ ? owner_->where() : cpu_device; }
  [[nodiscard]] std::int64_t ndim() const { return static_cast<std::int64_t>(shape_.size()); }
  [[nodiscard]] const shape_t& shape() const { return shape_; }
  [[nodiscard]] const shape_t& strides() const { return strides_; }
  [[nodiscard]] std::int64_t shape(std::int64_t dim) const;
  /// Number of elements (1 for 0-d, 0 when any dimension is 0).
  [[nodiscard]] std::int64_t size() const;
  /// Bytes the elements occupy if laid out contiguously (size() * itemsize).
  [[nodiscard]] std::size_t nbytes() const { return static_cast<std::size_t>(size()) * dtype_.itemsize(); }
  [[nodiscard]] std::int64_t byte_offset() const { return byte_offset_; }
  [[nodiscard]] bool read_only() const { return read_only_; }
  /// C-contiguous (dimensions of extent 1 may have any stride).
  [[nodiscard]] bool is_contiguous() const;
  [[nodiscard]] const std::shared_ptr<buffer>& owner() const { return owner_; }

  /// Address of element 0 (meaningful on the host only when where().host_accessible()).
  [[nodiscard]] void* data() const;
  /// Typed pointer to element 0; throws if T does not match dtype or the view is read-only.
  template <class T>
  [[nodiscard]] T* data_as() const {
    check_access(dtype_of<std::remove_const_t<T>>(), !std::is_const_v<T>);
    return static_cast<T*>(data());
  }
  /// Typed span over a contiguous host-accessible array.
  template <class T>
  [[nodiscard]] std::span<T> span() const& {
    ZF_EXPECTS(is_contiguous(), "span() needs a contiguous array");
    ZF_EXPECTS(where().host_accessible(), "span() needs host-accessible memory, array is on ", where().name());
    return {data_as<T>(), static_cast<std::size_t>(size())};
  }
  /// A span of a temporary array would dangle once the statement ends (the buffer may die).
  template <class T>
  std::span<T> span() const&& = delete;

  /// The same view, marked read-only (writes through data_as<T> are refused).
  [[nodiscard]] array as_read_only() const;
  /// Elements [start, stop) with `step` (may be negative) along `dim`, as a view.
  [[nodiscard]] array slice(std::int64_t dim, std::int64_t start, std::int64_t stop, std::int64_t step = 1) const;
  /// A view with another shape; needs a contiguous array and the same size.
  [[nodiscard]] array reshape(shape_t shape) const;

 private:
  void check_access(dtype wanted, bool write) const;
  void validate() const;

  std::shared_ptr<buffer> owner_;
  dtype dtype_{};
  shape_t shape_;
  shape_t strides_;
  std::int64_t byte_offset_{0};
  bool read_only_{false};
};

/// C-contiguous strides (elements) for `shape`.
[[nodiscard]] shape_t contiguous_strides(const shape_t& shape);

}  // namespace zeroflow
