/// @file gpu_light_vae_trainer.cu
/// The LightVAE's training on zeroflow's own kernels (gpu_light_vae_trainer.hpp): the per-step
/// kernels around the fused step (batch gathering with noise, Adam, counters), the per-epoch
/// shuffle (random keys sorted with CUB), and the CUDA graphs that replay a step.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cub/device/device_radix_sort.cuh>
#include <numeric>
#include <optional>

#include "adam_update.hpp"
#include "counter_rng.hpp"
#include "fused_vae_step.hpp"
#include "gpu_light_vae_trainer.hpp"
#include "light_vae_init.hpp"
#include "zeroflow/core/array.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/model/population.hpp"

namespace zeroflow::model::detail {

namespace {

constexpr int block = 256;

int blocks_for(std::int64_t n) { return static_cast<int>(std::max<std::int64_t>(1, (n + block - 1) / block)); }

/// The device counters a captured step reads and advances.
struct step_counters {
  std::int64_t batch_index;  ///< which full batch of this epoch's order the next step takes
  std::uint64_t noise_step;  ///< steps taken since the trainer was made (keys the noise)
  float adam_step;           ///< Adam's step count (a float on the device: adam_update.hpp)
};

/// Rows of the next batch from this epoch's order, and their noise. A full batch is this
/// process's slice of the global batch `batch_index`: positions offset … offset + batch − 1 of it.
__global__ void gather_batch(const std::int64_t* __restrict__ order, const step_counters* __restrict__ counters,
                             std::int64_t first_row, bool full, std::int64_t batch, std::int64_t global_batch,
                             std::int64_t offset, std::uint64_t key, std::int64_t* __restrict__ rows,
                             float* __restrict__ eps) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= batch) return;
  const std::int64_t start = full ? counters->batch_index * global_batch + offset : first_row;
  rows[i] = order[start + i];
  const normal_pair n =
      normal2(key, static_cast<std::uint32_t>(offset + i), counters->noise_step, rng_stream::training_noise);
  eps[2 * i] = n.a;
  eps[2 * i + 1] = n.b;
}

__global__ void advance(step_counters* counters, bool full) {
  if (full) ++counters->batch_index;
  ++counters->noise_step;
  counters->adam_step += 1.0F;
}

/// 32 random bits per training row for this epoch's shuffle.
__global__ void shuffle_keys(std::uint32_t* keys, std::int64_t n, std::uint64_t key, std::uint32_t epoch) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  keys[i] = philox4x32({{static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i >> 32), epoch,
                         static_cast<std::uint32_t>(rng_stream::shuffle)}},
                       key)
                .v[0];
}

__global__ void close_epoch(double* total, double* epoch_sum, step_counters* counters) {
  *epoch_sum = *total;
  *total = 0.0;
  counters->batch_index = 0;
}

__global__ void reset_counters(step_counters* counters, double* total) {
  counters->batch_index = 0;
  counters->adam_step = 0.0F;
  *total = 0.0;
}

__global__ void test_noise(float* eps, std::int64_t n, std::uint64_t key) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const normal_pair r =
      normal2(key, static_cast<std::uint32_t>(i), static_cast<std::uint64_t>(i >> 32), rng_stream::test_noise);
  eps[2 * i] = r.a;
  eps[2 * i + 1] = r.b;
}

/// A CUDA graph and its executable, destroyed together.
class captured_graph {
 public:
  captured_graph() = default;
  captured_graph(const captured_graph&) = delete;
  captured_graph& operator=(const captured_graph&) = delete;
  ~captured_graph() {
    if (exec_ != nullptr) ZF_CUDA_REPORT(cudaGraphExecDestroy(exec_));
    if (graph_ != nullptr) ZF_CUDA_REPORT(cudaGraphDestroy(graph_));
  }
  template <class Queue>
  void capture(cudaStream_t stream, Queue&& queue) {
    ZF_CUDA_TRY(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    try {
      queue();
    } catch (...) {
      cudaGraph_t abandoned = nullptr;
      (void)cudaStreamEndCapture(stream, &abandoned);
      if (abandoned != nullptr) (void)cudaGraphDestroy(abandoned);
      throw;
    }
    ZF_CUDA_TRY(cudaStreamEndCapture(stream, &graph_));
    ZF_CUDA_TRY(cudaGraphInstantiate(&exec_, graph_, 0));
  }
  void replay(cudaStream_t stream) const { ZF_CUDA_TRY(cudaGraphLaunch(exec_, stream)); }

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

template <class T>
T* pointer(const array& a) {
  return static_cast<T*>(a.data());
}

}  // namespace

struct gpu_light_vae_trainer::state {
  float* params;
  std::int64_t width;
  const float* data;
  std::int64_t rows;
  double learning_rate;
  stream_view caller;
  device gpu;
  std::array<std::int64_t, slot_count + 1> offsets;
  array grads, exp_avg, exp_avg_sq, counters, total;

