#pragma once
/// @file vae_checks.hpp
/// Internal: why the VAE's training diverged, in the same words whichever trainer (CPU,
/// GPU or a population's) found the loss not finite.
#include "zeroflow/model/vae.hpp"

namespace zeroflow::model::detail {

/// @throws error: epoch `epoch`'s loss (epoch < 0: the test rows' loss after training) is `loss`,
///         not finite; `largest` is the rows' largest magnitude, which says whether the rows are
///         too large for float32 arithmetic or the steps blew up (the rows are known finite).
[[noreturn]] void throw_vae_diverged(int epoch, double loss, double largest, const train_options& options);

}  // namespace zeroflow::model::detail
