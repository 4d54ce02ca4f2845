// The seed-004 pipeline (docs/architecture.md): `generate-electricity` writes a multi-column consumption
// table with labelled anomalies (standing in for the notebook's Kaggle file, which cannot be
// downloaded here), and `timeseries` takes one column of such a CSV through min-max scaling on the
// device, the notebook's MLP autoencoder and a reconstruction-error score per point.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "input_checks.hpp"
#include "io_flag.hpp"
#include "results_folder.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/atomic_file.hpp"
#include "zeroflow/io/csv.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/min_max.hpp"
#include "zeroflow/synth/ecg_io.hpp"
#include "zeroflow/synth/electricity.hpp"

#if ZEROFLOW_HAS_TORCH
#include "zeroflow/eval/metrics.hpp"
#include "zeroflow/model/mlp_autoencoder.hpp"
#endif

namespace zeroflow::cli {

namespace {

// ---- generate-electricity ----------------------------------------------------------------

struct electricity_flags {
  synth::electricity_options options;
  std::string out;
  bool force = false;
};

void generate_electricity_files(const electricity_flags& f) {
  const std::filesystem::path csv = f.out;
  if (csv.filename().empty() || csv.filename() == "." || csv.filename() == "..")
    throw CLI::ValidationError("--out \"" + f.out +
                               "\" names no file; give the CSV file to write, e.g. electricity.csv");
  std::error_code ec;
  if (std::filesystem::is_directory(csv, ec))
    ZF_THROW(error, csv.string(), " is a folder; give the CSV file to write, e.g. ",
             (csv / "electricity.csv").string());
  const std::filesystem::path labels = synth::labels_path_for(csv);
  for (const auto& file : {csv, labels}) require_replaceable_file(file, "the table");
  // Both files are written beside each other in a staging folder and moved in together: a failure
  // or an interrupt leaves neither, and an earlier table is replaced (--force) only by a whole one.
  results_request request;
  request.out = csv.has_parent_path() ? csv.parent_path() : std::filesystem::path(".");
  request.force = f.force;
  request.names = {csv.filename().string(), labels.filename().string()};
  std::size_t rows = 0, anomalies = 0;
  write_results(request, [&](const std::filesystem::path& staging) {
    char what[160];
    std::snprintf(what, sizeof what, "generating %g days of electricity consumption, a row every %g min (seed %llu)",
                  f.options.days, f.options.step_minutes, static_cast<unsigned long long>(f.options.seed));
    progress(what);
    const auto table = synth::generate_electricity(f.options);
    synth::write_electricity_csv(table, staging / csv.filename());
    synth::write_electricity_labels(table, staging / labels.filename());
    rows = static_cast<std::size_t>(table.rows());
    anomalies = table.anomalies.size();
  });
  progress("wrote " + csv.string() + " (" + std::to_string(rows) + " rows) and " + labels.string() + " (" +
           std::to_string(anomalies) + " anomalous points)");
}

// ---- timeseries --------------------------------------------------------------------------

struct timeseries_flags {
  std::string input;
  io::io_method io = io::io_method::automatic;
  std::string column;
  std::string out;
  std::string device = "auto";
  std::string labels;
  int epochs = 100;
  std::int64_t batch = 0;
  double learning_rate = 0.01;
  double weight_decay = 1e-5;
  std::uint64_t seed = 42;
  bool force = false;
};

#if ZEROFLOW_HAS_TORCH

/// A column given as digits is a 0-based index (the notebook's `iloc[:, 7]`); anything else a name.
io::column_ref column_of(const std::string& text) {
  std::size_t index = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), index);
  if (!text.empty() && ec == std::errc{} && end == text.data() + text.size()) return index;
  return text;
}

device device_of(const std::string& choice) {
  if (choice == "cpu") return cpu_device;
  if (choice == "cuda") {
    require_cuda("--device cuda");
    return cuda_device(0);
  }
  return cuda_available() ? cuda_device(0) : cpu_device;
}