  [[nodiscard]] std::int64_t parameter_count() const { return offsets.back(); }

  /// The fused step's arguments for a batch (scratch sized by `plan`).
  fused_vae::step_args step_args(const std::int64_t* batch_rows, const float* eps, std::int64_t batch,
                                 const fused_vae::launch_plan& plan, array& partial_grads, array& partial_loss) const {
    fused_vae::step_args a{};
    for (int s = 0; s < slot_count; ++s) {
      a.params[s] = params + offsets[static_cast<std::size_t>(s)];
      a.grads[s] = pointer<float>(grads) + offsets[static_cast<std::size_t>(s)];
    }
    a.data = data;
    a.width = width;
    a.rows = batch_rows;
    a.batch = batch;
    a.eps = eps;
    a.loss_total = pointer<double>(total);
    if (!partial_grads.valid() || partial_grads.shape(0) < plan.partial_floats(width))
      partial_grads = empty({plan.partial_floats(width)}, float32, gpu, caller);
    if (!partial_loss.valid() || partial_loss.shape(0) < plan.blocks)
      partial_loss = empty({static_cast<std::int64_t>(plan.blocks)}, float64, gpu, caller);
    a.partial_grads = pointer<float>(partial_grads);
    a.partial_loss = pointer<double>(partial_loss);
    return a;
  }

  void queue_adam(cudaStream_t s) const {
    auto* step = reinterpret_cast<float*>(static_cast<char*>(counters.data()) + offsetof(step_counters, adam_step));
    queue_adam_update({.params = params,
                       .grads = pointer<float>(grads),
                       .exp_avg = pointer<float>(exp_avg),
                       .exp_avg_sq = pointer<float>(exp_avg_sq),
                       .step = step,
                       .count = parameter_count(),
                       .learning_rate = learning_rate},
                      stream_view{s});
  }

  void fresh_optimiser(cudaStream_t s) {
    const std::int64_t n = parameter_count();
    ZF_CUDA_TRY(cudaMemsetAsync(exp_avg.data(), 0, static_cast<std::size_t>(n) * sizeof(float), s));
    ZF_CUDA_TRY(cudaMemsetAsync(exp_avg_sq.data(), 0, static_cast<std::size_t>(n) * sizeof(float), s));
    reset_counters<<<1, 1, 0, s>>>(pointer<step_counters>(counters), pointer<double>(total));
  }

