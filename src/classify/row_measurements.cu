// CUDA measurements of the class rule (features.hpp): the beats' rows stay on the device. The
// dominant beat is the host's median of up to template_rows rows (gathered by a kernel, a few MB
// copied back); the shape similarity, the P-wave similarity and the P-wave coherence of every
// beat are kernels, one warp per beat, and only one number per beat comes back. The arithmetic is the host's in double;
// the warp sums add in another order, so results agree to rounding.
#include <cuda_runtime.h>
#include <math_constants.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "features.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/core/detail/cuda_launch.hpp"
#include "zeroflow/core/transfers.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zeroflow::classify::detail {

namespace {

using zeroflow::detail::launch::grid_for;
using zeroflow::detail::launch::raw;

constexpr int threads = 256;
constexpr int warps_per_block = threads / 32;

/// The sum over the warp, the same bits in every lane (each step adds the same two partial sums).
__device__ double warp_sum(double v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void gather_rows_kernel(const float* rows, std::int64_t beats, std::int64_t row_width, std::int64_t used,
                                   float* out) {
  const std::int64_t total = used * row_width;
  for (std::int64_t k = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; k < total;
       k += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t i = k / row_width, j = k % row_width;
    out[k] = rows[(i * beats / used) * row_width + j];
  }
}

__global__ void gather_segments_kernel(const float* rows, std::int64_t row_width, const std::int64_t* beats,
                                       std::int64_t count, std::int64_t begin, std::int64_t length, float* out) {
  const std::int64_t total = count * length;
  for (std::int64_t k = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; k < total;
       k += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    out[k] = rows[beats[k / length] * row_width + begin + k % length];
}

/// Pearson correlation of x[0..n) with the centred template t (norm t_norm), as host_rows computes it.
__device__ double correlation(const float* x, const double* t, int n, double t_norm, int lane) {
  double s = 0;
  for (int i = lane; i < n; i += 32) s += x[i];
  const double mean = warp_sum(s) / n;
  double dot = 0, energy = 0;
  for (int i = lane; i < n; i += 32) {
    const double v = x[i] - mean;
    dot += v * t[i];
    energy += v * v;
  }
  dot = warp_sum(dot);
  energy = warp_sum(energy);
  const double denominator = sqrt(energy) * t_norm;
  return denominator > 0 ? dot / denominator : 0.0;
}

__global__ void similarity_kernel(const float* rows, std::int64_t beats, std::int64_t row_width, const double* qrs,
                                  int length, double qrs_norm, std::int64_t qrs_begin, std::int64_t max_shift,
                                  std::int64_t width, float* out) {
  const int lane = static_cast<int>(threadIdx.x & 31);
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * warps_per_block;
  for (std::int64_t b = blockIdx.x * static_cast<std::int64_t>(warps_per_block) + threadIdx.x / 32; b < beats;
       b += warps) {
    const float* row = rows + b * row_width;
    // The same search as the host's: shift 0, then the shifts in order until plainly dominant.
    double best = correlation(row + qrs_begin, qrs, length, qrs_norm, lane);
    for (std::int64_t shift = -max_shift; shift <= max_shift && best < plainly_dominant; ++shift) {
      const std::int64_t begin = qrs_begin + shift;
      if (shift == 0 || begin < 0 || begin + length > width) continue;
      best = fmax(best, correlation(row + begin, qrs, length, qrs_norm, lane));
    }
    if (lane == 0) out[b] = static_cast<float>(best);
  }
}

/// Sample i of beat k's P-wave segment with the line through the segment's ends removed.
__device__ double detrended(const float* x, int length, int i) {
  const double first = x[0], last = x[length - 1];
  return x[i] - (first + (last - first) * static_cast<double>(i) / static_cast<double>(length - 1));
}

__global__ void coherence_kernel(const float* rows, std::int64_t beats, std::int64_t row_width, std::int64_t begin,
                                 int length, const std::uint8_t* left_out, std::int64_t neighbours, double* out) {
  const int lane = static_cast<int>(threadIdx.x & 31);
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * warps_per_block;
  for (std::int64_t b = blockIdx.x * static_cast<std::int64_t>(warps_per_block) + threadIdx.x / 32; b < beats;
       b += warps) {
    const std::int64_t lo = b - neighbours < 0 ? 0 : b - neighbours;
    const std::int64_t hi = b + neighbours + 1 < beats ? b + neighbours + 1 : beats;
    std::int64_t count = 0;
    for (std::int64_t k = lo; k < hi; ++k) count += left_out[k] ? 0 : 1;
    double energy = 0, average_energy = 0;
    // Each lane owns samples lane, lane + 32, ...: their sums over the window, then their squares.
    for (int i = lane; i < length; i += 32) {
      double sum = 0;
      for (std::int64_t k = lo; k < hi; ++k) {
        if (left_out[k]) continue;
        const double v = detrended(rows + k * row_width + begin, length, i);
        sum += v;
        energy += v * v;
      }
      const double mean = count ? sum / static_cast<double>(count) : 0.0;
      average_energy += mean * mean;
    }
    energy = warp_sum(energy);
    average_energy = warp_sum(average_energy);
    if (lane == 0)
      out[b] = count < 8 || energy <= 0 ? CUDART_NAN : average_energy / (energy / static_cast<double>(count));
  }
}

/// Each beat's P-wave segment, detrended as `detrended` does and mean-centred, correlated with the
/// dominant one (centred, norm t_norm): host p_similarity's arithmetic, one warp per beat.
__global__ void p_similarity_kernel(const float* rows, std::int64_t beats, std::int64_t row_width, std::int64_t begin,
                                    int length, const double* t, double t_norm, float* out) {
  const int lane = static_cast<int>(threadIdx.x & 31);
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * warps_per_block;
  for (std::int64_t b = blockIdx.x * static_cast<std::int64_t>(warps_per_block) + threadIdx.x / 32; b < beats;
       b += warps) {
    const float* x = rows + b * row_width + begin;
    double s = 0;
    for (int i = lane; i < length; i += 32) s += detrended(x, length, i);
    const double mean = warp_sum(s) / length;
    double dot = 0, energy = 0;
    for (int i = lane; i < length; i += 32) {
      const double v = detrended(x, length, i) - mean;
      dot += v * t[i];
      energy += v * v;
    }
    dot = warp_sum(dot);
    energy = warp_sum(energy);
    const double denominator = sqrt(energy) * t_norm;
    if (lane == 0) out[b] = static_cast<float>(denominator > 0 ? dot / denominator : 0.0);
  }
}

/// Each beat's clarity, one thread per beat: the host's function (clarity_row.hpp), the same bits.
__global__ void clarity_kernel(const float* rows, std::int64_t beats, std::int64_t row_width, clarity_window w,
                               float* out) {
  for (std::int64_t b = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; b < beats;
       b += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    out[b] = row_clarity(rows + b * row_width, w);
}

/// The listed beats' deviations, one thread per listed beat: the host's function
/// (local_deviation.hpp), the same bits; each thread's local normal beat in its own scratch row.
__global__ void deviation_kernel(const float* rows, std::int64_t beats, std::int64_t row_width,
                                 const std::int64_t* listed, std::int64_t count, const std::uint8_t* normal,
                                 std::int64_t neighbours, double min_span_fraction, deviation_window w, float* scratch,
                                 float* out) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    out[i] = local_deviation(rows, row_width, beats, listed[i], normal, neighbours, min_span_fraction, w,
                             scratch + i * w.length);
}

/// Each beat's echo, one thread per beat: the host's function (clarity_row.hpp), the same bits.
__global__ void echo_kernel(const float* rows, std::int64_t beats, std::int64_t row_width, echo_window w, float* out) {
  for (std::int64_t b = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; b < beats;
       b += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    row_echo(rows + b * row_width, w, out + b * echo_parts);
}

template <class T>
std::vector<T> to_host(const array& a, stream_view stream) {
  const array host = copy_to(a, cpu_device, stream);
  synchronize(stream);
  const auto values = host.span<const T>();
  return {values.begin(), values.end()};
}

template <class T>
array to_device(std::span<const T> values, device where, stream_view stream) {
  array host = empty({static_cast<std::int64_t>(values.size())}, dtype_of<T>(), cpu_device, stream);
  std::copy(values.begin(), values.end(), host.data_as<T>());
  return copy_to(host, where, stream);
}

class cuda_rows final : public row_measurements {
 public:
  cuda_rows(const array& rows, const beat_rows& shape, double sample_rate, std::int64_t template_rows,
            stream_view stream)
      : rows_(rows),
        shape_(shape),
        rate_(sample_rate),
        template_rows_(template_rows),
        stream_(stream),
        beats_(rows.shape()[0]) {}

  std::vector<float> similarity() override {
    const qrs_window qrs = qrs_window_of(shape_, rate_);
    const std::int64_t used = template_rows_used(beats_, template_rows_);
    const int device_id = rows_.where().id;
    const dominant_segment dominant = dominant_qrs_of(chosen_on_host(used), used, shape_.row_width, qrs);
    const array template_values = to_device<double>(dominant.values, rows_.where(), stream_);

    array out = empty({beats_}, float32, rows_.where(), stream_);
    const int blocks = grid_for(beats_, warps_per_block, device_id, 8);
    similarity_kernel<<<blocks, threads, 0, raw(stream_)>>>(
        rows_.data_as<const float>(), beats_, shape_.row_width, template_values.data_as<const double>(),
        static_cast<int>(qrs.end - qrs.begin), dominant.norm, qrs.begin, qrs.max_shift,
        shape_.window_before + shape_.window_after, out.data_as<float>());
    ZF_CUDA_TRY(cudaGetLastError());
    return to_host<float>(out, stream_);
  }

  std::vector<double> p_wave_coherence(std::span<const std::uint8_t> left_out, std::int64_t neighbours) override {
    const p_window p = p_window_of(shape_, rate_);
    const array device_left_out = to_device<std::uint8_t>(left_out, rows_.where(), stream_);
    array out = empty({beats_}, float64, rows_.where(), stream_);
    const int blocks = grid_for(beats_, warps_per_block, rows_.where().id, 8);
    coherence_kernel<<<blocks, threads, 0, raw(stream_)>>>(
        rows_.data_as<const float>(), beats_, shape_.row_width, p.begin, static_cast<int>(p.length),
        device_left_out.data_as<const std::uint8_t>(), neighbours, out.data_as<double>());
    ZF_CUDA_TRY(cudaGetLastError());
    return to_host<double>(out, stream_);
  }

  std::vector<float> p_similarity() override {
    const p_window p = p_window_of(shape_, rate_);
    const std::int64_t used = template_rows_used(beats_, template_rows_);
    const dominant_segment dominant = dominant_p_of(chosen_on_host(used), used, shape_.row_width, p);
    const array template_values = to_device<double>(dominant.values, rows_.where(), stream_);
    array out = empty({beats_}, float32, rows_.where(), stream_);
    const int blocks = grid_for(beats_, warps_per_block, rows_.where().id, 8);
    p_similarity_kernel<<<blocks, threads, 0, raw(stream_)>>>(
        rows_.data_as<const float>(), beats_, shape_.row_width, p.begin, static_cast<int>(p.length),
        template_values.data_as<const double>(), dominant.norm, out.data_as<float>());
    ZF_CUDA_TRY(cudaGetLastError());
    return to_host<float>(out, stream_);
  }

  std::vector<float> clarity() override {
    array out = empty({beats_}, float32, rows_.where(), stream_);
    if (beats_ > 0) {
      clarity_kernel<<<grid_for(beats_, threads, rows_.where().id), threads, 0, raw(stream_)>>>(
          rows_.data_as<const float>(), beats_, shape_.row_width, clarity_window_of(shape_, rate_),
          out.data_as<float>());
      ZF_CUDA_TRY(cudaGetLastError());
    }
    return to_host<float>(out, stream_);
  }

  std::vector<float> echo() override {
    array out = empty({beats_ * echo_parts}, float32, rows_.where(), stream_);
    if (beats_ > 0) {
      echo_kernel<<<grid_for(beats_, threads, rows_.where().id), threads, 0, raw(stream_)>>>(
          rows_.data_as<const float>(), beats_, shape_.row_width, echo_window_of(shape_, rate_), out.data_as<float>());
      ZF_CUDA_TRY(cudaGetLastError());
    }
    return to_host<float>(out, stream_);
  }

  std::vector<float> local_deviation(std::span<const std::int64_t> beats, std::span<const std::uint8_t> normal,
                                     std::int64_t neighbours, double min_span_fraction) override {
    const auto count = static_cast<std::int64_t>(beats.size());
    if (count == 0) return {};
    const deviation_window w = deviation_window_of(shape_, rate_);
    const array device_beats = to_device<std::int64_t>(beats, rows_.where(), stream_);
    const array device_normal = to_device<std::uint8_t>(normal, rows_.where(), stream_);
    const array scratch = empty({count, w.length}, float32, rows_.where(), stream_);
    array out = empty({count}, float32, rows_.where(), stream_);
    deviation_kernel<<<grid_for(count, threads, rows_.where().id), threads, 0, raw(stream_)>>>(
        rows_.data_as<const float>(), beats_, shape_.row_width, device_beats.data_as<const std::int64_t>(), count,
        device_normal.data_as<const std::uint8_t>(), neighbours, min_span_fraction, w, scratch.data_as<float>(),
        out.data_as<float>());
    ZF_CUDA_TRY(cudaGetLastError());
    return to_host<float>(out, stream_);
  }

  std::vector<float> qrs_segments(std::span<const std::int64_t> beats) override {
    const qrs_window w = qrs();
    const std::int64_t length = w.end - w.begin, count = static_cast<std::int64_t>(beats.size());
    if (count == 0) return {};
    const array device_beats = to_device<std::int64_t>(beats, rows_.where(), stream_);
    array out = empty({count, length}, float32, rows_.where(), stream_);
    gather_segments_kernel<<<grid_for(count * length, threads, rows_.where().id), threads, 0, raw(stream_)>>>(
        rows_.data_as<const float>(), shape_.row_width, device_beats.data_as<const std::int64_t>(), count, w.begin,
        length, out.data_as<float>());
    ZF_CUDA_TRY(cudaGetLastError());
    return to_host<float>(out, stream_);
  }

  [[nodiscard]] qrs_window qrs() const override { return qrs_window_of(shape_, rate_); }

 private:
  /// The rows the dominant beat is made of (chosen_rows), gathered on the device, copied back.
  std::vector<float> chosen_on_host(std::int64_t used) {
    array chosen = empty({used, shape_.row_width}, float32, rows_.where(), stream_);
    gather_rows_kernel<<<grid_for(used * shape_.row_width, threads, rows_.where().id), threads, 0, raw(stream_)>>>(
        rows_.data_as<const float>(), beats_, shape_.row_width, used, chosen.data_as<float>());
    ZF_CUDA_TRY(cudaGetLastError());
    return to_host<float>(chosen, stream_);
  }

  array rows_;
  beat_rows shape_;
  double rate_;
  std::int64_t template_rows_;
  stream_view stream_;
  std::int64_t beats_;
};

}  // namespace

std::unique_ptr<row_measurements> cuda_measurements(const array& rows, const beat_rows& shape, double sample_rate,
                                                    std::int64_t template_rows, stream_view stream) {
  return std::make_unique<cuda_rows>(rows, shape, sample_rate, template_rows, stream);
}

}  // namespace zeroflow::classify::detail
