#include <chrono>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "output_folders.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/atomic_file.hpp"
#include "zeroflow/pipeline/ecg_pipeline.hpp"
#include "zeroflow/report/evaluation_output.hpp"
#include "zeroflow/report/outputs.hpp"
#include "zeroflow/report/png_figures.hpp"
#include "zeroflow/synth/ecg_io.hpp"

namespace zeroflow::cli {

namespace {

struct run_flags {
  std::vector<std::string> inputs;
  pipeline::run_options options;
  std::string device = "auto";
  std::string out = "out";
  std::string labels;
  std::string model;
  std::string figures = "none";
};

void add_pipeline_flags(CLI::App& cmd, run_flags& f, bool training) {
  cmd.add_option("INPUT", f.inputs,
                 "recording(s): CSV (one value per line, or several columns), WFDB (NAME.hea) or EDF/EDF+ "
                 "(NAME.edf); with several, each gets OUT/<file name>/ and OUT/runs.csv lists them all")
      ->required()
      ->check(CLI::ExistingFile);
  cmd.add_option("--out,-o", f.out,
                 "output folder: beats.csv, summary.json, report.html, model.pt (figures/ with --figures png)")
      ->capture_default_str();
  cmd.add_option("--lead,--column,-c", f.options.column,
                 "the signal to read, by name or 0-based index: a CSV column (default: the first), a WFDB or EDF "
                 "lead (default: MLII where present, else the first ECG lead)");
  cmd.add_option("--sample-rate,-r", f.options.segmentation.sample_rate,
                 "samples per second of a CSV recording (WFDB and EDF files state their own)")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 1e6));
  cmd.add_option("--device,-d", f.device, "auto (GPU when present), cpu or cuda")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  cmd.add_option("--min-beat", f.options.segmentation.min_beat_seconds, "shortest kept beat, seconds (seed: 0.4)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd.add_option("--max-beat", f.options.segmentation.max_beat_seconds,
                 "longest kept beat, seconds (seed: 1.024; raise it to keep beats before long pauses)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd.add_option("--min-peak-ratio", f.options.segmentation.min_peak_ratio,
                 "drop detections weaker than this fraction of the median band-passed peak (0: the seed's detector)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd.add_option_function<std::string>(
         "--segmentation",
         [&f](const std::string& how) {
           f.options.segmentation.method =
               how == "seed" ? signal::segmentation_method::seed : signal::segmentation_method::robust;
         },
         "how beats are found: robust (adaptive QRS detection; every beat scored by shape and rhythm) or seed "
         "(the seed's NMS gate and length filter, exactly; beats outside --min-beat/--max-beat are not scored)")
      ->default_str("robust")
      ->check(CLI::IsMember({"robust", "seed"}));
  cmd.add_option_function<std::string>(
         "--normalize",
         [&f](const std::string& how) { f.options.segmentation.normalize_rows = how == "robust"; },
         "rows for the model: robust (z-score by the recording's median and MAD, unit-free) or none "
         "(raw samples, as the seed; its losses are then comparable)")
      ->default_str("robust")
      ->check(CLI::IsMember({"robust", "none"}));
  cmd.add_option("--labels", f.labels,
                 "reference beats to evaluate against: a labels CSV (sample,label / sample,symbol / "
                 "sample,symbol,aami) or WFDB annotations (NAME.atr); default: NAME.atr or NAME.labels.csv beside "
                 "INPUT when present. A file that cannot be read is a warning, not a failed run");
  cmd.add_option("--threads", f.options.threads, "CSV parser threads (0: all cores)")->capture_default_str();
  cmd.add_option("--figures", f.figures,
                 "also write the report's figures as image files: none, or png (OUT/figures/*.png, 1600x1000, "
                 "for papers and slides)")
      ->capture_default_str()
      ->check(CLI::IsMember({"none", "png"}));
  if (training) {
    cmd.add_option("--epochs", f.options.epochs, "training epochs")->capture_default_str()->check(CLI::Range(1, 100000));
    cmd.add_option("--batch", f.options.batch, "training batch size")->capture_default_str()->check(CLI::Range(1, 1 << 24));
    cmd.add_option("--seed", f.options.seed, "seed of the shuffle, split and initial weights")->capture_default_str();
  }
}

/// The reference labels that sit beside a recording, if any: NAME.atr for a WFDB record (the
/// MIT-BIH convention), else NAME.labels.csv.
std::optional<std::filesystem::path> labels_beside(const std::filesystem::path& input) {
  auto record = input;
  if (record.extension() == ".hea" || record.extension() == ".dat" || record.extension() == ".edf") {
    if (auto atr = std::filesystem::path(record).replace_extension(".atr"); std::filesystem::exists(atr)) return atr;
  }
  if (auto csv = synth::labels_path_for(input); std::filesystem::exists(csv)) return csv;
  return std::nullopt;
}

/// What one recording of a batch gave (a line of runs.csv).
struct run_outcome {
  std::string input, out, error;
  std::int64_t samples = 0, beats_found = 0, beats_kept = 0;
  double seconds = 0;
};

