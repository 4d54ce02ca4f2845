#include "zeroflow/pipeline/timeseries_pipeline.hpp"

#include <charconv>
#include <chrono>
#include <cmath>
#include <span>
#include <system_error>
#include <utility>

#include "zeroflow/core/error.hpp"
#include "zeroflow/eval/metrics.hpp"
#include "zeroflow/io/csv.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/model/mlp_autoencoder.hpp"
#include "zeroflow/pipeline/ecg_pipeline.hpp"
#include "zeroflow/pipeline/stage_clock.hpp"
#include "zeroflow/signal/min_max.hpp"
#include "zeroflow/synth/electricity.hpp"

namespace zeroflow::pipeline {
namespace {

/// A column given as digits is a 0-based index (the notebook's `iloc[:, 7]`); anything else a name.
io::column_ref column_of(const std::string& text) {
  std::size_t index = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), index);
  if (!text.empty() && ec == std::errc{} && end == text.data() + text.size()) return index;
  return text;
}

std::vector<float> host_floats(const array& a) {
  const array h = a.where() == cpu_device ? a : copy_to(a, cpu_device);
  const auto s = h.span<const float>();
  return {s.begin(), s.end()};
}

void check(const timeseries_options& o) {
  ZF_EXPECTS(!o.column.empty(), "no column given: name the column of ", o.input.string(), " to read, or its index");
  ZF_EXPECTS(o.epochs >= 0, "epochs must be >= 0, not ", o.epochs);
  ZF_EXPECTS(o.batch >= 0, "batch must be >= 0 (0: every row in one step), not ", o.batch);
  ZF_EXPECTS(std::isfinite(o.learning_rate) && o.learning_rate > 0, "learning_rate must be a number > 0, not ",
             o.learning_rate);
  ZF_EXPECTS(std::isfinite(o.weight_decay) && o.weight_decay >= 0, "weight_decay must be a number >= 0, not ",
             o.weight_decay);
}

/// Per row, 1 where `column`'s point is labelled; counts the labelled rows.
timeseries_evaluation labelled_rows(const std::filesystem::path& path, const std::vector<synth::labelled_point>& points,
                                    const std::string& column, std::int64_t rows) {
  timeseries_evaluation e;
  e.labels = path;
  e.label.assign(static_cast<std::size_t>(rows), 0);
  for (const auto& p : points) {
    if (p.column != column || p.row < 0 || p.row >= rows) continue;
    auto& l = e.label[static_cast<std::size_t>(p.row)];
    e.anomalies += !l;
    l = 1;
  }
  return e;
}

void measure(timeseries_evaluation& e, const timeseries_result& r) {
  if (e.anomalies == 0 || e.anomalies >= r.rows) return;  // nothing to rank against
  const std::span<const float> scores(r.score);
  const std::span<const std::uint8_t> truth(e.label);
  e.measured = true;
  e.auroc = eval::auroc(scores, truth);
  e.average_precision = eval::average_precision(scores, truth);
  std::int64_t hits = 0;
  for (std::size_t k = 0; k < r.score.size(); ++k) hits += e.label[k] && r.outlier[k];
  e.flagged_precision = r.outliers > 0 ? static_cast<double>(hits) / static_cast<double>(r.outliers) : 0.0;
  e.flagged_recall = static_cast<double>(hits) / static_cast<double>(e.anomalies);
}

}  // namespace

timeseries_result run_timeseries(const timeseries_options& options) {
  check(options);
  const auto started = stage_clock::clock::now();
  // Labels are read before the work, so that a bad file is said before the training, not after it.
  std::vector<synth::labelled_point> labels;
  if (options.labels) labels = synth::read_electricity_labels(*options.labels);

  timeseries_result r;
  r.input = options.input.string();
  r.where = resolve(options.where);
  // The pipeline queues on the legacy default stream: the reader, the scaling and the model all
  // take it by default.
  stage_clock stage(r.stages, stream_view{}, options.progress, stage_lines::times);
  if (r.where.type == device_type::cuda)
    stage("cuda_init", [&] { io::prepare_csv_reads(r.where); });  // the context and the parser's staging

  const array values = stage("read", [&] {
    io::csv_options read;
    read.columns = {column_of(options.column)};
    read.where = r.where;
    read.io = options.io;
    read.blank = io::blank_lines::refuse;  // rows are points in time, and labels name them by row
    const table t = io::read_csv(options.input, read);
    r.column = t.names.at(0);
    r.rows = t.columns.at(0).size();
    ZF_EXPECTS(r.rows >= 1, options.input.string(), ": column \"", r.column, "\" has no rows");
    return t.columns.at(0);
  });

  signal::min_max_scaling scaling;
  const array scaled = stage("scale", [&] {
    scaling = signal::min_max_fit(values, {0.0, 1.0}, {});
    return signal::min_max_transform(values, scaling.scale, scaling.offset, std::nullopt, {});
  });

  auto net = model::mlp_autoencoder::create({1, 32, 32}, r.where, options.seed);
  r.parameters = net.parameter_count();
  stage("train", [&] {
    model::mlp_train_options o;
    o.epochs = options.epochs;
    o.batch = options.batch;
    o.learning_rate = options.learning_rate;
    o.weight_decay = options.weight_decay;
    o.seed = options.seed;
    r.epoch_loss = net.train(scaled, o).epoch_loss;
  });

  array score, reconstruction;
  stage("score", [&] {
    score = net.score(scaled);
    reconstruction = net.reconstruct(scaled);
  });

  stage("threshold", [&] {
    r.value = host_floats(values);
    r.scaled = host_floats(scaled);
    r.reconstruction = host_floats(reconstruction);
    r.score = host_floats(score);
    r.data_min = host_floats(scaling.data_min).at(0);
    r.data_max = host_floats(scaling.data_max).at(0);
    // The estimators' contamination="auto" (zeroflow.sklearn): Tukey's fence over the scores.
    r.fence = eval::tukey_fence_of(std::span<const float>(r.score));
    r.threshold = r.fence.upper();
    r.outlier.resize(r.score.size());
    for (std::size_t k = 0; k < r.score.size(); ++k) {
      r.outlier[k] = r.score[k] > r.threshold;
      r.outliers += r.outlier[k];
    }
    if (options.labels) {
      r.evaluation = labelled_rows(*options.labels, labels, r.column, r.rows);
      measure(*r.evaluation, r);
    }
  });
  r.total_ms = std::chrono::duration<double, std::milli>(stage_clock::clock::now() - started).count();
  return r;
}

}  // namespace zeroflow::pipeline
