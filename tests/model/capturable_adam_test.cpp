// capturable_adam (device-side step count over the fused Adam kernel) against torch::optim::Adam,
// the optimiser of the eager training path, on the CPU: same gradients in, same parameters out.
#include "model/torch/capturable_adam.hpp"

#include <gtest/gtest.h>
#include <torch/optim/adam.h>

#include <cmath>
#include <vector>

#include "zeroflow/core/error.hpp"

namespace zf = zeroflow;
using zf::model::detail::adam_settings;
using zf::model::detail::capturable_adam;

namespace {

// Parameters of several shapes (as the model's: 3-d conv weights, biases, a 1-element alpha).
std::vector<torch::Tensor> make_params(std::uint64_t seed) {
  torch::manual_seed(seed);
  std::vector<torch::Tensor> ps;
  for (const auto& shape : std::vector<std::vector<std::int64_t>>{{4, 3, 3}, {5}, {1}, {64, 2}, {7, 1, 3}})
    ps.push_back(torch::randn(shape).requires_grad_(true));
  return ps;
}

std::vector<torch::Tensor> clones(const std::vector<torch::Tensor>& ps) {
  std::vector<torch::Tensor> out;
  for (const auto& p : ps) out.push_back(p.detach().clone().requires_grad_(true));
  return out;
}

// Gradients of mixed scales, with exact zeros (where only eps keeps the update finite).
std::vector<torch::Tensor> make_grads(const std::vector<torch::Tensor>& ps, int step) {
  torch::manual_seed(1000 + static_cast<std::uint64_t>(step));
  std::vector<torch::Tensor> gs;
  for (const auto& p : ps) {
    torch::Tensor g = torch::randn(p.sizes()) * std::pow(10.0, (step % 3) - 1);
    g.view(-1)[0] = 0.0F;
    gs.push_back(g);
  }
  return gs;
}

void set_grads(const std::vector<torch::Tensor>& ps, const std::vector<torch::Tensor>& gs) {
  for (std::size_t i = 0; i < ps.size(); ++i) ps[i].mutable_grad() = gs[i].clone();
}

// |a − b| ≤ tol·(1 + |b|) element-wise; returns the largest excess for the message.
void expect_close(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b, double tol) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    const torch::Tensor x = a[i].detach().to(torch::kDouble);
    const torch::Tensor y = b[i].detach().to(torch::kDouble);
    const double worst = ((x - y).abs() - tol * (1 + y.abs())).max().item<double>();
    EXPECT_LE(worst, 0.0) << "parameter " << i << ": max |diff| " << (x - y).abs().max().item<double>();
  }
}

double max_change(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, (a[i] - b[i]).abs().max().item<double>());
  return m;
}

}  // namespace

TEST(CapturableAdam, MatchesTorchAdamOnTheCpu) {
  struct setting {
    double lr, weight_decay;
  };
  for (const setting c : {setting{1e-3, 0.0}, setting{3e-2, 0.0}, setting{1e-2, 0.5}}) {
    SCOPED_TRACE(testing::Message() << "lr " << c.lr << ", weight decay " << c.weight_decay);
    const std::vector<torch::Tensor> start = make_params(7);
    std::vector<torch::Tensor> ours = clones(start);
    std::vector<torch::Tensor> theirs = clones(start);
    capturable_adam adam(ours, adam_settings{.learning_rate = c.lr, .weight_decay = c.weight_decay});
    torch::optim::Adam reference(theirs, torch::optim::AdamOptions(c.lr).weight_decay(c.weight_decay));
    for (int step = 0; step < 8; ++step) {
      const std::vector<torch::Tensor> gs = make_grads(start, step);
      set_grads(ours, gs);
      set_grads(theirs, gs);
      adam.step();
      reference.step();
      expect_close(ours, theirs, 1e-6);
    }
    EXPECT_EQ(adam.step_count().item<float>(), 8.0F);
    // The comparison means something only if the parameters moved well beyond the tolerance.
    EXPECT_GT(max_change(ours, start), 1000 * 1e-6);
    // The moments too (Adam's state, as torch::optim::Adam keeps it).
    for (std::size_t i = 0; i < theirs.size(); ++i) {
      const auto& state =
          static_cast<const torch::optim::AdamParamState&>(*reference.state().at(theirs[i].unsafeGetTensorImpl()));
      expect_close({adam.exp_avg()[i]}, {state.exp_avg()}, 1e-6);
      expect_close({adam.exp_avg_sq()[i]}, {state.exp_avg_sq()}, 1e-6);
    }
  }
}

TEST(CapturableAdam, ResetStartsOver) {
  const std::vector<torch::Tensor> start = make_params(9);
  std::vector<torch::Tensor> ours = clones(start);
  capturable_adam adam(ours, adam_settings{});
  for (int step = 0; step < 3; ++step) {
    set_grads(ours, make_grads(start, step));
    adam.step();
  }
  adam.reset();
  EXPECT_EQ(adam.step_count().item<float>(), 0.0F);
  // From here on it must behave as a new optimiser on the current parameters.
  std::vector<torch::Tensor> theirs = clones(ours);
  torch::optim::Adam fresh(theirs, torch::optim::AdamOptions(1e-3));
  for (int step = 3; step < 6; ++step) {
    const std::vector<torch::Tensor> gs = make_grads(start, step);
    set_grads(ours, gs);
    set_grads(theirs, gs);
    adam.step();
    fresh.step();
  }
  expect_close(ours, theirs, 1e-6);
}

TEST(CapturableAdam, StepKeepsItsTensors) {
  // A captured step replays on fixed addresses: stepping must update in place.
  const std::vector<torch::Tensor> start = make_params(3);
  std::vector<torch::Tensor> ours = clones(start);
  capturable_adam adam(ours, adam_settings{});
  std::vector<const void*> before;
  for (const auto& t : adam.exp_avg()) before.push_back(t.data_ptr());
  const void* param0 = ours[0].data_ptr();
  const void* count = adam.step_count().data_ptr();
  set_grads(ours, make_grads(start, 0));
  adam.step();
  adam.reset();
  for (std::size_t i = 0; i < before.size(); ++i) EXPECT_EQ(adam.exp_avg()[i].data_ptr(), before[i]);
  EXPECT_EQ(ours[0].data_ptr(), param0);
  EXPECT_EQ(adam.step_count().data_ptr(), count);
}

TEST(CapturableAdam, RejectsBadInput) {
  EXPECT_THROW(capturable_adam({}, adam_settings{}), zf::invalid_argument);
  EXPECT_THROW(capturable_adam({torch::zeros({2}, torch::kDouble)}, adam_settings{}), zf::invalid_argument);
  EXPECT_THROW(capturable_adam({torch::zeros({2})}, adam_settings{.learning_rate = 0.0}), zf::invalid_argument);
  EXPECT_THROW(capturable_adam({torch::zeros({2})}, adam_settings{.beta2 = 1.0}), zf::invalid_argument);
  EXPECT_THROW(capturable_adam({torch::zeros({2})}, adam_settings{.weight_decay = -1e-5}), zf::invalid_argument);
  std::vector<torch::Tensor> ps = make_params(1);
  capturable_adam adam(ps, adam_settings{});
  EXPECT_THROW(adam.step(), zf::invalid_argument);  // no gradients yet
}
