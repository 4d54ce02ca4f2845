// The seed-004 MLP autoencoder against the notebook's model and loop written directly in
// LibTorch (the reference below: four Linear layers, torch::optim::Adam(lr 0.01, weight decay
// 1e-5), full-batch MSE): same initial weights for a seed, same losses epoch by epoch, same
// reconstructions; scores re-computed from the reconstructions; an anomaly ranks first; bytes
// and files round-trip; damaged bytes and bad rows are refused. GPU cases skip without a GPU.
#include "zeroflow/model/mlp_autoencoder.hpp"

#include <gtest/gtest.h>
#include <torch/cuda.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/adam.h>
#include <torch/torch.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "model/legacy_mlp_archive.hpp"
#include "torch_oracle/mlp_autoencoder.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/safetensors.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zf = zeroflow;
namespace zm = zeroflow::model;

namespace {

/// A daily-and-weekly series in [0, 1] with a few spikes: what the seed-004 pipeline feeds the model.
std::vector<float> scaled_series(std::int64_t n, std::uint64_t seed, const std::vector<std::int64_t>& spikes = {}) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, 0.02);
  std::vector<float> x(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const double day = std::sin(2 * M_PI * static_cast<double>(i) / 24.0);
    const double week = std::sin(2 * M_PI * static_cast<double>(i) / 168.0);
    x[static_cast<std::size_t>(i)] = static_cast<float>(0.45 + 0.2 * day + 0.1 * week + noise(rng));
  }
  for (std::int64_t s : spikes) x[static_cast<std::size_t>(s)] = 0.99f;
  return x;
}

zf::array host_array(const std::vector<float>& values, zf::shape_t shape) {
  zf::array a = zf::empty(std::move(shape), zf::float32);
  std::copy(values.begin(), values.end(), a.span<float>().begin());
  return a;
}

std::vector<float> values_of(const zf::array& a) {
  const zf::array h = a.where() == zf::cpu_device ? a : zf::copy_to(a, zf::cpu_device);
  const auto s = h.span<const float>();
  return {s.begin(), s.end()};
}

using reference_net = zf::torch_oracle::mlp_net;

/// The notebook's train_model (torch_oracle/mlp_autoencoder.hpp): the losses it prints (every
/// epoch, not every tenth), and the trained network.
std::vector<double> reference_losses(const torch::Tensor& x, std::uint64_t seed, int epochs,
                                     std::shared_ptr<reference_net>* trained = nullptr, const zm::mlp_shape& shape = {},
                                     double weight_decay = 1e-5) {
  zm::mlp_shape s = shape;
  s.features = x.size(1);
  auto run = zf::torch_oracle::train_mlp(x, seed, epochs, s, weight_decay);
  if (trained) *trained = run.net;
  return run.epoch_loss;
}

}  // namespace

TEST(MlpAutoencoder, SeedTopology) {
  const auto m = zm::mlp_autoencoder::create({});
  EXPECT_EQ(m.parameter_count(), 2209);  // Linear(1,32) + Linear(32,32) x 2 + Linear(32,1)
  EXPECT_EQ(m.shape().features, 1);
  EXPECT_EQ(zm::mlp_autoencoder::create({5, 16, 8}).parameter_count(),
            (5 * 16 + 16) + (16 * 8 + 8) + (8 * 16 + 16) + (16 * 5 + 5));
}

TEST(MlpAutoencoder, TrainsAsTheNotebookDoes) {
  const std::int64_t n = 2000;
  const auto series = scaled_series(n, 3);
  const zf::array rows = host_array(series, {n, 1});
  auto model = zm::mlp_autoencoder::create({}, zf::cpu_device, 7);
  zm::mlp_train_options o;
  o.epochs = 40;
  const auto got = model.train(rows, o);

  std::shared_ptr<reference_net> trained;
  const torch::Tensor x = torch::from_blob(const_cast<float*>(series.data()), {n, 1}).clone();
  const auto want = reference_losses(x, 7, 40, &trained);
  ASSERT_EQ(got.epoch_loss.size(), want.size());
  for (std::size_t e = 0; e < want.size(); ++e)
    EXPECT_NEAR(got.epoch_loss[e], want[e], 1e-6 * std::max(1.0, want[e])) << "epoch " << e;
  EXPECT_LT(got.epoch_loss.back(), got.epoch_loss.front());

  torch::NoGradGuard no_grad;
  const torch::Tensor want_recon = trained->forward(x);
  const auto recon = values_of(model.reconstruct(rows));
  const auto score = values_of(model.score(rows));
  ASSERT_EQ(recon.size(), static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    ASSERT_NEAR(recon[static_cast<std::size_t>(i)], want_recon[i][0].item<float>(), 1e-5) << i;
    const double err = static_cast<double>(recon[static_cast<std::size_t>(i)]) - series[static_cast<std::size_t>(i)];
    ASSERT_NEAR(score[static_cast<std::size_t>(i)], err * err, 1e-6) << i;
  }
}

