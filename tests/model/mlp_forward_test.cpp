// The MLP autoencoder's own forward pass (src/model/mlp_forward*) used by score() and
// reconstruct(): against the forward pass written with LibTorch's double ops from the weights
// read back out of the model's bytes (the computation it replaces), to one unit in the last
// place of float; host and GPU equal bit for bit; a row's result does not depend on the rows
// scored with it; its exp against the C library's. GPU cases skip without a GPU.
#include <gtest/gtest.h>
#include <torch/cuda.h>
#include <torch/torch.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/mlp_forward_row.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/model/mlp_autoencoder.hpp"

namespace zf = zeroflow;
namespace zm = zeroflow::model;

namespace {

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

/// Rows in [0, 1] as min-max scaled data, with a few values outside it (the sigmoid's tails).
std::vector<float> random_rows(std::int64_t n, std::int64_t width, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(0.0F, 1.0F);
  std::vector<float> x(static_cast<std::size_t>(n * width));
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double phase = static_cast<double>(i % static_cast<std::size_t>(width)) / static_cast<double>(width);
    x[i] = static_cast<float>(0.5 + 0.3 * std::sin(6.283 * phase) + 0.2 * (u(rng) - 0.5));
  }
  for (std::size_t i = 7; i < x.size(); i += 997) x[i] = 4.0F * u(rng) - 1.5F;
  return x;
}

zf::shape_t rows_shape(std::int64_t n, std::int64_t width) {
  return width == 1 ? zf::shape_t{n} : zf::shape_t{n, width};
}

/// A model of `shape` trained a few epochs on the rows, so that its weights are not the initial draw.
zm::mlp_autoencoder trained_model(const zm::mlp_shape& shape, const zf::array& rows, std::uint64_t seed) {
  auto model = zm::mlp_autoencoder::create(shape, zf::cpu_device, seed);
  zm::mlp_train_options o;
  o.epochs = 8;
  o.batch = 256;
  (void)model.train(rows, o);
  return model;
}

/// The forward pass as score() computed it before: LibTorch double ops on the widened weights.
struct reference {
  torch::Tensor recon;  // float, N × F
  torch::Tensor score;  // float, N
};

reference reference_forward(const zm::mlp_autoencoder& model, const std::vector<float>& x, std::int64_t width) {
  const std::vector<zeroflow::io::safetensor> weights = model.weights();
  const auto param = [&](const std::string& key) {
    const auto it = std::find_if(weights.begin(), weights.end(), [&](const auto& t) { return t.name == key; });
    if (it == weights.end()) throw std::runtime_error("no weights " + key);
    std::vector<float> values(it->bytes.size() / sizeof(float));
    std::memcpy(values.data(), it->bytes.data(), it->bytes.size());
    return torch::tensor(values, torch::kFloat).reshape(it->shape).to(torch::kDouble);
  };
  const auto layer = [&](const std::string& name, const torch::Tensor& h) {
    return torch::addmm(param(name + ".bias"), h, param(name + ".weight").t());
  };
  const auto n = static_cast<std::int64_t>(x.size()) / width;
  const torch::Tensor xd = torch::tensor(x, torch::kFloat).reshape({n, width}).to(torch::kDouble);
  torch::Tensor h = torch::relu(layer("first_layer_encoder", xd));
  h = torch::relu(layer("second_layer_encoder", h));
  h = torch::relu(layer("first_layer_decoder", h));
  const torch::Tensor y = torch::sigmoid(layer("second_layer_decoder", h));
  return {y.to(torch::kFloat).contiguous(), torch::mean(torch::square(y - xd), 1).to(torch::kFloat).contiguous()};
}

/// Units in the last place between two finite non-negative floats.
std::int64_t float_ulps(float a, float b) {
  return std::abs(static_cast<std::int64_t>(std::bit_cast<std::uint32_t>(a)) -
                  static_cast<std::int64_t>(std::bit_cast<std::uint32_t>(b)));
}

std::int64_t double_ulps(double a, double b) {
  return std::abs(static_cast<std::int64_t>(std::bit_cast<std::uint64_t>(a)) -
                  static_cast<std::int64_t>(std::bit_cast<std::uint64_t>(b)));
}

