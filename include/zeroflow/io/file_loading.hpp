#pragma once
/// @file file_loading.hpp
/// Bytes of a file straight into device memory, by one of several methods:
///
/// - `kvikio`: KvikIO's FileHandle::pread into the device buffer. With the nvidia-fs driver
///   loaded and the file on a GDS-capable file system, cuFile moves the bytes by DMA from the
///   NVMe drive into GPU memory (GPUDirect Storage), bypassing the CPU and the page cache.
///   Without it, KvikIO runs in its compatibility mode: POSIX reads into pinned bounce buffers,
///   then copies. Compiled in when the build found KvikIO (cmake/ZeroflowKvikIO.cmake).
/// - `posix`: zeroflow's own pipeline: several threads pread into pinned staging chunks while
///   the previous chunk travels to the GPU (the CSV reader's path; works without KvikIO).
/// - `mmap`: the file is memory-mapped and copied from the mapping with cudaMemcpyAsync (the
///   driver stages pageable memory itself). Kept as the textbook baseline; a file that shrinks
///   while it is read ends the process with SIGBUS, which the other methods turn into an error.
/// - `automatic`: kvikio when cuFile runs true GDS (not compatibility mode), else posix, which
///   measured as fast as or faster than KvikIO's compatibility mode (docs/loading.md).
///
/// Each read names its method in its options (csv_options::io, binary_options::io,
/// recording_options::io): two reads in one process may load differently, and no call changes
/// how another one reads.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/device.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::io {

/// How a file's bytes travel to the device (see the file comment).
enum class io_method : std::uint8_t { automatic, kvikio, posix, mmap };

/// "auto", "kvikio", "posix" or "mmap".
[[nodiscard]] std::string_view to_string(io_method method) noexcept;

/// @brief Parses "auto", "kvikio", "posix" or "mmap" (case-sensitive, as the CLI takes them).
/// @throws zeroflow::invalid_argument naming the value and the four choices.
[[nodiscard]] io_method parse_io_method(std::string_view text);

/// What `zeroflow info` says about GPUDirect Storage.
struct gds_status {
  bool kvikio_built_in = false;   ///< this build links KvikIO
  std::string kvikio_version;     ///< e.g. "26.10.0"; empty when not built in
  bool cufile_library = false;    ///< libcufile could be loaded
  bool nvidia_fs_driver = false;  ///< the nvidia-fs kernel module is loaded (/proc/driver/nvidia-fs)
  bool gds_active = false;        ///< cuFile would move bytes by DMA (true GDS), not compatibility mode
  /// "GDS" (true GPUDirect Storage), "compatibility" (KvikIO's POSIX mode) or "unavailable".
  std::string mode;
  std::string reason;  ///< one line for a person: why this mode
};

/// @brief What this build and machine can do (probed once, then cached; never throws).
[[nodiscard]] const gds_status& query_gds();

/// @brief The method a read with `requested` uses here: `automatic` resolves to kvikio when GDS
///        is active, else posix; the others stay as they are.
/// @throws zeroflow::invalid_argument for kvikio in a build without KvikIO (the message says how
///         to build it in and which other methods work).
[[nodiscard]] io_method resolve_io_method(io_method requested);

/// What one read_file_to_device call did.
struct file_load_report {
  io_method method = io_method::automatic;  ///< the method used (never automatic)
  bool gds = false;                         ///< kvikio moved the bytes by true GDS
  std::size_t bytes = 0;                    ///< bytes read
  double seconds = 0;                       ///< wall time, until the bytes were on the device
};

/// @brief Copies bytes [offset, offset + bytes) of a file to `device_dst` (device memory of a
///        CUDA device) and returns when they are there. `stream` orders the copy after work
///        already queued on it.
/// @param path       a regular file
/// @param offset     first byte
/// @param bytes      how many; offset + bytes must be inside the file
/// @param device_dst device memory of at least `bytes` bytes
/// @param where      the CUDA device that owns device_dst
/// @param stream     orders the copy
/// @param method     how (automatic: see resolve_io_method)
/// @param threads    host threads for the posix and mmap methods (0: every core)
/// @param report     optional: filled with what happened
/// @throws zeroflow::error naming the file and the byte offset when it cannot be opened or
///         read, or ends before offset + bytes; zeroflow::invalid_argument as resolve_io_method;
///         zeroflow::cuda_error in a build or on a machine without CUDA.
void read_file_to_device(const std::filesystem::path& path, std::uint64_t offset, std::size_t bytes, void* device_dst,
                         device where, stream_view stream, io_method method = io_method::automatic,
                         unsigned threads = 0, file_load_report* report = nullptr);

}  // namespace zeroflow::io
