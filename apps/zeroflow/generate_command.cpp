#include <filesystem>
#include <memory>

#include "commands.hpp"
#include "zeroflow/synth/ecg.hpp"
#include "zeroflow/synth/ecg_io.hpp"

namespace zeroflow::cli {

namespace {
struct generate_flags {
  synth::ecg_options options;
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
  return csv;
}

void add_generate_flags(CLI::App& cmd, generate_flags& f) {
  cmd.add_option("--hours", f.options.hours, "length of the recording")->capture_default_str()->check(CLI::PositiveNumber);
  cmd.add_option("--sample-rate,-r", f.options.sample_rate, "samples per second")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd.add_option("--anomaly-rate", f.options.anomaly_rate, "fraction of premature ventricular beats")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 0.5));
  cmd.add_option("--heart-rate", f.options.heart_rate_bpm, "mean heart rate (beats per minute)")
      ->capture_default_str()
      ->check(CLI::Range(30.0, 220.0));
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
  auto* cmd = app.add_subcommand(
      "demo", "Generate the default recording (1 h synthetic ECG, 3 % PVCs) and run the whole pipeline on it");
  auto f = std::make_shared<generate_flags>();
  // At 90 bpm a premature beat's compensatory pause (~1.35 RR) still fits the seed's longest kept
  // beat (1.024 s), so the PVCs reach the model; at 70 bpm the seed's pruning drops all of them.
  f->options.heart_rate_bpm = 90;
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