  /// The optimiser of a training being resumed (the host values stay alive until `s` has copied them).
  void restore_optimiser(const optimiser_state& from, const step_counters& start, cudaStream_t s) {
    const std::int64_t n = parameter_count();
    check_resume_state(from, n);
    const auto bytes = static_cast<std::size_t>(n) * sizeof(float);
    ZF_CUDA_TRY(cudaMemcpyAsync(exp_avg.data(), from.exp_avg.data(), bytes, cudaMemcpyHostToDevice, s));
    ZF_CUDA_TRY(cudaMemcpyAsync(exp_avg_sq.data(), from.exp_avg_sq.data(), bytes, cudaMemcpyHostToDevice, s));
    ZF_CUDA_TRY(cudaMemcpyAsync(counters.data(), &start, sizeof start, cudaMemcpyHostToDevice, s));
    ZF_CUDA_TRY(cudaMemsetAsync(total.data(), 0, sizeof(double), s));
  }
};

gpu_light_vae_trainer::gpu_light_vae_trainer(float* params, std::int64_t width, const float* data, std::int64_t rows,
                                             double learning_rate, stream_view stream)
    : state_{std::make_unique<state>()} {
  ZF_EXPECTS(fused_vae::supported_width(width), "the GPU training kernels take widths that are powers of two from 16 ",
             "to 1024, got ", width);
  check_trainer_learning_rate(learning_rate);
  int id = 0;
  ZF_CUDA_TRY(cudaGetDevice(&id));
  state& s = *state_;
  s.params = params;
  s.width = width;
  s.data = data;
  s.rows = rows;
  s.learning_rate = learning_rate;
  s.caller = stream;
  s.gpu = cuda_device(id);
  s.offsets = light_vae_slot_offsets(width);
  const std::int64_t n = s.parameter_count();
  s.grads = zeros({n}, float32, s.gpu, stream);
  s.exp_avg = zeros({n}, float32, s.gpu, stream);
  s.exp_avg_sq = zeros({n}, float32, s.gpu, stream);
  s.counters = zeros({static_cast<std::int64_t>(sizeof(step_counters))}, uint8, s.gpu, stream);
  s.total = zeros({1}, float64, s.gpu, stream);
}

gpu_light_vae_trainer::~gpu_light_vae_trainer() = default;

optimiser_state gpu_light_vae_trainer::optimiser() const {
  const state& s = *state_;
  const auto stream = s.caller.value();
  optimiser_state out;
  out.exp_avg.resize(static_cast<std::size_t>(s.parameter_count()));
  out.exp_avg_sq.resize(out.exp_avg.size());
  step_counters counters{};
  const auto bytes = out.exp_avg.size() * sizeof(float);
  ZF_CUDA_TRY(cudaMemcpyAsync(out.exp_avg.data(), s.exp_avg.data(), bytes, cudaMemcpyDeviceToHost, stream));
  ZF_CUDA_TRY(cudaMemcpyAsync(out.exp_avg_sq.data(), s.exp_avg_sq.data(), bytes, cudaMemcpyDeviceToHost, stream));
  ZF_CUDA_TRY(cudaMemcpyAsync(&counters, s.counters.data(), sizeof counters, cudaMemcpyDeviceToHost, stream));
  ZF_CUDA_TRY(cudaStreamSynchronize(stream));
  out.adam_step = counters.adam_step;
  out.noise_step = counters.noise_step;
  return out;
}

double gpu_light_vae_trainer::step(const std::int64_t* rows, const float* eps, std::int64_t batch) {
  state& s = *state_;
  const auto stream = s.caller.value();
  const fused_vae::launch_plan plan = fused_vae::plan(batch, s.width);
  array partial_grads, partial_loss;
  const fused_vae::step_args args = s.step_args(rows, eps, batch, plan, partial_grads, partial_loss);
  ZF_CUDA_TRY(cudaMemsetAsync(s.total.data(), 0, sizeof(double), stream));
  fused_vae::train_step(args, plan, s.caller);
  advance<<<1, 1, 0, stream>>>(pointer<step_counters>(s.counters), false);
  s.queue_adam(stream);
  double loss = 0;
  ZF_CUDA_TRY(cudaMemcpyAsync(&loss, s.total.data(), sizeof(double), cudaMemcpyDeviceToHost, stream));
  ZF_CUDA_TRY(cudaStreamSynchronize(stream));
  return loss;
}

trainer_report gpu_light_vae_trainer::train(const std::int64_t* train_index, std::int64_t n_train,
                                            const trainer_options& options) {
  const batch_schedule plan = schedule_batches(n_train, options, "GPU training");
  const std::int64_t global_batch = plan.global_batch, offset = plan.offset, full_steps = plan.full_steps,
                     tail = plan.tail;
  gradient_group* const group = options.group;
  trainer_report report;
  if (options.first_epoch == options.epochs) return report;
  state& s = *state_;

  // Capture needs a stream other than the legacy default one; it starts after the caller's work
  // and the caller's stream waits for it at the end.
  cudaStream_t side = nullptr;
  ZF_CUDA_TRY(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  struct cleanup {
    cudaStream_t stream;
    ~cleanup() { ZF_CUDA_REPORT(cudaStreamDestroy(stream)); }
  } const release{side};
  const stream_view on_side{side};
  zeroflow::wait_for_stream(on_side, s.caller);

  // Every buffer the steps touch exists before the first capture.
  array order = empty({n_train}, int64, s.gpu, on_side);
  array keys = empty({n_train}, uint32, s.gpu, on_side);
  array sorted_keys = empty({n_train}, uint32, s.gpu, on_side);
  array batch_rows = empty({std::max<std::int64_t>(std::min(options.batch, n_train), 1)}, int64, s.gpu, on_side);
  array eps = empty({batch_rows.shape(0), 2}, float32, s.gpu, on_side);
  array epoch_sums = zeros({options.epochs}, float64, s.gpu, on_side);
  std::size_t sort_bytes = 0;
  ZF_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, pointer<std::uint32_t>(keys),
                                              pointer<std::uint32_t>(sorted_keys), train_index,
                                              pointer<std::int64_t>(order), n_train, 0, 32, side));
  array sort_scratch = empty({static_cast<std::int64_t>(std::max<std::size_t>(sort_bytes, 1))}, uint8, s.gpu, on_side);
  if (options.resume_from != nullptr)
    s.restore_optimiser(
        *options.resume_from,
        {.batch_index = 0, .noise_step = options.resume_from->noise_step, .adam_step = options.resume_from->adam_step},
        side);
  else
    s.fresh_optimiser(side);

