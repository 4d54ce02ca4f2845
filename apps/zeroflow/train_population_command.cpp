// zeroflow train-population: one LightVAE over the beats of many recordings, on zeroflow's own
// trainers (population_gpus.hpp): on the CPU in this process, on GPUs one process per GPU with NCCL
// between them. Several CPU processes (--processes, --backend) are data-parallel with
// torch.distributed's gloo, in Python (zeroflow.population; python_front.hpp says why).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "flag_checks.hpp"
#include "population_gpus.hpp"
#include "python_front.hpp"
#include "run_option_flags.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::cli {

namespace {

/// The GPU path's flags (population_gpus.hpp, with the library's defaults) and the CPU path's own.
struct population_flags : population_run_flags {
  std::string device = "auto", backend;
  int processes = 1;
};

/// Whether two paths name one file (both exist and are the same file).
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::error_code ec;
  return std::filesystem::equivalent(a, b, ec) && !ec;
}

/// No command overwrites or removes a file it did not write: the model file and the checkpoint are
/// never one of the recordings or each other, and --force replaces only a model (and removes only
/// a checkpoint) zeroflow wrote.
void check_outputs(const population_flags& f) {
  const std::filesystem::path out = f.out, checkpoint = checkpoint_path(f);
  for (const auto& input : f.inputs) {
    if (same_file(out, input))
      throw CLI::ValidationError("--out " + f.out + " is one of the recordings; choose another file for the model");
    if (same_file(checkpoint, input))
      throw CLI::ValidationError("the checkpoint " + checkpoint.string() +
                                 " is one of the recordings; choose another --checkpoint");
  }
  if (out == checkpoint || same_file(out, checkpoint))
    throw CLI::ValidationError("--out and --checkpoint name one file; give them two");
  // Refused before hours of training rather than when the first file is written.
  for (const auto& [flag, path] : {std::pair{"--out", out}, std::pair{"--checkpoint", checkpoint}}) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
      throw CLI::ValidationError(std::string(flag) + " " + path.string() + " is a folder; give a file in it");
    // A FIFO, a link or a device would be read (waiting for a writer forever) or replaced.
    const auto status = std::filesystem::symlink_status(path, ec);
    if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
      throw CLI::ValidationError(std::string(flag) + " " + path.string() +
                                 " exists and is not a regular file (a FIFO, link or device); give the name of a "
                                 "file to write");
    const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : ".";
    if (!std::filesystem::is_directory(folder, ec))
      throw CLI::ValidationError(std::string(flag) + " " + path.string() + ": the folder " + folder.string() +
                                 " does not exist");
  }
  if (f.force && std::filesystem::exists(out) && !zeroflow_file_of_format(out, "zeroflow-model"))
    throw CLI::ValidationError(f.out +
                               " exists and is not a model zeroflow wrote; --force replaces only a model: "
                               "choose another --out");
}

}  // namespace

