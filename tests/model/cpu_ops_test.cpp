// The hand-written CPU convolutions against LibTorch's own conv1d: values and all gradients.
#include "model/torch/cpu_ops.hpp"

#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <torch/utils.h>

#include <tuple>

using zeroflow::model::detail::conv1d_k3;
using zeroflow::model::detail::downsample3;

namespace {

void expect_close(const torch::Tensor& got, const torch::Tensor& want, const char* what) {
  ASSERT_TRUE(got.defined()) << what;
  ASSERT_EQ(got.sizes(), want.sizes()) << what;
  const double scale = 1.0 + want.abs().max().item<double>();
  EXPECT_LT((got - want).abs().max().item<double>(), 1e-5 * scale) << what;
}

}  // namespace

class CpuConv : public ::testing::TestWithParam<std::tuple<int, int, int>> {};

TEST_P(CpuConv, MatchesLibTorchValuesAndGradients) {
  const auto [c, o, len] = GetParam();
  torch::manual_seed(c * 100 + o * 10 + len);
  const torch::Tensor x0 = torch::randn({37, c, len});  // 37 rows: more than one gradient chunk
  const torch::Tensor w0 = torch::randn({o, c, 3});
  const torch::Tensor b0 = torch::randn({o});
  const torch::Tensor up = torch::randn({37, o, len});  // upstream gradient
  auto run = [&](bool ours) {
    torch::Tensor x = x0.clone().requires_grad_(true);
    torch::Tensor w = w0.clone().requires_grad_(true);
    torch::Tensor b = b0.clone().requires_grad_(true);
    torch::Tensor y = ours ? conv1d_k3(x, w, b) : torch::conv1d(x, w, b, 1, 1);
    (y * up).sum().backward();
    return std::make_tuple(y.detach(), x.grad(), w.grad(), b.grad());
  };
  const auto [y, gx, gw, gb] = run(true);
  const auto [ry, rgx, rgw, rgb] = run(false);
  expect_close(y, ry, "y");
  expect_close(gx, rgx, "dL/dx");
  expect_close(gw, rgw, "dL/dw");
  expect_close(gb, rgb, "dL/db");
}

INSTANTIATE_TEST_SUITE_P(Shapes, CpuConv,
                         ::testing::Values(std::make_tuple(1, 4, 256), std::make_tuple(4, 8, 128),
                                           std::make_tuple(8, 16, 64), std::make_tuple(16, 2, 32),
                                           std::make_tuple(8, 4, 33), std::make_tuple(2, 1, 3),
                                           std::make_tuple(3, 2, 2), std::make_tuple(2, 3, 1)));

TEST(CpuConvOps, NonContiguousInputAndNoInputGradient) {
  torch::manual_seed(5);
  const torch::Tensor base = torch::randn({6, 16, 3});
  const torch::Tensor x = base.transpose(1, 2);  // (6, 3, 16), not contiguous
  ASSERT_FALSE(x.is_contiguous());
  const torch::Tensor w = torch::randn({4, 3, 3}, torch::requires_grad());
  const torch::Tensor b = torch::randn({4}, torch::requires_grad());
  const torch::Tensor y = conv1d_k3(x, w, b);
  expect_close(y, torch::conv1d(x, w, b, 1, 1).detach(), "y");
  y.sum().backward();  // x needs no gradient: only w and b get one
  const torch::Tensor w2 = w.detach().clone().requires_grad_(true);
  torch::conv1d(x, w2, b.detach(), 1, 1).sum().backward();
  expect_close(w.grad(), w2.grad(), "dL/dw");
}

TEST(CpuConvOps, WeightGradientDoesNotDependOnTheThreadCount) {
  torch::manual_seed(8);
  const torch::Tensor x0 = torch::randn({300, 4, 64});
  const torch::Tensor w0 = torch::randn({8, 4, 3});
  const torch::Tensor b0 = torch::randn({8});
  auto grad_with = [&](int threads) {
    const int before = at::get_num_threads();
    at::set_num_threads(threads);
    torch::Tensor w = w0.clone().requires_grad_(true);
    conv1d_k3(x0, w, b0).square().sum().backward();
    at::set_num_threads(before);
    return w.grad();
  };
  EXPECT_TRUE(torch::equal(grad_with(1), grad_with(2)));
}

TEST(CpuDownsample, MatchesTheDepthwiseConvolution) {
  const torch::Tensor filter = torch::tensor({1.0F, 2.0F, 1.0F});
  for (const std::int64_t len : {1, 2, 3, 8, 9, 256}) {
    torch::manual_seed(len);
    const torch::Tensor x0 = torch::randn({5, 3, len});
    const std::int64_t out = (len - 1) / 2 + 1;
    const torch::Tensor up = torch::randn({5, 3, out});
    torch::Tensor x = x0.clone().requires_grad_(true);
    const torch::Tensor y = downsample3(x, filter);
    (y * up).sum().backward();
    torch::Tensor xr = x0.clone().requires_grad_(true);
    const torch::Tensor weight = filter.view({1, 1, 3}).expand({3, 1, 3}).contiguous();
    const torch::Tensor yr = torch::conv1d(xr, weight, {}, 2, 1, 1, 3);
    (yr * up).sum().backward();
    expect_close(y.detach(), yr.detach(), "y");
    expect_close(x.grad(), xr.grad(), "dL/dx");
  }
}

TEST(CpuDownsample, OtherDevicesAndDtypesUseLibTorch) {
  const torch::Tensor x = torch::randn({2, 2, 8}, torch::kDouble);
  const torch::Tensor w = torch::randn({3, 2, 3}, torch::kDouble);
  EXPECT_FALSE(zeroflow::model::detail::uses_cpu_kernels(x, w));
  EXPECT_TRUE(zeroflow::model::detail::uses_cpu_kernels(x.to(torch::kFloat), w.to(torch::kFloat)));
  // A double conv still works (through torch::conv1d).
  expect_close(conv1d_k3(x, w, torch::zeros({3}, torch::kDouble)), torch::conv1d(x, w, {}, 1, 1), "double");
}
