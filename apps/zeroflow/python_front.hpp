#pragma once
// Commands whose work runs in Python: `run --scheduler` (zeroflow.dask, many recordings on a Dask
// cluster) and `train-population` (zeroflow.population, torch.distributed). Dask and
// torch.distributed are Python frameworks; rather than a second scheduler or transport in C++, the
// CLI checks its flags and replaces itself (exec) with the Python module's command line, which
// then owns the terminal, signals and exit code. The interpreter is $ZEROFLOW_PYTHON, else python3.
#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

namespace zeroflow::cli {

/// @brief Adds `--scheduler ADDRESS|local` to `run`; the returned string holds what was given.
std::shared_ptr<std::string> add_scheduler_option(CLI::App& run);

/// @brief Runs `run`'s recordings on the Dask cluster at `address` ("local": one on this machine)
/// through `python -m zeroflow.dask`, with every flag given; returns only when Python cannot be
/// started.
/// @throws CLI::ValidationError for an empty address; zeroflow::error when the interpreter cannot
///         be started.
void run_on_scheduler(const CLI::App& run, const std::string& address);

/// @brief Replaces this process with `$ZEROFLOW_PYTHON -c <bootstrap> module args...`, where the
/// bootstrap imports `module` and exits with `module.main(args)`; a module that cannot be imported
/// is one "zeroflow: error:" line that names `needs`.
/// @throws zeroflow::error when the interpreter cannot be started (exec failed).
[[noreturn]] void exec_python_module(const std::string& module, const std::vector<std::string>& args,
                                     const std::string& needs);

}  // namespace zeroflow::cli
