/// @file vae.cpp
/// zeroflow::model::vae: the weights as one packed array, creation from LibTorch's default
/// initialisation (light_vae_init.hpp), zeroflow's own kernels on either device (training:
/// cpu_light_vae_trainer, gpu_light_vae_trainer; scoring and decoding).
#include "zeroflow/model/vae.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "cpu_light_vae_trainer.hpp"
#include "cpu_threads.hpp"
#include "cpu_vae_kernels.hpp"
#include "finite_rows.hpp"
#include "light_vae_init.hpp"
#include "model_checks.hpp"
#include "model_stream.hpp"
#include "row_order.hpp"
#include "vae_state.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"

#if ZEROFLOW_HAS_CUDA
#include <cuda_runtime_api.h>

#include "fused_vae_step.hpp"
#include "gpu_light_vae_trainer.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#endif

namespace zeroflow::model {

namespace {

/// NaN and ±inf among N × W float32 rows wherever they live (finite_rows.hpp).
detail::non_finite_count count_non_finite(const array& rows, stream_view stream) {
  return detail::count_non_finite(static_cast<const float*>(rows.data()), rows.where(), rows.shape(0), rows.shape(1),
                                  rows.strides()[0], rows.strides()[1], stream);
}

/// Says why an epoch's loss is not finite (model_checks.hpp), from the rows' largest magnitude.
/// epoch < 0: the test split's loss after training.
[[noreturn]] void throw_diverged(int epoch, double loss, const train_options& options, const array& rows) {
  const array host = rows.where().type == device_type::cpu ? rows : copy_to(rows, cpu_device);
  const std::int64_t n = host.shape(0), w = host.shape(1), rs = host.strides()[0], cs = host.strides()[1];
  const auto* data = static_cast<const float*>(host.data());
  double largest = 0;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < w; ++j)
      largest = std::max(largest, std::abs(static_cast<double>(data[i * rs + j * cs])));
  detail::throw_vae_diverged(epoch, loss, largest, options);
}

/// Rows a model of `width` can take: float32, N × width, finite.
void check_rows(const array& rows, std::int64_t width, stream_view stream) {
  ZF_EXPECTS(rows.valid(), "rows: empty array");
  ZF_EXPECTS(rows.type() == float32, "rows must be float32, got ", rows.type().name());
  ZF_EXPECTS(rows.ndim() == 2, "rows must be N x W, got ", rows.ndim(), " dimensions");
  ZF_EXPECTS(rows.shape(1) == width, "rows have width ", rows.shape(1), ", the model ", width);
  const detail::non_finite_count bad = count_non_finite(rows, stream);
  if (bad.count == 0) return;
  ZF_THROW(invalid_argument, "rows hold ", bad.count, bad.count == 1 ? " value that is" : " values that are",
           " NaN or infinite (the first in row ", bad.first / width, ", column ", bad.first % width,
           "); the model needs finite rows: fill gaps (e.g. with the row's median) or leave those rows out");
}

/// The rows as one C-contiguous array on `where` (the same array when they already are).
array contiguous_on(const array& rows, device where, stream_view stream) {
  if (rows.where() == where && rows.is_contiguous()) return rows;
  return copy_to(rows, where, stream);
}

/// Trains with one of zeroflow's own trainers (cpu_light_vae_trainer, gpu_light_vae_trainer: the
/// same steps) on the n_train rows `train_index`, then measures the loss of the n_test rows
/// `test_index`.
template <class Trainer>
void train_on_own_kernels(Trainer& trainer, const std::int64_t* train_index, std::int64_t n_train,
                          const std::int64_t* test_index, std::int64_t n_test, const train_options& options,
                          const array& rows, train_result& result) {
  detail::trainer_options o;
  o.epochs = options.epochs;
  o.batch = options.batch;
  o.seed = options.seed;
  if (options.on_epoch) {
    o.on_epoch = [&](int epoch, double loss) {
      if (!std::isfinite(loss)) throw_diverged(epoch, loss, options, rows);
      options.on_epoch(epoch, loss);
    };
  }
  result.epoch_loss = trainer.train(train_index, n_train, o).epoch_loss;
  for (std::size_t epoch = 0; epoch < result.epoch_loss.size(); ++epoch)
    if (!std::isfinite(result.epoch_loss[epoch]))
      throw_diverged(static_cast<int>(epoch), result.epoch_loss[epoch], options, rows);
  result.test_loss =
      n_test > 0 ? trainer.mean_loss(test_index, n_test, options.seed) : std::numeric_limits<double>::quiet_NaN();
}

#if ZEROFLOW_HAS_CUDA
/// The kernels' view of the packed weights.
template <class Args>
void point_at(Args& a, const float* params, std::int64_t width) {
  const auto offsets = detail::light_vae_slot_offsets(width);
  for (int s = 0; s < detail::slot_count; ++s) a.params[s] = params + offsets[static_cast<std::size_t>(s)];
}
#endif

}  // namespace

