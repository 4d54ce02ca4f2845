/// @file trainer_options.cpp
/// The batch schedule that both LightVAE trainers follow (trainer_options.hpp).
#include "trainer_options.hpp"

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

}  // namespace zeroflow::model::detail
