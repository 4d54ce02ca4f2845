#pragma once
/// @file stream.hpp
/// A non-owning view of a CUDA stream that cannot be built from a literal 0 or nullptr,
/// so that every stream is passed on purpose. Host code takes one too and ignores it.
#include <cstddef>
#include <cstdint>

struct CUstream_st;  // cudaStream_t is CUstream_st*; declared here so CPU builds need no CUDA headers

namespace zeroflow {

class stream_view {
 public:
  using handle_type = CUstream_st*;

  /// The legacy default stream (cudaStreamLegacy), the safe choice when nothing else is known.
  stream_view() = default;
  constexpr explicit stream_view(handle_type handle) : handle_{handle} {}
  stream_view(int) = delete;             // a literal 0 would silently mean "the default stream"
  stream_view(std::nullptr_t) = delete;  // same trap

  [[nodiscard]] constexpr handle_type value() const { return handle_; }
  /// The handle as DLPack's and the CUDA Array Interface's integer form.
  [[nodiscard]] std::uintptr_t as_integer() const { return reinterpret_cast<std::uintptr_t>(handle_); }
  [[nodiscard]] bool is_default() const { return as_integer() <= 2; }
  friend bool operator==(stream_view a, stream_view b) { return a.handle_ == b.handle_; }

  /// cudaStreamLegacy (handle 0x1).
  static stream_view legacy() { return stream_view{reinterpret_cast<handle_type>(std::uintptr_t{1})}; }
  /// cudaStreamPerThread (handle 0x2).
  static stream_view per_thread() { return stream_view{reinterpret_cast<handle_type>(std::uintptr_t{2})}; }

 private:
  handle_type handle_{reinterpret_cast<handle_type>(std::uintptr_t{1})};
};

}  // namespace zeroflow