TEST(MlpAutoencoder, SameSeedSameModelOneDimensionalRowsAccepted) {
  const auto series = scaled_series(500, 1);
  const zf::array column = host_array(series, {500});
  auto a = zm::mlp_autoencoder::create({}, zf::cpu_device, 42);
  auto b = zm::mlp_autoencoder::create({}, zf::cpu_device, 42);
  auto c = zm::mlp_autoencoder::create({}, zf::cpu_device, 43);
  EXPECT_EQ(values_of(a.score(column)), values_of(b.score(column)));
  EXPECT_NE(values_of(a.score(column)), values_of(c.score(column)));
  EXPECT_EQ(a.reconstruct(column).shape(), (zf::shape_t{500}));
  // The host has one memory whatever a CPU device's number, in builds with CUDA or without, as
  // for the LightVAE.
  auto on_another_cpu_number = zm::mlp_autoencoder::create({}, zf::device{zf::device_type::cpu, 1}, 42);
  EXPECT_EQ(values_of(on_another_cpu_number.score(column)), values_of(a.score(column)));
}

TEST(MlpAutoencoder, SpikesScoreHighest) {
  const std::int64_t n = 3000;
  const std::vector<std::int64_t> spikes{500, 1700, 2600};
  const auto series = scaled_series(n, 5, spikes);
  const zf::array rows = host_array(series, {n, 1});
  auto model = zm::mlp_autoencoder::create({});
  zm::mlp_train_options o;
  o.epochs = 100;
  (void)model.train(rows, o);
  const auto score = values_of(model.score(rows));
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::partial_sort(order.begin(), order.begin() + 3, order.end(), [&](auto i, auto j) {
    return score[static_cast<std::size_t>(i)] > score[static_cast<std::size_t>(j)];
  });
  std::vector<std::int64_t> top(order.begin(), order.begin() + 3);
  std::sort(top.begin(), top.end());
  EXPECT_EQ(top, spikes);
}

TEST(MlpAutoencoder, ARowsScoreDoesNotDependOnTheRowsBesideIt) {
  const std::int64_t n = 3000, f = 3;
  const auto values = scaled_series(n * f, 8);
  const zf::array rows = host_array(values, {n, f});
  auto model = zm::mlp_autoencoder::create({f, 32, 32});
  zm::mlp_train_options o;
  o.epochs = 10;
  (void)model.train(rows, o);
  const auto all = values_of(model.score(rows));
  for (auto [begin, end] : {std::pair<std::int64_t, std::int64_t>{0, 1}, {5, 18}, {1000, 1001}, {37, 2999}}) {
    const auto part = values_of(model.score(rows.slice(0, begin, end)));
    for (std::int64_t i = begin; i < end; ++i)
      ASSERT_EQ(part[static_cast<std::size_t>(i - begin)], all[static_cast<std::size_t>(i)])
          << begin << ".." << end << " row " << i;
  }
}

TEST(MlpAutoencoder, BatchedTrainingAndManyFeatures) {
  const auto values = scaled_series(4 * 600, 9);
  const zf::array rows = host_array(values, {600, 4});
  auto model = zm::mlp_autoencoder::create({4, 16, 8});
  zm::mlp_train_options o;
  o.epochs = 15;
  o.batch = 64;
  std::vector<int> seen;
  o.on_epoch = [&](int epoch, double loss) {
    seen.push_back(epoch);
    EXPECT_TRUE(std::isfinite(loss));
  };
  const auto r = model.train(rows, o);
  EXPECT_EQ(seen.size(), 15u);
  EXPECT_LT(r.epoch_loss.back(), r.epoch_loss.front());
  // the score of a row is the mean of its four squared errors
  const auto recon = values_of(model.reconstruct(rows));
  const auto score = values_of(model.score(rows));
  for (std::size_t i = 0; i < 600; ++i) {
    double sum = 0;
    for (std::size_t j = 0; j < 4; ++j) {
      const double e = static_cast<double>(recon[i * 4 + j]) - values[i * 4 + j];
      sum += e * e;
    }
    ASSERT_NEAR(score[i], sum / 4, 1e-6) << i;
  }
}

