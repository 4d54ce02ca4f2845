// CUDA half of normalize.hpp: median and MAD of the finite samples by radix selection on the GPU,
// equal to the host's results.
//
// Selection, not sorting: every finite sample gets an order-preserving 32-bit key (the float's
// bits with negative values flipped, the host's ordered_key, for the median; for the MAD the bits
// of the host's deviation, |x − median| computed in double and rounded to float, which order like
// the values since they are >= 0). The key is split into digits of at most 13 bits, most significant
// first. Level 0 histograms the top digit over the whole signal (shared-memory counters, one global
// atomic per non-empty bin and block); the block that finishes last (a counter of finished blocks)
// then finds the bucket holding the wanted rank, so a level is one launch. Each later level copies the survivors of the
// previous bucket into a scratch buffer (warp-aggregated atomics: order does not matter for a selection) while
// histogramming their next digit, so only the first two levels read the whole signal. An even count needs the two
// middle ranks: while they share a bucket they are tracked together; when they split, the lower one is the largest key
// of its bucket, which the next compaction finds with a max-reduction on the side. The result is 0.5·(lower + upper) in
// double, as on the host.
//
// Cost for N samples: each selection reads the signal twice (histogram, first compaction), i.e.
// 4 × 4N bytes in all, plus the survivors (typically a few per cent), in six launches and one
// memset; no host synchronisation until the final read-back of the three numbers. Scratch, in one
// allocation: two float buffers of N samples (worst case: every sample survives a level) and the
// histograms.
//
// The host's scale falls back to the standard deviation when 1.4826·MAD is 0 (more than half the
// samples equal) or not a finite float. Rather than mirror the host's summation order on the GPU,
// that degenerate case copies the signal to the host and returns the host implementation's answer
// (a device-to-host copy and a host pass, only for flat or clipped recordings).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "detail_cuda/common.cuh"
#include "detail_cuda/robust_moments.hpp"
#include "detail_cuda/visit.cuh"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/detail/normalize.hpp"

