#pragma once
// Private to src/io: the KvikIO method of read_file_to_device. kvikio_file.cpp is compiled
// against KvikIO when the build found it (ZEROFLOW_HAS_KVIKIO, cmake/ZeroflowKvikIO.cmake) and
// to stubs that say so otherwise; nothing else in zeroflow includes KvikIO's headers.
#include <cstddef>
#include <cstdint>
#include <filesystem>

#include "zeroflow/io/file_loading.hpp"

namespace zeroflow::io::detail {

/// True when this build links KvikIO.
[[nodiscard]] bool kvikio_built_in() noexcept;

/// Fills `status` with KvikIO's view of this machine (library, driver, mode and why); never throws.
void probe_kvikio(gds_status& status) noexcept;

/// Reads bytes [offset, offset + bytes) of `path` into device memory at `device_dst` with
/// KvikIO's pread and returns once they are there. The caller has finished every stream-ordered
/// use of `device_dst` (KvikIO's copies are ordered on streams of its own).
/// @param threads KvikIO's thread pool size on first use (0: every core; KVIKIO_NTHREADS wins)
/// @return true when cuFile moved the bytes by DMA (GDS), false in compatibility mode
/// @throws zeroflow::error naming the file when it cannot be opened or read, or ends early;
///         zeroflow::invalid_argument in a build without KvikIO
bool kvikio_read(const std::filesystem::path& path, std::uint64_t offset, std::size_t bytes, void* device_dst,
                 unsigned threads);

}  // namespace zeroflow::io::detail
