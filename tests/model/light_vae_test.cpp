// The tests' oracle, the LibTorch LightVAE module (torch_oracle/light_vae.hpp), against the seed's Python
// class: topology, parameter count, the fixed downsample filter, the loss, and outputs of the
// Python model itself for one seed. zeroflow's kernels are checked against this module.
#include "torch_oracle/light_vae.hpp"

#include <gtest/gtest.h>
#include <torch/utils.h>

#include <cmath>
#include <string>
#include <vector>

#include "zeroflow/core/error.hpp"

namespace zf = zeroflow;
using zf::model::detail::light_vae;

namespace {

// Rows of the reference computation: x[k][t] = sin(0.1·(t+1)·(k+1)), k < 4, t < 64.
torch::Tensor reference_rows() {
  const torch::Tensor t = torch::arange(64, torch::kFloat);
  std::vector<torch::Tensor> rows;
  for (int k = 0; k < 4; ++k) rows.push_back(torch::sin(0.1 * (t + 1) * (k + 1)));
  return torch::stack(rows);
}

}  // namespace

class LightVaeShapes : public ::testing::TestWithParam<std::int64_t> {};

TEST_P(LightVaeShapes, EncodeDecodeForward) {
  const std::int64_t width = GetParam();
  torch::manual_seed(3);
  light_vae net(width);
  const torch::Tensor x = torch::randn({5, width});
  const auto e = net->encode(x);
  EXPECT_EQ(e.mu.sizes(), (std::vector<std::int64_t>{5, 2}));
  EXPECT_EQ(e.logvar.sizes(), (std::vector<std::int64_t>{5, 2}));
  EXPECT_EQ(net->decode(e.mu).sizes(), (std::vector<std::int64_t>{5, width}));
  const auto out = net->forward(x);
  EXPECT_EQ(out.recon.sizes(), (std::vector<std::int64_t>{5, width}));
  EXPECT_TRUE(out.recon.isfinite().all().item<bool>());
  // A batch of one row still works (the seed views x as (-1, 1, W)).
  EXPECT_EQ(net->forward(x[0]).recon.sizes(), (std::vector<std::int64_t>{1, width}));
}

INSTANTIATE_TEST_SUITE_P(Widths, LightVaeShapes, ::testing::Values(64, 256));

TEST(LightVae, ParameterCountMatchesTheSeed) {
  for (const std::int64_t w : {64, 256}) {
    light_vae net(w);
    const std::int64_t by_hand = (1 * 4 * 3 + 4)      // conv0
                                 + (4 * 8 * 3 + 8)    // conv1
                                 + (8 * 16 * 3 + 16)  // conv2
                                 + (16 * 2 * 3 + 2)   // convA (μ)
                                 + (16 * 2 * 3 + 2)   // convB (log σ²)
                                 + (2 * w + w)        // restore: Linear 2 → 16·W/16
                                 + (8 * 4 * 3 + 4)    // conv3
                                 + (4 * 2 * 3 + 2)    // conv4
                                 + (2 * 1 * 3 + 1)    // conv5
                                 + 1;                 // the one Swish α
    EXPECT_EQ(zf::model::detail::count_parameters(*net), by_hand) << "W = " << w;
    EXPECT_EQ(by_hand, 850 + 3 * w);
  }
}

TEST(LightVae, ExactlyOneSharedSwishAlpha) {
  light_vae net(64);
  int alphas = 0;
  for (const auto& item : net->named_parameters()) {
    if (item.key().find("alpha") != std::string::npos) {
      ++alphas;
      EXPECT_EQ(item.key(), "sigma.alpha");
      EXPECT_EQ(item.value().numel(), 1);
      EXPECT_FLOAT_EQ(item.value().item<float>(), 1.0F);
    }
  }
  EXPECT_EQ(alphas, 1);
  // α gets gradient from every Swish use: changing it changes both encoder and decoder.
  const torch::Tensor x = torch::randn({3, 64});
  const torch::Tensor before_mu = net->encode(x).mu.detach().clone();
  const torch::Tensor z = torch::randn({3, 2});
  const torch::Tensor before_dec = net->decode(z).detach().clone();
  {
    torch::NoGradGuard g;
    net->named_parameters()["sigma.alpha"].fill_(2.0);
  }
  EXPECT_FALSE(torch::equal(net->encode(x).mu, before_mu));
  EXPECT_FALSE(torch::equal(net->decode(z), before_dec));
}

TEST(LightVae, DownsampleFilterIsABufferNotAParameter) {
  light_vae net(64);
  for (const auto& item : net->named_parameters())
    EXPECT_EQ(item.key().find("filter"), std::string::npos) << item.key();
  const auto buffers = net->named_buffers();
  ASSERT_EQ(buffers.size(), 1U);
  ASSERT_TRUE(buffers.contains("down.filter"));
  const torch::Tensor f = buffers["down.filter"];
  EXPECT_EQ(f.sizes(), (std::vector<std::int64_t>{1, 1, 3}));
  EXPECT_FALSE(f.requires_grad());
  EXPECT_TRUE(torch::equal(f.flatten(), torch::tensor({1.0F, 2.0F, 1.0F})));
  // It moves (and converts) with the module.
  net->to(torch::kDouble);
  EXPECT_EQ(net->named_buffers()["down.filter"].scalar_type(), torch::kDouble);
}

