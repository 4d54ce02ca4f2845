#pragma once
/// @file transfers.hpp
/// A process-wide ledger of the device-to-host copies zeroflow itself makes (copy_to, and the
/// scalar read-backs that size a stage's output). It exists to make "no host round trips" a
/// checked property: the pipeline records what each stage moved to the host (summary.json,
/// `stages_device_to_host_bytes`) and a test asserts that the GPU stages move scalars only.
/// LibTorch's own transfers (.item(), .to(kCPU)) are not in it; the trainer's tests check those
/// with LibTorch's sync-debug mode.
#include <cstddef>
#include <cstdint>

namespace zeroflow {

struct transfer_counts {
  std::int64_t copies = 0;   ///< device-to-host copies
  std::int64_t bytes = 0;    ///< their bytes in all
  std::int64_t largest = 0;  ///< the largest single copy, bytes
};

/// The counts since the process started (never reset; take differences).
[[nodiscard]] transfer_counts device_to_host_transfers();

namespace detail {
/// Records one device-to-host copy of `bytes` bytes (thread-safe).
void note_device_to_host(std::size_t bytes);
}  // namespace detail

}  // namespace zeroflow
