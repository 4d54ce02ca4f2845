#pragma once
/// @file binary.hpp
/// The binary fast path: signals stored as raw little-endian numbers (float32, int16 or int32,
/// one or several channels interleaved frame by frame, after an optional header of some bytes)
/// go to the device without parsing. The file's bytes travel as they are (io::read_file_to_device,
/// by the method `--io` chose), then one kernel picks the channel and converts it to physical
/// units, (stored - baseline) / gain in double precision, rounded once to float32. A
/// single-channel float32 file in physical units lands in the result array itself, with no pass
/// over it at all. WFDB signal files of formats 16 and 32 are such files (wfdb_binary_layout).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/device.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/io/file_loading.hpp"
#include "zeroflow/io/wfdb.hpp"

namespace zeroflow::io {

/// How one stored sample is written (little-endian).
enum class binary_sample : std::uint8_t { float32, int16, int32 };

/// Bytes of one stored sample.
[[nodiscard]] constexpr std::size_t sample_bytes(binary_sample type) noexcept {
  return type == binary_sample::int16 ? 2 : 4;
}

/// Where a signal lies in a raw file and how its stored numbers become physical units.
struct binary_options {
  binary_sample type = binary_sample::float32;
  std::size_t frame_samples = 1;  ///< samples in one frame (the channels interleaved), >= 1
  std::size_t channel = 0;        ///< this signal's place in a frame, < frame_samples
  std::uint64_t byte_offset = 0;  ///< bytes before the first frame (a header)
  /// Frames to read; nullopt: every whole frame the file holds (then trailing bytes that make
  /// no whole frame are refused, as a sign of a wrong type or channel count).
  std::optional<std::int64_t> frames;
  double gain = 1;      ///< stored units per physical unit (never 0)
  double baseline = 0;  ///< the stored value of physical zero
  /// A stored value that means "no sample" and reads as NaN (WFDB: -32768 for format 16).
  std::optional<std::int32_t> invalid;
  device where = cpu_device;            ///< where the signal ends up
  io_method io = io_method::automatic;  ///< how the bytes reach a CUDA device
  unsigned threads = 0;                 ///< host threads (0: every core)
};

/// @brief One signal of a raw binary file as a float32 1-D array on `options.where`.
/// @param path    a regular file
/// @param options the layout and the conversion (see binary_options)
/// @param stream  orders the work on a CUDA device; the result is complete on return
/// @throws zeroflow::invalid_argument for options that contradict each other (channel not
///         below frame_samples, a gain of 0, kvikio in a build without KvikIO).
/// @throws zeroflow::parse_error naming the file when it holds fewer frames than asked for, or
///         (frames not given) bytes that make no whole frame.
/// @throws zeroflow::error when the file cannot be opened or read; zeroflow::cuda_error for a
///         CUDA device without CUDA.
[[nodiscard]] array read_binary_signal(const std::filesystem::path& path, const binary_options& options,
                                       stream_view stream = {});

/// @brief The raw layout of WFDB signal `index`, when its file can be read by read_binary_signal:
///        storage format 16 or 32, one sample of it per frame, no skew. The options name the
///        signal file's frames (the header's count; nullopt when the header gives none), its
///        gain, baseline and invalid value; `where`, `io` and `threads` are left to the caller.
///        nullopt for every other layout, which read_wfdb_signal decodes on the host.
[[nodiscard]] std::optional<binary_options> wfdb_binary_layout(const wfdb_header& header, std::size_t index);

/// @brief One WFDB signal on `where`, in physical units as read_wfdb_signal gives it (the same
///        float32 values, NaN for missing samples): through the binary fast path when
///        wfdb_binary_layout allows and the file holds every frame, else read_wfdb_signal and a
///        copy (which also says what is wrong with a short file).
/// @throws as read_wfdb_signal and read_binary_signal.
[[nodiscard]] array read_wfdb_signal_to(const std::filesystem::path& header_path, const wfdb_header& header,
                                        std::size_t index, device where, stream_view stream = {},
                                        io_method io = io_method::automatic, unsigned threads = 0,
                                        record_files files = record_files::own_folder);

}  // namespace zeroflow::io
