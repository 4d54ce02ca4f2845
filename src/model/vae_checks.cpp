/// @file vae_checks.cpp
/// The VAE's divergence message (vae_checks.hpp).
#include "vae_checks.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "zeroflow/core/error.hpp"

namespace zeroflow::model::detail {

void throw_vae_diverged(int epoch, double loss, double largest, const train_options& options) {
  char magnitude[32];
  std::snprintf(magnitude, sizeof magnitude, "%.3g", largest);
  const std::string why =
      largest > 1e15 ? std::string("the rows reach ") + magnitude +
                           " in magnitude, too large for float32 arithmetic: normalise them (robust z-scores) or "
                           "remove the spikes that make them"
                     : "lower the learning rate (now " + std::to_string(options.learning_rate) + ")";
  const char* value = std::isnan(loss) ? "NaN" : "infinite";
  if (epoch < 0) ZF_THROW(error, "training diverged: the loss of the test rows is ", value, "; ", why);
  ZF_THROW(error, "training diverged at epoch ", epoch + 1, " of ", options.epochs, ": its loss is ", value, "; ", why);
}

}  // namespace zeroflow::model::detail
