// WFDB signal files: one signal's samples out of a file that may interleave several signals.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "../parallel_tasks.hpp"
#include "wfdb_formats.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/mapped_file.hpp"
#include "zeroflow/io/wfdb.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zeroflow::io {

namespace {

std::string describe_signal(const wfdb_header& header, std::size_t index) {
  const auto& name = header.signals[index].description;
  return "signal " + std::to_string(index) + (name.empty() ? std::string() : " (\"" + name + "\")");
}

// One signal's place in its file's sample stream, with the file mapped.
struct signal_source {
  mapped_file file;
  const unsigned char* stream = nullptr;  // the file's bytes past the byte offset
  int format = 0;
  std::int64_t frame_samples = 0;  // samples of every signal of the file in one frame
  std::int64_t first = 0;          // position of this signal's first sample within a frame
  std::int64_t per_frame = 1;      // this signal's samples per frame
  std::int64_t skew = 0;
  std::int64_t file_frames = 0;  // complete frames the file holds
  std::int64_t frames = 0;       // frames to read (the header's count, else the file's)
  std::int64_t initial_value = 0;
};

mapped_file open_signal_file(const std::filesystem::path& header_path, const wfdb_header& header, std::size_t index,
                             record_files files) {
  const wfdb_signal& s = header.signals[index];
  const std::string hea = header_path.string();
  if (s.format == 0)
    ZF_THROW(parse_error, hea, ": ", describe_signal(header, index),
             " is a null signal (storage format 0): the record stores no samples for it");
  if (s.file_name == "-")
    ZF_THROW(parse_error, hea, ": ", describe_signal(header, index),
             " is read from standard input (file \"-\"), which is not supported");
  const auto file = wfdb_signal_path(header_path, header, index, files);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec))  // a file that cannot be opened, as for the header itself
    ZF_THROW(error, hea, ": ", describe_signal(header, index), " is stored in \"", s.file_name,
             "\", which is missing (looked for ", file.string(), ")");
  return mapped_file(file);
}

signal_source open_signal(const std::filesystem::path& header_path, const wfdb_header& header, std::size_t index,
                          record_files files) {
  ZF_EXPECTS(index < header.signals.size(), header_path.string(), ": signal ", index,
             " does not exist: the record has ", header.signals.size(), " signals");
  const wfdb_signal& s = header.signals[index];
  signal_source out{open_signal_file(header_path, header, index, files)};
  out.format = s.format;
  out.per_frame = s.samples_per_frame;
  out.skew = s.skew;
  out.initial_value = s.initial_value;
  const wfdb_signal* first_in_file = nullptr;
  for (std::size_t i = 0; i < header.signals.size(); ++i) {
    const wfdb_signal& other = header.signals[i];
    if (other.file_name != s.file_name) continue;
    if (first_in_file == nullptr) first_in_file = &other;
    if (other.format != s.format)
      ZF_THROW(parse_error, header_path.string(), ": ", describe_signal(header, std::min(i, index)), " and ",
               describe_signal(header, std::max(i, index)), " share the file \"", s.file_name,
               "\" but are stored in formats ", header.signals[std::min(i, index)].format, " and ",
               header.signals[std::max(i, index)].format, "; a WFDB signal file holds one format");
    if (i < index) out.first += other.samples_per_frame;
    out.frame_samples += other.samples_per_frame;
  }
  // Signals that share a file share its byte offset: WFDB takes the first signal's.
  const auto offset = static_cast<std::uint64_t>(first_in_file->byte_offset);
  const std::uint64_t size = out.file.size();
  const std::uint64_t stream_bytes = size > offset ? size - offset : 0;
  out.stream = reinterpret_cast<const unsigned char*>(out.file.data()) + (size > offset ? offset : size);
  out.file_frames = static_cast<std::int64_t>(detail::wfdb_stream_samples(s.format, stream_bytes) /
                                              static_cast<std::uint64_t>(out.frame_samples));
  out.frames = header.frames > 0 ? header.frames : out.file_frames;
  if (out.file_frames < out.frames) {
    // A header may announce more frames than 64 bits can count the bytes of.
    std::string expected = "more than 2^64";
    std::uint64_t samples = 0, bytes = 0;
    if (!__builtin_mul_overflow(static_cast<std::uint64_t>(out.frames), static_cast<std::uint64_t>(out.frame_samples),
                                &samples) &&
        samples <= std::numeric_limits<std::uint64_t>::max() / 4 &&
        !__builtin_add_overflow(offset, detail::wfdb_stream_bytes(s.format, samples), &bytes))
      expected = std::to_string(bytes);
    ZF_THROW(parse_error, out.file.path().string(), ": the file is truncated: it holds ", out.file_frames, " of the ",
             out.frames, " samples per signal that ", header_path.string(), " announces (", size, " bytes, ", expected,
             " expected)");
  }
  return out;
}

unsigned worker_count(unsigned threads) {
  return threads != 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
}

