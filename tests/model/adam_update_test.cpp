// Adam's update on the host (model/adam_update.hpp) against torch::optim::Adam on CPU float
// tensors, step by step on the same gradients: the oracle zeroflow's trainers are held to. Not to
// the bit: LibTorch's vectorised CPU kernels fuse multiplies and adds where the ISA allows.
#include "model/adam_update.hpp"

#include <gtest/gtest.h>
#include <torch/optim/adam.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace zmd = zeroflow::model::detail;

namespace {

/// How many elements of a are further from b than rounding over the steps explains: four units in
/// the last place of b and a thousandth of the learning rate. A wrong formula (a bias correction,
/// a β, the weight decay) moves parameters by a good fraction of the learning rate a step.
std::int64_t off_by_more_than_rounding(const std::vector<float>& a, const torch::Tensor& b, double learning_rate) {
  const auto* want = b.data_ptr<float>();
  std::int64_t off = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double ulp = std::nextafter(std::fabs(want[i]), INFINITY) - std::fabs(want[i]);
    off += std::fabs(static_cast<double>(a[i]) - want[i]) > 4 * ulp + 1e-3 * learning_rate ? 1 : 0;
  }
  return off;
}

void expect_torchs_steps(double learning_rate, double weight_decay) {
  torch::manual_seed(3);
  const std::int64_t n = 4096;
  torch::Tensor p = torch::randn({n}).requires_grad_(true);
  std::vector<float> own(p.data_ptr<float>(), p.data_ptr<float>() + n), m(n), v(n), g(n);
  torch::optim::Adam adam({p}, torch::optim::AdamOptions(learning_rate).weight_decay(weight_decay));
  float step = 0;
  for (int t = 1; t <= 20; ++t) {
    // Gradients over several orders of magnitude, as a training's are.
    const torch::Tensor grad = torch::randn({n}) * torch::pow(10.0, torch::randint(-6, 2, {n}).to(torch::kFloat));
    p.mutable_grad() = grad.clone();
    adam.step();
    std::copy(grad.data_ptr<float>(), grad.data_ptr<float>() + n, g.begin());
    step += 1.0F;
    zmd::apply_adam_on_host({.params = own.data(),
                             .grads = g.data(),
                             .exp_avg = m.data(),
                             .exp_avg_sq = v.data(),
                             .step = &step,
                             .count = n,
                             .learning_rate = learning_rate,
                             .weight_decay = weight_decay});
    EXPECT_EQ(off_by_more_than_rounding(own, p.detach(), learning_rate), 0) << "step " << t;
  }
}

}  // namespace

TEST(AdamUpdate, TakesTorchOptimAdamsStepsToRounding) { expect_torchs_steps(1e-3, 0.0); }

TEST(AdamUpdate, WithWeightDecayToo) { expect_torchs_steps(1e-2, 1e-5); }