namespace zeroflow::signal::detail {

namespace {

using u64 = unsigned long long;

/// One digit of a key: `bits` bits starting at bit `shift`.
struct digit_spec {
  int shift;
  int bits;
};

__device__ __forceinline__ unsigned digit_of(u64 key, digit_spec d) {
  return static_cast<unsigned>((key >> d.shift) & ((u64{1} << d.bits) - 1));
}

// ---- keys ------------------------------------------------------------------------------------

/// Finite floats as unsigned integers in the same order (the host's ordered_key: −0 sorts just
/// below +0, which does not change any selected value).
struct value_key {
  static constexpr int levels = 3;
  __host__ __device__ static constexpr digit_spec digit(int level) {
    return level == 0 ? digit_spec{19, 13} : level == 1 ? digit_spec{6, 13} : digit_spec{0, 6};
  }
  struct bound {
    __device__ bool operator()(float v, u64& key) const {
      if (!isfinite(v)) return false;
      const unsigned u = __float_as_uint(v);
      key = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
      return true;
    }
  };
  __device__ bound bind() const { return {}; }
  __device__ static double value(u64 key) {
    const auto k = static_cast<unsigned>(key);
    return static_cast<double>(__uint_as_float((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k));
  }
};

/// The host's deviation: |x − median| computed in double and rounded to float (+inf when it
/// overflows a float), ranked as a float. Non-negative floats order like their bits, and the sign
/// bit is 0, so the key has 31 bits.
struct deviation_key {
  static constexpr int levels = 3;
  __host__ __device__ static constexpr digit_spec digit(int level) {
    return level == 0 ? digit_spec{18, 13} : level == 1 ? digit_spec{5, 13} : digit_spec{0, 5};
  }
  const double* median;  // device memory, written by the median's selection
  struct bound {
    double median;
    __device__ bool operator()(float v, u64& key) const {
      if (!isfinite(v)) return false;
      key = __float_as_uint(__double2float_rn(fabs(__dsub_rn(static_cast<double>(v), median))));
      return true;
    }
  };
  __device__ bound bind() const { return {*median}; }
  __device__ static double value(u64 key) { return static_cast<double>(__uint_as_float(static_cast<unsigned>(key))); }
};

// ---- selection state -------------------------------------------------------------------------

enum lower_rank : int {
  lower_none = 0,     // odd count, or the lower middle value is already known
  lower_follows = 1,  // same bucket as the upper one so far
  lower_pending = 2,  // largest key of bucket_lo, found by the next compaction
};

struct select_state {
  u64 count;       // samples in the current source (survivors of the previous level)
  u64 next_count;  // compaction output counter
  u64 rank_hi;     // rank of the upper middle value within the current source
  u64 rank_lo;     // rank of the lower one (lower_follows)
  u64 prefix;      // the upper value's key bits decided so far
  u64 lo_key;      // the lower value's key (lower_pending: running max; lower_none: final)
  u64 finite;      // number of finite samples
  unsigned bucket_hi, bucket_lo;
  int lower;
  unsigned blocks_done;  // blocks of the running level that have flushed their histogram
  double result;         // the median (or MAD) once finished
};

constexpr int max_bins = 1 << 13;
constexpr int select_threads = 256;
constexpr int choose_per_thread = max_bins / select_threads;  // bins per thread at most

// ---- the choice of buckets, by the block that finishes a level last --------------------------

/// True in every thread of the block that flushed its histogram last: the other blocks' atomics
/// (histogram, survivor count, lower key) are then visible to it, through L2. That block picks
/// the next buckets, so a level is one launch instead of a histogram launch and a choice launch.
__device__ bool last_to_finish(select_state* state) {
  __shared__ bool last;
  __threadfence();  // this thread's atomics before the block's count below
  __syncthreads();
  if (threadIdx.x == 0) {
    last = atomicAdd(&state->blocks_done, 1u) == gridDim.x - 1;
    if (last) state->blocks_done = 0;  // every block has counted: ready for the next level
  }
  __syncthreads();
  if (last) __threadfence();
  return last;
}

/// Picks the buckets of the wanted ranks from level `level`'s histogram (the whole block).
template <class Key>
__device__ void choose_buckets(const u64* hist, int level, select_state* state) {
  using scan = cub::BlockScan<u64, select_threads>;
  __shared__ typename scan::TempStorage scan_storage;
  __shared__ u64 s_total, s_rank_hi, s_rank_lo, s_before_hi, s_before_lo;
  __shared__ unsigned s_bucket_hi, s_bucket_lo;
  __shared__ int s_follow;
  const digit_spec d = Key::digit(level);
  const int bins = 1 << d.bits;
  const int per_thread = (bins + select_threads - 1) / select_threads;
  const int first = static_cast<int>(threadIdx.x) * per_thread;

  // The thread's bins in registers: independent loads, issued together, from L2 (__ldcg: other
  // blocks' atomics are not in this SM's L1).
  u64 counts[choose_per_thread];
  u64 mine = 0;
#pragma unroll
  for (int k = 0; k < choose_per_thread; ++k) {
    counts[k] = k < per_thread && first + k < bins ? __ldcg(hist + first + k) : 0;
    mine += counts[k];
  }
  u64 before = 0, total = 0;
  scan(scan_storage).ExclusiveSum(mine, before, total);

  if (threadIdx.x == 0) {
    s_total = total;
    if (level == 0) {
      state->finite = total;
      state->rank_hi = total / 2;
      state->rank_lo = total / 2 - 1;  // unused unless the count is even
      state->lower = total > 0 && total % 2 == 0 ? lower_follows : lower_none;
      state->prefix = 0;
      state->lo_key = 0;
    } else if (state->lower == lower_pending) {
      state->lower = lower_none;  // the compaction that just ran found lo_key
    }
    s_rank_hi = state->rank_hi;
    s_rank_lo = state->rank_lo;
    s_follow = state->lower == lower_follows;
    s_bucket_hi = s_bucket_lo = 0xffffffffu;  // matches no digit when there is nothing to select
  }
  __syncthreads();
  const bool follow = s_follow != 0;
  if (s_total > 0) {
    u64 at = before;
#pragma unroll
    for (int k = 0; k < choose_per_thread; ++k) {
      const int b = first + k;
      const u64 c = counts[k];
      if (s_rank_hi >= at && s_rank_hi < at + c) {
        s_bucket_hi = static_cast<unsigned>(b);
        s_before_hi = at;
      }
      if (follow && s_rank_lo >= at && s_rank_lo < at + c) {
        s_bucket_lo = static_cast<unsigned>(b);
        s_before_lo = at;
      }
      at += c;
    }
  }
  __syncthreads();
  if (threadIdx.x != 0) return;
  state->count = __ldcg(&state->next_count);  // survivors written by this level's compaction
  state->next_count = 0;
  state->bucket_hi = s_bucket_hi;
  state->bucket_lo = s_bucket_lo;
  if (s_total == 0) return;
  state->rank_hi = s_rank_hi - s_before_hi;
  const u64 upper_prefix = state->prefix;
  state->prefix = upper_prefix | (static_cast<u64>(s_bucket_hi) << d.shift);
  if (!follow) return;
  if (s_bucket_lo == s_bucket_hi) {
    state->rank_lo = s_rank_lo - s_before_lo;
  } else if (level + 1 == Key::levels) {
    // Every digit is decided: the bucket is a single key.
    state->lo_key = upper_prefix | (static_cast<u64>(s_bucket_lo) << d.shift);
    state->lower = lower_none;
  } else {
    state->lo_key = 0;
    state->lower = lower_pending;
  }
}

/// The median (or MAD) from the selected keys, the host's 0.5·(lower + upper) for an even count
/// (one thread, after the last level's choice); with `out`, also the three numbers the caller
/// wants, the median from `median_state`.
template <class Key>
__device__ void finish(select_state* state, const select_state* median_state, robust_moments* out) {
  double result = 0.0;
  if (state->finite != 0) {
    const double upper = Key::value(state->prefix);
    if (state->finite % 2 == 1) {
      result = upper;
    } else {
      const double lower = Key::value(state->lower == lower_follows ? state->prefix : __ldcg(&state->lo_key));
      result = __dmul_rn(0.5, __dadd_rn(lower, upper));
    }
  }
  state->result = result;
  if (out != nullptr) *out = {median_state->finite, median_state->result, result};
}

// Level 0: histogram of the top digit over the whole signal, then (last block) its choice.
// Consecutive samples of a recording often share a bucket, so each thread merges equal
// neighbours before touching shared memory.
template <class Key>
__global__ void __launch_bounds__(select_threads)
    first_histogram_kernel(const float* __restrict__ x, std::int64_t n, Key key_source, u64* __restrict__ hist,
                           select_state* state) {
  extern __shared__ unsigned s_hist[];
  constexpr digit_spec d = Key::digit(0);
  for (int b = threadIdx.x; b < (1 << d.bits); b += blockDim.x) s_hist[b] = 0;
  __syncthreads();
  const auto key_of = key_source.bind();
  gpu::visit_quads(x, n, [&](const float(&v)[4], int valid) {
    unsigned run_bin = 0, run = 0;
    for (int k = 0; k < valid; ++k) {
      u64 key;
      if (!key_of(v[k], key)) continue;
      const unsigned bin = digit_of(key, d);
      if (run != 0 && bin != run_bin) {
        atomicAdd(&s_hist[run_bin], run);
        run = 0;
      }
      run_bin = bin;
      ++run;
    }
    if (run != 0) atomicAdd(&s_hist[run_bin], run);
  });
  __syncthreads();
  for (int b = threadIdx.x; b < (1 << d.bits); b += blockDim.x)
    if (s_hist[b] != 0) atomicAdd(&hist[b], static_cast<u64>(s_hist[b]));
  if (last_to_finish(state)) choose_buckets<Key>(hist, 0, state);
}

// Level `level` (>= 1): keeps the samples of the chosen bucket of level − 1, histograms their
// next digit, and finds the largest key of the lower rank's bucket when it has split off; then
// (last block) the choice for this level, and after the last level the result.
template <class Key>
__global__ void __launch_bounds__(select_threads)
    compact_kernel(const float* __restrict__ src, std::int64_t n_src, bool src_is_buffer, Key key_source, int level,
                   select_state* state, float* __restrict__ dst, u64* __restrict__ hist,
                   const select_state* median_state, robust_moments* out) {
  extern __shared__ unsigned s_hist[];
  const digit_spec d_prev = Key::digit(level - 1), d = Key::digit(level);
  for (int b = threadIdx.x; b < (1 << d.bits); b += blockDim.x) s_hist[b] = 0;
  __syncthreads();
  const auto key_of = key_source.bind();
  const unsigned bucket_hi = state->bucket_hi, bucket_lo = state->bucket_lo;
  const bool find_lower = state->lower == lower_pending;
  const std::int64_t n = src_is_buffer ? static_cast<std::int64_t>(state->count) : n_src;
  const unsigned lane = threadIdx.x & 31;
  u64 lower_max = 0;

  gpu::visit_quads(src, n, [&](const float(&v)[4], int valid) {
    unsigned keep = 0;  // bit k: v[k] survives
    for (int k = 0; k < valid; ++k) {
      u64 key;
      if (!key_of(v[k], key)) continue;
      const unsigned digit = digit_of(key, d_prev);
      if (digit == bucket_hi) {
        keep |= 1u << k;
        atomicAdd(&s_hist[digit_of(key, d)], 1u);
      } else if (find_lower && digit == bucket_lo && key > lower_max) {
        lower_max = key;
      }
    }
    // One atomic per warp for the output slots.
    const unsigned mine = __popc(keep);
    unsigned offset = mine;
#pragma unroll
    for (int s = 1; s < 32; s *= 2) {
      const unsigned other = __shfl_up_sync(0xffffffffu, offset, s);
      if (lane >= static_cast<unsigned>(s)) offset += other;
    }
    const unsigned warp_total = __shfl_sync(0xffffffffu, offset, 31);
    u64 base = 0;
    if (lane == 31 && warp_total != 0) base = atomicAdd(&state->next_count, static_cast<u64>(warp_total));
    base = __shfl_sync(0xffffffffu, base, 31);
    u64 slot = base + offset - mine;
    for (int k = 0; k < valid; ++k)
      if (keep & (1u << k)) dst[slot++] = v[k];
  });

  if (find_lower) {
    for (int s = 16; s > 0; s /= 2) {
      const u64 other = __shfl_xor_sync(0xffffffffu, lower_max, s);
      lower_max = other > lower_max ? other : lower_max;
    }
    if (lane == 0 && lower_max != 0) atomicMax(&state->lo_key, lower_max);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < (1 << d.bits); b += blockDim.x)
    if (s_hist[b] != 0) atomicAdd(&hist[b], static_cast<u64>(s_hist[b]));
  if (!last_to_finish(state)) return;
  choose_buckets<Key>(hist, level, state);
  if (level + 1 == Key::levels && threadIdx.x == 0) finish<Key>(state, median_state, out);
}

struct select_buffers {
  float* a;
  float* b;
  u64* hist;  // Key::levels × max_bins counters, zeroed
};

/// Queues the selection of the middle value of Key over x: one launch per level. With `out`,
/// the last level also writes the three numbers (the median from `median_state`).
template <class Key>
void select_middle(const float* x, std::int64_t n, Key key_source, select_state* state, select_buffers buffers,
                   const select_state* median_state, robust_moments* out, int device_id, stream_view stream) {
  // Every block zeroes and flushes a histogram of up to 8192 bins: at least 16 float4 loads per
  // thread keep that from outweighing the counting on a subsample of a million samples.
  constexpr std::int64_t per_block = 16 * 4 * select_threads;
  const int blocks = std::min(gpu::grid_for((n + 3) / 4, select_threads, device_id, 8),
                              static_cast<int>(std::max<std::int64_t>(1, (n + per_block - 1) / per_block)));
  auto hist = [&](int level) { return buffers.hist + static_cast<std::size_t>(level) * max_bins; };
  auto smem = [](int level) { return sizeof(unsigned) << Key::digit(level).bits; };

  first_histogram_kernel<Key><<<blocks, select_threads, smem(0), gpu::raw(stream)>>>(x, n, key_source, hist(0), state);
  ZF_SIGNAL_LAUNCH_CHECK();
  for (int level = 1; level < Key::levels; ++level) {
    const float* src = level == 1 ? x : (level % 2 == 0 ? buffers.a : buffers.b);
    float* dst = level % 2 == 1 ? buffers.a : buffers.b;
    const bool last = level + 1 == Key::levels;
    compact_kernel<Key><<<blocks, select_threads, smem(level), gpu::raw(stream)>>>(
        src, n, level > 1, key_source, level, state, dst, hist(level), median_state, last ? out : nullptr);
    ZF_SIGNAL_LAUNCH_CHECK();
  }
}

}  // namespace

void robust_moments_cuda(const array& signal, robust_moments* out, stream_view stream) {
  const device where = signal.where();
  ::zeroflow::detail::cuda_device_guard guard(where.id);
  const std::int64_t n = signal.size();
  const auto* x = static_cast<const float*>(signal.data());

  // One scratch block: two states, the histograms of both selections, the two survivor buffers.
  constexpr std::size_t state_bytes = gpu::aligned_size(sizeof(select_state));
  constexpr std::size_t hist_bytes = sizeof(u64) * max_bins * (value_key::levels + deviation_key::levels);
  const std::size_t survivor_bytes = gpu::aligned_size(static_cast<std::size_t>(n) * sizeof(float));
  array block = gpu::scratch(2 * state_bytes + hist_bytes + 2 * survivor_bytes, where, stream);
  auto* base = static_cast<unsigned char*>(block.data());
  const std::size_t zeroed = 2 * state_bytes + hist_bytes;  // the survivors need no zeroing
  ZF_CUDA_TRY(cudaMemsetAsync(base, 0, zeroed, gpu::raw(stream)));
  auto* median_state = reinterpret_cast<select_state*>(base);
  auto* mad_state = reinterpret_cast<select_state*>(base + state_bytes);
  auto* hist = reinterpret_cast<u64*>(base + 2 * state_bytes);
  auto* a = reinterpret_cast<float*>(base + zeroed);
  auto* b = reinterpret_cast<float*>(base + zeroed + survivor_bytes);

  select_buffers buffers{a, b, hist};
  select_middle(x, n, value_key{}, median_state, buffers, nullptr, nullptr, where.id, stream);
  buffers.hist = hist + static_cast<std::size_t>(value_key::levels) * max_bins;
  select_middle(x, n, deviation_key{&median_state->result}, mad_state, buffers, median_state, out, where.id, stream);
}

normalization robust_zscore_cuda(const array& signal, stream_view stream) {
  ::zeroflow::detail::cuda_device_guard guard(signal.where().id);
  array result = gpu::scratch(sizeof(robust_moments), signal.where(), stream);
  auto* moments = static_cast<robust_moments*>(result.data());
  robust_moments_cuda(signal, moments, stream);
  // Host synchronisation: the result is a host value.
  return normalization_of(gpu::read_back(moments, stream), signal, stream);
}

normalization normalization_of(const robust_moments& m, const array& signal, stream_view stream) {
  if (m.finite == 0) return {0.0f, 1.0f};
  const auto scale = static_cast<float>(1.4826 * m.mad);
  if (std::isfinite(scale) && scale > 0) return {static_cast<float>(m.median), scale};
  // Degenerate spread: the standard-deviation fallback needs the host's summation order.
  return robust_zscore_host(copy_to(signal, cpu_device, stream), stream);
}

}  // namespace zeroflow::signal::detail
