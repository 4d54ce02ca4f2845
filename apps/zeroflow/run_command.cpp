#include <filesystem>
#include <memory>

#include "commands.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/pipeline/ecg_pipeline.hpp"
#include "zeroflow/report/outputs.hpp"
#include "zeroflow/report/png_figures.hpp"
#include "zeroflow/synth/ecg_io.hpp"

namespace zeroflow::cli {

namespace {

struct run_flags {
  pipeline::run_options options;
  std::string device = "auto";
  std::string out = "out";
  std::string labels;
  std::string model;
  std::string figures = "none";
};

void add_pipeline_flags(CLI::App& cmd, run_flags& f, bool training) {
  cmd.add_option("INPUT", f.options.input, "CSV recording (one value per line, or several columns)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd.add_option("--out,-o", f.out,
                 "output folder: beats.csv, summary.json, report.html, model.pt (figures/ with --figures png)")
      ->capture_default_str();
  cmd.add_option("--column,-c", f.options.column, "column name or 0-based index (default: the first column)");
  cmd.add_option("--sample-rate,-r", f.options.segmentation.sample_rate, "samples per second of the recording")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
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
         "--normalize",
         [&f](const std::string& how) { f.options.segmentation.normalize_rows = how == "robust"; },
         "rows for the model: robust (z-score by the recording's median and MAD, unit-free) or none "
         "(raw samples, as the seed; its losses are then comparable)")
      ->default_str("robust")
      ->check(CLI::IsMember({"robust", "none"}));
  cmd.add_option("--labels", f.labels,
                 "R-peak labels (sample,label) to evaluate against (default: INPUT's .labels.csv when present)");
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

void run_pipeline(run_flags& f, bool training) {
  auto& o = f.options;
  // Said before the pipeline runs, not after minutes of training.
  if (f.figures == "png" && !ZEROFLOW_HAS_CAIRO)
    throw error("--figures png: this zeroflow was built without cairo; install libcairo2-dev and rebuild");
  o.where = pipeline::parse_device_choice(f.device);
  o.progress = progress;
  if (!f.labels.empty()) {
    o.labels = f.labels;
  } else if (auto guess = synth::labels_path_for(o.input); std::filesystem::exists(guess)) {
    o.labels = guess;
  }
  if (!training) o.model = f.model;
  const std::filesystem::path out = f.out;
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
           (result.quality ? ", sensitivity " + std::to_string(100 * result.quality->sensitivity) +
                                 " %, AUROC " + std::to_string(result.quality->auroc)
                           : std::string{}));
}

}  // namespace

void add_run(CLI::App& app) {
  auto* cmd = app.add_subcommand("run", "Run the whole pipeline on a recording: segment, train, score, report");
  auto flags = std::make_shared<run_flags>();
  add_pipeline_flags(*cmd, *flags, true);
  cmd->callback([flags] { run_pipeline(*flags, true); });
}

void add_score(CLI::App& app) {
  auto* cmd = app.add_subcommand("score", "Score a recording's beats with a model trained by `zeroflow run`");
  auto flags = std::make_shared<run_flags>();
  add_pipeline_flags(*cmd, *flags, false);
  cmd->add_option("--model,-m", flags->model, "model.pt written by `zeroflow run`")->required()->check(CLI::ExistingFile);
  cmd->callback([flags] { run_pipeline(*flags, false); });
}

}  // namespace zeroflow::cli
