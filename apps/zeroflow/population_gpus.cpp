// zeroflow train-population with zeroflow's own trainers (population_gpus.hpp): on the CPU in this
// process; on GPUs one process per GPU, NCCL between them.
//
// Why processes and not threads: NCCL, CUDA graphs and the memory manager are per process, a
// crashed GPU takes down only its process (the others are stopped), and the same program runs
// one process per GPU on other machines too. Why this launcher and not torchrun: it needs no
// Python; the group's rendezvous is NCCL's own (its identity made here, passed on the command line).
#include "population_gpus.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "commands.hpp"
#include "run_option_flags.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/model/nccl_group.hpp"
#include "zeroflow/model/population.hpp"
#include "zeroflow/model/vae.hpp"
#include "zeroflow/pipeline/chunked.hpp"
#include "zeroflow/pipeline/population_training.hpp"

extern char** environ;

namespace zeroflow::cli {

namespace {

/// The command line of GPU `rank`'s process: these flags, with its rank and the group.
std::vector<std::string> rank_arguments(const population_run_flags& f, int rank) {
  std::vector<std::string> a{"zeroflow", "train-population"};
  a.insert(a.end(), f.inputs.begin(), f.inputs.end());
  a.insert(a.end(), {"--out",
                     f.out,
                     "--device",
                     "cuda",
                     "--gpus",
                     std::to_string(f.gpus),
                     "--epochs",
                     std::to_string(f.epochs),
                     "--batch",
                     std::to_string(f.batch),
                     "--seed",
                     std::to_string(f.seed),
                     "--checkpoint",
                     checkpoint_path(f).string(),
                     "--checkpoint-every",
                     std::to_string(f.checkpoint_every),
                     "--rank",
                     std::to_string(rank),
                     "--group",
                     f.group});
  if (f.sample_rate_given) {
    char rate[40];
    std::snprintf(rate, sizeof rate, "%.17g", f.sample_rate);
    a.insert(a.end(), {"--sample-rate", rate});
  }
  if (!f.lead.empty()) a.insert(a.end(), {"--lead", f.lead});
  if (!f.max_device_memory.empty()) a.insert(a.end(), {"--max-device-memory", f.max_device_memory});
  if (f.resume) a.emplace_back("--resume");
  if (f.force) a.emplace_back("--force");
  return a;
}

/// Starts one process per GPU and waits for them all; when one fails, the others are stopped
/// (they would wait for it forever in the group's next sum).
int start_and_wait(population_run_flags f) {
  f.group = model::nccl_group::new_identity();
  std::vector<pid_t> children;
  const auto stop_all = [&] {
    for (const pid_t c : children)
      if (c > 0) kill(c, SIGTERM);
  };
  for (int rank = 0; rank < f.gpus; ++rank) {
    std::vector<std::string> args = rank_arguments(f, rank);
    std::vector<char*> argv;
    for (auto& s : args) argv.push_back(s.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int failed = posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv.data(), environ);
    if (failed != 0) {
      stop_all();
      ZF_THROW(error, "cannot start the process of GPU ", rank, ": ", std::strerror(failed));
    }
    children.push_back(pid);
  }
  int code = 0;
  for (std::size_t left = children.size(); left > 0; --left) {
    int status = 0;
    const pid_t done = waitpid(-1, &status, 0);
    if (done < 0) {
      if (errno == EINTR) {
        ++left;
        continue;
      }
      break;
    }
    int rank = 0;
    for (std::size_t k = 0; k < children.size(); ++k)
      if (children[k] == done) {
        rank = static_cast<int>(k);
        children[k] = -1;
      }
    const int child_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (child_code != 0 && code == 0) {
      code = child_code;
      std::fprintf(stderr, "zeroflow: the process of GPU %d stopped (exit status %d); stopping the others\n", rank,
                   child_code);
      stop_all();
    }
  }
  return code;
}

std::string seconds_text(double s) {
  char text[32];
  if (s < 120)
    std::snprintf(text, sizeof text, "%.1f s", s);
  else
    std::snprintf(text, sizeof text, "%.1f min", s / 60);
  return text;
}

}  // namespace

// Whether `path` is a safetensors file whose metadata names `format` (a model or a checkpoint
// zeroflow wrote): read from its header alone, so a large recording costs 8 bytes.
bool zeroflow_file_of_format(const std::filesystem::path& path, const std::string& format) {
  std::ifstream in(path, std::ios::binary);
  unsigned char size_bytes[8] = {};
  if (!in.read(reinterpret_cast<char*>(size_bytes), 8)) return false;
  std::uint64_t size = 0;
  for (int i = 7; i >= 0; --i) size = (size << 8) | size_bytes[i];
  if (size < 2 || size > (1U << 20)) return false;
  std::string header(size, '\0');
  if (!in.read(header.data(), static_cast<std::streamsize>(size))) return false;
  const auto json = nlohmann::json::parse(header, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return false;
  const auto meta = json.find("__metadata__");
  if (meta == json.end() || !meta->is_object()) return false;
  const auto f = meta->find("format");
  return f != meta->end() && f->is_string() && f->get<std::string>() == format;
}

std::filesystem::path checkpoint_path(const population_run_flags& f) {
  return f.checkpoint.empty() ? std::filesystem::path(f.out + ".checkpoint") : std::filesystem::path(f.checkpoint);
}

int train_population_own(const population_run_flags& f) {
  if (!f.cpu) {
    require_cuda("train-population on GPUs (--device cuda)");
    const int gpus = cuda_device_count();
    ZF_EXPECTS(gpus >= f.gpus, "training on ", f.gpus, " GPUs needs as many; this machine has ", gpus);
  }
  const std::filesystem::path checkpoint = checkpoint_path(f);
  const bool leader = f.rank <= 0;
  if (f.rank < 0) {
    // Refused before any process starts or any recording is read.
    ZF_EXPECTS(f.resume || f.force || !std::filesystem::exists(checkpoint), "an interrupted run left ",
               checkpoint.string(), ": add --resume to continue it, or --force to start over");
    // --force starts over by replacing the checkpoint: only one a run left.
    ZF_EXPECTS(!f.force || f.resume || !std::filesystem::exists(checkpoint) ||
                   zeroflow_file_of_format(checkpoint, "zeroflow-population-checkpoint"),
               checkpoint.string(), " is not a zeroflow population checkpoint; --force starts over by replacing only ",
               "a checkpoint a run left: give another --checkpoint");
    ZF_EXPECTS(!f.resume || std::filesystem::exists(checkpoint), "--resume: there is no checkpoint ",
               checkpoint.string(), " to continue from");
    if (!f.max_device_memory.empty()) (void)pipeline::parse_byte_size(f.max_device_memory);
    if (f.gpus > 1) return start_and_wait(f);
  }
  if (f.rank >= 0) {
    // A process of the group ends with the process that started it (killed by a scheduler, say),
    // rather than waiting for the others forever.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    ZF_EXPECTS(getppid() != 1, "the process that started GPU ", f.rank, "'s process has ended");
  }
  const int rank = std::max(f.rank, 0);
  if (!f.cpu) cuda_initialize(rank);
  if (f.cpu && f.threads > 0) model::set_cpu_threads(f.threads);
  const device where = f.cpu ? cpu_device : cuda_device(rank);
  std::unique_ptr<model::nccl_group> group;
  if (f.gpus > 1) group = std::make_unique<model::nccl_group>(f.group, rank, f.gpus);

  pipeline::population_job job;
  for (const auto& p : f.inputs) job.input.recordings.emplace_back(p);
  job.input.read.lead = f.lead;
  job.input.sample_rate = f.sample_rate;
  job.input.sample_rate_explicit = f.sample_rate_given;
  if (!f.max_device_memory.empty())
    job.input.device_budget = static_cast<std::size_t>(pipeline::parse_byte_size(f.max_device_memory));
  job.input.progress = progress;
  job.progress = progress;
  job.out = f.out;
  job.training.epochs = f.epochs;
  job.training.batch = f.batch;
  job.training.seed = f.seed;
  job.training.checkpoint = checkpoint;
  job.training.checkpoint_every = f.checkpoint_every;
  job.training.resume = f.resume;
  const auto started = std::chrono::steady_clock::now();
  job.training.on_epoch = [&](int epoch, double loss) {
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    char line[160];
    std::snprintf(line, sizeof line, "epoch %d/%d  loss %.6f  (%s so far)", epoch + 1, f.epochs, loss,
                  seconds_text(t).c_str());
    progress(line);
  };
  const std::string on = f.cpu ? "the CPU (" + std::to_string(model::cpu_threads()) + " threads)"
                               : std::to_string(f.gpus) + (f.gpus == 1 ? " GPU" : " GPUs");
  if (leader) progress("reading and segmenting " + std::to_string(f.inputs.size()) + " recordings on " + on);
  const pipeline::population_job_result r = pipeline::train_population_model(job, where, group.get());
  for (const auto& s : r.skipped) std::fprintf(stderr, "zeroflow: skipped %s\n", in_flag_terms(s).c_str());
  if (leader) {
    const model::population_result& t = r.training;
    const double trained = static_cast<double>(t.steps) * static_cast<double>(f.batch);
    const std::string resumed =
        t.first_epoch > 0 ? " (resumed after " + std::to_string(t.first_epoch) + ")" : std::string();
    std::printf(
        "trained %d epochs%s on %lld beats of %lld recordings on %s: %.3f s, %.4g beats/s%s; final loss %.6f, "
        "test loss %.6f; wrote %s\n",
        f.epochs - t.first_epoch, resumed.c_str(), static_cast<long long>(r.beats),
        static_cast<long long>(r.recordings), on.c_str(), t.train_seconds,
        t.train_seconds > 0 ? trained / t.train_seconds / (f.cpu ? 1 : f.gpus) : 0.0, f.cpu ? "" : " per GPU",
        t.epoch_loss.back(), t.test_loss, f.out.c_str());
  }
  return 0;
}

}  // namespace zeroflow::cli
