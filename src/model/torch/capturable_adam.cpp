/// @file capturable_adam.cpp
/// Adam with a device-side step count over LibTorch's fused Adam kernel (see capturable_adam.hpp).
#include "capturable_adam.hpp"

#include <ATen/ops/_fused_adam.h>

#include <utility>

#include "zeroflow/core/error.hpp"

namespace zeroflow::model::detail {

capturable_adam::capturable_adam(std::vector<torch::Tensor> params, const adam_settings& settings)
    : params_{std::move(params)}, settings_{settings} {
  ZF_EXPECTS(!params_.empty(), "capturable_adam: no parameters");
  ZF_EXPECTS(settings.learning_rate > 0.0, "capturable_adam: learning rate must be > 0, got ", settings.learning_rate);
  ZF_EXPECTS(settings.beta1 >= 0.0 && settings.beta1 < 1.0, "capturable_adam: beta1 must be in [0, 1), got ",
             settings.beta1);
  ZF_EXPECTS(settings.beta2 >= 0.0 && settings.beta2 < 1.0, "capturable_adam: beta2 must be in [0, 1), got ",
             settings.beta2);
  ZF_EXPECTS(settings.eps >= 0.0, "capturable_adam: eps must be >= 0, got ", settings.eps);
  ZF_EXPECTS(settings.weight_decay >= 0.0, "capturable_adam: weight decay must be >= 0, got ", settings.weight_decay);
  const c10::Device where = params_.front().device();
  for (const torch::Tensor& p : params_) {
    ZF_EXPECTS(p.defined(), "capturable_adam: undefined parameter");
    ZF_EXPECTS(p.device() == where, "capturable_adam: parameters on ", where.str(), " and ", p.device().str());
    ZF_EXPECTS(p.scalar_type() == torch::kFloat, "capturable_adam: parameters must be float32");
    exp_avg_.push_back(torch::zeros_like(p, torch::MemoryFormat::Preserve));
    exp_avg_sq_.push_back(torch::zeros_like(p, torch::MemoryFormat::Preserve));
  }
  steps_ = torch::zeros({static_cast<std::int64_t>(params_.size())},
                        torch::TensorOptions().dtype(torch::kFloat).device(where));
  for (std::int64_t i = 0; i < steps_.size(0); ++i) step_views_.push_back(steps_.select(0, i));
}

void capturable_adam::step() {
  std::vector<torch::Tensor> grads;
  grads.reserve(params_.size());
  for (const torch::Tensor& p : params_) {
    const torch::Tensor& g = p.grad();
    ZF_EXPECTS(g.defined(), "capturable_adam: a parameter has no gradient (was backward() run?)");
    grads.push_back(g);
  }
  torch::NoGradGuard no_grad;
  // As torch.optim.Adam(fused=True): the count goes up first, the kernel reads the new value.
  steps_.add_(1.0);
  at::_fused_adam_(params_, grads, exp_avg_, exp_avg_sq_, /*max_exp_avg_sqs=*/{}, step_views_, settings_.learning_rate,
                   settings_.beta1, settings_.beta2, settings_.weight_decay, settings_.eps, /*amsgrad=*/false,
                   /*maximize=*/false);
}

void capturable_adam::reset() {
  torch::NoGradGuard no_grad;
  for (torch::Tensor& m : exp_avg_) m.zero_();
  for (torch::Tensor& v : exp_avg_sq_) v.zero_();
  steps_.zero_();
}

torch::Tensor capturable_adam::step_count() const { return step_views_.front(); }

}  // namespace zeroflow::model::detail