// Calls sink(i, value) once for every output sample i of the signal (frames x samples per
// frame): the digital sample, or wfdb_invalid_sample(format) where a skew points past the file.
// Tasks over disjoint ranges of i may run on several threads.
template <class Sink>
void decode_signal(const signal_source& src, unsigned threads, const Sink& sink) {
  const std::int32_t missing = wfdb_invalid_sample(src.format);
  if (src.format == 8) {
    // First differences: each sample is its predecessor in the same signal plus the stored byte.
    std::int64_t value = src.initial_value;
    const std::int64_t stored = std::min(src.file_frames, src.frames + src.skew);
    for (std::int64_t f = 0; f < stored; ++f) {
      const std::int64_t t = f - src.skew;
      const std::int64_t k = f * src.frame_samples + src.first;
      for (std::int64_t j = 0; j < src.per_frame; ++j) {
        value += detail::wfdb_decode(8, src.stream, static_cast<std::uint64_t>(k + j));
        if (t >= 0) sink(t * src.per_frame + j, static_cast<std::int32_t>(value));
      }
    }
    for (std::int64_t i = std::max<std::int64_t>(0, stored - src.skew) * src.per_frame; i < src.frames * src.per_frame;
         ++i)
      sink(i, missing);
    return;
  }
  constexpr std::int64_t frames_per_task = 1 << 18;
  const auto tasks = static_cast<std::size_t>((src.frames + frames_per_task - 1) / frames_per_task);
  detail::run_tasks(tasks, worker_count(threads), [&](std::size_t task) {
    const std::int64_t begin = static_cast<std::int64_t>(task) * frames_per_task;
    const std::int64_t end = std::min(src.frames, begin + frames_per_task);
    for (std::int64_t t = begin; t < end; ++t) {
      const std::int64_t f = t + src.skew;
      const std::int64_t k = f * src.frame_samples + src.first;
      for (std::int64_t j = 0; j < src.per_frame; ++j)
        sink(t * src.per_frame + j, f < src.file_frames
                                        ? detail::wfdb_decode(src.format, src.stream, static_cast<std::uint64_t>(k + j))
                                        : missing);
    }
  });
}

}  // namespace

std::int32_t wfdb_invalid_sample(int format) noexcept {
  switch (format) {
    case 80:
      return -(1 << 7);
    case 310:
    case 311:
      return -(1 << 9);
    case 212:
      return -(1 << 11);
    case 16:
    case 61:
    case 160:
      return -(1 << 15);
    case 24:
      return -(1 << 23);
    default:
      return detail::wfdb_no_sample;  // 8 (and 32, whose invalid value is INT32_MIN too)
  }
}

}  // namespace zeroflow::io

namespace zeroflow::io {

std::filesystem::path wfdb_signal_path(const std::filesystem::path& header_path, const wfdb_header& header,
                                       std::size_t index, record_files files) {
  ZF_EXPECTS(index < header.signals.size(), header_path.string(), ": signal ", index,
             " does not exist: the record has ", header.signals.size(), " signals");
  const std::filesystem::path name(header.signals[index].file_name);
  if (files == record_files::own_folder) {
    // On the name alone, before any file is touched: the message must not tell whether a file
    // outside the record exists.
    bool leaves = name.has_root_path();
    for (const auto& part : name) leaves = leaves || part == "..";
    if (leaves)
      ZF_THROW(parse_error, header_path.string(), ": ", describe_signal(header, index), " names the signal file \"",
               header.signals[index].file_name,
               "\", outside the record's folder; a record reads only files beside its header. Copy the file "
               "there and name it without a folder, or pass `allow_outside_record` if you trust this header");
  }
  return header_path.parent_path() / name;
}

std::vector<std::int32_t> read_wfdb_samples(const std::filesystem::path& header_path, const wfdb_header& header,
                                            std::size_t index, unsigned threads, record_files files) {
  const signal_source src = open_signal(header_path, header, index, files);
  std::vector<std::int32_t> out(static_cast<std::size_t>(src.frames * src.per_frame));
  decode_signal(src, threads, [&](std::int64_t i, std::int32_t value) { out[static_cast<std::size_t>(i)] = value; });
  return out;
}

array read_wfdb_signal(const std::filesystem::path& header_path, const wfdb_header& header, std::size_t index,
                       unsigned threads, record_files files) {
  const signal_source src = open_signal(header_path, header, index, files);
  const wfdb_signal& s = header.signals[index];
  array out = empty({src.frames * src.per_frame}, float32, cpu_device);
  float* values = out.data_as<float>();
  const std::int32_t missing = wfdb_invalid_sample(src.format);
  const auto baseline = static_cast<double>(s.baseline);
  const double gain = s.gain;
  decode_signal(src, threads, [&](std::int64_t i, std::int32_t value) {
    values[i] = value == missing ? std::numeric_limits<float>::quiet_NaN()
                                 : static_cast<float>((static_cast<double>(value) - baseline) / gain);
  });
  return out;
}

}  // namespace zeroflow::io
