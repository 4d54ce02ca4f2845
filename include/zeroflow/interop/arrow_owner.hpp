#pragma once
/// @file arrow_owner.hpp
/// RAII owners for the Arrow C structs of arrow_abi.hpp, so that no code path releases one by
/// hand. The rules are the spec's: a struct whose `release` is NULL is released (or moved
/// from) and is never touched again; a live struct is released exactly once; a move is a
/// bitwise copy after which the source is marked released.
///
/// - `unique_struct<T>` holds a struct by value (a consumer's own copy, taken from a producer's
///   struct by a move), and releases it when it goes.
/// - `unique_box<T>` holds a heap-allocated struct whose address must not change (the struct a
///   PyCapsule points to, a child that a parent's `children` array points to): when the box
///   goes, a struct still live is released, then its memory is freed.
///
/// T is ArrowSchema, ArrowArray, ArrowArrayStream or ArrowDeviceArray (whose release is that of
/// its embedded `array`).
#include <memory>
#include <type_traits>

#include "zeroflow/interop/arrow_abi.hpp"

namespace zeroflow::arrow {

/// @brief Whether `s` still owns its resources (its release callback is set).
[[nodiscard]] inline bool is_live(const ArrowSchema& s) noexcept { return s.release != nullptr; }
[[nodiscard]] inline bool is_live(const ArrowArray& s) noexcept { return s.release != nullptr; }
[[nodiscard]] inline bool is_live(const ArrowArrayStream& s) noexcept { return s.release != nullptr; }
[[nodiscard]] inline bool is_live(const ArrowDeviceArray& s) noexcept { return s.array.release != nullptr; }

/// @brief Marks `s` released without calling anything: the state of a struct moved from.
inline void mark_released(ArrowSchema& s) noexcept { s.release = nullptr; }
inline void mark_released(ArrowArray& s) noexcept { s.release = nullptr; }
inline void mark_released(ArrowArrayStream& s) noexcept { s.release = nullptr; }
inline void mark_released(ArrowDeviceArray& s) noexcept { s.array.release = nullptr; }

/// @brief Releases `s` when it is live; afterwards it is released either way. The producer's
///        callback should mark it released itself; marking it here as well means a careless
///        producer cannot make a second release possible.
template <class T>
void release(T& s) noexcept {
  if constexpr (std::is_same_v<T, ArrowDeviceArray>) {
    release(s.array);
  } else {
    if (s.release != nullptr) s.release(&s);
    s.release = nullptr;
  }
}

/// @brief The owner of one Arrow C struct held by value (nanoarrow's UniquePtr in spirit).
/// Not copyable; moving it moves the struct (bitwise) and leaves the source empty.
template <class T>
class unique_struct {
 public:
  /// An empty owner: the struct is released, ready to be filled by a producer's callback
  /// through get() (get_schema, get_next, an export function).
  unique_struct() noexcept { mark_released(data_); }

  /// @brief Takes ownership of `*source` by a move: bitwise copy, then `*source` is marked
  ///        released. A released `*source` gives an empty owner.
  explicit unique_struct(T* source) noexcept : unique_struct() { reset(source); }

  unique_struct(unique_struct&& other) noexcept : unique_struct() { other.move_to(&data_); }
  unique_struct& operator=(unique_struct&& other) noexcept {
    if (this != &other) {
      reset();
      other.move_to(&data_);
    }
    return *this;
  }
  unique_struct(const unique_struct&) = delete;
  unique_struct& operator=(const unique_struct&) = delete;
  ~unique_struct() { reset(); }

  /// The struct; it stays owned here (a consumer that moves it out marks it released).
  [[nodiscard]] T* get() noexcept { return &data_; }
  [[nodiscard]] const T* get() const noexcept { return &data_; }
  T* operator->() noexcept { return &data_; }
  const T* operator->() const noexcept { return &data_; }
  T& operator*() noexcept { return data_; }
  const T& operator*() const noexcept { return data_; }

  /// Whether the owned struct is live (not released, not moved out).
  [[nodiscard]] explicit operator bool() const noexcept { return is_live(data_); }

  /// Releases the owned struct now (when live).
  void reset() noexcept { release(data_); }

  /// Releases the owned struct, then takes `*source` by a move.
  void reset(T* source) noexcept {
    reset();
    if (source == nullptr) return;
    data_ = *source;
    mark_released(*source);
  }

  /// @brief Moves the owned struct into `*out` (which must be released or uninitialised memory)
  ///        and leaves this owner empty; the caller now owns `*out`.
  void move_to(T* out) noexcept {
    *out = data_;
    mark_released(data_);
  }

 private:
  T data_{};
};

/// Releases a heap-allocated struct that is still live, then frees it.
template <class T>
struct box_deleter {
  void operator()(T* s) const noexcept {
    release(*s);
    delete s;
  }
};

/// A heap-allocated Arrow C struct with a fixed address, released and freed when it goes.
template <class T>
using unique_box = std::unique_ptr<T, box_deleter<T>>;

/// @brief A new heap-allocated struct in the released state (every field zero), for a producer
///        to fill.
/// @throws std::bad_alloc
template <class T>
[[nodiscard]] unique_box<T> make_box() {
  return unique_box<T>(new T{});
}

}  // namespace zeroflow::arrow
