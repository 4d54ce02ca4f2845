#pragma once
// Private to the pipeline: how a segmentation method's beats become run_result's beat table. The
// robust method's beats are every heartbeat found, each with a row, a score that weighs shape and
// rhythm together, and (later stages) a class; the seed documents' gate-to-gate method gives beat
// candidates, of which those within its length bounds have rows and scores. Chosen once per run
// (beat_table_for); `run` calls it at the points where the two differ.
#include <cstdint>
#include <memory>
#include <string>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/model/vae.hpp"
#include "zeroflow/pipeline/ecg_pipeline.hpp"
#include "zeroflow/signal/beat_score.hpp"
#include "zeroflow/signal/segment.hpp"

namespace zeroflow::pipeline::detail {

/// What the model's training and scoring leave for the beat table.
struct scored_beats {
  model::scores scores;          ///< the model's score and latent mean of every row
  model::train_result training;  ///< the split (empty indices when the model was loaded)
  array decoded_grid;            ///< the decoded latent grid (invalid for a model without one)
};

class beat_table {
 public:
  virtual ~beat_table() = default;
  /// Whether the beats are consecutive heartbeats: then they have R–R intervals, classes and a
  /// Holter analysis.
  [[nodiscard]] virtual bool heartbeats() const = 0;
  /// The progress line of what the segmentation found.
  [[nodiscard]] virtual std::string found(const signal::segmentation& seg) const = 0;
  /// "only N" + this: too few rows to train or score.
  [[nodiscard]] virtual const char* too_few() const = 0;
  /// The one hand-off to the host: the per-beat columns of `result` (start, peak, length, kept,
  /// score, latent means, split, ...) and the histogram and decoded grid. `ranked`: heartbeats'
  /// scores of shape and rhythm together (signal::combine_beat_scores; candidates rank by the
  /// model's score alone). `result.trained` must be set.
  virtual void collect(const signal::segmentation& seg, const scored_beats& scored, const signal::beat_scores& ranked,
                       run_result& result, stream_view stream) const = 0;
};

/// The table for `method`.
[[nodiscard]] std::unique_ptr<beat_table> beat_table_for(signal::segmentation_method method);

}  // namespace zeroflow::pipeline::detail
