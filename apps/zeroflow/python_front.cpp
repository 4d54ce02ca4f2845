#include "python_front.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "commands.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::cli {

namespace {

// Imports the module and hands it the arguments; an import that fails (no zeroflow, no dask, no
// torch in that interpreter) is one line, as every failure of the tool is.
constexpr const char* bootstrap =
    "import importlib, sys\n"
    "try:\n"
    "    m = importlib.import_module(sys.argv[1])\n"
    "except ImportError as e:\n"
    "    sys.stderr.write('zeroflow: error: ' + sys.argv[2] + ', which ' + sys.executable + ' cannot import (' + "
    "str(e) + '); install it there or set ZEROFLOW_PYTHON to an interpreter that has it\\n')\n"
    "    sys.exit(1)\n"
    "sys.exit(m.main(sys.argv[3:]))\n";

// Flags of `run` that the Dask front forwards as given (zeroflow.dask's command line takes them).
constexpr const char* forwarded[] = {"--out",      "--lead",           "--sample-rate", "--device", "--min-beat",
                                     "--max-beat", "--min-peak-ratio", "--threads",     "--epochs", "--batch",
                                     "--seed"};

/// The value given to `name`, when it was given (empty otherwise).
std::vector<std::string> given(const CLI::App& cmd, const std::string& name) {
  const auto* option = cmd.get_option_no_throw(name);
  if (option == nullptr || option->count() == 0) return {};
  return option->results();
}

}  // namespace

std::shared_ptr<std::string> add_scheduler_option(CLI::App& run) {
  auto address = std::make_shared<std::string>();
  run.add_option("--scheduler", *address,
                 "run the recordings as Dask tasks on the cluster at this address (tcp://host:8786), or on a local "
                 "one ('local': one worker per GPU, else per CPU core); needs Python with zeroflow and dask "
                 "($ZEROFLOW_PYTHON, else python3); docs/scaling.md");
  return address;
}

void run_on_scheduler(const CLI::App& run, const std::string& address) {
  // What the Python pipeline does not take is refused, not silently dropped.
  const std::pair<const char*, const char*> only_default[] = {
      {"--segmentation", "robust"}, {"--normalize", "robust"}, {"--figures", "none"}, {"--model", "lightvae"}};
  for (const auto& [flag, value] : only_default) {
    const auto values = given(run, flag);
    if (!values.empty() && values.front() != value)
      throw CLI::ValidationError(std::string(flag) + " " + values.front() +
                                 " is not available with --scheduler, which runs the default pipeline on every "
                                 "recording; leave it out, or run without --scheduler");
  }
  // The workers read raw recordings as one channel taken as stored; other layouts are not forwarded.
  for (const char* flag : {"--channels", "--gain"})
    if (!given(run, flag).empty())
      throw CLI::ValidationError(std::string(flag) +
                                 " is not available with --scheduler, whose workers read a raw recording as one "
                                 "channel of samples taken as stored; leave it out, or run without --scheduler");
  if (!given(run, "--labels").empty())
    throw CLI::ValidationError(
        "--labels is not available with --scheduler: each recording's labels are read from beside it "
        "(NAME.labels.csv)");
  if (address.empty()) throw CLI::ValidationError("--scheduler is empty; give a scheduler address or 'local'");
  std::vector<std::string> args = given(run, "INPUT");
  args.insert(args.end(), {"--scheduler", address});
  for (const char* flag : forwarded) {
    const auto values = given(run, flag);
    if (!values.empty()) args.insert(args.end(), {flag, values.front()});
  }
  if (run.count("--force") > 0) args.emplace_back("--force");
  if (given(run, "--out").empty()) args.insert(args.end(), {"--out", "out"});  // run's default
  exec_python_module("zeroflow.dask", args, "--scheduler needs the zeroflow Python module with dask[distributed]");
}

void exec_python_module(const std::string& module, const std::vector<std::string>& args, const std::string& needs) {
  const char* env = std::getenv("ZEROFLOW_PYTHON");
  const std::string python = env != nullptr && *env != '\0' ? env : "python3";
  std::vector<std::string> words{python, "-c", bootstrap, module, needs};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  ::execvp(python.c_str(), argv.data());
  const int err = errno;
  ZF_THROW(error, needs, ": the Python interpreter '", python, "' cannot be started (", std::strerror(err),
           "); install Python 3 with zeroflow, or set ZEROFLOW_PYTHON to its path (e.g. .venv/bin/python)");
}

}  // namespace zeroflow::cli