namespace detail {

void wait_for_stream(stream_view stream, device where) {
#if ZEROFLOW_HAS_CUDA
  if (where.type == device_type::cuda) ZF_CUDA_TRY(cudaStreamSynchronize(stream.value()));
#else
  (void)stream;
  (void)where;
#endif
}

void check_model_place(device where) {
  ZF_EXPECTS(where.type == device_type::cpu || where.type == device_type::cuda,
             "a model lives on the CPU or a CUDA device, not on ", where.name());
  if (where.type == device_type::cuda) {
    if (!cuda_available()) ZF_THROW(cuda_error, "a model on ", where.name(), " needs a GPU, and none is available");
    const int gpus = cuda_device_count();
    ZF_EXPECTS(where.id >= 0 && where.id < gpus, "no GPU ", where.id, " (", gpus, " visible)");
  }
}

}  // namespace detail

void set_cpu_threads(int threads) {
  ZF_EXPECTS(threads >= 1, "set_cpu_threads needs at least 1 thread, got ", threads);
  detail::set_kernel_threads(threads);
}

int cpu_threads() { return detail::kernel_threads(); }

const char* cpu_instruction_set() { return detail::cpu_vae::instruction_set(); }

vae::vae(std::unique_ptr<impl> state) : impl_{std::move(state)} {}
vae::vae(vae&&) noexcept = default;
vae& vae::operator=(vae&&) noexcept = default;
vae::~vae() = default;

vae vae::create(std::int64_t width, device where, std::uint64_t seed) {
  ZF_EXPECTS(detail::is_light_vae_width(width), "the VAE's width must be a power of two >= 16, got ", width);
  detail::check_model_place(where);
  // LibTorch's default initialisation for the seed, drawn on the host: the same on every device.
  const std::vector<float> initial = detail::light_vae_initial_parameters(width, seed);
  array host = empty({static_cast<std::int64_t>(initial.size())}, float32, cpu_device);
  std::memcpy(host.data(), initial.data(), initial.size() * sizeof(float));
  auto state = std::make_unique<impl>();
  state->width = width;
  state->place = where;
  const stream_view stream = detail::model_stream(where);
  state->params = where.type == device_type::cpu ? host : copy_to(host, where, stream);
  detail::wait_for_stream(stream, where);
  state->history.init_seed = seed;
  return vae{std::move(state)};
}

std::int64_t vae::width() const { return impl_->width; }

device vae::where() const { return impl_->place; }

std::int64_t vae::parameter_count() const { return detail::light_vae_slot_offsets(impl_->width).back(); }

train_result vae::train(const array& rows, const train_options& options) {
  ZF_EXPECTS(options.epochs >= 0, "epochs must be >= 0, got ", options.epochs);
  ZF_EXPECTS(options.batch >= 1, "batch must be >= 1, got ", options.batch);
  ZF_EXPECTS(options.test_fraction >= 0.0 && options.test_fraction < 1.0, "test_fraction must be in [0, 1), got ",
             options.test_fraction);
  ZF_EXPECTS(options.learning_rate > 0.0, "learning_rate must be > 0, got ", options.learning_rate);
  const training_path path = choose_training_path(where(), width(), options.path);
  const stream_view stream = detail::model_stream(where());
  const std::int64_t n = rows.valid() && rows.ndim() == 2 ? rows.shape(0) : 0;
  check_rows(rows, width(), stream);
  const auto n_train = static_cast<std::int64_t>(std::floor((1.0 - options.test_fraction) * static_cast<double>(n)));
  ZF_EXPECTS(n_train >= 1, "too few rows to train on: ", n, " rows, test_fraction ", options.test_fraction);

  // zeroflow's own split (row_order.hpp): the same on every path and device for a given seed.
  const detail::row_split split = detail::split_rows(n, options.test_fraction, options.seed);
  train_result result;
  result.path = path;
  const array data = contiguous_on(rows, where(), stream);
  auto* params = static_cast<float*>(impl_->params.data());
  const auto* values = static_cast<const float*>(data.data());
  if (where().type == device_type::cpu) {
    detail::cpu_light_vae_trainer trainer(params, width(), values, n, options.learning_rate, detail::kernel_threads());
    train_on_own_kernels(trainer, split.train.data(), n_train, split.test.data(), n - n_train, options, rows, result);
  } else {
#if ZEROFLOW_HAS_CUDA
    const zeroflow::detail::cuda_device_guard on(where().id);
    const array train_index = detail::indices_on(split.train, where(), stream);
    const array test_index = detail::indices_on(split.test, where(), stream);
    detail::gpu_light_vae_trainer trainer(params, width(), values, n, options.learning_rate, stream);
    train_on_own_kernels(trainer, static_cast<const std::int64_t*>(train_index.data()), n_train,
                         static_cast<const std::int64_t*>(test_index.data()), n - n_train, options, rows, result);
#endif
  }
  if (n - n_train > 0 && !std::isfinite(result.test_loss)) throw_diverged(-1, result.test_loss, options, rows);
  impl_->history.train_seed = options.seed;
  impl_->history.epochs += options.epochs;
  result.train_index = detail::indices_on(split.train, rows.where(), stream);
  result.test_index = detail::indices_on(split.test, rows.where(), stream);
  detail::wait_for_stream(stream, where());
  return result;
}

