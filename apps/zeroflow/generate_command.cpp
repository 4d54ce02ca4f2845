#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <system_error>
#include <vector>

#include "commands.hpp"
#include "flag_checks.hpp"
#include "input_checks.hpp"
#include "interrupt.hpp"
#include "output_folders.hpp"
#include "results_folder.hpp"
#include "zeroflow/core/error.hpp"
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
  bool force = false;  ///< --force: an existing recording (and its labels) may be replaced
};

/// A recording's files: the CSV, its labels and its artefacts annotations.
std::vector<std::filesystem::path> recording_files(const std::filesystem::path& csv) {
  return {csv, synth::labels_path_for(csv), synth::artefacts_path_for(csv)};
}

void remove_files(const std::vector<std::filesystem::path>& files) noexcept {
  for (const auto& file : files) {
    std::error_code ec;
    std::filesystem::remove(file, ec);
  }
}

/// What can be refused before generating: flags that only make sense together, a folder given as
/// the file, and a recording larger than the disk or the memory.
void check_generate(const generate_flags& f) {
  const auto& o = f.options;
  if (!(o.anomaly_rate + o.apb_rate < 0.5))  // a usage error, like a flag out of its range
    throw CLI::ValidationError(
        zeroflow::detail::concat("--anomaly-rate ", o.anomaly_rate, " plus --apb-rate ", o.apb_rate,
                                 " must be below 0.5: every premature beat follows a normal one"));
  const double samples = std::round(o.hours * 3600.0 * o.sample_rate);
  if (!(samples < 0x1.0p33))
    throw CLI::ValidationError(zeroflow::detail::concat("--hours ", o.hours, " at --sample-rate ", o.sample_rate,
                                                        " Hz is ", static_cast<long long>(samples),
                                                        " samples; one recording holds at most 2^33 - 1 (8589934591)"));
  const std::filesystem::path csv = f.out;
  if (csv.empty()) throw CLI::ValidationError("--out is empty; name the CSV file to write");
  std::error_code ec;
  if (std::filesystem::is_directory(csv, ec))
    ZF_THROW(error, csv.string(), " is a folder; give the CSV file to write, e.g. ", (csv / "recording.csv").string());
  for (const auto& file : recording_files(csv)) {
    require_replaceable_file(file, "the recording");
    std::error_code exists_ec;
    if (!f.force && std::filesystem::exists(file, exists_ec))
      ZF_THROW(error, file.string(), " exists; add --force to replace it (the recording, its .labels.csv and ",
               ".artefacts.csv together), or choose another --out");
  }
  // A line is a sign, a digit, the point, the decimals and a line break; a labels line ~20 bytes.
  const double beats = o.hours * 60.0 * o.heart_rate_bpm * 1.1;
  require_room_for_recording(csv, samples, f.decimals + 4.0, beats * 20.0);
}

/// Generates the recording and writes its files; `wrote` is told of each file once it is in place.
template <class Wrote>
void generate_files(const generate_flags& f, const std::filesystem::path& csv, Wrote&& wrote) {
  progress("generating " + std::to_string(f.options.hours) + " h of ECG at " +
           std::to_string(static_cast<int>(f.options.sample_rate)) + " Hz (seed " + std::to_string(f.options.seed) +
           ")");
  const auto recording = synth::generate_ecg(f.options);
  synth::write_ecg_csv(recording, csv, f.decimals);
  wrote(csv);
  synth::write_labels_csv(recording, synth::labels_path_for(csv));
  wrote(synth::labels_path_for(csv));
  progress("wrote " + csv.string() + " (" + std::to_string(recording.samples.size()) + " samples) and " +
           synth::labels_path_for(csv).string() + " (" + std::to_string(recording.r_peaks.size()) + " beats)");
  // Only recordings asked to hold artefacts get their annotations file, so that a folder of
  // clean recordings has no empty ones; one left by a recording this one replaces goes.
  const auto artefacts = synth::artefacts_path_for(csv);
  if (f.options.noise_bursts_per_hour > 0.0 || f.options.baseline_jumps_per_hour > 0.0) {
    synth::write_artefacts_csv(recording, artefacts);
    wrote(artefacts);
    progress("wrote " + artefacts.string() + " (" + std::to_string(recording.artefacts.size()) +
             " noise bursts and baseline jumps)");
  } else {
    remove_files({artefacts});
  }
}

/// Whether `folder` holds an earlier demo: its summary.json names folder/recording.csv as the input.
bool holds_earlier_demo(const std::filesystem::path& folder) {
  std::ifstream file(folder / "summary.json");
  if (!file) return false;
  const auto summary = nlohmann::json::parse(file, nullptr, /*allow_exceptions=*/false);
  if (!summary.is_object()) return false;
  const auto input = summary.find("input");
  return input != summary.end() && input->is_string() &&
         std::filesystem::path(input->get<std::string>()) == folder / "recording.csv";
}

std::filesystem::path generate(const generate_flags& f) {
  check_generate(f);
  const std::filesystem::path csv = f.out;
  // Its folder, made where missing, goes again when the command fails or is interrupted; so do the
  // files it has finished (each registered once it is in place).
  const output_folder folder = csv.has_parent_path() ? make_output_folder(csv.parent_path()) : output_folder{};
  const undo_on_interrupt remove_folder([folder] { remove_created(folder); });
  const auto parent = csv.has_parent_path() ? csv.parent_path() : std::filesystem::path(".");
  if (::access(parent.c_str(), W_OK | X_OK) != 0) {
    const int why = errno;
    remove_created(folder);
    ZF_THROW(error, "cannot write into ", parent.string(), ": ", std::strerror(why));
  }
  std::vector<std::filesystem::path> written;
  std::vector<std::unique_ptr<undo_on_interrupt>> remove_written;
  try {
    generate_files(f, csv, [&](const std::filesystem::path& file) {
      written.push_back(file);
      remove_written.push_back(std::make_unique<undo_on_interrupt>([file] { remove_files({file}); }));
    });
  } catch (...) {
    if (interrupted()) wait_for_interrupt_exit();
    remove_files(written);
    remove_created(folder);
    throw;
  }
  return csv;
}

