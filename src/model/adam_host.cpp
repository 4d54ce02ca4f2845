/// @file adam_host.cpp
/// torch::optim::Adam's update on the host (adam_update.hpp's apply_adam_on_host), for zeroflow's
/// own CPU trainers.
#include "adam_update.hpp"

namespace zeroflow::model::detail {

void apply_adam_on_host(const adam_update& u) {
  const adam_constants c = adam_constants_at(u, *u.step);
  for (std::int64_t i = 0; i < u.count; ++i) adam_element(u.params[i], u.grads[i], u.exp_avg[i], u.exp_avg_sq[i], c);
}

}  // namespace zeroflow::model::detail
