// The fused swish and loss kernels (cuda_ops.hpp) against LibTorch's composite ops, values and
// gradients, on the GPU; and the CPU, which must keep LibTorch's ops exactly. GPU tests skip
// without a GPU.
#include "model/torch/cuda_ops.hpp"

#include <gtest/gtest.h>
#include <torch/cuda.h>

#include <limits>
#include <vector>

#include "zeroflow/core/cuda.hpp"

namespace zf = zeroflow;
namespace zmd = zeroflow::model::detail;

namespace {

bool have_gpu() { return zf::cuda_available() && torch::cuda::is_available() && zmd::fused_cuda_ops_available(); }

const auto on_gpu = torch::TensorOptions().dtype(torch::kFloat).device(torch::kCUDA, 0);

// Frees a NaN-filled block of t's size first: the caching allocator tends to hand the same block
// to the next allocation of that size, so an output element a kernel forgets stays NaN.
void poison_like(const torch::Tensor& t) { (void)torch::full_like(t, std::numeric_limits<float>::quiet_NaN()); }

void expect_close(const torch::Tensor& got, const torch::Tensor& want, double rtol, double atol, const char* what) {
  ASSERT_EQ(got.sizes(), want.sizes()) << what;
  const torch::Tensor g = got.to(torch::kCPU, torch::kDouble), w = want.to(torch::kCPU, torch::kDouble);
  EXPECT_FALSE(g.isnan().any().item<bool>()) << what << ": NaN (an element left unwritten?)";
  const double excess = ((g - w).abs() - (atol + rtol * w.abs())).max().item<double>();
  EXPECT_LE(excess, 0.0) << what << ": max |diff| " << (g - w).abs().max().item<double>();
}

}  // namespace

TEST(CudaOps, CpuKeepsLibTorchsOps) {
  torch::manual_seed(3);
  const torch::Tensor x = torch::randn({64, 4, 32}, torch::requires_grad());
  const torch::Tensor a = torch::full({1}, 0.8F, torch::requires_grad());
  // Asked for the fused kernels, the host still computes LibTorch's ops.
  const torch::Tensor y = zmd::apply_swish(x, a, zmd::op_kernels::fused);
  const torch::Tensor ref = x * torch::sigmoid(a * x);  // the expression the host has always used
  EXPECT_TRUE(torch::equal(y, ref));
  const torch::Tensor recon = torch::randn({16, 32}), data = torch::randn({16, 32});
  const torch::Tensor mu = torch::randn({16, 2}), logvar = torch::randn({16, 2});
  const torch::Tensor loss = zmd::seed_loss(recon, data, mu, logvar, zmd::op_kernels::fused);
  const torch::Tensor mse = torch::sum(torch::mean(torch::square(recon - data), 1));
  const torch::Tensor kld = -0.1 * torch::sum(torch::mean(1 + logvar - mu.pow(2) - logvar.exp(), 1));
  const torch::Tensor loss_ref = mse + kld;
  EXPECT_EQ(loss.item<float>(), loss_ref.item<float>());
}

TEST(CudaOps, FusedSwishMatchesLibTorch) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  torch::manual_seed(5);
  for (const std::int64_t n :
       {std::int64_t{1}, std::int64_t{7}, std::int64_t{1000}, std::int64_t{1024 * 16 * 256 + 3}}) {
    SCOPED_TRACE(n);
    const torch::Tensor x0 = torch::randn({n}, on_gpu) * 3;
    const torch::Tensor gy = torch::randn({n}, on_gpu);
    for (const float alpha : {1.0F, 0.37F, -1.5F}) {
      SCOPED_TRACE(alpha);
      const torch::Tensor x = x0.clone().requires_grad_(true);
      const torch::Tensor a = torch::full({1}, alpha, on_gpu).requires_grad_(true);
      poison_like(x0);
      const torch::Tensor y = zmd::apply_swish(x, a, zmd::op_kernels::fused);
      poison_like(x0);
      y.backward(gy);
      const torch::Tensor xr = x0.clone().requires_grad_(true);
      const torch::Tensor ar = torch::full({1}, alpha, on_gpu).requires_grad_(true);
      const torch::Tensor yr = zmd::apply_swish_reference(xr, ar);
      yr.backward(gy);
      expect_close(y, yr, 1e-5, 1e-6, "swish");
      expect_close(x.grad(), xr.grad(), 1e-5, 1e-6, "d swish / dx");
      // α's gradient sums n terms: float64 partial sums here, LibTorch's float reduction there.
      const double scale = (xr.detach().square() * gy.abs()).sum().item<double>();
      expect_close(a.grad(), ar.grad(), 1e-5, 1e-6 * (1 + scale), "d swish / d alpha");
    }
  }
}