void add_train_population(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "train-population",
      "Train one VAE on the beats of many recordings; `zeroflow score --model MODEL` then scores any recording "
      "with it. On GPUs: zeroflow's fused training step, --gpus N processes with NCCL between them; on the CPU: "
      "zeroflow's own kernels over its cores; --processes N: CPU processes with torch.distributed (gloo) in "
      "Python");
  auto f = std::make_shared<population_flags>();
  cmd->add_option("INPUT", f->inputs, "recordings of one sample rate: CSV, WFDB (NAME.hea) or EDF")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--out,-o", f->out, "the model file to write (e.g. population.pt)")->required();
  cmd->add_option("--gpus", f->gpus,
                  "GPUs of this machine to train on together, one process each (NCCL sums their gradients); the "
                  "batch is split among them")
      ->capture_default_str()
      ->check(integer_in(1, 1024));
  add_run_option_flag(
      *cmd, "max_device_memory", [f](const std::string& v) { f->max_device_memory = v; },
      "GPU path: bytes the beats may take on each GPU (e.g. 40G); beyond it they stay in host memory mapped into "
      "the GPU (default: its free memory less a quarter)");
  // Given by the process that starts one process per GPU, to each of them.
  cmd->add_option("--rank", f->rank)->group("")->check(integer_in(0, 1023));
  cmd->add_option("--group", f->group)->group("");
  cmd->add_option("--processes,-n", f->processes,
                  "CPU path: data-parallel processes on this machine, each on zeroflow's trainer, summing through "
                  "torch.distributed's gloo; several machines: torchrun, see docs/scaling.md")
      ->capture_default_str()
      ->check(integer_in(1, 4096));
  cmd->add_option("--backend", f->backend,
                  "CPU processes' transport: gloo (torch.distributed, in Python; the only one, and the default)")
      ->check(CLI::IsMember({"gloo"}));
  cmd->add_option("--device,-d", f->device, "auto (GPU when present), cpu or cuda")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  // The options a run has too: the table's flags, defaults and checks (run_option_table.hpp).
  add_run_option_flag(*cmd, "lead", [f](const std::string& v) { f->lead = v; });
  add_run_option_flag(
      *cmd, "sample_rate",
      [f](const std::string& v) {
        f->sample_rate = std::stod(v);
        f->sample_rate_given = true;
      },
      "samples per second of CSV recordings (WFDB and EDF files state their own)");
  add_run_option_flag(
      *cmd, "epochs", [f](const std::string& v) { f->epochs = std::stoi(v); }, "training epochs");
  add_run_option_flag(
      *cmd, "batch", [f](const std::string& v) { f->batch = std::stoll(v); },
      "beats per optimiser step, over all GPUs or processes");
  add_run_option_flag(
      *cmd, "seed", [f](const std::string& v) { f->seed = std::stoull(v[0] == '+' ? v.substr(1) : v); },
      "seed of the split, the shuffles, the noise and the initial weights");
  cmd->add_option("--threads", f->threads, "CPU path: threads per process (0: every CPU it may run on)")
      ->capture_default_str()
      ->check(integer_in(0, 4096));
  cmd->add_flag("--force,-f", f->force,
                "replace an existing model file, and start over when an interrupted run left a checkpoint");
  cmd->add_option("--checkpoint", f->checkpoint, "the run's checkpoint file (default: OUT.checkpoint)");
  cmd->add_option("--checkpoint-every", f->checkpoint_every, "epochs between checkpoints (0: none)")
      ->capture_default_str()
      ->check(integer_in(0, 100000));
  cmd->add_flag("--resume", f->resume,
                "continue the interrupted run from its checkpoint (the same settings; --epochs may be raised)");
  cmd->callback([f, cmd] {
    // A usage error on either path, before any process starts or any recording is read.
    if (f->rank < 0 && !f->force && std::filesystem::exists(f->out))
      throw CLI::ValidationError(f->out + " exists; add --force to replace it, or choose another --out");
    if (f->rank < 0) check_outputs(*f);
    const bool gpu = f->device == "cuda" || (f->device == "auto" && cuda_available());
    if (gpu && cmd->count("--backend") == 0 && f->processes == 1 && cmd->count("--threads") == 0) {
      const int code = train_population_own(*f);
      if (code != 0) throw error("population training on " + std::to_string(f->gpus) + " GPUs failed (see above)");
      return;
    }
    if (gpu && f->device == "cuda")
      throw CLI::ValidationError(
          "--processes, --backend and --threads belong to the CPU path (torch.distributed); on GPUs, --gpus N "
          "sets the processes");
    if (f->gpus > 1 || !f->max_device_memory.empty())
      throw CLI::ValidationError(
          "--gpus and --max-device-memory need GPUs (--device cuda, or auto on a machine with them)");
    if (f->processes == 1 && f->backend.empty()) {
      // One CPU process: zeroflow's own trainer, no Python and no torch.
      f->cpu = true;
      const int code = train_population_own(*f);
      if (code != 0) throw error("population training on the CPU failed (see above)");
      return;
    }
    std::vector<std::string> args = f->inputs;
    args.insert(args.end(), {"--out", f->out, "--processes", std::to_string(f->processes), "--device", f->device,
                             "--epochs", std::to_string(f->epochs), "--batch", std::to_string(f->batch), "--seed",
                             std::to_string(f->seed), "--threads", std::to_string(f->threads)});
    args.insert(args.end(), {"--checkpoint-every", std::to_string(f->checkpoint_every)});
    if (f->sample_rate_given)
      args.insert(args.end(), {"--sample-rate", cmd->get_option("--sample-rate")->results().front()});
    if (!f->lead.empty()) args.insert(args.end(), {"--lead", f->lead});
    if (!f->backend.empty()) args.insert(args.end(), {"--backend", f->backend});
    if (!f->checkpoint.empty()) args.insert(args.end(), {"--checkpoint", f->checkpoint});
    if (f->force) args.emplace_back("--force");
    if (f->resume) args.emplace_back("--resume");
    exec_python_module("zeroflow.population", args,
                       "train-population with several CPU processes needs the zeroflow Python module and torch "
                       "(torch.distributed's gloo carries their sums)");
  });
}

}  // namespace zeroflow::cli