TEST(MlpAutoencoder, BytesAndFilesRoundTrip) {
  const auto series = scaled_series(800, 2);
  const zf::array rows = host_array(series, {800, 1});
  auto model = zm::mlp_autoencoder::create({});
  zm::mlp_train_options o;
  o.epochs = 5;
  (void)model.train(rows, o);
  const std::string bytes = model.to_bytes();
  const auto copy = zm::mlp_autoencoder::from_bytes(bytes);
  EXPECT_EQ(values_of(copy.score(rows)), values_of(model.score(rows)));

  const auto dir = std::filesystem::temp_directory_path() / ("zf_mlp_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  model.save(dir / "model.zfmlp");
  const auto loaded = zm::mlp_autoencoder::load(dir / "model.zfmlp");
  EXPECT_EQ(values_of(loaded.score(rows)), values_of(model.score(rows)));
  std::filesystem::remove_all(dir);

  for (const std::string& bad : {bytes.substr(0, bytes.size() / 2), std::string("not a model"), std::string()}) {
    try {
      (void)zm::mlp_autoencoder::from_bytes(bad, zf::cpu_device, "the pickled model");
      FAIL() << "damaged bytes were accepted";
    } catch (const zf::error& e) {
      EXPECT_NE(std::string(e.what()).find("the pickled model cannot be read as a zeroflow MLP autoencoder"),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_THROW((void)zm::mlp_autoencoder::load("/nonexistent/model.zfmlp"), zf::error);

  // The bytes are a safetensors file, which the reference reader takes; earlier zeroflows' LibTorch
  // archives are refused in one line that says what they are.
  const auto content = zf::io::from_safetensors(bytes);
  EXPECT_EQ(content.metadata.at("format"), "zeroflow_mlp_autoencoder");
  EXPECT_EQ(content.metadata.at("hidden"), "32");
  try {
    (void)zm::mlp_autoencoder::from_bytes(zf::testing::legacy_mlp_archive(model), zf::cpu_device, "old.pt");
    FAIL() << "a LibTorch archive was read";
  } catch (const zf::error& e) {
    EXPECT_NE(std::string(e.what()).find("old.pt cannot be read as a zeroflow MLP autoencoder: it is a LibTorch "
                                         "archive (from earlier builds of zeroflow), which this one no longer reads"),
              std::string::npos)
        << e.what();
  }
  // A changed weight is caught by the checksum.
  std::string changed = bytes;
  changed[changed.size() - 3] = static_cast<char>(changed[changed.size() - 3] ^ 0x01);
  try {
    (void)zm::mlp_autoencoder::from_bytes(changed, zf::cpu_device, "the pickled model");
    FAIL() << "changed bytes were accepted";
  } catch (const zf::error& e) {
    EXPECT_NE(std::string(e.what()).find("checksum"), std::string::npos) << e.what();
  }
}

TEST(MlpAutoencoder, Refusals) {
  auto model = zm::mlp_autoencoder::create({});
  std::vector<float> values = scaled_series(10, 1);
  values[4] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_THROW((void)model.train(host_array(values, {10, 1})), zf::invalid_argument);
  EXPECT_THROW((void)model.score(host_array(values, {10, 1})), zf::invalid_argument);
  EXPECT_THROW((void)model.score(host_array(scaled_series(10, 1), {5, 2})), zf::invalid_argument);
  zm::mlp_train_options o;
  o.learning_rate = 0;
  EXPECT_THROW((void)model.train(host_array(scaled_series(10, 1), {10, 1}), o), zf::invalid_argument);
  EXPECT_THROW((void)zm::mlp_autoencoder::create({0, 32, 32}), zf::invalid_argument);
  EXPECT_THROW((void)model.train(host_array({}, {0, 1})), zf::invalid_argument);
}

TEST(MlpAutoencoderCuda, MatchesTheCpu) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device for LibTorch";
  const std::int64_t n = 5000;
  const auto series = scaled_series(n, 4);
  const zf::array host = host_array(series, {n, 1});
  const zf::array dev = zf::copy_to(host, zf::cuda_device(0));
  auto cpu = zm::mlp_autoencoder::create({}, zf::cpu_device, 11);
  auto gpu = zm::mlp_autoencoder::create({}, zf::cuda_device(0), 11);
  zm::mlp_train_options o;
  o.epochs = 30;
  const auto a = cpu.train(host, o);
  const auto b = gpu.train(dev, o);  // the same Adam; the steps' sums in another order
  for (std::size_t e = 0; e < a.epoch_loss.size(); ++e)
    EXPECT_NEAR(a.epoch_loss[e], b.epoch_loss[e], 1e-4 * a.epoch_loss[e] + 1e-7) << e;
  const zf::array score = gpu.score(dev);
  EXPECT_EQ(score.where(), zf::cuda_device(0));
  const auto sa = values_of(cpu.score(host)), sb = values_of(score);
  // 30 epochs of training with the GPU's rounding move single rows' errors by up to ~1 % (the epoch
  // losses above agree to 1e-4): rows are compared within 2 %.
  for (std::size_t i = 0; i < sa.size(); ++i) ASSERT_NEAR(sa[i], sb[i], 2e-2 * sa[i] + 1e-6) << i;
  // a model trained on the GPU scores host rows too (copied to it), and round-trips to the CPU
  const auto moved = zm::mlp_autoencoder::from_bytes(gpu.to_bytes(), zf::cpu_device);
  const auto sc = values_of(moved.score(host));
  for (std::size_t i = 0; i < sa.size(); ++i) ASSERT_NEAR(sc[i], sb[i], 1e-5 * sb[i] + 1e-7) << i;
}

// The GPU engine's fused step against the notebook's loop in LibTorch on the same GPU (cuBLAS,
// autograd, torch::optim::Adam): the seed's widths on rows that fill no whole number of blocks, and
// wider rows of other shapes.
TEST(MlpAutoencoderCuda, FusedStepTrainsAsLibTorchsSteps) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device for LibTorch";
  struct trial {
    zm::mlp_shape shape;
    std::int64_t n;
  };
  // The seed's widths take 128 rows a block and the parameters in shared memory; a 256-sample beat
  // row (the pipeline's --model mlp) 32 rows a block and the parameters read from global memory.
  for (const trial t : {trial{{}, 3001}, trial{{3, 16, 8}, 700}, trial{{256, 32, 32}, 1500}}) {
    SCOPED_TRACE(testing::Message() << "features " << t.shape.features << ", rows " << t.n);
    const std::int64_t values = t.n * t.shape.features;
    std::vector<float> series = scaled_series(values, 9);
    const zf::array dev = zf::copy_to(host_array(series, {t.n, t.shape.features}), zf::cuda_device(0));
    zm::mlp_train_options o;
    o.epochs = 20;
    o.weight_decay = 1e-3;  // large enough to show in the weights if Adam ignored it
    std::vector<double> watched;
    o.on_epoch = [&](int, double loss) { watched.push_back(loss); };
    auto fused = zm::mlp_autoencoder::create(t.shape, zf::cuda_device(0), 5);
    const auto a = fused.train(dev, o);
    std::shared_ptr<reference_net> trained;
    const torch::Tensor x =
        torch::from_blob(series.data(), {t.n, t.shape.features}).clone().to(torch::Device(torch::kCUDA, 0));
    const auto b = reference_losses(x, 5, 20, &trained, t.shape, o.weight_decay);
    ASSERT_EQ(a.epoch_loss.size(), 20U);
    EXPECT_EQ(a.path, zm::training_path::fused_kernels);
    EXPECT_EQ(watched, a.epoch_loss);
    // Epoch 0's loss is the untrained model's: only the summation order differs from cuBLAS's.
    EXPECT_NEAR(a.epoch_loss[0], b[0], 1e-6 * b[0]);
    // Later epochs carry the gradients' rounding, and the Adam kernels' (ours and LibTorch's are not
    // bit-identical), through the steps: close for the first ten; where the loss then falls
    // twentyfold in five epochs, relative differences grow to ~1 %.
    for (std::size_t e = 1; e < a.epoch_loss.size(); ++e)
      EXPECT_NEAR(a.epoch_loss[e], b[e], (e < 10 ? 1e-4 : 3e-2) * b[e]) << "epoch " << e;
    EXPECT_LT(a.epoch_loss.back(), a.epoch_loss.front());
    torch::NoGradGuard no_grad;
    const torch::Tensor want = (trained->forward(x) - x).pow(2).mean(1).cpu();
    const auto sa = values_of(fused.score(dev));
    for (std::size_t i = 0; i < sa.size(); ++i)
      ASSERT_NEAR(sa[i], want[static_cast<std::int64_t>(i)].item<float>(),
                  5e-2 * want[static_cast<std::int64_t>(i)].item<float>() + 1e-6)
          << i;
  }
}

// Both engines start from LibTorch's initialisation for the seed, bit for bit; a GPU model wider
// than the fused step's shared memory takes is refused, saying what would work.
TEST(MlpAutoencoderCuda, GpuEngineStartsWhereTheCpuEngineStarts) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device for LibTorch";
  for (const zm::mlp_shape shape : {zm::mlp_shape{}, zm::mlp_shape{40, 24, 8}}) {
    const auto cpu = zm::mlp_autoencoder::create(shape, zf::cpu_device, 17);
    const auto gpu = zm::mlp_autoencoder::create(shape, zf::cuda_device(0), 17);
    EXPECT_EQ(gpu.where(), zf::cuda_device(0));
    EXPECT_EQ(gpu.parameter_count(), cpu.parameter_count());
    const auto a = cpu.weights(), b = gpu.weights();
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].name, b[i].name);
      EXPECT_EQ(a[i].shape, b[i].shape);
      EXPECT_EQ(a[i].bytes, b[i].bytes) << a[i].name;  // bit for bit
    }
    // The bytes are the same whichever engine wrote them, and read on the other device.
    EXPECT_EQ(cpu.to_bytes(), gpu.to_bytes());
  }
  try {
    (void)zm::mlp_autoencoder::create({1024, 64, 64}, zf::cuda_device(0));
    FAIL() << "a 1024-feature model was made on the GPU";
  } catch (const zf::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not 1024, 64 and 64: train a wider model on the CPU"), std::string::npos)
        << e.what();
  }
}

