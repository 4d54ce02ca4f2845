// `run` and `score` in a build without LibTorch (ZEROFLOW_TORCH=OFF): there is no model, so no
// pipeline. The subcommands stay in --help and answer with one line saying why, rather than
// vanishing or failing to link. Compiled instead of run_command.cpp (apps/zeroflow/CMakeLists.txt).
#include <string>

#include "commands.hpp"
#include "population_gpus.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::cli {

namespace {

void add_unavailable(CLI::App& app, const std::string& name, const std::string& description) {
  auto* cmd = app.add_subcommand(name, description + " (needs LibTorch, which this build has not)");
  cmd->allow_extras();  // whatever the full command takes, the answer is the one below
  cmd->callback([name] {
    throw error("`zeroflow " + name + "` needs LibTorch: this zeroflow was built with ZEROFLOW_TORCH=OFF; " +
                "rebuild with LibTorch (scripts/setup installs it, scripts/build builds)");
  });
}

}  // namespace

void add_run(CLI::App& app) {
  add_unavailable(app, "run", "Run the whole pipeline on a recording: segment, train, score, report");
}

void add_score(CLI::App& app) {
  add_unavailable(app, "score", "Score a recording's beats with a model trained by `zeroflow run`");
}

std::filesystem::path checkpoint_path(const gpu_population_flags& f) { return f.out + ".checkpoint"; }

int train_population_on_gpus(const gpu_population_flags&) {
  throw error(
      "`zeroflow train-population` on GPUs needs the model layer, which this zeroflow was built without "
      "(ZEROFLOW_TORCH=OFF); train on the CPU (--device cpu) or rebuild with LibTorch");
}

}  // namespace zeroflow::cli