/// Stage times; on a GPU each stage ends with a synchronisation, so its time is its own.
class stage_clock {
 public:
  explicit stage_clock(device where) : where_{where}, last_{std::chrono::steady_clock::now()}, first_{last_} {}
  void end(const std::string& name) {
    if (where_.type == device_type::cuda) synchronize(stream_view{});
    const auto now = std::chrono::steady_clock::now();
    stages_.emplace_back(name, std::chrono::duration<double, std::milli>(now - last_).count());
    last_ = now;
    char line[96];
    std::snprintf(line, sizeof line, "%s: %.1f ms", name.c_str(), stages_.back().second);
    progress(line);
  }
  [[nodiscard]] nlohmann::json json() const {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [name, ms] : stages_) j[name] = ms;
    return j;
  }
  [[nodiscard]] double total_ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - first_).count();
  }

 private:
  device where_;
  std::chrono::steady_clock::time_point last_, first_;
  std::vector<std::pair<std::string, double>> stages_;
};

std::vector<float> host_floats(const array& a) {
  const array h = a.where() == cpu_device ? a : copy_to(a, cpu_device);
  const auto s = h.span<const float>();
  return {s.begin(), s.end()};
}

/// The q-quantile with linear interpolation (numpy.quantile's default), of a copy.
double quantile(std::vector<float> v, double q) {
  const double at = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(at));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(lo), v.end());
  const double low = v[lo];
  if (lo + 1 >= v.size()) return low;
  const double high = *std::min_element(v.begin() + static_cast<std::ptrdiff_t>(lo) + 1, v.end());
  return low + (at - static_cast<double>(lo)) * (high - low);
}

void put(std::string& line, double v) {
  char number[48];
  const auto [end, ec] = std::to_chars(number, number + sizeof number, v, std::chars_format::general, 9);
  line.append(number, ec == std::errc{} ? end : number);
}

/// A labels file read before the work.
struct timeseries_labels {
  std::filesystem::path path;
  std::vector<synth::labelled_point> points;
};

/// The labels to evaluate against: --labels, else INPUT's .labels.csv when it is there. As for
/// `zeroflow run`, one that cannot be read or parsed is a warning and the run goes on without
/// evaluation; it is said before the work, not after it.
std::optional<timeseries_labels> labels_of(const timeseries_flags& f, const std::filesystem::path& input) {
  std::filesystem::path path = f.labels;
  std::error_code ec;
  if (path.empty() && std::filesystem::exists(std::filesystem::symlink_status(synth::labels_path_for(input), ec)))
    path = synth::labels_path_for(input);
  if (path.empty()) return std::nullopt;
  try {
    require_readable_file(path, "labels");  // a FIFO would wait for a writer forever
    return timeseries_labels{path, synth::read_electricity_labels(path)};
  } catch (const std::exception& e) {
    progress("warning: labels " + path.string() + ": " + e.what() + "; the run goes on without evaluation");
    return std::nullopt;
  }
}

