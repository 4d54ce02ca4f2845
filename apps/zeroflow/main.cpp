// zeroflow: GPU-resident ECG outlier detection from the command line.
// Errors end the program with one readable line on stderr and exit code 1 (usage errors: CLI11's code).
#include <cstdio>
#include <exception>

#include "commands.hpp"
#include "zeroflow/config.hpp"

int main(int argc, char** argv) {
  CLI::App app{"zeroflow " ZEROFLOW_VERSION
               " - GPU-resident, zero-copy ECG outlier detection: load a recording, segment it into heartbeats, "
               "train a VAE, score every beat, write a report."};
  app.require_subcommand(1);
  app.set_version_flag("--version", ZEROFLOW_VERSION);
  zeroflow::cli::add_run(app);
  zeroflow::cli::add_score(app);
  zeroflow::cli::add_generate(app);
  zeroflow::cli::add_demo(app);
  zeroflow::cli::add_evaluate(app);
  zeroflow::cli::add_info(app);
  zeroflow::cli::add_generate_electricity(app);
  zeroflow::cli::add_timeseries(app);
  try {
    app.parse(argc, argv);  // runs the chosen subcommand's callback
    return 0;
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zeroflow: error: %s\n", e.what());
    return 1;
  }
}
