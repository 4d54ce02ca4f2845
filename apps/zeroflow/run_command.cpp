#include <chrono>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "commands.hpp"
#include "concurrent_jobs.hpp"
#include "csv_line.hpp"
#include "error_text.hpp"
#include "flag_checks.hpp"
#include "input_checks.hpp"
#include "interrupt.hpp"
#include "output_folders.hpp"
#include "python_front.hpp"
#include "raw_input.hpp"
#include "results_folder.hpp"
#include "run_option_flags.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/atomic_file.hpp"
#include "zeroflow/pipeline/chunked.hpp"
#include "zeroflow/pipeline/ecg_pipeline.hpp"
#include "zeroflow/pipeline/run_option_table.hpp"
#include "zeroflow/report/evaluation_output.hpp"
#include "zeroflow/report/outputs.hpp"
#include "zeroflow/report/png_figures.hpp"
#include "zeroflow/synth/ecg_io.hpp"

namespace zeroflow::cli {

namespace {

struct run_flags {
  std::vector<std::string> inputs;
  given_options given;                          ///< the run options on the command line (run_option_flags.hpp)
  pipeline::run_options options;                ///< made from `given` once parsing is done
  std::optional<std::filesystem::path> labels;  ///< --labels (else each recording's own, beside it)
  std::string out = "out";
  std::string figures = "none";
  bool force = false;
  unsigned jobs = 1;  ///< recordings of a batch at the same time
};

void add_pipeline_flags(CLI::App& cmd, run_flags& f, bool training) {
  cmd.add_option("INPUT", f.inputs,
                 "recording(s): CSV (one value per line, or several columns), WFDB (NAME.hea), EDF/EDF+ "
                 "(NAME.edf) or raw little-endian samples (NAME.f32 float32, NAME.i16 int16, NAME.i32 int32; with "
                 "--sample-rate); with several, each gets OUT/<file name>/ and OUT/runs.csv lists them all")
      ->required()
      ->check(CLI::ExistingFile);
  cmd.add_option("--out,-o", f.out,
                 "output folder: beats.csv, summary.json, report.html, model.safetensors (figures/ with --figures png)")
      ->capture_default_str();
  add_run_option_flags(cmd, training, f.given);
  cmd.add_option("--jobs,-j", f.jobs,
                 "recordings of a batch run at the same time in this process, sharing the GPU (each on a stream "
                 "of its own) or the CPUs; results are the same as one at a time")
      ->capture_default_str()
      ->check(integer_in(1, 64));
  cmd.add_flag("--force,-f", f.force,
               "replace the results of an earlier run in --out: all of them together (figures/, evaluation.json "
               "and a batch's folders included), and only once this run has succeeded");
  cmd.add_option("--figures", f.figures,
                 "also write the report's figures as image files: none, or png (OUT/figures/*.png, 1600x1000, "
                 "for papers and slides)")
      ->capture_default_str()
      ->check(CLI::IsMember({"none", "png"}));
}

/// The run options from the flags given; options that contradict each other are a usage error.
void make_options(run_flags& f) {
  try {
    f.options = pipeline::make_run_options(f.given);
  } catch (const invalid_argument& e) {
    throw CLI::ValidationError(in_flag_terms(e.what()));
  }
  f.labels = f.options.labels;
}

/// What one recording of a batch gave (a line of runs.csv).
struct run_outcome {
  std::string input, out, error;
  std::int64_t samples = 0, beats_found = 0, beats_kept = 0;
  double seconds = 0;
};

/// Runs the pipeline on f.options.input and writes its outputs to `staging`; `out` is where they
/// will be once the run has succeeded (the name progress lines give).
run_outcome run_one(run_flags& f, const std::filesystem::path& staging, const std::filesystem::path& out,
                    bool training) {
  auto& o = f.options;
  o.labels.reset();
  const auto labels = f.labels ? f.labels : pipeline::labels_beside(o.input);
  // Read now, not after training: a labels file that cannot be read is a warning said up front.
  if (labels) o.labels = readable_labels(*labels, &progress);
  const auto result = pipeline::run(o, training ? staging / "model.safetensors" : std::filesystem::path{});
  const auto& say = o.progress;  // this recording's progress lines
  say("writing " + out.string() + "/{beats.csv,summary.json,report.html}");
  report::write_all(result, o, staging);
  if (f.figures == "png") {
    const auto written = report::write_png_figures(result, o, staging / "figures");
    say("wrote " + std::to_string(written.size()) + " PNG figures to " + (out / "figures").string());
  }
  say("done: " + std::to_string(result.length.size()) + " beats, " + std::to_string(result.beats_kept()) + " kept" +
      (!result.quality                         ? std::string{}
       : result.quality->not_evaluated.empty() ? "; " + report::evaluation_line(result.quality->result)
                                               : std::string("; not evaluated against the labels")));
  run_outcome done;
  done.samples = result.samples;
  done.beats_found = static_cast<std::int64_t>(result.length.size());
  done.beats_kept = result.beats_kept();
  return done;
}

/// One line per input; a name a spreadsheet would run as a formula ("=HYPERLINK(...).csv") gets a
/// leading apostrophe, as OWASP advises (csv_field), and folders_listed_in takes it off again.
void write_runs_csv(const std::filesystem::path& path, const std::vector<run_outcome>& runs) {
  io::write_atomically(path, [&](std::ostream& csv) {
    csv << "input,out,status,samples,beats_found,beats_kept,seconds,error\n";
    for (const auto& r : runs)
      csv << csv_field(r.input) << ',' << csv_field(r.out) << ',' << (r.error.empty() ? "ok" : "failed") << ','
          << r.samples << ',' << r.beats_found << ',' << r.beats_kept << ',' << r.seconds << ',' << csv_field(r.error)
          << '\n';
  });
}

/// Checks that need no file: said before anything is read or made.
void check_flags(const run_flags& f) {
  // Said before the pipeline runs, not after minutes of training.
  if (f.figures == "png" && !ZEROFLOW_HAS_CAIRO)
    throw error("--figures png: this zeroflow was built without cairo; install libcairo2-dev and rebuild");
  if (f.out.empty()) throw CLI::ValidationError("--out is empty; name the output folder");
  if (f.inputs.size() > 1 && f.labels)
    throw CLI::ValidationError(
        zeroflow::detail::concat("--labels names one file, but ", f.inputs.size(),
                                 " recordings were given; each recording's labels are read from beside "
                                 "it (NAME.labels.csv)"));
}

/// Earlier results that are inputs of this run (a model scored with, a labels file) are kept.
std::vector<std::filesystem::path> replaceable(const std::filesystem::path& out,
                                               std::vector<std::filesystem::path> earlier, const run_flags& f) {
  std::vector<std::filesystem::path> inputs(f.inputs.begin(), f.inputs.end());
  if (f.options.model) inputs.emplace_back(*f.options.model);
  if (f.labels) inputs.emplace_back(*f.labels);
  return keep_inputs(out, std::move(earlier), inputs);
}

/// Many recordings: one folder each (inside `staging`, moved into `out` with the rest), one process
/// (the GPU, its kernels and LibTorch start once); a recording that fails is reported and skipped,
/// and runs.csv lists every outcome.
std::vector<run_outcome> run_batch(run_flags& f, const std::vector<std::string>& names,
                                   const std::filesystem::path& out, const std::filesystem::path& staging,
                                   bool training) {
  std::vector<run_outcome> runs(f.inputs.size());
  run_concurrently(f.inputs.size(), f.jobs, [&](std::size_t i) {
    progress("recording " + std::to_string(i + 1) + " of " + std::to_string(f.inputs.size()) + ": " + f.inputs[i]);
    run_flags mine = f;  // this recording's own options (run_one fills in its input, labels, model)
    auto& o = mine.options;
    // Lines of recordings that run at the same time say whose they are.
    if (f.jobs > 1) o.progress = [name = names[i]](const std::string& line) { progress(name + ": " + line); };
    o.input = f.inputs[i];
    const auto target = out / names[i];
    const auto folder = staging / names[i];
    const auto start = std::chrono::steady_clock::now();
    run_outcome r;
    try {
      // A link (even one left by someone else) named like the folder would take the outputs elsewhere.
      std::error_code ec;
      const auto status = std::filesystem::symlink_status(target, ec);
      if (std::filesystem::exists(status) && !std::filesystem::is_directory(status))
        throw error("cannot write into " + target.string() + ": it is a link or not a folder; remove it or choose " +
                    "another --out");
      require_readable_recording(o.input, o.record_files);
      std::filesystem::create_directory(folder);
      r = run_one(mine, folder, target, training);
    } catch (const std::exception& e) {
      if (interrupted()) wait_for_interrupt_exit();
      r.error = in_terms_of_out(message_of(e), folder, target);
      o.progress("failed: " + r.error);
      std::error_code ec;
      std::filesystem::remove_all(folder, ec);  // nothing half-written
    }
    r.input = f.inputs[i];
    r.out = target.string();
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    runs[i] = r;
  });
  write_runs_csv(staging / "runs.csv", runs);
  return runs;
}

void run_pipeline(run_flags& f, bool training) {
  make_options(f);
  auto& o = f.options;
  check_flags(f);
  if (o.where == pipeline::device_choice::cuda) (void)pipeline::resolve(o.where);  // no GPU: said now
  o.progress = progress;
  const bool batch = f.inputs.size() > 1;
  if (!batch)
    require_readable_recording(f.inputs.front(), o.record_files);  // a batch reports each recording in runs.csv
  if (!training) require_readable_file(o.model->string(), "model");
  const std::vector<std::string> names =
      batch ? distinct_folder_names(f.inputs, {"runs.csv"}) : std::vector<std::string>{};

  // The results are written to a staging folder in OUT and moved in together once the run has
  // succeeded: a failed or interrupted run leaves OUT as it was (and no OUT it made).
  const std::filesystem::path out = f.out;
  const auto made = make_output_folder(out);
  const undo_on_interrupt remove_made([&made] { remove_created(made); });
  std::vector<run_outcome> runs;
  try {
    const folder_lock lock(out);
    // Every recording's folder is checked now, not when the batch reaches it after the others' work.
    for (std::size_t i = 0; i < names.size(); ++i) {
      std::error_code ec;
      const auto status = std::filesystem::symlink_status(out / names[i], ec);
      if (std::filesystem::exists(status) && !std::filesystem::is_directory(status))
        throw error("cannot write the results of " + f.inputs[i] + " into " + (out / names[i]).string() +
                    ": it is a link or not a folder; remove it or choose another --out");
    }
    const auto earlier = replaceable(out, earlier_results(out, names), f);
    if (!earlier.empty() && !f.force) throw error(refusal_to_replace(out, earlier));
    staged_results staged(out);  // removed again if this run fails or is interrupted
    with_staging_named_as_out(staged.path(), out, [&](const std::filesystem::path& staging) {
      if (batch) {
        runs = run_batch(f, names, out, staging, training);
      } else {
        o.input = f.inputs.front();
        (void)run_one(f, staging, out, training);
      }
    });
    if (!earlier.empty())
      progress("replacing the " + std::to_string(earlier.size()) + " earlier results in " + out.string());
    staged.commit(earlier);
  } catch (...) {
    if (interrupted()) wait_for_interrupt_exit();
    remove_created(made);  // a failed run leaves no folder behind that it made
    throw;
  }
  if (!batch) return;
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
  auto scheduler = add_scheduler_option(*cmd);  // many recordings on a Dask cluster (python_front.hpp)
  cmd->callback([flags, cmd, scheduler] {
    check_raw_input_flags(*cmd, flags->inputs);
    if (cmd->count("--scheduler") > 0) return run_on_scheduler(*cmd, *scheduler);
    run_pipeline(*flags, true);
  });
}

void add_score(CLI::App& app) {
  auto* cmd = app.add_subcommand("score", "Score a recording's beats with a model trained by `zeroflow run`");
  auto flags = std::make_shared<run_flags>();
  add_pipeline_flags(*cmd, *flags, false);
  cmd->get_option("--model")->required()->check(CLI::ExistingFile);
  cmd->callback([flags, cmd] {
    check_raw_input_flags(*cmd, flags->inputs);
    run_pipeline(*flags, false);
  });
}

}  // namespace zeroflow::cli
