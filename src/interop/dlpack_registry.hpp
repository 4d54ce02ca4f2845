#pragma once
/// @file dlpack_registry.hpp
/// Private link between DLPack export and import: the import asks whether an address is a
/// zeroflow export that was already deleted, so importing it is refused before it is read.
#include <cstddef>

namespace zeroflow::dlpack::detail {

/// What zeroflow knows about the managed tensor at an address.
enum class export_state {
  unknown,  ///< not a zeroflow export (or one deleted too long ago to remember)
  live,     ///< a zeroflow export whose deleter has not run
  deleted,  ///< a zeroflow export whose deleter already ran (its memory is still held)
};

/// How many deleted exports keep their memory (and so their address) to recognise misuse.
inline constexpr std::size_t quarantine_slots = 256;

/// The state of the managed tensor `tensor` (compares addresses; reads nothing through it).
[[nodiscard]] export_state state_of_export(const void* tensor);

}  // namespace zeroflow::dlpack::detail
