#include <filesystem>
#include <memory>

#include "commands.hpp"
#include "zeroflow/synth/ecg.hpp"
#include "zeroflow/synth/ecg_io.hpp"

namespace zeroflow::cli {

namespace {
struct generate_flags {
  // The library's APB default is 0, which keeps the recordings of older seeds; a new recording
  // holds them, as real ones do.
  synth::ecg_options options = [] {
    synth::ecg_options o;
    o.apb_rate = 0.02;
    return o;
  }();
  std::string out;
  int decimals = 4;
};

std::filesystem::path generate(const generate_flags& f) {
  progress("generating " + std::to_string(f.options.hours) + " h of ECG at " +
           std::to_string(static_cast<int>(f.options.sample_rate)) + " Hz (seed " + std::to_string(f.options.seed) +
           ")");
  const auto recording = synth::generate_ecg(f.options);
  const std::filesystem::path csv = f.out;
  if (csv.has_parent_path()) std::filesystem::create_directories(csv.parent_path());
  synth::write_ecg_csv(recording, csv, f.decimals);
  synth::write_labels_csv(recording, synth::labels_path_for(csv));
  progress("wrote " + csv.string() + " (" + std::to_string(recording.samples.size()) + " samples) and " +
           synth::labels_path_for(csv).string() + " (" + std::to_string(recording.r_peaks.size()) + " beats)");
  // Only recordings asked to hold artefacts get their annotations file, so that a folder of
  // clean recordings has no empty ones.
  if (f.options.noise_bursts_per_hour > 0.0 || f.options.baseline_jumps_per_hour > 0.0) {
    synth::write_artefacts_csv(recording, synth::artefacts_path_for(csv));
    progress("wrote " + synth::artefacts_path_for(csv).string() + " (" + std::to_string(recording.artefacts.size()) +
             " noise bursts and baseline jumps)");
  }
  return csv;
}

void add_generate_flags(CLI::App& cmd, generate_flags& f) {
  cmd.add_option("--hours", f.options.hours, "length of the recording")->capture_default_str()->check(CLI::PositiveNumber);
  cmd.add_option("--sample-rate,-r", f.options.sample_rate, "samples per second")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd.add_option("--anomaly-rate", f.options.anomaly_rate,
                 "fraction of premature ventricular beats, in [0, 0.5); plus --apb-rate below 0.5")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 0.5));
  cmd.add_option("--apb-rate", f.options.apb_rate,
                 "fraction of atrial premature beats (normal QRS, early, no compensatory pause), in [0, 0.5); "
                 "plus --anomaly-rate below 0.5")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 0.5));
  cmd.add_option("--noise-bursts-per-hour", f.options.noise_bursts_per_hour,
                 "muscle-noise bursts (0.3-3 s, QRS-sized) per hour, in [0, 360]; annotated in .artefacts.csv")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 360.0));
  cmd.add_option("--baseline-jumps-per-hour", f.options.baseline_jumps_per_hour,
                 "baseline jumps (0.5-2 mV steps decaying over seconds) per hour, in [0, 360]; annotated in "
                 ".artefacts.csv")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 360.0));
  cmd.add_option("--heart-rate", f.options.heart_rate_bpm, "mean heart rate (beats per minute)")
      ->capture_default_str()
      ->check(CLI::Range(30.0, 200.0));
  cmd.add_option("--noise", f.options.noise_mv, "white noise (mV, standard deviation)")->capture_default_str();
  cmd.add_option("--seed", f.options.seed, "random seed")->capture_default_str();
  cmd.add_option("--decimals", f.decimals, "digits after the decimal point in the CSV")
      ->capture_default_str()
      ->check(CLI::Range(0, 9));
}
}  // namespace

void add_generate(CLI::App& app) {
  auto* cmd = app.add_subcommand("generate", "Write a synthetic ECG (CSV, mV) and its beat labels (.labels.csv)");
  auto f = std::make_shared<generate_flags>();
  add_generate_flags(*cmd, *f);
  cmd->add_option("--out,-o", f->out, "CSV file to write")->required();
  cmd->callback([f] { generate(*f); });
}

void add_demo(CLI::App& app) {
  auto* cmd = app.add_subcommand("demo",
                                  "Generate the default recording (1 h synthetic ECG at 72 bpm, 3 % PVCs, 2 % APBs, "
                                  "noise bursts and baseline jumps) and run the whole pipeline on it");
  auto f = std::make_shared<generate_flags>();
  // A resting heart rate and the disturbances of a real recording: the pipeline has to score
  // every beat, long ones after a compensatory pause included, and rank early normal-looking
  // beats by their rhythm.
  f->options.heart_rate_bpm = 72;
  f->options.noise_bursts_per_hour = 6;
  f->options.baseline_jumps_per_hour = 6;
  add_generate_flags(*cmd, *f);
  auto out = std::make_shared<std::string>("out/demo");
  auto device = std::make_shared<std::string>("auto");
  cmd->add_option("--out,-o", *out, "output folder")->capture_default_str();
  cmd->add_option("--device,-d", *device, "auto, cpu or cuda")->capture_default_str()->check(
      CLI::IsMember({"auto", "cpu", "cuda"}));
  cmd->callback([f, out, device] {
    f->out = (std::filesystem::path(*out) / "recording.csv").string();
    const auto csv = generate(*f);
    // The same code path as `zeroflow run`.
    std::vector<std::string> args{"zeroflow", "run", csv.string(), "--out", *out, "--device", *device,
                                  "--sample-rate", std::to_string(f->options.sample_rate)};
    CLI::App runner;
    add_run(runner);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    runner.parse(static_cast<int>(argv.size()), argv.data());
  });
}

}  // namespace zeroflow::cli