void expect_within_one_ulp(const std::vector<float>& got, const torch::Tensor& want, const char* what) {
  ASSERT_EQ(static_cast<std::int64_t>(got.size()), want.numel()) << what;
  const float* w = want.data_ptr<float>();
  std::int64_t worst = 0, exact = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_TRUE(std::isfinite(got[i]) && got[i] >= 0.0F) << what << " " << i << ": " << got[i];
    const std::int64_t d = float_ulps(got[i], w[i]);
    worst = std::max(worst, d);
    exact += d == 0 ? 1 : 0;
    ASSERT_LE(d, 1) << what << " " << i << ": " << got[i] << " against " << w[i];
  }
  // Nearly every value rounds to the same float; a 1-ulp difference is a rare tie of rounding.
  EXPECT_GT(exact, static_cast<std::int64_t>(got.size()) * 9 / 10) << what;
}

struct params {
  zm::mlp_shape shape;
  std::int64_t rows;
};

class MlpForward : public testing::TestWithParam<params> {};

TEST_P(MlpForward, HostMatchesLibTorchDoubleToOneUlp) {
  const auto [shape, n] = GetParam();
  const std::vector<float> x = random_rows(n, shape.features, 3);
  const zf::array rows = host_array(x, rows_shape(n, shape.features));
  const auto model = trained_model(shape, rows, 5);
  const reference want = reference_forward(model, x, shape.features);
  expect_within_one_ulp(values_of(model.score(rows)), want.score, "score of row");
  expect_within_one_ulp(values_of(model.reconstruct(rows)), want.recon.reshape({-1}), "reconstruction value");
}

TEST_P(MlpForward, HostRowDoesNotDependOnTheRowsBesideIt) {
  const auto [shape, n] = GetParam();
  const std::int64_t f = shape.features;
  const std::vector<float> x = random_rows(n, f, 8);
  const auto model = trained_model(shape, host_array(x, rows_shape(n, f)), 9);
  const std::vector<float> all = values_of(model.score(host_array(x, rows_shape(n, f))));
  for (const auto& [begin, count] : {std::pair<std::int64_t, std::int64_t>{0, 1}, {n - 1, 1}, {13, 3}, {5, n - 40}}) {
    const std::vector<float> part(x.begin() + begin * f, x.begin() + (begin + count) * f);
    const std::vector<float> got = values_of(model.score(host_array(part, rows_shape(count, f))));
    for (std::int64_t i = 0; i < count; ++i)
      ASSERT_EQ(std::bit_cast<std::uint32_t>(got[static_cast<std::size_t>(i)]),
                std::bit_cast<std::uint32_t>(all[static_cast<std::size_t>(begin + i)]))
          << "row " << begin + i << " scored among " << count << " rows";
  }
}

TEST_P(MlpForward, GpuEqualsHostBitForBit) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device for LibTorch";
  const auto [shape, n] = GetParam();
  const std::int64_t f = shape.features;
  const std::vector<float> x = random_rows(n, f, 21);
  const zf::array rows = host_array(x, rows_shape(n, f));
  const auto cpu = trained_model(shape, rows, 22);
  const auto gpu = zm::mlp_autoencoder::from_bytes(cpu.to_bytes(), zf::cuda_device(0));
  const zf::array dev_rows = zf::copy_to(rows, zf::cuda_device(0));

  const zf::array dev_score = gpu.score(dev_rows);
  EXPECT_EQ(dev_score.where(), zf::cuda_device(0));
  const std::vector<float> want = values_of(cpu.score(rows));
  const std::vector<float> got = values_of(dev_score);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(std::bit_cast<std::uint32_t>(got[i]), std::bit_cast<std::uint32_t>(want[i]))
        << "row " << i << ": GPU " << got[i] << ", host " << want[i];

  const std::vector<float> want_recon = values_of(cpu.reconstruct(rows));
  const std::vector<float> got_recon = values_of(gpu.reconstruct(dev_rows));
  ASSERT_EQ(got_recon.size(), want_recon.size());
  for (std::size_t i = 0; i < got_recon.size(); ++i)
    ASSERT_EQ(std::bit_cast<std::uint32_t>(got_recon[i]), std::bit_cast<std::uint32_t>(want_recon[i]))
        << "value " << i << ": GPU " << got_recon[i] << ", host " << want_recon[i];

  // Host rows on a GPU model come back on the host, with the same bits.
  const std::vector<float> mixed = values_of(gpu.score(rows));
  for (std::size_t i = 0; i < mixed.size(); ++i)
    ASSERT_EQ(std::bit_cast<std::uint32_t>(mixed[i]), std::bit_cast<std::uint32_t>(want[i])) << "row " << i;
}

