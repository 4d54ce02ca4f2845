#pragma once
// The model tests' oracle of the seed-004 MLP autoencoder: the notebook's Encoder class and its
// training loop written with LibTorch's own modules (Linear, autograd, torch::optim::Adam), of any
// widths and on any device, full-batch as the notebook or batched in an order the caller gives.
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/adam.h>
#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "zeroflow/model/mlp_autoencoder.hpp"

namespace zeroflow::torch_oracle {

struct mlp_net : torch::nn::Module {
  explicit mlp_net(const model::mlp_shape& s)
      : a(register_module("first_layer_encoder", torch::nn::Linear(s.features, s.hidden))),
        b(register_module("second_layer_encoder", torch::nn::Linear(s.hidden, s.code))),
        c(register_module("first_layer_decoder", torch::nn::Linear(s.code, s.hidden))),
        d(register_module("second_layer_decoder", torch::nn::Linear(s.hidden, s.features))) {}
  torch::Tensor forward(const torch::Tensor& x) {
    return torch::sigmoid(d(torch::relu(c(torch::relu(b(torch::relu(a(x))))))));
  }
  torch::nn::Linear a, b, c, d;
};

struct mlp_training {
  std::vector<double> epoch_loss;  ///< as mlp_train_result's: batch losses weighted by their rows
  std::shared_ptr<mlp_net> net;    ///< the trained network
};

/// The notebook's train_model on x's device (N × F): the weights drawn on the CPU after
/// torch::manual_seed(seed), as zeroflow draws its own; Adam(lr 0.01, weight_decay); per epoch
/// one step on all rows, or, when `order` is given, steps on `batch` rows at a time in the order
/// order(epoch) returns (N row indices).
inline mlp_training train_mlp(const torch::Tensor& x, std::uint64_t seed, int epochs, const model::mlp_shape& shape,
                              double weight_decay = 1e-5, std::int64_t batch = 0,
                              const std::function<std::vector<std::int64_t>(int)>& order = {}) {
  torch::manual_seed(seed);
  auto net = std::make_shared<mlp_net>(shape);
  net->to(x.device());
  torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(0.01).weight_decay(weight_decay));
  const std::int64_t n = x.size(0);
  mlp_training out;
  for (int e = 0; e < epochs; ++e) {
    double sum = 0.0;
    const std::vector<std::int64_t> rows = order ? order(e) : std::vector<std::int64_t>{};
    const std::int64_t step = order ? batch : n;
    for (std::int64_t first = 0; first < n; first += step) {
      const std::int64_t m = std::min(step, n - first);
      torch::Tensor xb = x;
      if (order) {
        const std::vector<std::int64_t> part(rows.begin() + first, rows.begin() + first + m);
        xb = x.index_select(0, torch::tensor(part, torch::kLong).to(x.device()));
      }
      const torch::Tensor loss = torch::mse_loss(net->forward(xb), xb);
      opt.zero_grad();
      loss.backward();
      opt.step();
      sum += loss.item<double>() * static_cast<double>(m);
    }
    out.epoch_loss.push_back(sum / static_cast<double>(n));
  }
  out.net = net;
  return out;
}

}  // namespace zeroflow::torch_oracle
