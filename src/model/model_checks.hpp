#pragma once
/// @file model_checks.hpp
/// Internal: what the models refuse and why a training diverged, in the same words on the CPU
/// and on a GPU.
#include <cstdint>

#include "zeroflow/core/array.hpp"
#include "zeroflow/model/mlp_autoencoder.hpp"
#include "zeroflow/model/vae.hpp"

namespace zeroflow::model::detail {

/// @throws error: epoch `epoch`'s loss (epoch < 0: the test rows' loss after training) is `loss`,
///         not finite; `largest` is the rows' largest magnitude, which says whether the rows are
///         too large for float32 arithmetic or the steps blew up (the rows are known finite).
[[noreturn]] void throw_vae_diverged(int epoch, double loss, double largest, const train_options& options);

/// @throws invalid_argument for MLP widths < 1.
void check_mlp_shape(const mlp_shape& shape);

/// @throws invalid_argument for epochs or batch < 0, a learning rate ≤ 0 or a weight decay < 0.
void check_mlp_train_options(const mlp_train_options& options);

/// Rows an MLP of `features` values a row takes: a float32 array, N × features (or 1-D when
/// features is 1). @throws invalid_argument saying what is wrong.
void check_mlp_rows(const array& rows, std::int64_t features);

/// @throws invalid_argument: `count` values of the rows are NaN or infinite, the first in row `first_row`.
[[noreturn]] void throw_mlp_non_finite(std::int64_t count, std::int64_t first_row);

/// @throws error: epoch `epoch`'s loss is not finite (the MLP's training diverged), with what to do about it.
[[noreturn]] void throw_mlp_diverged(int epoch, double loss, const mlp_train_options& options);

}  // namespace zeroflow::model::detail