// A batched training on the GPU visits the rows in the CPU engine's order (epoch_order) and takes
// the same steps: the losses agree to float rounding, the trained models score alike, and a
// full-batch training continues from the batched one's weights.
TEST(MlpAutoencoderCuda, BatchedTrainingTakesTheCpuEnginesSteps) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device for LibTorch";
  const std::int64_t n = 2000;
  const zf::array host = host_array(scaled_series(2 * n, 6), {n, 2});
  const zf::array dev = zf::copy_to(host, zf::cuda_device(0));
  const zm::mlp_shape shape{2, 16, 8};
  auto gpu = zm::mlp_autoencoder::create(shape, zf::cuda_device(0), 8);
  auto cpu = zm::mlp_autoencoder::create(shape, zf::cpu_device, 8);
  zm::mlp_train_options o;
  o.epochs = 4;
  o.batch = 256;  // 7 full batches and one of 208 rows
  std::vector<double> watched;
  o.on_epoch = [&](int, double loss) { watched.push_back(loss); };
  const auto a = gpu.train(dev, o);
  o.on_epoch = nullptr;
  const auto b = cpu.train(host, o);
  ASSERT_EQ(a.epoch_loss.size(), 4U);
  EXPECT_EQ(watched, a.epoch_loss);
  for (std::size_t e = 0; e < a.epoch_loss.size(); ++e)
    EXPECT_NEAR(a.epoch_loss[e], b.epoch_loss[e], 1e-4 * b.epoch_loss[e]) << "epoch " << e;
  EXPECT_LT(a.epoch_loss.back(), a.epoch_loss.front());
  EXPECT_EQ(gpu.where(), zf::cuda_device(0));
  const auto sa = values_of(gpu.score(dev)), sb = values_of(cpu.score(host));
  for (std::size_t i = 0; i < sa.size(); ++i) ASSERT_NEAR(sa[i], sb[i], 2e-2 * sb[i] + 1e-6) << i;
  // Full batches again: the fused step continues from the batched training's weights.
  o.batch = 0;
  const auto full = gpu.train(dev, o);
  EXPECT_LT(full.epoch_loss.front(), a.epoch_loss.front());
}

TEST(MlpAutoencoderCuda, RefusesWhatTheCpuRefuses) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device for LibTorch";
  auto gpu = zm::mlp_autoencoder::create({}, zf::cuda_device(0));
  auto cpu = zm::mlp_autoencoder::create({});
  std::vector<float> values = scaled_series(10, 1);
  values[4] = std::numeric_limits<float>::quiet_NaN();
  const auto message = [](auto&& call) {
    try {
      call();
    } catch (const zf::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const zf::array bad = host_array(values, {10, 1});
  const zf::array bad_on_gpu = zf::copy_to(bad, zf::cuda_device(0));
  EXPECT_EQ(message([&] { (void)gpu.train(bad_on_gpu); }), message([&] { (void)cpu.train(bad); }));
  EXPECT_EQ(message([&] { (void)gpu.score(bad); }), message([&] { (void)cpu.score(bad); }));
  const zf::array wide = host_array(scaled_series(10, 1), {5, 2});
  EXPECT_EQ(message([&] { (void)gpu.score(wide); }), message([&] { (void)cpu.score(wide); }));
  EXPECT_NE(message([&] { (void)gpu.score(wide); }), "accepted");
}