TEST_P(MlpForward, GpuRowDoesNotDependOnTheRowsBesideIt) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device for LibTorch";
  const auto [shape, n] = GetParam();
  const std::int64_t f = shape.features;
  const std::vector<float> x = random_rows(n, f, 31);
  const auto cpu = trained_model(shape, host_array(x, rows_shape(n, f)), 32);
  const auto gpu = zm::mlp_autoencoder::from_bytes(cpu.to_bytes(), zf::cuda_device(0));
  const auto score_on_gpu = [&](const std::vector<float>& v, std::int64_t count) {
    return values_of(gpu.score(zf::copy_to(host_array(v, rows_shape(count, f)), zf::cuda_device(0))));
  };
  const std::vector<float> all = score_on_gpu(x, n);
  for (const auto& [begin, count] : {std::pair<std::int64_t, std::int64_t>{0, 1}, {n - 1, 1}, {13, 3}, {5, n - 40}}) {
    const std::vector<float> part(x.begin() + begin * f, x.begin() + (begin + count) * f);
    const std::vector<float> got = score_on_gpu(part, count);
    for (std::int64_t i = 0; i < count; ++i)
      ASSERT_EQ(std::bit_cast<std::uint32_t>(got[static_cast<std::size_t>(i)]),
                std::bit_cast<std::uint32_t>(all[static_cast<std::size_t>(begin + i)]))
          << "row " << begin + i << " scored among " << count << " rows";
  }
}

// W = 1: the seed-004 time series; W = 200: ECG beats; odd widths: units beyond one warp's 32
// and a row narrower than a warp.
INSTANTIATE_TEST_SUITE_P(Shapes, MlpForward,
                         testing::Values(params{{1, 32, 32}, 3000}, params{{200, 32, 32}, 400},
                                         params{{3, 40, 7}, 500}),
                         [](const testing::TestParamInfo<params>& p) {
                           std::ostringstream name;
                           name << 'W' << p.param.shape.features << "_H" << p.param.shape.hidden << "_C"
                                << p.param.shape.code;
                           return name.str();
                         });

TEST(MlpForwardExp, WithinOneUlpOfTheCLibrary) {
  namespace row = zm::detail::mlp_row;
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<double> u(-740.0, 709.0);
  std::uniform_real_distribution<double> small(-40.0, 40.0);
  for (int i = 0; i < 200000; ++i) {
    const double t = i % 2 == 0 ? u(rng) : small(rng);
    const double want = std::exp(t);
    if (want < std::numeric_limits<double>::min()) continue;  // subnormal results: checked below
    ASSERT_LE(double_ulps(row::exp_of(t), want), 1) << "exp(" << t << ")";
  }
  EXPECT_EQ(row::exp_of(0.0), 1.0);
  EXPECT_EQ(row::exp_of(710.0), std::numeric_limits<double>::infinity());
  EXPECT_EQ(row::exp_of(-746.0), 0.0);
  EXPECT_NEAR(row::exp_of(-740.0), std::exp(-740.0), 1e-323);
  EXPECT_TRUE(std::isnan(row::exp_of(std::numeric_limits<double>::quiet_NaN())));
  EXPECT_EQ(row::sigmoid(-800.0), 0.0);
  EXPECT_EQ(row::sigmoid(800.0), 1.0);
  EXPECT_EQ(row::sigmoid(0.0), 0.5);
}

}  // namespace
