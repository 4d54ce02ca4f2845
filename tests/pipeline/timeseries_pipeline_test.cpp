// pipeline::run_timeseries (the seed-004 pipeline) on a generated electricity table, against
// independent recomputations: the column as the generator made it, min-max scaling written out,
// the scores from a model trained alone with the same settings, Tukey's fence from a full sort,
// and the labels counted from the generator's anomalies. Options out of range are refused in the
// library's terms.
#include "zeroflow/pipeline/timeseries_pipeline.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/model/mlp_autoencoder.hpp"
#include "zeroflow/synth/electricity.hpp"

namespace zf = zeroflow;
namespace fs = std::filesystem;

namespace {

struct generated {
  fs::path csv, labels;
  zf::synth::electricity_table table;
};

/// Twenty days of hourly rows with a high anomaly rate, written once.
const generated& table() {
  static const generated g = [] {
    generated t;
    const fs::path dir = fs::temp_directory_path() / ("zf_timeseries_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    zf::synth::electricity_options o;
    o.days = 20;
    o.anomaly_rate = 0.01;
    o.seed = 3;
    t.table = zf::synth::generate_electricity(o);
    t.csv = dir / "electricity.csv";
    t.labels = dir / "electricity.labels.csv";
    zf::synth::write_electricity_csv(t.table, t.csv);
    zf::synth::write_electricity_labels(t.table, t.labels);
    return t;
  }();
  return g;
}

zf::pipeline::timeseries_options options() {
  zf::pipeline::timeseries_options o;
  o.input = table().csv;
  o.column = "7";  // electricity_consumption, as the notebook's iloc[:, 7]
  o.where = zf::pipeline::device_choice::cpu;
  o.epochs = 20;
  o.seed = 5;
  return o;
}

/// The q-quantile from a full sort, interpolated between the order statistics around q (n - 1).
double sorted_quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double at = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(at);
  const auto hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (at - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

TEST(TimeseriesPipeline, ComputesTheSeedPipelineOnTheColumn) {
  const auto o = options();
  const zf::pipeline::timeseries_result r = zf::pipeline::run_timeseries(o);
  const auto& t = table().table;
  const auto& column = t.columns.back();  // electricity_consumption: the last of the generator's columns
  ASSERT_EQ(t.names.back(), "electricity_consumption");
  EXPECT_EQ(r.column, "electricity_consumption");
  ASSERT_EQ(r.rows, t.rows());
  EXPECT_EQ(r.where, zf::cpu_device);
  ASSERT_EQ(r.value.size(), column.size());
  ASSERT_EQ(r.score.size(), column.size());
  EXPECT_EQ(r.epoch_loss.size(), 20u);

  // The values as written (one decimal) and their min-max scaling.
  const auto [lo, hi] = std::minmax_element(r.value.begin(), r.value.end());
  EXPECT_EQ(r.data_min, *lo);
  EXPECT_EQ(r.data_max, *hi);
  for (std::size_t i = 0; i < column.size(); ++i) {
    EXPECT_NEAR(r.value[i], column[i], 0.05 + 1e-4 * std::abs(column[i])) << i;
    EXPECT_NEAR(r.scaled[i], (r.value[i] - r.data_min) / (r.data_max - r.data_min), 1e-6) << i;
  }
  EXPECT_EQ(*std::min_element(r.scaled.begin(), r.scaled.end()), 0.0f);
  EXPECT_EQ(*std::max_element(r.scaled.begin(), r.scaled.end()), 1.0f);

  // The scores of a model trained alone from the same start: the pipeline's, and each the squared
  // reconstruction error.
  auto net = zf::model::mlp_autoencoder::create({1, 32, 32}, zf::cpu_device, o.seed);
  const zf::array scaled = zf::empty({r.rows}, zf::float32);
  std::copy(r.scaled.begin(), r.scaled.end(), scaled.span<float>().begin());
  zf::model::mlp_train_options train;
  train.epochs = o.epochs;
  train.seed = o.seed;
  EXPECT_EQ(net.train(scaled, train).epoch_loss, r.epoch_loss);
  const zf::array alone = net.score(scaled);
  const auto alone_scores = alone.span<const float>();
  for (std::size_t i = 0; i < r.score.size(); ++i) {
    EXPECT_EQ(r.score[i], alone_scores[i]) << i;
    const double error = static_cast<double>(r.reconstruction[i]) - r.scaled[i];
    EXPECT_NEAR(r.score[i], error * error, 1e-6 * std::max(1.0, error * error)) << i;
  }

  // Tukey's fence over the scores, and the points above it.
  const std::vector<double> scores(r.score.begin(), r.score.end());
  const double q1 = sorted_quantile(scores, 0.25), q3 = sorted_quantile(scores, 0.75);
  EXPECT_EQ(r.fence.q1, q1);
  EXPECT_EQ(r.fence.q3, q3);
  EXPECT_EQ(r.threshold, q3 + 1.5 * (q3 - q1));
  std::int64_t above = 0;
  for (std::size_t i = 0; i < scores.size(); ++i) {
    EXPECT_EQ(r.outlier[i], scores[i] > r.threshold ? 1 : 0) << i;
    above += scores[i] > r.threshold;
  }
  EXPECT_EQ(r.outliers, above);
  EXPECT_GT(above, 0);

  std::vector<std::string> stages;
  for (const auto& s : r.stages) stages.push_back(s.name);
  EXPECT_EQ(stages, (std::vector<std::string>{"read", "scale", "train", "score", "threshold"}));
  EXPECT_FALSE(r.evaluation.has_value());
}

TEST(TimeseriesPipeline, EvaluatesAgainstTheColumnsLabels) {
  auto o = options();
  o.column = "electricity_consumption";
  o.labels = table().labels;
  const zf::pipeline::timeseries_result r = zf::pipeline::run_timeseries(o);
  ASSERT_TRUE(r.evaluation.has_value());
  const auto& e = *r.evaluation;
  const auto& t = table().table;
  const int column = static_cast<int>(t.names.size()) - 1;
  std::set<std::int64_t> rows;  // the generator's anomalies in this column (a row may be named once)
  for (const auto& a : t.anomalies)
    if (a.column == column) rows.insert(a.row);
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(e.anomalies, static_cast<std::int64_t>(rows.size()));
  std::int64_t hits = 0;
  for (std::int64_t i = 0; i < r.rows; ++i) {
    const bool labelled = rows.count(i) > 0;
    EXPECT_EQ(e.label[static_cast<std::size_t>(i)], labelled ? 1 : 0) << i;
    hits += labelled && r.outlier[static_cast<std::size_t>(i)];
  }
  ASSERT_TRUE(e.measured);
  EXPECT_EQ(e.flagged_recall, static_cast<double>(hits) / static_cast<double>(rows.size()));
  EXPECT_EQ(e.flagged_precision, static_cast<double>(hits) / static_cast<double>(r.outliers));
  EXPECT_GT(e.auroc, 0.5);
  EXPECT_GT(e.average_precision, 0.0);
}

TEST(TimeseriesPipeline, RefusesOptionsInTheLibrarysTerms) {
  const auto refused = [](const zf::pipeline::timeseries_options& o, const std::string& name) {
    try {
      (void)zf::pipeline::run_timeseries(o);
      ADD_FAILURE() << name << " was taken";
    } catch (const zf::invalid_argument& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(name), std::string::npos) << message;
      EXPECT_EQ(message.find("--"), std::string::npos) << message;  // no command-line flag
    }
  };
  auto o = options();
  o.epochs = -1;
  refused(o, "epochs");
  o = options();
  o.batch = -2;
  refused(o, "batch");
  o = options();
  o.learning_rate = 0;
  refused(o, "learning_rate");
  o = options();
  o.weight_decay = -1e-3;
  refused(o, "weight_decay");
}

TEST(TimeseriesPipeline, AColumnThatIsNotThereIsNamed) {
  auto o = options();
  o.column = "power";
  try {
    (void)zf::pipeline::run_timeseries(o);
    ADD_FAILURE() << "a missing column was taken";
  } catch (const zf::error& e) {
    EXPECT_NE(std::string(e.what()).find("power"), std::string::npos) << e.what();
  }
}

}  // namespace
