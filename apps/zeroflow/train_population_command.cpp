// zeroflow train-population: one LightVAE over the beats of many recordings. On GPUs zeroflow's
// own fused training step, one process per GPU with NCCL between them (population_gpus.hpp); on
// CPUs data-parallel with torch.distributed's gloo, in Python (zeroflow.population;
// python_front.hpp says why).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "flag_checks.hpp"
#include "population_gpus.hpp"
#include "python_front.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::cli {

namespace {

struct population_flags {
  std::vector<std::string> inputs;
  std::string out, device = "auto", lead, backend, checkpoint;
  double sample_rate = 250;
  int processes = 1, epochs = 30, batch = 1024, threads = 0, gpus = 1, checkpoint_every = 1, rank = -1;
  std::uint64_t seed = 42;
  std::string group, max_device_memory;
  bool force = false, resume = false;
};

/// The GPU path's flags from the command's.
gpu_population_flags on_gpus(const population_flags& f, const CLI::App& cmd) {
  gpu_population_flags g;
  g.inputs = f.inputs;
  g.out = f.out;
  g.lead = f.lead;
  g.sample_rate = f.sample_rate;
  g.sample_rate_given = cmd.count("--sample-rate") > 0;
  g.epochs = f.epochs;
  g.gpus = f.gpus;
  g.checkpoint_every = f.checkpoint_every;
  g.batch = f.batch;
  g.seed = f.seed;
  g.checkpoint = f.checkpoint;
  g.resume = f.resume;
  g.force = f.force;
  g.rank = f.rank;
  g.group = f.group;
  g.max_device_memory = f.max_device_memory;
  return g;
}

}  // namespace

void add_train_population(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "train-population",
      "Train one VAE on the beats of many recordings; `zeroflow score --model MODEL` then scores any recording "
      "with it. On GPUs: zeroflow's fused training step, --gpus N processes with NCCL between them; on CPUs: "
      "torch.distributed (gloo) in Python, --processes N");
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
  cmd->add_option("--max-device-memory", f->max_device_memory,
                  "GPU path: bytes the beats may take on each GPU (e.g. 40G); beyond it they stay in host memory "
                  "mapped into the GPU (default: its free memory less a quarter)");
  // Given by the process that starts one process per GPU, to each of them.
  cmd->add_option("--rank", f->rank)->group("")->check(integer_in(0, 1023));
  cmd->add_option("--group", f->group)->group("");
  cmd->add_option("--processes,-n", f->processes,
                  "CPU path: data-parallel processes on this machine (torch.distributed, gloo); several machines: "
                  "torchrun, see docs/scaling.md")
      ->capture_default_str()
      ->check(integer_in(1, 4096));
  cmd->add_option("--backend", f->backend, "torch.distributed backend (default: nccl on GPUs, gloo on CPUs)")
      ->check(CLI::IsMember({"gloo", "nccl"}));
  cmd->add_option("--device,-d", f->device, "auto (GPU when present), cpu or cuda")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  cmd->add_option("--lead,--column,-c", f->lead, "the signal to read, by name or 0-based index");
  cmd->add_option("--sample-rate,-r", f->sample_rate, "samples per second of CSV recordings")
      ->capture_default_str()
      ->check(number_in(lowest_sample_rate, highest_sample_rate, "Hz"));
  cmd->add_option("--epochs", f->epochs, "training epochs")->capture_default_str()->check(integer_in(1, 100000));
  cmd->add_option("--batch", f->batch, "beats per optimiser step, over all processes")
      ->capture_default_str()
      ->check(integer_in(1, 1 << 24));
  cmd->add_option("--seed", f->seed, "seed of the split, the shuffles, the noise and the initial weights")
      ->capture_default_str()
      ->check(unsigned_integer());
  cmd->add_option("--threads", f->threads, "PyTorch CPU threads per process (0: its default)")
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
    const bool gpu = f->device == "cuda" || (f->device == "auto" && cuda_available());
    if (gpu && cmd->count("--backend") == 0 && f->processes == 1 && cmd->count("--threads") == 0) {
      const int code = train_population_on_gpus(on_gpus(*f, *cmd));
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
    std::vector<std::string> args = f->inputs;
    args.insert(args.end(), {"--out", f->out, "--processes", std::to_string(f->processes), "--device", f->device,
                             "--epochs", std::to_string(f->epochs), "--batch", std::to_string(f->batch), "--seed",
                             std::to_string(f->seed), "--threads", std::to_string(f->threads)});
    args.insert(args.end(), {"--checkpoint-every", std::to_string(f->checkpoint_every)});
    if (cmd->count("--sample-rate") > 0)
      args.insert(args.end(), {"--sample-rate", cmd->get_option("--sample-rate")->results().front()});
    if (!f->lead.empty()) args.insert(args.end(), {"--lead", f->lead});
    if (!f->backend.empty()) args.insert(args.end(), {"--backend", f->backend});
    if (!f->checkpoint.empty()) args.insert(args.end(), {"--checkpoint", f->checkpoint});
    if (f->force) args.emplace_back("--force");
    if (f->resume) args.emplace_back("--resume");
    exec_python_module("zeroflow.population", args,
                       "train-population needs the zeroflow Python module with torch (torch.distributed)");
  });
}

}  // namespace zeroflow::cli