/// The pipeline itself: writes points.csv and summary.json into `folder`; returns the line that
/// says what it found.
std::string write_timeseries(const timeseries_flags& f, const std::filesystem::path& input, device where,
                             const std::optional<timeseries_labels>& labels, const std::filesystem::path& folder,
                             const std::filesystem::path& out) {
  stage_clock clock(where);
  if (where.type == device_type::cuda) {
    io::prepare_csv_reads(where);  // the CUDA context and the parser's staging, not the read's
    clock.end("cuda_init");
  }

  io::csv_options read;
  read.columns = {column_of(f.column)};
  read.where = where;
  read.io = f.io;
  read.blank = io::blank_lines::refuse;  // rows are points in time, and labels name them by row
  const table t = io::read_csv(input, read);
  const array values = t.columns.at(0);
  const std::string column = t.names.at(0);
  const std::int64_t n = values.size();
  ZF_EXPECTS(n >= 1, input.string(), ": column \"", column, "\" has no rows");
  clock.end("read");

  const signal::min_max_scaling scaling = signal::min_max_fit(values, {0.0, 1.0}, {});
  const array scaled = signal::min_max_transform(values, scaling.scale, scaling.offset, std::nullopt, {});
  clock.end("scale");

  auto net = model::mlp_autoencoder::create({1, 32, 32}, where, f.seed);
  model::mlp_train_options o;
  o.epochs = f.epochs;
  o.batch = f.batch;
  o.learning_rate = f.learning_rate;
  o.weight_decay = f.weight_decay;
  o.seed = f.seed;
  const model::mlp_train_result trained = net.train(scaled, o);
  clock.end("train");

  const array score = net.score(scaled);
  const array reconstruction = net.reconstruct(scaled);
  clock.end("score");

  const auto v = host_floats(values), s = host_floats(scaled), r = host_floats(reconstruction), e = host_floats(score);
  // The estimators' contamination="auto": Tukey's fence over the errors.
  const double q1 = quantile(e, 0.25), q3 = quantile(e, 0.75);
  const double threshold = q3 + 1.5 * (q3 - q1);
  std::int64_t flagged = 0;
  for (float x : e) flagged += x > threshold;

  std::vector<std::uint8_t> label;
  std::int64_t labelled = 0;
  if (labels) {
    label.assign(static_cast<std::size_t>(n), 0);
    for (const auto& p : labels->points)
      if (p.column == column && p.row >= 0 && p.row < n)
        labelled += !label[static_cast<std::size_t>(p.row)], label[static_cast<std::size_t>(p.row)] = 1;
  }
  clock.end("threshold");

  io::write_atomically(folder / "points.csv", [&](std::ostream& file) {
    file << (label.empty() ? "row,value,scaled,reconstruction,score,outlier\n"
                           : "row,value,scaled,reconstruction,score,outlier,label\n");
    std::string line;
    for (std::int64_t i = 0; i < n; ++i) {
      const auto k = static_cast<std::size_t>(i);
      line = std::to_string(i);
      for (double x : {static_cast<double>(v[k]), static_cast<double>(s[k]), static_cast<double>(r[k]),
                       static_cast<double>(e[k])}) {
        line += ',';
        put(line, x);
      }
      line += e[k] > threshold ? ",1" : ",0";
      if (!label.empty()) line += label[k] ? ",1" : ",0";
      line += '\n';
      file << line;
    }
  });
  clock.end("write");

  nlohmann::json summary = {
      {"input", std::filesystem::absolute(input).string()},
      {"column", column},
      {"rows", n},
      {"device", where.name()},
      {"model", "MLP autoencoder 1-32-32-32-1, ReLU, sigmoid output (the seed-004 notebook)"},
      {"parameters", net.parameter_count()},
      {"epochs", f.epochs},
      {"batch", f.batch == 0 ? nlohmann::json("all rows") : nlohmann::json(f.batch)},
      {"learning_rate", f.learning_rate},
      {"weight_decay", f.weight_decay},
      {"seed", f.seed},
      {"data_min", host_floats(scaling.data_min).at(0)},
      {"data_max", host_floats(scaling.data_max).at(0)},
      {"loss", trained.epoch_loss},
      {"final_loss", trained.epoch_loss.empty() ? nlohmann::json(nullptr) : nlohmann::json(trained.epoch_loss.back())},
      {"score", "mean squared reconstruction error of the min-max scaled value; higher = more anomalous"},
      {"threshold",
       {{"rule", "Q3 + 1.5 IQR of the scores (Tukey's fence)"}, {"value", threshold}, {"outliers", flagged}}},
      {"stages_ms", clock.json()},
      {"total_ms", clock.total_ms()},
  };
  if (!label.empty()) {
    nlohmann::json evaluation = {{"labels", std::filesystem::absolute(labels->path).string()}, {"anomalies", labelled}};
    if (labelled > 0 && labelled < n) {
      evaluation["auroc"] = eval::auroc(std::span<const float>(e), std::span<const std::uint8_t>(label));
      evaluation["average_precision"] =
          eval::average_precision(std::span<const float>(e), std::span<const std::uint8_t>(label));
      std::int64_t hits = 0;
      for (std::size_t k = 0; k < e.size(); ++k) hits += label[k] && e[k] > threshold;
      evaluation["flagged_precision"] = flagged > 0 ? static_cast<double>(hits) / static_cast<double>(flagged) : 0.0;
      evaluation["flagged_recall"] = static_cast<double>(hits) / static_cast<double>(labelled);
    }
    summary["evaluation"] = evaluation;
  }
  io::write_atomically(folder / "summary.json", [&](std::ostream& file) { file << summary.dump(2) << '\n'; });
  return "wrote " + (out / "points.csv").string() + " and " + (out / "summary.json").string() + ": " +
         std::to_string(flagged) + " of " + std::to_string(n) + " points above the threshold";
}