  array full_grads, full_loss, tail_grads, tail_loss;
  captured_graph full_graph, tail_graph;
  const auto queue_step = [&](bool full) {
    const std::int64_t batch = full ? options.batch : tail;
    const fused_vae::launch_plan plan = fused_vae::plan(batch, s.width);
    const fused_vae::step_args args = s.step_args(pointer<std::int64_t>(batch_rows), pointer<float>(eps), batch, plan,
                                                  full ? full_grads : tail_grads, full ? full_loss : tail_loss);
    return [&s, args, plan, full, batch, global_batch, offset, group, first = full_steps * global_batch,
            key = options.seed, side, &order, &batch_rows, &eps] {
      gather_batch<<<blocks_for(batch), block, 0, side>>>(
          pointer<std::int64_t>(order), pointer<step_counters>(s.counters), first, full, batch, global_batch, offset,
          key, pointer<std::int64_t>(batch_rows), pointer<float>(eps));
      fused_vae::train_step(args, plan, stream_view{side});
      // The group's gradients summed on the devices, inside the graph: the steps of every
      // process then apply the same Adam update to the same weights.
      if (group != nullptr) group->sum(pointer<float>(s.grads), s.parameter_count(), stream_view{side});
      advance<<<1, 1, 0, side>>>(pointer<step_counters>(s.counters), full);
      s.queue_adam(side);
    };
  };
  if (full_steps > 0) {
    full_graph.capture(side, queue_step(true));
    ++report.graphs;
  }
  if (tail > 0) {
    tail_graph.capture(side, queue_step(false));
    ++report.graphs;
  }

  const double trained = plan.rows_trained();
  for (int epoch = options.first_epoch; epoch < options.epochs; ++epoch) {
    shuffle_keys<<<blocks_for(n_train), block, 0, side>>>(pointer<std::uint32_t>(keys), n_train, options.seed,
                                                          static_cast<std::uint32_t>(epoch));
    ZF_CUDA_TRY(cub::DeviceRadixSort::SortPairs(sort_scratch.data(), sort_bytes, pointer<std::uint32_t>(keys),
                                                pointer<std::uint32_t>(sorted_keys), train_index,
                                                pointer<std::int64_t>(order), n_train, 0, 32, side));
    for (std::int64_t k = 0; k < full_steps; ++k) full_graph.replay(side);
    if (tail > 0) tail_graph.replay(side);
    report.replays += plan.steps();
    close_epoch<<<1, 1, 0, side>>>(pointer<double>(s.total), pointer<double>(epoch_sums) + epoch,
                                   pointer<step_counters>(s.counters));
    ZF_CUDA_TRY(cudaGetLastError());
    if (group != nullptr) group->sum(pointer<double>(epoch_sums) + epoch, 1, on_side);
    if (options.on_epoch) {
      double sum = 0;
      ZF_CUDA_TRY(
          cudaMemcpyAsync(&sum, pointer<double>(epoch_sums) + epoch, sizeof(double), cudaMemcpyDeviceToHost, side));
      ZF_CUDA_TRY(cudaStreamSynchronize(side));
      ++report.host_syncs;
      options.on_epoch(epoch, sum / trained);
    }
  }
  const auto first = static_cast<std::size_t>(options.first_epoch);
  std::vector<double> sums(static_cast<std::size_t>(options.epochs) - first);
  ZF_CUDA_TRY(cudaMemcpyAsync(sums.data(), pointer<double>(epoch_sums) + first, sums.size() * sizeof(double),
                              cudaMemcpyDeviceToHost, side));
  ZF_CUDA_TRY(cudaStreamSynchronize(side));
  ++report.host_syncs;
  for (const double sum : sums) report.epoch_loss.push_back(sum / trained);
  zeroflow::wait_for_stream(s.caller, on_side);
  return report;
}

double gpu_light_vae_trainer::mean_loss(const std::int64_t* rows, std::int64_t n, std::uint64_t seed) const {
  ZF_EXPECTS(n >= 1, "GPU test loss: no rows");
  const state& s = *state_;
  const auto stream = s.caller.value();
  array eps = empty({n, 2}, float32, s.gpu, s.caller);
  array losses = empty({n}, float32, s.gpu, s.caller);
  test_noise<<<blocks_for(n), block, 0, stream>>>(pointer<float>(eps), n, seed);
  fused_vae::loss_args a{};
  for (int k = 0; k < slot_count; ++k) a.params[k] = s.params + s.offsets[static_cast<std::size_t>(k)];
  a.data = s.data;
  a.width = s.width;
  a.row_index = rows;
  a.rows = n;
  a.eps = pointer<float>(eps);
  a.losses = pointer<float>(losses);
  fused_vae::row_losses(a, s.caller);
  std::vector<float> host(static_cast<std::size_t>(n));
  ZF_CUDA_TRY(cudaMemcpyAsync(host.data(), losses.data(), host.size() * sizeof(float), cudaMemcpyDeviceToHost, stream));
  ZF_CUDA_TRY(cudaStreamSynchronize(stream));
  double sum = 0;
  for (const float v : host) sum += v;
  return sum / static_cast<double>(n);
}

}  // namespace zeroflow::model::detail
