/// @file trainer_options.cpp
/// The batch schedule that both LightVAE trainers follow, and what both refuse in the same words
/// (trainer_options.hpp).
#include "trainer_options.hpp"

#include <cmath>

#include "zeroflow/core/error.hpp"
#include "zeroflow/model/population.hpp"

namespace zeroflow::model::detail {

batch_schedule schedule_batches(std::int64_t n_train, const trainer_options& options, const char* trainer) {
  ZF_EXPECTS(options.epochs >= 0 && options.batch >= 1, trainer, ": epochs must be >= 0 and batch >= 1");
  ZF_EXPECTS(options.first_epoch >= 0 && options.first_epoch <= options.epochs, trainer,
             ": the first epoch must be in [0, epochs]");
  ZF_EXPECTS(n_train >= 1, trainer, ": no training rows");
  const int ranks = options.group != nullptr ? options.group->size() : 1;
  ZF_EXPECTS(ranks == 1 || options.drop_last, trainer, ": a group trains whole global batches only");
  batch_schedule s;
  s.global_batch = options.batch * ranks;
  s.offset = options.group != nullptr ? options.group->rank() * options.batch : 0;
  s.full_steps = n_train / s.global_batch;
  s.tail = options.drop_last ? 0 : n_train % s.global_batch;
  ZF_EXPECTS(s.steps() >= 1, trainer, ": ", n_train, " training rows make no whole batch of ", s.global_batch, " rows");
  return s;
}

void check_trainer_learning_rate(double learning_rate) {
  ZF_EXPECTS(learning_rate > 0 && std::isfinite(learning_rate), "learning_rate must be > 0, got ", learning_rate);
}

void check_resume_state(const optimiser_state& resume_from, std::int64_t parameters) {
  ZF_EXPECTS(static_cast<std::int64_t>(resume_from.exp_avg.size()) == parameters &&
                 static_cast<std::int64_t>(resume_from.exp_avg_sq.size()) == parameters,
             "the optimiser state to resume holds ", resume_from.exp_avg.size(), " moments, the model ", parameters,
             " parameters");
}

}  // namespace zeroflow::model::detail
