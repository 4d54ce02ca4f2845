#pragma once
/// @file csv_cuda.hpp
/// read_csv's CUDA path: CSV straight into device memory. read_csv and read_csv_buffer call it
/// for `options.where` of type cuda (in CUDA builds); it is public here for tests and benchmarks.
///
/// How: the bytes after the header are copied in chunks through a few pinned staging buffers
/// (several host threads fill one while the previous ones travel to the GPU), then two GPU passes
/// find the data rows and their line numbers and parse every cell with a device float parser
/// that is bit-identical to the host reader's (fast_float). The host does the header, and the
/// rare cells whose rounding the GPU cannot decide. Only counts, the first bad line and those
/// rare cells cross back to the host. The pinned staging buffers (3 x 16 MiB, from the current
/// cuda_host resource) are kept after the first staged read and reused by later ones: pinning
/// them costs more than reading 500 MB takes. They are never freed (the process exit does it).
///
/// The result is exactly the host reader's, errors included: when a row does not parse, the
/// host reader re-reads that one line and throws its message. Inputs whose header or options
/// the host reader would refuse, a comment prefix longer than 16 characters, and a file with a
/// header but no data rows are handed to the host reader whole (parsed on the host, then copied).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "zeroflow/core/stream.hpp"
#include "zeroflow/core/table.hpp"
#include "zeroflow/io/csv.hpp"

namespace zeroflow::io::detail {

/// What one call of the CUDA path did (for tests and benchmarks).
struct csv_cuda_report {
  bool gpu_parsed{false};      ///< false: the host reader read the input (see `host_reason`)
  std::string host_reason;     ///< why the host reader was used; empty when gpu_parsed
  std::int64_t rows{0};        ///< data rows parsed on the GPU
  std::int64_t host_cells{0};  ///< cells whose value the host computed (undecided on the GPU)
  std::size_t chunks{0};       ///< staging chunks copied to the GPU
  std::size_t chunk_bytes{0};  ///< their size
  unsigned copy_threads{0};    ///< host threads that filled them; 0: one direct copy (small input)
  double staged_seconds{0};    ///< wall time until the text was on the GPU and its lines counted
  double parsed_seconds{0};    ///< wall time of the rest (parse, undecided cells, synchronisation)
};

/// read_csv for a CUDA `options.where`: parses on the GPU (see the file comment).
/// `options.chunk_bytes`, when non-zero, is the staging chunk size (default 16 MiB); tiny values
/// put chunk boundaries everywhere, for tests. `options.threads` host threads fill the chunks.
/// Without a chunk size, inputs of up to 4 MiB after the header skip the staging and are copied
/// in one cudaMemcpyAsync (no pinned memory is needed for them).
/// @param report optional: filled with what happened
/// @throws the same as read_csv, with the same messages
[[nodiscard]] table read_csv_cuda(const std::filesystem::path& path, const csv_options& options, stream_view stream,
                                  csv_cuda_report* report = nullptr);

/// prepare_csv_reads for a CUDA device (CUDA builds; see zeroflow/io/csv.hpp).
void prepare_csv_cuda_reads(device where, stream_view stream);

/// Pinned staging chunks of the default size kept for the next read (0 to 3; for tests).
[[nodiscard]] std::size_t staging_chunks_cached();
/// Frees the kept staging chunks, so that the next staged read pins its own (for tests; not
/// while the CUDA runtime shuts down).
void free_cached_staging_chunks();

/// read_csv_buffer for a CUDA `options.where` (see read_csv_cuda).
[[nodiscard]] table read_csv_cuda_buffer(std::string_view text, std::string_view name_for_errors,
                                         const csv_options& options, stream_view stream,
                                         csv_cuda_report* report = nullptr);

}  // namespace zeroflow::io::detail