/// Runs the pipeline on f.options.input and writes its outputs to `out`.
run_outcome run_one(run_flags& f, const std::filesystem::path& out, bool training) {
  auto& o = f.options;
  o.labels.reset();
  if (!f.labels.empty()) {
    o.labels = f.labels;
  } else if (auto guess = labels_beside(o.input)) {
    o.labels = *guess;
  }
  if (!training) o.model = f.model;
  std::filesystem::create_directories(out);
  const auto result = pipeline::run(o, training ? out / "model.pt" : std::filesystem::path{});
  progress("writing " + out.string() + "/{beats.csv,summary.json,report.html}");
  report::write_all(result, o, out);
  if (f.figures == "png") {
    const auto written = report::write_png_figures(result, o, out / "figures");
    progress("wrote " + std::to_string(written.size()) + " PNG figures to " + (out / "figures").string());
  }
  progress("done: " + std::to_string(result.length.size()) + " beats, " + std::to_string(result.beats_kept()) +
           " kept" +
           (!result.quality                         ? std::string{}
            : result.quality->not_evaluated.empty() ? "; " + report::evaluation_line(result.quality->result)
                                                    : std::string("; not evaluated against the labels")));
  run_outcome done;
  done.samples = result.samples;
  done.beats_found = static_cast<std::int64_t>(result.length.size());
  done.beats_kept = result.beats_kept();
  return done;
}

/// One output folder per input, named after its file: a name made safe and distinct (a repeated or
/// clashing name gets -2, -3, ...), never runs.csv, always directly inside `out`.
std::vector<std::filesystem::path> batch_folders(const std::vector<std::string>& inputs, const std::filesystem::path& out) {
  std::vector<std::filesystem::path> folders;
  for (const auto& name : distinct_folder_names(inputs, {"runs.csv"})) folders.push_back(out / name);
  return folders;
}

/// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char ch : text) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return quoted + "\"";
}

void write_runs_csv(const std::filesystem::path& path, const std::vector<run_outcome>& runs) {
  io::write_atomically(path, [&](std::ostream& csv) {
    csv << "input,out,status,samples,beats_found,beats_kept,seconds,error\n";
    for (const auto& r : runs)
      csv << csv_field(r.input) << ',' << csv_field(r.out) << ',' << (r.error.empty() ? "ok" : "failed") << ','
          << r.samples << ',' << r.beats_found << ',' << r.beats_kept << ',' << r.seconds << ','
          << csv_field(r.error) << '\n';
  });
}

void run_pipeline(run_flags& f, bool training, bool sample_rate_given) {
  auto& o = f.options;
  // Said before the pipeline runs, not after minutes of training.
  if (f.figures == "png" && !ZEROFLOW_HAS_CAIRO)
    throw error("--figures png: this zeroflow was built without cairo; install libcairo2-dev and rebuild");
  o.where = pipeline::parse_device_choice(f.device);
  o.sample_rate_explicit = sample_rate_given;
  o.progress = progress;
  if (f.inputs.size() == 1) {  // one recording: its outputs straight in OUT, its error ends the program
    o.input = f.inputs.front();
    const auto folder = make_output_folder(f.out);
    try {
      (void)run_one(f, f.out, training);
    } catch (...) {
      remove_created(folder);  // a failed run leaves no folder behind that it made
      throw;
    }
    return;
  }
  ZF_EXPECTS(f.labels.empty(), "--labels names one file, but ", f.inputs.size(),
             " recordings were given; each recording's labels are read from beside it (NAME.labels.csv)");
  // Many recordings: one folder each, one process (the GPU, its kernels and LibTorch start once);
  // a recording that fails is reported and skipped, and runs.csv lists every outcome.
  const std::filesystem::path out = f.out;
  const auto folders = batch_folders(f.inputs, out);
  (void)make_output_folder(out);  // kept even when every recording fails: runs.csv says why
  std::vector<run_outcome> runs;
  for (std::size_t i = 0; i < f.inputs.size(); ++i) {
    progress("recording " + std::to_string(i + 1) + " of " + std::to_string(f.inputs.size()) + ": " + f.inputs[i]);
    o.input = f.inputs[i];
    const auto start = std::chrono::steady_clock::now();
    output_folder folder;
    run_outcome r;
    try {
      folder = make_output_folder(folders[i], out);
      r = run_one(f, folders[i], training);
    } catch (const std::exception& e) {
      r.error = e.what();
      progress("failed: " + r.error);
      remove_created(folder);  // nothing half-written: only a folder this run made goes with its failure
    }
    r.input = f.inputs[i];
    r.out = folders[i].string();
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    runs.push_back(r);
  }
  write_runs_csv(out / "runs.csv", runs);
  std::size_t failed = 0;
  for (const auto& r : runs) failed += r.error.empty() ? 0 : 1;
  progress("wrote " + (out / "runs.csv").string() + ": " + std::to_string(runs.size() - failed) + " of " +
           std::to_string(runs.size()) + " recordings done");
  if (failed > 0)
    throw error(std::to_string(failed) + " of " + std::to_string(runs.size()) + " recordings failed (see " +
                (out / "runs.csv").string() + ")");
}

}  // namespace

void add_run(CLI::App& app) {
  auto* cmd = app.add_subcommand("run", "Run the whole pipeline on a recording: segment, train, score, report");
  auto flags = std::make_shared<run_flags>();
  add_pipeline_flags(*cmd, *flags, true);
  cmd->callback([flags, cmd] { run_pipeline(*flags, true, cmd->count("--sample-rate") > 0); });
}

void add_score(CLI::App& app) {
  auto* cmd = app.add_subcommand("score", "Score a recording's beats with a model trained by `zeroflow run`");
  auto flags = std::make_shared<run_flags>();
  add_pipeline_flags(*cmd, *flags, false);
  cmd->add_option("--model,-m", flags->model, "model.pt written by `zeroflow run`")->required()->check(CLI::ExistingFile);
  cmd->callback([flags, cmd] { run_pipeline(*flags, false, cmd->count("--sample-rate") > 0); });
}

}  // namespace zeroflow::cli
