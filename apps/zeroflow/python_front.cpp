#include "python_front.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "commands.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/pipeline/run_option_table.hpp"

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
  if (address.empty()) throw CLI::ValidationError("--scheduler is empty; give a scheduler address or 'local'");
  std::vector<std::string> args = given(run, "INPUT");
  args.insert(args.end(), {"--scheduler", address});
  // Every run option given is forwarded under the library's flag (pipeline::option_flag), which
  // zeroflow.dask's command line takes (it is made from the same table of run options); the
  // front's own flags follow.
  for (const auto& o : pipeline::run_option_table()) {
    const std::string flag = pipeline::option_flag(o);
    if (flag.empty() || o.use == pipeline::option_use::scoring) continue;
    if (run.count(flag) == 0) continue;
    if (o.kind == pipeline::option_kind::flag) {
      args.push_back(flag);
      continue;
    }
    for (const auto& value : given(run, flag)) args.insert(args.end(), {flag, value});
  }
  for (const char* flag : {"--out", "--figures", "--jobs"}) {
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