scores vae::score(const array& rows, std::int64_t batch, training_path path) const {
  ZF_EXPECTS(batch >= 1, "batch must be >= 1, got ", batch);
  (void)choose_training_path(where(), width(), path);  // refuses what the kernels cannot take
  const stream_view stream = detail::model_stream(where());
  check_rows(rows, width(), stream);
  const std::int64_t n = rows.shape(0);
  const array data = contiguous_on(rows, where(), stream);
  scores out{empty({n}, float32, where(), stream), empty({n, 2}, float32, where(), stream)};
  if (where().type == device_type::cpu) {
    detail::cpu_vae::score(static_cast<const float*>(impl_->params.data()), static_cast<const float*>(data.data()),
                           width(), n, static_cast<float*>(out.score.data()), static_cast<float*>(out.mu.data()),
                           detail::kernel_threads());
  } else {
#if ZEROFLOW_HAS_CUDA
    const zeroflow::detail::cuda_device_guard on(where().id);
    detail::fused_vae::score_args a{};
    point_at(a, static_cast<const float*>(impl_->params.data()), width());
    a.data = static_cast<const float*>(data.data());
    a.width = width();
    a.rows = n;
    a.score = static_cast<float*>(out.score.data());
    a.mu = static_cast<float*>(out.mu.data());
    if (n > 0) detail::fused_vae::score(a, stream);
#endif
  }
  if (rows.where() != where()) out = {copy_to(out.score, rows.where(), stream), copy_to(out.mu, rows.where(), stream)};
  detail::wait_for_stream(stream, where());
  return out;
}

array vae::decode_grid(int n, double extent, training_path path) const {
  ZF_EXPECTS(n >= 1, "decode_grid needs n >= 1, got ", n);
  ZF_EXPECTS(std::isfinite(extent) && extent >= 0.0, "decode_grid needs a finite extent >= 0, got ", extent);
  (void)choose_training_path(where(), width(), path);
  const stream_view stream = detail::model_stream(where());
  // meshgrid(g, g, indexing='ij') flattened, g = linspace(-extent, extent, n): row i·n + j is
  // (g[i], g[j]); linspace's float steps as LibTorch computes them.
  const std::int64_t points = std::int64_t{n} * n;
  array latents_host = empty({points, 2}, float32, cpu_device);
  auto* z = static_cast<float*>(latents_host.data());
  const auto g = [&](int i) {
    if (n == 1) return static_cast<float>(-extent);
    const float step = static_cast<float>((2.0 * extent) / (n - 1));
    return i < n / 2 ? static_cast<float>(-extent) + step * static_cast<float>(i)
                     : static_cast<float>(extent) - step * static_cast<float>(n - 1 - i);
  };
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      z[2 * (i * n + j)] = g(i);
      z[2 * (i * n + j) + 1] = g(j);
    }
  const array latents = where().type == device_type::cpu ? latents_host : copy_to(latents_host, where(), stream);
  array out = empty({points, width()}, float32, where(), stream);
  if (where().type == device_type::cpu) {
    detail::cpu_vae::decode(static_cast<const float*>(impl_->params.data()), static_cast<const float*>(latents.data()),
                            width(), points, static_cast<float*>(out.data()), detail::kernel_threads());
  } else {
#if ZEROFLOW_HAS_CUDA
    const zeroflow::detail::cuda_device_guard on(where().id);
    detail::fused_vae::decode_args a{};
    point_at(a, static_cast<const float*>(impl_->params.data()), width());
    a.latents = static_cast<const float*>(latents.data());
    a.width = width();
    a.rows = points;
    a.decoded = static_cast<float*>(out.data());
    detail::fused_vae::decode(a, stream);
#endif
  }
  detail::wait_for_stream(stream, where());
  return out;
}

}  // namespace zeroflow::model
