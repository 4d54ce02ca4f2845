// The binary fast path (zeroflow/io/binary.hpp): raw samples to the host or a device without parsing.
#include <algorithm>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "binary_convert.hpp"
#include "csv_cuda_source.hpp"
#include "parallel_tasks.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/binary.hpp"
#include "zeroflow/memory/allocate.hpp"

#if ZEROFLOW_HAS_CUDA
#include "binary_convert_cuda.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#endif

namespace zeroflow::io {

namespace {

// Pieces of a host read or conversion: large enough that a thread's start costs nothing.
constexpr std::size_t piece_bytes = std::size_t{16} << 20;

unsigned worker_count(unsigned threads) {
  return threads != 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
}

detail::sample_layout layout_of(const binary_options& o) {
  detail::sample_layout l;
  l.type = static_cast<int>(o.type);
  l.frame_samples = static_cast<std::int64_t>(o.frame_samples);
  l.channel = static_cast<std::int64_t>(o.channel);
  l.gain = o.gain;
  l.baseline = o.baseline;
  l.has_invalid = o.invalid.has_value();
  l.invalid = o.invalid.value_or(0);
  return l;
}

// Bytes [offset, offset + bytes) of the file into host memory, several threads at a time.
void read_host(const detail::file_source& file, std::uint64_t offset, std::size_t bytes, unsigned char* dst,
               unsigned threads) {
  const std::size_t pieces = (bytes + piece_bytes - 1) / piece_bytes;
  detail::run_tasks(pieces, worker_count(threads), [&](std::size_t i) {
    const std::size_t from = i * piece_bytes;
    file.read(static_cast<std::size_t>(offset) + from, std::min(piece_bytes, bytes - from),
              reinterpret_cast<char*>(dst) + from);
  });
}

const char* type_name(binary_sample type) {
  switch (type) {
    case binary_sample::int16:
      return "int16";
    case binary_sample::int32:
      return "int32";
    case binary_sample::float32:
      break;
  }
  return "float32";
}

}  // namespace

array read_binary_signal(const std::filesystem::path& path, const binary_options& options, stream_view stream) {
  const std::string name = path.string();
  ZF_EXPECTS(options.frame_samples >= 1, name, ": a frame needs at least one sample");
  ZF_EXPECTS(options.channel < options.frame_samples, name, ": channel ", options.channel,
             " does not exist: a frame holds ", options.frame_samples, " samples (channels are counted from 0)");
  ZF_EXPECTS(options.gain != 0 && std::isfinite(options.gain), name, ": the gain must be a finite number other than 0");
  ZF_EXPECTS(std::isfinite(options.baseline), name, ": the baseline must be a finite number");
  ZF_EXPECTS(!options.frames || *options.frames >= 0, name, ": a negative number of frames (",
             options.frames.value_or(0), ") was asked for");
  const bool to_device = options.where.type == device_type::cuda;
  if (to_device) {
    (void)resolve_io_method(options.io);  // kvikio without KvikIO: say so first
    require_cuda("reading a binary signal into GPU memory");
  }

  const detail::file_source file(path);
  const std::size_t sample = sample_bytes(options.type);
  const std::uint64_t frame_bytes = std::uint64_t{options.frame_samples} * sample;
  const std::uint64_t available = file.size() > options.byte_offset ? file.size() - options.byte_offset : 0;
  const std::uint64_t file_frames = available / frame_bytes;
  if (!options.frames && available % frame_bytes != 0) {
    const std::string after = options.byte_offset > 0 ? " after byte " + std::to_string(options.byte_offset) : "";
    const std::string unit = options.frame_samples == 1 ? std::string(type_name(options.type)) + " samples"
                                                        : "frames of " + std::to_string(options.frame_samples) + " " +
                                                              type_name(options.type) + " samples";
    ZF_THROW(parse_error, name, ": ", available, " bytes", after, " are not a whole number of ", unit, " (",
             frame_bytes,
             " bytes each); was it cut short, or written with another sample type or number of "
             "channels?");
  }
  const auto frames = static_cast<std::uint64_t>(options.frames.value_or(static_cast<std::int64_t>(file_frames)));
  if (frames > file_frames)
    ZF_THROW(parse_error, name, ": the file holds ", file_frames, " frames of ", frame_bytes, " bytes after byte ",
             options.byte_offset, ", fewer than the ", frames, " asked for (was it truncated?)");
  const std::size_t bytes = static_cast<std::size_t>(frames * frame_bytes);
  const detail::sample_layout layout = layout_of(options);
  const bool direct = layout.identity() && options.frame_samples == 1;
  const auto count = static_cast<std::int64_t>(frames);

  if (!to_device) {
    array out = empty({count}, float32, options.where, stream);
    if (direct) {
      read_host(file, options.byte_offset, bytes, static_cast<unsigned char*>(out.data()), options.threads);
      return out;
    }
    std::vector<unsigned char> raw(bytes);
    read_host(file, options.byte_offset, bytes, raw.data(), options.threads);
    auto* values = out.data_as<float>();
    constexpr std::int64_t per_task = 1 << 20;
    detail::run_tasks(static_cast<std::size_t>((count + per_task - 1) / per_task), worker_count(options.threads),
                      [&](std::size_t task) {
                        const std::int64_t begin = static_cast<std::int64_t>(task) * per_task;
                        const std::int64_t end = std::min(count, begin + per_task);
                        for (std::int64_t i = begin; i < end; ++i)
                          values[i] = detail::convert_sample(raw.data(), layout, i);
                      });
    return out;
  }

#if ZEROFLOW_HAS_CUDA
  ::zeroflow::detail::cuda_device_guard guard(options.where.id);
  array out = empty({count}, float32, options.where, stream);
  if (count == 0) return out;
  if (direct) {
    read_file_to_device(path, options.byte_offset, bytes, out.data(), options.where, stream, options.io,
                        options.threads);
    return out;
  }
  array raw = empty({static_cast<std::int64_t>(bytes)}, uint8, options.where, stream);
  read_file_to_device(path, options.byte_offset, bytes, raw.data(), options.where, stream, options.io, options.threads);
  detail::convert_samples_cuda(static_cast<const unsigned char*>(raw.data()), layout, count, out.data_as<float>(),
                               options.where.id, stream.value());
  ZF_CUDA_TRY(cudaStreamSynchronize(stream.value()));
  return out;
#else
  return {};  // require_cuda has thrown
#endif
}

std::optional<binary_options> wfdb_binary_layout(const wfdb_header& header, std::size_t index) {
  if (index >= header.signals.size()) return std::nullopt;
  const wfdb_signal& s = header.signals[index];
  if ((s.format != 16 && s.format != 32) || s.samples_per_frame != 1 || s.skew != 0 || s.file_name == "-")
    return std::nullopt;
  binary_options o;
  o.type = s.format == 16 ? binary_sample::int16 : binary_sample::int32;
  o.frame_samples = 0;
  const wfdb_signal* first_in_file = nullptr;
  for (std::size_t i = 0; i < header.signals.size(); ++i) {
    const wfdb_signal& other = header.signals[i];
    if (other.file_name != s.file_name) continue;
    if (other.format != s.format) return std::nullopt;  // the host reader says what is wrong
    if (first_in_file == nullptr) first_in_file = &other;
    if (i < index) o.channel += static_cast<std::size_t>(other.samples_per_frame);
    o.frame_samples += static_cast<std::size_t>(other.samples_per_frame);
  }
  // Signals that share a file share its byte offset: WFDB takes the first signal's.
  if (first_in_file->byte_offset < 0) return std::nullopt;
  o.byte_offset = static_cast<std::uint64_t>(first_in_file->byte_offset);
  // The header's count; without one every whole frame (a partial last frame is ignored, as the
  // host reader does).
  o.frames = header.frames > 0 ? std::optional<std::int64_t>(header.frames) : std::nullopt;
  o.gain = s.gain;
  o.baseline = static_cast<double>(s.baseline);
  o.invalid = wfdb_invalid_sample(s.format);
  return o;
}

array read_wfdb_signal_to(const std::filesystem::path& header_path, const wfdb_header& header, std::size_t index,
                          device where, stream_view stream, io_method io, unsigned threads, record_files files) {
  std::optional<binary_options> layout = wfdb_binary_layout(header, index);
  if (layout) {
    const auto file = wfdb_signal_path(header_path, header, index, files);
    std::error_code ec;
    const auto size = std::filesystem::file_size(file, ec);
    const std::uint64_t frame_bytes = layout->frame_samples * sample_bytes(layout->type);
    const std::uint64_t file_frames =
        !ec && size > layout->byte_offset ? (size - layout->byte_offset) / frame_bytes : 0;
    if (!layout->frames) layout->frames = static_cast<std::int64_t>(file_frames);
    // A missing or short file goes to the host reader, whose message names the record.
    if (!ec && static_cast<std::uint64_t>(*layout->frames) <= file_frames) {
      layout->where = where;
      layout->io = io;
      layout->threads = threads;
      return read_binary_signal(file, *layout, stream);
    }
  }
  array host = read_wfdb_signal(header_path, header, index, threads, files);
  if (where == cpu_device) return host;
  array out = copy_to(host, where, stream);
  synchronize(stream);  // the host array dies with this frame
  return out;
}

}  // namespace zeroflow::io
