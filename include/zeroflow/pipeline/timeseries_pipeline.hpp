#pragma once
/// @file timeseries_pipeline.hpp
/// The seed-004 pipeline (docs/architecture.md, the seed pipelines), end to end: read one column
/// of a CSV table onto the device, min-max scale it there, train the notebook's MLP autoencoder
/// on it, score every point by its reconstruction error, flag the points above Tukey's fence of
/// the scores and (when labels are given) evaluate the scores against them. `zeroflow timeseries`
/// writes the result (report/timeseries_outputs.hpp); Python has it as
/// zeroflow.pipeline.run_timeseries.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "zeroflow/core/device.hpp"
#include "zeroflow/eval/quantile.hpp"
#include "zeroflow/pipeline/run_types.hpp"

namespace zeroflow::pipeline {

/// What run_timeseries takes; the defaults are the seed-004 notebook's.
struct timeseries_options {
  std::filesystem::path input;  ///< CSV table with a header; one row per point in time
  /// The column: its name, or its 0-based index written as digits (the notebook's `iloc[:, 7]`).
  std::string column;
  device_choice where = device_choice::automatic;
  io::io_method io = io::io_method::automatic;  ///< how the table's bytes reach a CUDA device
  int epochs = 100;                             ///< training epochs, >= 0
  std::int64_t batch = 0;                       ///< rows per Adam step; 0: every row in one step, as the notebook
  double learning_rate = 0.01;                  ///< Adam's step size, > 0
  double weight_decay = 1e-5;                   ///< Adam's L2 weight decay, >= 0
  std::uint64_t seed = 42;                      ///< seeds the initial weights (and the shuffles of a batched training)
  /// Anomaly labels (synth::write_electricity_labels' `row,datetime,column,kind`) to evaluate
  /// against; only the rows labelled in the column that was read count.
  std::optional<std::filesystem::path> labels;
  /// Progress lines for a person: one per stage as it ends ("train: 812.4 ms").
  std::function<void(const std::string&)> progress;
};

/// The scores against the labels (timeseries_options::labels).
struct timeseries_evaluation {
  std::filesystem::path labels;     ///< the labels file
  std::vector<std::uint8_t> label;  ///< per row: 1 where the column's point is labelled anomalous
  std::int64_t anomalies = 0;       ///< labelled rows
  /// The ranking and the flags measured; only when some rows are labelled and some are not.
  bool measured = false;
  double auroc = 0;              ///< of the scores (eval::auroc)
  double average_precision = 0;  ///< of the scores (eval::average_precision)
  double flagged_precision = 0;  ///< share of the flagged rows that are labelled (0 when none is flagged)
  double flagged_recall = 0;     ///< share of the labelled rows that are flagged
};

/// What run_timeseries hands back, on the host.
struct timeseries_result {
  std::string input;   ///< the table, as given
  std::string column;  ///< the column's name in the header
  device where;        ///< where the pipeline ran
  std::int64_t rows = 0;
  std::int64_t parameters = 0;  ///< the model's learnable scalars
  /// The column's minimum and maximum: the min-max scaling maps them to 0 and 1.
  double data_min = 0, data_max = 0;
  std::vector<double> epoch_loss;  ///< per epoch (model::mlp_train_result)
  // Per row.
  std::vector<float> value;           ///< as read
  std::vector<float> scaled;          ///< min-max scaled to [0, 1]
  std::vector<float> reconstruction;  ///< the model's reconstruction of `scaled`
  /// Squared reconstruction error of the scaled value; higher = more anomalous.
  std::vector<float> score;
  std::vector<std::uint8_t> outlier;  ///< 1 where score > threshold
  /// Tukey's fence of the scores (eval::tukey_fence_of); the threshold is its upper fence.
  eval::tukey_fence fence;
  double threshold = 0;
  std::int64_t outliers = 0;  ///< rows above the threshold
  std::optional<timeseries_evaluation> evaluation;
  std::vector<stage_time> stages;  ///< cuda_init (on a GPU), read, scale, train, score, threshold
  double total_ms = 0;             ///< from the start of the run to its end
};

/**
 * @brief Runs the seed-004 pipeline.
 * @throws zeroflow::error (parse_error for a table or labels file that does not parse,
 *         invalid_argument for options out of range, cuda_error when CUDA is asked for and
 *         absent) with a message in the data's terms.
 */
[[nodiscard]] timeseries_result run_timeseries(const timeseries_options& options);

}  // namespace zeroflow::pipeline