TEST(CudaOps, FusedSwishGradientIsDeterministic) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  torch::manual_seed(6);
  const torch::Tensor x0 = torch::randn({1024 * 8 * 128}, on_gpu);
  const torch::Tensor gy = torch::randn_like(x0);
  std::vector<float> alpha_grads;
  for (int run = 0; run < 3; ++run) {
    const torch::Tensor x = x0.clone().requires_grad_(true);
    const torch::Tensor a = torch::full({1}, 0.9F, on_gpu).requires_grad_(true);
    zmd::apply_swish(x, a, zmd::op_kernels::fused).backward(gy);
    alpha_grads.push_back(a.grad().item<float>());
  }
  EXPECT_EQ(alpha_grads[0], alpha_grads[1]);
  EXPECT_EQ(alpha_grads[0], alpha_grads[2]);
}

TEST(CudaOps, FusedLossMatchesLibTorch) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  torch::manual_seed(7);
  for (const std::int64_t rows : {std::int64_t{1}, std::int64_t{88}, std::int64_t{1024}}) {
    for (const std::int64_t width : {std::int64_t{16}, std::int64_t{256}}) {
      SCOPED_TRACE(rows * 1000 + width);
      const torch::Tensor r0 = torch::randn({rows, width}, on_gpu);
      const torch::Tensor x0 = torch::randn({rows, 1, width}, on_gpu);  // reshaped to recon's shape
      const torch::Tensor m0 = torch::randn({rows, 2}, on_gpu);
      const torch::Tensor l0 = torch::randn({rows, 2}, on_gpu) * 0.5;
      const torch::Tensor g = torch::full({}, 1.7F, on_gpu);
      std::vector<torch::Tensor> fused_in, ref_in;
      for (const auto& t : {r0, x0, m0, l0}) {
        fused_in.push_back(t.clone().requires_grad_(true));
        ref_in.push_back(t.clone().requires_grad_(true));
      }
      for (const auto& t : {r0, x0, m0, l0}) poison_like(t);
      const torch::Tensor loss =
          zmd::seed_loss(fused_in[0], fused_in[1], fused_in[2], fused_in[3], zmd::op_kernels::fused);
      for (const auto& t : {r0, x0, m0, l0}) poison_like(t);
      loss.backward(g);
      const torch::Tensor loss_ref = zmd::seed_loss_reference(ref_in[0], ref_in[1], ref_in[2], ref_in[3]);
      loss_ref.backward(g);
      EXPECT_EQ(loss.dim(), 0);
      expect_close(loss, loss_ref, 1e-5, 1e-6, "loss");
      const char* names[] = {"d loss / d recon", "d loss / d x", "d loss / d mu", "d loss / d logvar"};
      for (int i = 0; i < 4; ++i) expect_close(fused_in[i].grad(), ref_in[i].grad(), 1e-5, 1e-7, names[i]);
    }
  }
}

TEST(CudaOps, AskedForLibTorchsOpsTheGpuUsesThem) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  const torch::Tensor x = torch::randn({1000}, on_gpu);
  const torch::Tensor a = torch::full({1}, 0.5F, on_gpu);
  EXPECT_TRUE(torch::equal(zmd::apply_swish(x, a, zmd::op_kernels::libtorch), x * torch::sigmoid(a * x)));
}
