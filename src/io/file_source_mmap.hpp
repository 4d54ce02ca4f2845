#pragma once
// Private to src/io (CUDA builds): the mmap method of read_file_to_device, the textbook baseline:
// map the file, then one cudaMemcpyAsync from the mapping (pageable memory, staged by the driver).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>

namespace zeroflow::io::detail {

/// Copies bytes [offset, offset + bytes) of `path` to `device_dst` through a memory map and
/// returns once they are there.
/// @throws zeroflow::error naming the file when it cannot be opened, mapped, or is too short
void mmap_read_to_device(const std::filesystem::path& path, std::uint64_t offset, std::size_t bytes, void* device_dst,
                         cudaStream_t stream);

}  // namespace zeroflow::io::detail
