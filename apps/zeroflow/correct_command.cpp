// zeroflow correct RESULTS CORRECTIONS: a reader's corrections (re-labelled beats and families, AF
// episodes removed or added: report/corrections.hpp) applied to a run's results, which are
// rewritten as one set.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "commands.hpp"
#include "input_checks.hpp"
#include "results_folder.hpp"
#include "zeroflow/report/corrections.hpp"

namespace zeroflow::cli {

namespace {

struct correct_flags {
  std::filesystem::path results, corrections;
};

void correct(const correct_flags& f) {
  // Read and checked before anything in the folder is touched.
  require_readable_file(f.corrections, "corrections");
  const auto fix = report::read_corrections(f.corrections);
  const bool report_there = std::filesystem::exists(f.results / "report.html");
  report::correction_outcome done;
  results_request request;
  request.out = f.results;
  request.force = true;  // replacing these results is what the command is for
  request.names = report::corrected_result_names();
  request.inputs = {f.corrections};
  write_results(request, [&](const std::filesystem::path& staging) {
    done = report::write_corrected_results(f.results, fix, staging);
  });
  progress("corrected " + f.results.string() + ": " + std::to_string(done.beats_relabelled) +
           " beats re-labelled, AF episodes " + std::to_string(done.episodes_before) + " -> " +
           std::to_string(done.episodes_after) + "; beats.csv, beats.atr, episodes.csv, events.csv, summary.json" +
           (report_there ? " and report.html rewritten" : " rewritten"));
}

}  // namespace

void add_correct(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "correct",
      "Apply a reader's corrections to a run's results: beats or whole shape families re-labelled (N, S, V, Q) and AF "
      "episodes removed or added, from the JSON file the report page exports (docs/holter.md gives its format). "
      "beats.csv, beats.atr, episodes.csv, events.csv, summary.json (classes, the Holter figures and a record of "
      "the corrections) and report.html are rewritten together, or not at all; the scores are kept");
  auto flags = std::make_shared<correct_flags>();
  cmd->add_option("RESULTS", flags->results,
                  "output folder of `zeroflow run` or `zeroflow score` (robust segmentation)")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd->add_option("CORRECTIONS", flags->corrections, "the corrections (JSON), e.g. corrections.json from the report")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->callback([flags] { correct(*flags); });
}

}  // namespace zeroflow::cli
