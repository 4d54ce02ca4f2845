#pragma once
// The subcommands of the zeroflow tool; each registers its options on a CLI11 app and
// returns the callback that runs it.
#include <CLI/CLI.hpp>
#include <functional>

namespace zeroflow::cli {

// Each registers its subcommand and the callback that runs it (CLI11 calls it from parse()).
void add_run(CLI::App& app);                   // run INPUT --out DIR
void add_score(CLI::App& app);                 // score INPUT --model M --out DIR
void add_generate(CLI::App& app);              // generate --hours H --out FILE.csv
void add_demo(CLI::App& app);                  // generate the default recording and run it
void add_info(CLI::App& app);                  // versions, devices, memory
void add_evaluate(CLI::App& app);              // evaluate OUT_DIR --labels FILE
void add_generate_electricity(CLI::App& app);  // generate-electricity --out FILE.csv (seed-004)
void add_timeseries(CLI::App& app);            // timeseries FILE.csv --column NAME --out DIR (seed-004)
void add_train_population(CLI::App& app);      // train-population A B ... --out MODEL (zeroflow.population)
void add_correct(CLI::App& app);               // correct RESULTS CORRECTIONS.json (a reader's corrections)

/// One progress line on stderr, prefixed with the elapsed time.
void progress(const std::string& line);

}  // namespace zeroflow::cli