void run_timeseries(const timeseries_flags& f) {
  // Everything that can be refused is refused before the work: an input that is no regular file,
  // a GPU that is not there, labels that cannot be read (a warning), earlier results without --force.
  const std::filesystem::path input = f.input;
  require_readable_file(input, "table");
  const device where = device_of(f.device);
  const auto labels = labels_of(f, input);
  results_request request;
  request.out = f.out;
  request.force = f.force;
  request.inputs = {input};
  if (labels) request.inputs.push_back(labels->path);
  std::string done;
  write_results(request, [&](const std::filesystem::path& staging) {
    done = write_timeseries(f, input, where, labels, staging, request.out);
  });
  progress(done);
}

#endif

}  // namespace

void add_generate_electricity(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "generate-electricity",
      "Write a synthetic electricity-consumption table (CSV: ID, datetime, temperature, pressure, windspeed, "
      "residential, commercial, electricity_consumption) with daily and weekly cycles, holidays and labelled "
      "anomalies (.labels.csv). It stands in for the Kaggle file of the seed-004 notebook, which cannot be downloaded "
      "here.");
  auto f = std::make_shared<electricity_flags>();
  cmd->add_option("--out,-o", f->out, "CSV file to write (and its .labels.csv beside it)")->required();
  cmd->add_flag("--force,-f", f->force, "replace an earlier table of that name and its labels");
  cmd->add_option("--days", f->options.days, "days from 2013-07-01")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 100000.0));
  cmd->add_option("--step-minutes", f->options.step_minutes, "minutes between rows")
      ->capture_default_str()
      ->check(CLI::Range(0.01, 10080.0));
  cmd->add_option("--anomaly-rate", f->options.anomaly_rate,
                  "chance per row and consumption column that an anomaly (spike, dip, outage) starts, in [0, 0.1]")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 0.1));
  cmd->add_option("--seed", f->options.seed, "random seed")->capture_default_str();
  cmd->callback([f] { generate_electricity_files(*f); });
}

void add_timeseries(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "timeseries",
      "The seed-004 pipeline on one column of a CSV: min-max scale on the device, train the notebook's MLP "
      "autoencoder (1-32-32-32-1), score every point by its reconstruction error; writes DIR/points.csv and "
      "DIR/summary.json");
  auto f = std::make_shared<timeseries_flags>();
  cmd->add_option("INPUT", f->input, "CSV file with a header")->required()->check(CLI::ExistingFile);
  cmd->add_option("--column,-c", f->column, "the column: its name, or its 0-based index")->required();
  cmd->add_option("--out,-o", f->out, "output folder")->required();
  cmd->add_flag("--force,-f", f->force,
                "replace the results of an earlier run in --out: all of them together, and only once this run has "
                "succeeded");
  add_io_flag(*cmd, f->io);
  cmd->add_option("--device,-d", f->device, "auto (GPU when present), cpu or cuda")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  cmd->add_option("--epochs", f->epochs, "training epochs (the notebook: 100)")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000000));
  cmd->add_option("--batch", f->batch, "rows per Adam step; 0: all rows in one step, as the notebook")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 31));
  cmd->add_option("--learning-rate", f->learning_rate, "Adam's learning rate")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--weight-decay", f->weight_decay, "Adam's L2 weight decay")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--seed", f->seed, "seed of the initial weights")->capture_default_str();
  cmd->add_option("--labels", f->labels,
                  "anomaly labels (row,datetime,column,kind) to evaluate against; default: INPUT's .labels.csv when "
                  "present")
      ->check(CLI::ExistingFile);
#if ZEROFLOW_HAS_TORCH
  cmd->callback([f] { run_timeseries(*f); });
#else
  cmd->callback([] {
    throw error(
        "`zeroflow timeseries` needs LibTorch: this zeroflow was built with ZEROFLOW_TORCH=OFF; rebuild "
        "with LibTorch (scripts/setup installs it)");
  });
#endif
}

}  // namespace zeroflow::cli
