/// @file population_training.cpp
/// train_population_model (population_training.hpp): rows, training, model file.
#include "zeroflow/pipeline/population_training.hpp"

#include <system_error>

#include "zeroflow/model/vae.hpp"

namespace zeroflow::pipeline {

population_job_result train_population_model(const population_job& job, device where, model::gradient_group* group) {
  const bool leader = group == nullptr || group->rank() == 0;
  population_input input = job.input;
  if (!leader) input.progress = nullptr;
  const population_rows rows = load_population_rows(input, where, group);
  population_job_result r;
  r.beats = rows.rows.shape(0);
  r.width = rows.rows.shape(1);
  r.sample_rate = rows.provenance.sample_rate;
  r.mapped = rows.mapped;
  r.skipped = rows.skipped;
  for (const std::int64_t b : rows.beats) r.recordings += b > 0 ? 1 : 0;
  if (leader && job.progress)
    job.progress(std::to_string(r.beats) + " beats of " + std::to_string(r.recordings) + " recordings, rows of " +
                 std::to_string(r.width) + " samples" + (r.mapped ? " (in host memory mapped into the GPU)" : ""));

  model::vae m = model::vae::create(r.width, where, job.training.seed);
  m.describe_rows(rows.provenance);
  model::population_options o = job.training;
  o.rows_identity = rows.identity;
  if (!leader) o.on_epoch = nullptr;
  r.training = model::train_population(m, rows.rows, o, group);
  if (leader) {
    m.save(job.out);
    // The model is written: nothing is left to resume.
    std::error_code ignored;
    if (!o.checkpoint.empty()) std::filesystem::remove(o.checkpoint, ignored);
  }
  return r;
}

}  // namespace zeroflow::pipeline
