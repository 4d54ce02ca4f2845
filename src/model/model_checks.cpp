/// @file model_checks.cpp
/// The models' refusals and divergence messages (model_checks.hpp).
#include "model_checks.hpp"

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

void check_mlp_shape(const mlp_shape& s) {
  ZF_EXPECTS(s.features >= 1 && s.hidden >= 1 && s.code >= 1,
             "the autoencoder's widths must be at least 1, got features ", s.features, ", hidden ", s.hidden, ", code ",
             s.code);
}

void check_mlp_train_options(const mlp_train_options& o) {
  ZF_EXPECTS(o.epochs >= 0, "epochs must be >= 0, got ", o.epochs);
  ZF_EXPECTS(o.batch >= 0, "batch must be >= 0 (0: all rows in one step), got ", o.batch);
  ZF_EXPECTS(std::isfinite(o.learning_rate) && o.learning_rate > 0.0, "learning_rate must be > 0, got ",
             o.learning_rate);
  ZF_EXPECTS(std::isfinite(o.weight_decay) && o.weight_decay >= 0.0, "weight_decay must be >= 0, got ", o.weight_decay);
}

void check_mlp_rows(const array& rows, std::int64_t features) {
  ZF_EXPECTS(rows.valid(), "rows: empty array");
  ZF_EXPECTS(rows.type() == float32, "rows must be float32, got ", rows.type().name());
  ZF_EXPECTS(rows.ndim() == 2 || (rows.ndim() == 1 && features == 1), "rows must be N x ", features,
             features == 1 ? " (or 1-D)" : "", ", got ", rows.ndim(), " dimensions");
  const std::int64_t width = rows.ndim() == 1 ? 1 : rows.shape(1);
  ZF_EXPECTS(width == features, "rows have ", width, " values each, the model ", features);
}

void throw_mlp_non_finite(std::int64_t count, std::int64_t first_row) {
  ZF_THROW(invalid_argument, "rows hold ", count, count == 1 ? " value that is" : " values that are",
           " NaN or infinite (the first in row ", first_row,
           "); the autoencoder needs finite values: fill or drop the gaps first");
}

void throw_mlp_diverged(int epoch, double loss, const mlp_train_options& options) {
  ZF_THROW(error, "training diverged at epoch ", epoch + 1, " of ", options.epochs, ": its loss is ", loss,
           "; scale the data to [0, 1] first (min-max) or lower the learning rate (now ", options.learning_rate, ")");
}

}  // namespace zeroflow::model::detail