TEST(LightVae, DownsampleIsTheFixedDepthwiseFilter) {
  zf::model::detail::downsample1d down;
  // Two channels of length 8; out[c][i] = x[2i-1] + 2·x[2i] + x[2i+1], zero outside.
  const torch::Tensor x = torch::arange(16, torch::kFloat).view({1, 2, 8}).square();
  const torch::Tensor y = down(x);
  ASSERT_EQ(y.sizes(), (std::vector<std::int64_t>{1, 2, 4}));
  const auto xa = x.accessor<float, 3>();
  const auto ya = y.accessor<float, 3>();
  for (int c = 0; c < 2; ++c)
    for (int i = 0; i < 4; ++i) {
      const auto at = [&](int t) { return t < 0 || t >= 8 ? 0.0F : xa[0][c][t]; };
      EXPECT_FLOAT_EQ(ya[0][c][i], at(2 * i - 1) + 2 * at(2 * i) + at(2 * i + 1)) << c << "," << i;
    }
}

TEST(LightVae, RejectsWidthsThatAreNotPowersOfTwo) {
  EXPECT_THROW(light_vae(48), zf::invalid_argument);
  EXPECT_THROW(light_vae(8), zf::invalid_argument);
  EXPECT_THROW(light_vae(0), zf::invalid_argument);
  EXPECT_NO_THROW(light_vae(16));
}

TEST(LightVae, LossMatchesAHandComputation) {
  torch::manual_seed(11);
  const std::int64_t n = 3;
  const std::int64_t w = 16;
  const torch::Tensor recon = torch::randn({n, w});
  const torch::Tensor x = torch::randn({n, w});
  const torch::Tensor mu = torch::randn({n, 2});
  const torch::Tensor logvar = torch::randn({n, 2});
  double mse = 0.0;
  double kld = 0.0;
  for (std::int64_t i = 0; i < n; ++i) {
    double row = 0.0;
    for (std::int64_t t = 0; t < w; ++t) {
      const double d = recon[i][t].item<double>() - x[i][t].item<double>();
      row += d * d;
    }
    mse += row / static_cast<double>(w);
    double k = 0.0;
    for (std::int64_t d = 0; d < 2; ++d) {
      const double m = mu[i][d].item<double>();
      const double lv = logvar[i][d].item<double>();
      k += 1.0 + lv - m * m - std::exp(lv);
    }
    kld += k / 2.0;
  }
  const double expected = mse - 0.1 * kld;
  const double got = zf::model::detail::vae_loss(recon, x, mu, logvar).item<double>();
  EXPECT_NEAR(got, expected, 1e-5 * std::abs(expected));
}

// Values printed by the seed's own Python LightVAE (bench/seed_pipeline.py, torch 2.11, CPU):
//   torch.manual_seed(7); m = LightVAE(64); x = reference_rows(); mu, lv = m.encode(x);
//   d = m.decode(mu); loss_function(d, x, mu, lv)
// Same creation order and default initialisers, so the initial weights must agree exactly and the
// outputs up to float rounding.
TEST(LightVae, MatchesTheSeedsPythonModel) {
  torch::manual_seed(7);
  light_vae net(64);
  const auto params = net->named_parameters();
  const std::vector<float> conv0_w{0.04032507538795471F, -0.3477921187877655F, 0.18384182453155518F,
                                   0.1811612844467163F};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(params["conv0.weight"].flatten()[i].item<float>(), conv0_w[i]) << i;
  EXPECT_EQ(params["restore.bias"][0].item<float>(), -0.29490241408348083F);
  EXPECT_EQ(params["restore.bias"][2].item<float>(), 0.15010793507099152F);
  EXPECT_EQ(params["conv5.bias"][0].item<float>(), -0.05943018198013306F);

  torch::NoGradGuard no_grad;
  const torch::Tensor x = reference_rows();
  const auto e = net->encode(x);
  const torch::Tensor d = net->decode(e.mu);
  const std::vector<double> mu{0.71112459897995,   -0.2534776031970978,  0.5675934553146362, -0.16805793344974518,
                               0.5248003005981445, -0.06272747367620468, 0.5521103739738464, -0.030903350561857224};
  const std::vector<double> logvar{-1.0842796564102173, 0.3683743178844452,  -0.8966315388679504,
                                   0.09722880274057388, -0.7049816250801086, -0.08083438873291016,
                                   -0.5876461267471313, -0.11821383237838745};
  const std::vector<double> dec{-0.1332264244556427,  -0.18005430698394775, -0.20255181193351746, -0.12906289100646973,
                                -0.13344895839691162, -0.18198662996292114, -0.19592945277690887, -0.13185159862041473,
                                -0.13229012489318848, -0.18388164043426514, -0.19239534437656403, -0.13313256204128265,
                                -0.13150665163993835, -0.1843307763338089,  -0.19286927580833435, -0.1329110562801361};
  for (int i = 0; i < 8; ++i) {
    EXPECT_NEAR(e.mu.flatten()[i].item<double>(), mu[static_cast<std::size_t>(i)], 1e-5) << i;
    EXPECT_NEAR(e.logvar.flatten()[i].item<double>(), logvar[static_cast<std::size_t>(i)], 1e-5) << i;
  }
  const std::vector<std::int64_t> cols{0, 1, 17, 63};
  for (std::size_t r = 0; r < 4; ++r)
    for (std::size_t c = 0; c < 4; ++c)
      EXPECT_NEAR(d[static_cast<std::int64_t>(r)][cols[c]].item<double>(), dec[r * 4 + c], 1e-5) << r << "," << c;
  EXPECT_NEAR(zf::model::detail::vae_loss(d, x, e.mu, e.logvar).item<double>(), 2.21665096282959, 1e-5);
}