void add_generate_flags(CLI::App& cmd, generate_flags& f) {
  cmd.add_option("--hours", f.options.hours, "length of the recording")
      ->capture_default_str()
      ->check(positive_up_to(10000.0, "hours"));
  cmd.add_option("--sample-rate,-r", f.options.sample_rate, "samples per second")
      ->capture_default_str()
      ->check(number_in(lowest_sample_rate, highest_sample_rate, "Hz"));
  cmd.add_option("--anomaly-rate", f.options.anomaly_rate,
                 "fraction of premature ventricular beats, in [0, 0.5); plus --apb-rate below 0.5")
      ->capture_default_str()
      ->check(number_in(0.0, 0.5, "", /*high_open=*/true));
  cmd.add_option("--apb-rate", f.options.apb_rate,
                 "fraction of atrial premature beats (normal QRS, early, no compensatory pause), in [0, 0.5); "
                 "plus --anomaly-rate below 0.5")
      ->capture_default_str()
      ->check(number_in(0.0, 0.5, "", /*high_open=*/true));
  cmd.add_option("--noise-bursts-per-hour", f.options.noise_bursts_per_hour,
                 "muscle-noise bursts (0.3-3 s, QRS-sized) per hour, in [0, 360]; annotated in .artefacts.csv")
      ->capture_default_str()
      ->check(number_in(0.0, 360.0, "per hour"));
  cmd.add_option("--baseline-jumps-per-hour", f.options.baseline_jumps_per_hour,
                 "baseline jumps (0.5-2 mV steps decaying over seconds) per hour, in [0, 360]; annotated in "
                 ".artefacts.csv")
      ->capture_default_str()
      ->check(number_in(0.0, 360.0, "per hour"));
  cmd.add_option("--heart-rate", f.options.heart_rate_bpm, "mean heart rate (beats per minute)")
      ->capture_default_str()
      ->check(number_in(30.0, 200.0, "bpm"));
  cmd.add_option("--noise", f.options.noise_mv, "white noise (mV, standard deviation)")
      ->capture_default_str()
      ->check(number_in(0.0, 10.0, "mV"));
  cmd.add_option("--seed", f.options.seed, "random seed")->capture_default_str()->check(unsigned_integer());
  cmd.add_option("--decimals", f.decimals, "digits after the decimal point in the CSV")
      ->capture_default_str()
      ->check(integer_in(0, 9));
}
}  // namespace

void add_generate(CLI::App& app) {
  auto* cmd = app.add_subcommand("generate", "Write a synthetic ECG (CSV, mV) and its beat labels (.labels.csv)");
  auto f = std::make_shared<generate_flags>();
  add_generate_flags(*cmd, *f);
  cmd->add_option("--out,-o", f->out, "CSV file to write")->required();
  cmd->add_flag("--force,-f", f->force, "replace an existing recording of that name and its .labels.csv");
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
  cmd->add_option("--device,-d", *device, "auto, cpu or cuda")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  auto force = std::make_shared<bool>(false);
  cmd->add_flag("--force,-f", *force, "replace other results in --out (an earlier demo there is always replaced)");
  cmd->callback([f, out, device, force] {
    const std::filesystem::path folder = *out;
    const auto csv = folder / "recording.csv";
    f->out = csv.string();
    // Re-running the demo replaces the earlier demo; anything else (other results, a recording
    // that is not the demo's own) needs --force.
    const bool earlier_demo = holds_earlier_demo(folder);
    const auto earlier = earlier_results(folder, {});
    if (!earlier.empty() && !*force && !earlier_demo) throw error(refusal_to_replace(folder, earlier));
    std::error_code ec;
    if (!*force && !earlier_demo && std::filesystem::exists(csv, ec))
      ZF_THROW(error, csv.string(), " is not the recording of an earlier demo; add --force to replace it, or ",
               "choose another --out");
    f->force = true;  // checked here: the demo's own recording is replaced
    const auto made = make_output_folder(folder);
    const undo_on_interrupt remove_made([made] { remove_created(made); });
    // The demo's recording belongs to its results: a demo that fails or is interrupted takes it along.
    const undo_on_interrupt remove_recording([csv] { remove_files(recording_files(csv)); });
    try {
      (void)generate(*f);
      // The same code path as `zeroflow run`.
      std::vector<std::string> args{"zeroflow",
                                    "run",
                                    csv.string(),
                                    "--out",
                                    *out,
                                    "--device",
                                    *device,
                                    "--sample-rate",
                                    std::to_string(f->options.sample_rate)};
      if (!earlier.empty()) args.emplace_back("--force");
      CLI::App runner;
      add_run(runner);
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      runner.parse(static_cast<int>(argv.size()), argv.data());
    } catch (...) {
      if (interrupted()) wait_for_interrupt_exit();
      remove_files(recording_files(csv));
      remove_created(made);
      throw;
    }
  });
}

}  // namespace zeroflow::cli
