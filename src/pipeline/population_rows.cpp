/// @file population_rows.cpp
/// load_population_rows (population_rows.hpp): each recording read and segmented as a run does, on
/// the CPU or a GPU, the rows gathered into one array and shared with the group by broadcasts.
#include "zeroflow/pipeline/population_rows.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "zeroflow/config.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/byte_fields.hpp"
#include "zeroflow/io/recording.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/memory/mapped_resource.hpp"
#include "zeroflow/pipeline/ecg_pipeline.hpp"
#include "zeroflow/signal/segment.hpp"

#if ZEROFLOW_HAS_CUDA
#include <cuda_runtime_api.h>

#include "zeroflow/core/detail/cuda_check.hpp"
#endif

namespace zeroflow::pipeline {

namespace {

/// One recording's rows and how they were made, or why it gave none.
struct recording_rows {
  array rows;
  model::row_provenance provenance;
  std::string why_skipped;
};

recording_rows read_one(const std::filesystem::path& path, const population_input& input, device where,
                        stream_view stream) {
  recording_rows out;
  double stated_rate = 0;  // what the file says, when it says
  bool contradicts_given_rate = false;
  try {
    io::recording_options read = input.read;
    read.where = where;
    const io::recording r = io::read_recording(path, read, stream);
    stated_rate = r.sample_rate;
    contradicts_given_rate =
        stated_rate > 0 && input.sample_rate_explicit && !io::same_sample_rate(stated_rate, input.sample_rate);
    if (!contradicts_given_rate) {
      signal::segment_params params;  // the robust segmentation's defaults, as `zeroflow run` uses them
      params.sample_rate = stated_rate > 0 ? stated_rate : input.sample_rate;
      signal::segmentation seg = signal::segment_recording(r.signal, params, stream);
      const std::int64_t n = seg.beats.rows.valid() ? seg.beats.rows.shape(0) : 0;
      ZF_EXPECTS(n >= 8, "only ", n, " beats were found; is the sample rate (", params.sample_rate,
                 " Hz) right for this recording?");
      out.rows = seg.beats.rows;
      out.provenance = rows_made_by(params, seg.sizes);
    }
  } catch (const error& e) {
    out.why_skipped = e.what();
    return out;
  }
  // A rate given for all the recordings that one of them contradicts is a mistake in the command,
  // not a recording to leave out: the rest would train a model of another rate than asked for.
  ZF_EXPECTS(!contradicts_given_rate, path.string(), " is recorded at ", stated_rate, " Hz, but ", input.sample_rate,
             " Hz was given for every recording; leave the sample rate out (files that state theirs are believed)");
  return out;
}

/// The group's sum of `values` (host doubles), through `where`'s memory as its group needs.
void sum_over(model::gradient_group& group, device where, std::vector<double>& values, stream_view stream) {
  const auto n = static_cast<std::int64_t>(values.size());
  if (where.type == device_type::cpu) {
    group.sum(values.data(), n, stream);
    return;
  }
  const std::size_t bytes = values.size() * sizeof(double);
  array shared = empty({n}, float64, where, stream);
  copy_bytes(shared.data(), where, values.data(), cpu_device, bytes, stream);
  group.sum(static_cast<double*>(shared.data()), n, stream);
  copy_bytes(values.data(), cpu_device, shared.data(), where, bytes, stream);
}

}  // namespace

population_rows load_population_rows(const population_input& input, device where, model::gradient_group* group) {
  ZF_EXPECTS(!input.recordings.empty(), "population training needs at least one recording");
  ZF_EXPECTS(where.type == device_type::cpu || where.type == device_type::cuda,
             "population rows are made on the CPU or a GPU, not on ", where.name());
#if ZEROFLOW_HAS_CUDA
  std::optional<zeroflow::detail::cuda_device_guard> on;
  if (where.type == device_type::cuda) on.emplace(where.id);
#else
  ZF_EXPECTS(where.type == device_type::cpu, "population rows on ", where.name(),
             " need a build of zeroflow with CUDA");
#endif
  const int rank = group != nullptr ? group->rank() : 0;
  const int ranks = group != nullptr ? group->size() : 1;
  const auto count = static_cast<std::int64_t>(input.recordings.size());
  const stream_view stream{};
  population_rows out;
  out.beats.assign(static_cast<std::size_t>(count), 0);

  // This process's share, and per recording (beats, width, sample rate) for the whole group.
  std::vector<recording_rows> mine(static_cast<std::size_t>(count));
  std::vector<double> facts(static_cast<std::size_t>(3 * count), 0.0);
  for (std::int64_t i = rank; i < count; i += ranks) {
    const auto& path = input.recordings[static_cast<std::size_t>(i)];
    recording_rows& r = mine[static_cast<std::size_t>(i)];
    r = read_one(path, input, where, stream);
    if (!r.why_skipped.empty()) {
      // Readers name the file themselves; others' reasons get its name in front.
      const bool named = r.why_skipped.rfind(path.string(), 0) == 0;
      out.skipped.push_back(named ? r.why_skipped : path.string() + ": " + r.why_skipped);
      continue;
    }
    facts[static_cast<std::size_t>(3 * i)] = static_cast<double>(r.rows.shape(0));
    facts[static_cast<std::size_t>(3 * i + 1)] = static_cast<double>(r.rows.shape(1));
    facts[static_cast<std::size_t>(3 * i + 2)] = r.provenance.sample_rate;
    // One line per recording when they are few, else one per twentieth of this process's share.
    const std::int64_t mine_count = (count - rank + ranks - 1) / ranks, done = i / ranks + 1;
    if (input.progress && rank == 0 && (mine_count <= 20 || done % ((mine_count + 19) / 20) == 0 || done == mine_count))
      input.progress(mine_count <= 20 ? "read " + path.string() + ": " + std::to_string(r.rows.shape(0)) + " beats"
                                      : "read " + std::to_string(done) + " of " + std::to_string(mine_count) +
                                            " recordings in this process");
  }
  if (group != nullptr) sum_over(*group, where, facts, stream);

  // One model scores only rows made like its training rows: one width and one sample rate.
  std::int64_t width = 0, total = 0, first = -1;
  io::fnv1a64 identity;
  for (std::int64_t i = 0; i < count; ++i) {
    const auto beats = static_cast<std::int64_t>(facts[static_cast<std::size_t>(3 * i)]);
    const auto w = static_cast<std::int64_t>(facts[static_cast<std::size_t>(3 * i + 1)]);
    const double rate = facts[static_cast<std::size_t>(3 * i + 2)];
    out.beats[static_cast<std::size_t>(i)] = beats;
    // A recording changed since a checkpoint was made (its size) makes another run.
    std::error_code ec;
    const auto size = std::filesystem::file_size(input.recordings[static_cast<std::size_t>(i)], ec);
    identity.add(input.recordings[static_cast<std::size_t>(i)].string() + '\n' + std::to_string(beats) + '\n' +
                 std::to_string(ec ? -1 : static_cast<long long>(size)) + '\n');
    if (beats == 0) continue;
    if (first < 0) {
      first = i;
      width = w;
      out.provenance.sample_rate = rate;
    }
    ZF_EXPECTS(w == width && io::same_sample_rate(rate, out.provenance.sample_rate),
               "the recordings' beats differ: ", input.recordings[static_cast<std::size_t>(first)].string(),
               " has rows of ", width, " samples at ", out.provenance.sample_rate, " Hz, ",
               input.recordings[static_cast<std::size_t>(i)].string(), " of ", w, " samples at ", rate,
               " Hz; one model scores only rows made like its training rows, so train one per "
               "sample rate");
    total += beats;
  }
  ZF_EXPECTS(total > 0, "no recording gave beats",
             out.skipped.empty() ? std::string() : " (" + out.skipped.front() + ")");
  identity.add("lead " + input.read.lead + ", " + std::to_string(out.provenance.sample_rate) + " Hz\n");
  char hash[40];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(identity.value()));
  out.identity = std::to_string(count) + " recordings, fnv1a64:" + hash;

