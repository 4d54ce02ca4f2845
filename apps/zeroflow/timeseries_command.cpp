// The seed-004 pipeline (docs/architecture.md): `generate-electricity` writes a multi-column consumption
// table with labelled anomalies (standing in for the notebook's Kaggle file, which cannot be
// downloaded here), and `timeseries` runs pipeline::run_timeseries on one column of such a CSV (min-max
// scaling on the device, the notebook's MLP autoencoder, a reconstruction-error score per point) and
// writes its result. This file handles the arguments and the files; the work is the library's.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <system_error>

#include "commands.hpp"
#include "input_checks.hpp"
#include "results_folder.hpp"
#include "run_option_flags.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/file_loading.hpp"
#include "zeroflow/pipeline/stage_clock.hpp"
#include "zeroflow/pipeline/timeseries_pipeline.hpp"
#include "zeroflow/report/timeseries_outputs.hpp"
#include "zeroflow/synth/ecg_io.hpp"
#include "zeroflow/synth/electricity.hpp"

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

pipeline::device_choice device_of(const std::string& choice) {
  if (choice == "cpu") return pipeline::device_choice::cpu;
  if (choice == "cuda") {
    require_cuda("--device cuda");  // refused before the work, in the command's terms
    return pipeline::device_choice::cuda;
  }
  return pipeline::device_choice::automatic;
}

/// The labels to evaluate against: --labels, else INPUT's .labels.csv when it is there. As for
/// `zeroflow run`, one that cannot be read or parsed is a warning and the run goes on without
/// evaluation; it is said before the work, not after it.
std::optional<std::filesystem::path> labels_of(const timeseries_flags& f, const std::filesystem::path& input) {
  std::filesystem::path path = f.labels;
  std::error_code ec;
  if (path.empty() && std::filesystem::exists(std::filesystem::symlink_status(synth::labels_path_for(input), ec)))
    path = synth::labels_path_for(input);
  if (path.empty()) return std::nullopt;
  try {
    require_readable_file(path, "labels");  // a FIFO would wait for a writer forever
    (void)synth::read_electricity_labels(path);
    return path;
  } catch (const std::exception& e) {
    progress("warning: labels " + path.string() + ": " + e.what() + "; the run goes on without evaluation");
    return std::nullopt;
  }
}

void run_timeseries(const timeseries_flags& f) {
  // Everything that can be refused is refused before the work: an input that is no regular file,
  // a GPU that is not there, labels that cannot be read (a warning), earlier results without --force.
  pipeline::timeseries_options o;
  o.input = f.input;
  require_readable_file(o.input, "table");
  o.column = f.column;
  o.where = device_of(f.device);
  o.io = f.io;
  o.labels = labels_of(f, o.input);
  o.epochs = f.epochs;
  o.batch = f.batch;
  o.learning_rate = f.learning_rate;
  o.weight_decay = f.weight_decay;
  o.seed = f.seed;
  o.progress = [](const std::string& line) { progress(line); };
  results_request request;
  request.out = f.out;
  request.force = f.force;
  request.inputs = {o.input};
  if (o.labels) request.inputs.push_back(*o.labels);
  std::int64_t flagged = 0, rows = 0;
  write_results(request, [&](const std::filesystem::path& staging) {
    pipeline::timeseries_result r = pipeline::run_timeseries(o);
    pipeline::stage_clock stage(r.stages, stream_view{}, o.progress, pipeline::stage_lines::times);
    stage("write", [&] { report::write_timeseries_points(r, staging / "points.csv"); });
    r.total_ms += r.stages.back().milliseconds;
    report::write_timeseries_summary(r, o, staging / "summary.json");
    flagged = r.outliers;
    rows = r.rows;
  });
  progress("wrote " + (request.out / "points.csv").string() + " and " + (request.out / "summary.json").string() + ": " +
           std::to_string(flagged) + " of " + std::to_string(rows) + " points above the threshold");
}

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
  // The loading method is a run option: its flag, help and check are the table's.
  add_run_option_flag(*cmd, "io", [f](const std::string& text) { f->io = io::parse_io_method(text); });
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
  cmd->callback([f] { run_timeseries(*f); });
}

}  // namespace zeroflow::cli