  // Every row in one array: in host memory for the CPU; on the GPU when it fits the budget, else
  // in host memory mapped into it.
  array host;
  if (where.type == device_type::cpu) {
    out.rows = empty({total, width}, float32, where);
  } else {
#if ZEROFLOW_HAS_CUDA
    const auto bytes = static_cast<std::size_t>(total * width) * sizeof(float);
    std::size_t budget = input.device_budget;
    if (budget == 0) {
      std::size_t free_bytes = 0, total_bytes = 0;
      ZF_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
      budget = free_bytes - free_bytes / 4;
    }
    out.mapped = bytes > budget;
    if (out.mapped) {
      host = empty({total, width}, float32, stream, std::make_shared<memory::mapped_resource>(where.id));
      out.rows = memory::mapped_device_view(host, where);
    } else {
      out.rows = empty({total, width}, float32, where, stream);
    }
#endif
  }
  // Broadcasts need device memory at both ends: mapped rows pass through a staging buffer.
  std::int64_t largest = 0;
  for (const std::int64_t b : out.beats) largest = std::max(largest, b);
  const array staging = out.mapped ? empty({largest, width}, float32, where, stream) : array{};
  std::int64_t offset = 0;
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t beats = out.beats[static_cast<std::size_t>(i)];
    if (beats == 0) continue;
    auto* target = static_cast<float*>(out.rows.data()) + offset * width;
    auto* through = out.mapped ? static_cast<float*>(staging.data()) : target;
    const auto n_bytes = static_cast<std::size_t>(beats * width) * sizeof(float);
    const array& own = mine[static_cast<std::size_t>(i)].rows;
    if (own.valid()) {
      const array contiguous = own.is_contiguous() ? own : copy_to(own, where, stream);
      copy_bytes(through, where, contiguous.data(), where, n_bytes, stream);
    }
    if (group != nullptr) group->broadcast(through, beats * width, static_cast<int>(i % ranks), stream);
    if (out.mapped) copy_bytes(target, where, through, where, n_bytes, stream);
    offset += beats;
  }
  synchronize(stream);
  // How the rows were made follows from the rate alone (the robust segmentation's windows), the
  // same in every process whichever read the recordings.
  signal::segment_params params;
  params.sample_rate = out.provenance.sample_rate;
  out.provenance = rows_made_by(params, signal::sizes_for(params));
  return out;
}

}  // namespace zeroflow::pipeline
