#include "zeroflow/pipeline/ecg_pipeline.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <functional>
#include <iomanip>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "beat_model.hpp"
#include "chunked_run.hpp"
#include "figures.hpp"
#include "joint_detection.hpp"
#include "other_leads.hpp"
#include "sample_check.hpp"
#include "zeroflow/classify/beat_classes.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/core/transfers.hpp"
#include "zeroflow/eval/metrics.hpp"
#include "zeroflow/interop/torch_cuda_allocator.hpp"
#include "zeroflow/io/csv.hpp"
#include "zeroflow/io/recording.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/memory/statistics_adaptor.hpp"
#include "zeroflow/model/model_stream_scope.hpp"
#include "zeroflow/model/vae.hpp"
#include "zeroflow/pipeline/stage_clock.hpp"
#include "zeroflow/signal/beat_score.hpp"
#include "zeroflow/signal/warm_up.hpp"
#include "zeroflow/synth/ecg_io.hpp"

namespace zeroflow::pipeline {

device resolve(device_choice choice) {
  switch (choice) {
    case device_choice::cpu:
      return cpu_device;
    case device_choice::cuda:
      require_cuda("`device`=cuda");
      return cuda_device(0);
    case device_choice::automatic:
      return cuda_available() ? cuda_device(0) : cpu_device;
  }
  return cpu_device;
}

model::row_provenance rows_made_by(const signal::segment_params& params, const signal::segment_sizes& sizes) {
  model::row_provenance p;
  p.sample_rate = params.sample_rate;
  p.normalized = params.normalize_rows;
  p.segmentation = signal::segmentation_name(params.method);
  if (params.method == signal::segmentation_method::robust) {
    p.window_before = sizes.window_before;
    p.window_after = sizes.window_after;
  } else {
    p.min_length = sizes.min_length;
    p.max_length = sizes.max_length;
  }
  return p;
}

namespace {

/// Copies a 1-D array to a host std::vector (the final hand-off to the report).
template <class T>
std::vector<T> to_host_vector(const array& a, stream_view stream) {
  if (!a.valid() || a.size() == 0) return {};
  array host = a.where().host_accessible() && a.is_contiguous() ? a : copy_to(a, cpu_device, stream);
  auto s = host.span<const T>();
  return {s.begin(), s.end()};
}

/// Wraps the current resources of `where` (and the host) in statistics adaptors, so the summary
/// can report peak memory. Runs at the same time in other threads (many recordings on one GPU)
/// share the adaptors: the first run in progress on a device installs them, the last one to end
/// puts back what was there. A run's peak is therefore the process's peak while it ran.
class memory_watch {
 public:
  explicit memory_watch(device where) {
    watch(cpu_device);
    if (where.type == device_type::cuda) watch(where);
  }
  ~memory_watch() {
    watches& w = all();
    const std::lock_guard lock(w.mutex);
    for (const auto& [d, stats] : watched_) {
      auto found = w.by_device.find({d.type, d.id});
      if (found == w.by_device.end() || --found->second.users > 0) continue;
      memory::set_current_resource(found->second.previous);
      w.by_device.erase(found);
    }
  }
  memory_watch(const memory_watch&) = delete;
  memory_watch& operator=(const memory_watch&) = delete;
  std::int64_t peak(device_type type) const {
    for (const auto& [d, stats] : watched_)
      if (d.type == type) return static_cast<std::int64_t>(stats->statistics().peak_bytes);
    return 0;
  }

 private:
  struct installed {
    int users = 0;
    memory::resource_ptr previous;
    std::shared_ptr<memory::statistics_adaptor> stats;
  };
  struct watches {
    std::mutex mutex;
    std::map<std::pair<device_type, int>, installed> by_device;
  };
  static watches& all() {
    static watches w;
    return w;
  }
  void watch(device d) {
    watches& w = all();
    const std::lock_guard lock(w.mutex);
    installed& entry = w.by_device[{d.type, d.id}];
    if (entry.users == 0) {
      entry.stats = std::make_shared<memory::statistics_adaptor>(memory::current_resource(d));
      entry.previous = memory::set_current_resource(entry.stats);
    }
    ++entry.users;
    watched_.emplace_back(d, entry.stats);
  }
  std::vector<std::pair<device, std::shared_ptr<memory::statistics_adaptor>>> watched_;
};

/// Why a beat stands out, for a person reading beats.csv: each part of its score that is high,
/// and R–R intervals outside the seed's length bounds.
std::string flags_of(const run_result& r, std::size_t b) {
  std::string flags;
  auto add = [&](const char* f) { flags += flags.empty() ? f : std::string(";") + f; };
  constexpr float notable = 3.0F;  // robust z-scores: three (robust) standard deviations
  if (r.rr_before[b] < 0.85F * r.local_rr[b]) add("early");
  if (r.rr_after[b] > 1.15F * r.rr_before[b] && r.rr_after[b] > 1.1F * r.local_rr[b]) add("pause");
  if (r.rhythm[b] > notable) add("rhythm");
  if (r.morphology[b] > notable) add("shape");
  const double rate = r.sample_rate;
  if (r.rr_after[b] * rate > static_cast<double>(r.sizes.max_length)) add("long");
  if (r.rr_after[b] * rate < static_cast<double>(r.sizes.min_length)) add("short");
  return flags;
}

/// Each row's 2-D latent mean, row after row; NaN for a model without one (the MLP autoencoder).
std::vector<float> latent_means(const model::scores& scored, std::size_t rows, stream_view stream) {
  if (!scored.mu.valid()) return std::vector<float>(2 * rows, std::numeric_limits<float>::quiet_NaN());
  return to_host_vector<float>(scored.mu.reshape({scored.mu.size()}), stream);
}

/// The robust method's hand-off: every detected beat has a row, a score and rhythm features.
void collect_robust(const signal::segmentation& seg, const model::scores& scored, const signal::beat_scores& combined,
                    const model::train_result& trained, const array& grid, run_result& result, stream_view stream) {
  result.peak = to_host_vector<std::int64_t>(seg.peaks, stream);
  result.detected_peaks = result.peak;
  const std::size_t beats = result.peak.size();
  result.start.resize(beats);
  for (std::size_t b = 0; b < beats; ++b)
    result.start[b] = std::max<std::int64_t>(0, result.peak[b] - seg.sizes.window_before);
  const auto intervals = to_host_vector<std::int64_t>(seg.lengths, stream);
  result.length.assign(beats, 0);
  for (std::size_t b = 0; b < beats; ++b)
    result.length[b] = b < intervals.size() ? intervals[b] : (b > 0 ? intervals[b - 1] : 0);
  result.kept.assign(beats, 1);
  result.histogram = to_host_vector<std::int64_t>(seg.histogram, stream);
  result.score = to_host_vector<float>(combined.score, stream);
  result.morphology = to_host_vector<float>(combined.morphology, stream);
  result.rhythm = to_host_vector<float>(combined.rhythm, stream);
  result.rr_before = to_host_vector<float>(seg.rr.rr_before, stream);
  result.rr_after = to_host_vector<float>(seg.rr.rr_after, stream);
  result.local_rr = to_host_vector<float>(seg.rr.local_rr, stream);
  const auto mu = latent_means(scored, beats, stream);
  result.mu0.resize(beats);
  result.mu1.resize(beats);
  for (std::size_t b = 0; b < beats; ++b) result.mu0[b] = mu[2 * b], result.mu1[b] = mu[2 * b + 1];
  result.decoded_grid =
      grid.valid() ? to_host_vector<float>(grid.reshape({grid.size()}), stream) : std::vector<float>{};
  result.split.assign(beats, '-');
  if (result.trained) {
    for (auto row : to_host_vector<std::int64_t>(trained.train_index, stream))
      result.split[static_cast<std::size_t>(row)] = 't';
    for (auto row : to_host_vector<std::int64_t>(trained.test_index, stream))
      result.split[static_cast<std::size_t>(row)] = 'v';
  }
  result.flags.resize(beats);
  for (std::size_t b = 0; b < beats; ++b) result.flags[b] = flags_of(result, b);
}

std::string number(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

/// Two rates that differ, each with as many digits as it takes to show that they do.
std::pair<std::string, std::string> told_apart(double a, double b) {
  for (int digits = 6; digits < 17; ++digits) {
    std::ostringstream x, y;
    x << std::setprecision(digits) << a;
    y << std::setprecision(digits) << b;
    if (x.str() != y.str()) return {x.str(), y.str()};
  }
  std::ostringstream x, y;
  x << std::setprecision(17) << a;
  y << std::setprecision(17) << b;
  return {x.str(), y.str()};
}

/// Refuses a model whose rows were made differently from this run's: its scores would rank
/// shapes it never saw (another rate, window or scaling), silently wrong. One line: what
/// differs, and the options that would make this run match the model.
void check_model_fits(const detail::beat_model& scorer, const model::row_provenance& run, std::int64_t row_width,
                      const std::string& file) {
  const auto described = scorer.described_rows();
  ZF_EXPECTS(described.has_value(), "model ", file,
             " does not record how its training rows were made (it was not saved by `zeroflow run`); train one "
             "with `zeroflow run`, or in Python describe its rows before saving (zeroflow.model.VAE.describe_rows)");
  const model::row_provenance& m = *described;
  std::vector<std::string> differences, options;
  // One test of the rate for every comparison below: a rate equal to 1 part in 10^9 is the same
  // rate, and then the windows and lengths in samples must agree too.
  const bool same_rate = io::same_sample_rate(m.sample_rate, run.sample_rate);
  if (!same_rate) {
    const auto [model_rate, run_rate] = told_apart(m.sample_rate, run.sample_rate);
    differences.push_back("sample rate " + model_rate + " Hz (this run: " + run_rate + " Hz)");
  }
  if (m.normalized != run.normalized) {
    const char* model_way = m.normalized ? "robust" : "none";
    differences.push_back(std::string("normalisation ") + model_way +
                          " (this run: " + (run.normalized ? "robust" : "none") + ")");
    options.push_back(std::string("`normalize`=") + model_way);
  }
  if (m.segmentation != run.segmentation) {
    differences.push_back("segmentation " + m.segmentation + " (this run: " + run.segmentation + ")");
    options.push_back("`segmentation`=" + m.segmentation);
  } else if (same_rate && (m.window_before != run.window_before || m.window_after != run.window_after)) {
    differences.push_back("beat window " + std::to_string(m.window_before) + " + " + std::to_string(m.window_after) +
                          " samples (this run: " + std::to_string(run.window_before) + " + " +
                          std::to_string(run.window_after) + ")");
  } else if (same_rate && (m.min_length != run.min_length || m.max_length != run.max_length)) {
    differences.push_back("beats of " + std::to_string(m.min_length) + " to " + std::to_string(m.max_length) +
                          " samples (this run: " + std::to_string(run.min_length) + " to " +
                          std::to_string(run.max_length) + ")");
    options.push_back("`min_beat_seconds`=" + number(static_cast<double>(m.min_length) / m.sample_rate) +
                      " `max_beat_seconds`=" + number(static_cast<double>(m.max_length) / m.sample_rate));
  }
  if (differences.empty() && scorer.width() != row_width)
    differences.push_back("rows of " + std::to_string(scorer.width()) +
                          " samples (this run: " + std::to_string(row_width) + ")");
  if (differences.empty()) return;
  std::string what;
  for (const auto& d : differences) what += (what.empty() ? "" : ", ") + d;
  std::string fix;
  for (const auto& o : options) fix += (fix.empty() ? "" : " ") + o;
  // A different sample rate has no option to match: the recording's rate is what it is.
  ZF_THROW(invalid_argument, "model ", file, " was trained on beats made differently from this run's: ", what, "; ",
           fix.empty() ? std::string{} : "give " + fix + " to match it, or ",
           "train a model on recordings like this one with `zeroflow run`");
}

}  // namespace

run_result run(const run_options& options, const std::filesystem::path& model_out) {
  run_result result;
  result.input = options.input.string();
  result.where = resolve(options.where);
  const bool on_gpu = result.where.type == device_type::cuda;
  const auto cuda_started = std::chrono::steady_clock::now();
  if (on_gpu) cuda_initialize(result.where.id);  // before the stream below; charged to cuda_init
  // The run's GPU work queues on a stream of its own, LibTorch's included, so that runs in other
  // threads (many recordings on one GPU) overlap with it; everything of this run follows in order.
  const stream_view stream = on_gpu ? pooled_stream(result.where.id) : stream_view{};
  const model::model_stream_scope torch_on_run_stream(result.where, stream);
  memory_watch memory(result.where);
  // --max-device-memory: installed before LibTorch's allocator is routed, so training counts too.
  std::optional<detail::chunked_run> chunked;
  if (options.max_device_memory > 0) chunked.emplace(result.where, options.max_device_memory, options.progress);
  stage_clock stage(result.stages, stream, options.progress);

  if (on_gpu) {
    stage("cuda_init", cuda_started, [&] {
      // One pool for everything: LibTorch's tensors, if a path loads LibTorch at all, come from
      // the same (statistics-wrapped) pool as zeroflow's arrays. LibTorch accepts this only before
      // its first CUDA allocation.
      if (options.route_torch_memory)
        interop::route_torch_allocator_when_loaded(memory::current_resource(result.where));
      // The CSV reader's one-time costs (pinned staging buffers, loading its kernels) belong to
      // start-up, not to the load stage they would otherwise inflate.
      io::prepare_csv_reads(result.where, stream);
    });
  }

  // load: the lead (CSV column, WFDB or EDF signal) straight into the run's device
  io::recording_options read;
  io::recording recording = stage("load", [&] {
    read.lead = options.lead;
    read.raw = options.raw;
    read.files = options.record_files;
    read.io = options.io;
    read.threads = static_cast<unsigned>(std::max(0, options.threads));
    if (options.progress) {
      read.progress = [&, last = -1](std::uint64_t done, std::uint64_t total) mutable {
        const int tenth = total ? static_cast<int>(10 * done / total) : 10;
        if (tenth == last || total < (64u << 20)) return;  // only big files get progress lines
        last = tenth;
        options.progress("loading " + std::to_string(10 * tenth) + " % of " + std::to_string(total >> 20) + " MiB");
      };
    }
    read.where = chunked ? cpu_device : result.where;  // under a budget the recording stays on the host
    io::recording loaded = io::read_recording(options.input, read, stream);
    // Said here in the recording's terms; past this point the filters would name themselves.
    if (loaded.signal.size() == 0)
      ZF_THROW(parse_error, options.input.string(), ": the recording holds no samples (",
               loaded.lead.empty() ? std::string() : "lead \"" + loaded.lead + "\", ",
               "0 samples); give a recording with at least a few seconds of signal");
    // Refused here, before they reach the filters and the model (sample_check.hpp says why).
    detail::check_samples(detail::count_samples(loaded.signal, stream), options.input.string(),
                          options.segmentation.method == signal::segmentation_method::gate_to_gate);
    return loaded;
  });
  const array signal = recording.signal;
  if (chunked) chunked->recording_loaded(signal);
  // A file that states its sample rate (WFDB, EDF) is believed; a different --sample-rate is refused
  // rather than silently overriding it.
  signal::segment_params segmentation = options.segmentation;
  if (recording.sample_rate > 0) {
    // The range --sample-rate takes holds for a rate a header states too: the band-pass and the
    // windows scale with the rate, so an absurd one would be minutes of work before a failure.
    ZF_EXPECTS(recording.sample_rate >= io::lowest_sample_rate && recording.sample_rate <= io::highest_sample_rate,
               options.input.string(), ": the sample rate is ", recording.sample_rate, " Hz (its header), outside the ",
               io::lowest_sample_rate, "-", io::highest_sample_rate, " Hz that zeroflow processes");
    ZF_EXPECTS(
        !options.sample_rate_explicit || io::same_sample_rate(options.segmentation.sample_rate, recording.sample_rate),
        options.input.string(), " is recorded at ", recording.sample_rate,
        " Hz, but `sample_rate`=", options.segmentation.sample_rate,
        " was given; leave `sample_rate` out for this file");
    segmentation.sample_rate = recording.sample_rate;
  }
  result.lead = recording.lead;
  result.samples = signal.size();
  result.sample_rate = segmentation.sample_rate;

  // The seed times its segmentation after running it once on the same recording (kernels
  // compiled, CuPy's pool grown to the working set); the segment stage is measured the same way,
  // and the cold first run is a stage of its own.
  if (result.where.type == device_type::cuda && !chunked)
    stage("warm_up", [&] { signal::warm_up(signal, segmentation, stream); });
  auto seg = stage("segment", [&] {
    return chunked ? chunked->segment(segmentation, stream) : signal::segment_recording(signal, segmentation, stream);
  });
  const bool robust = segmentation.method == signal::segmentation_method::robust;

  // Every ECG lead of the recording locates the beats and informs their shapes, unless `lead`
  // named the one to use (other_leads.hpp, joint_detection.hpp).
  std::vector<detail::other_lead> other_leads;
  const auto read_other_leads = [&](device where) {
    auto got = detail::read_other_leads(options.input, read, recording, where, stream);
    if (options.progress)
      for (const auto& line : got.unread) options.progress("warning: " + line + "; the run goes on without it");
    other_leads = std::move(got.leads);
  };
  const bool shapes_from_other_leads = robust && !chunked && options.lead.empty() && recording.leads.size() > 1;
  if (shapes_from_other_leads) {
    stage("other_leads", [&] { read_other_leads(result.where); });
    const auto joined = stage("joint_detection", [&] {
      return detail::join_lead_detections(seg, signal, other_leads, segmentation, classify::class_params{}, stream);
    });
    result.joined_dropped = joined.dropped;
    result.joined_added = joined.added;
    for (const auto& lead : other_leads)
      if (lead.ecg) result.detection_leads.push_back(lead.name);
    if (options.progress && (joined.dropped > 0 || joined.added > 0))
      options.progress("the other leads dropped " + std::to_string(joined.dropped) + " of " + result.lead +
                       "'s detections as noise and added " + std::to_string(joined.added) +
                       (joined.added == 1 ? " beat " : " beats ") + result.lead + " lost");
  }
  result.method = signal::segmentation_name(segmentation.method);
  result.sizes = seg.sizes;
  result.norm = seg.norm;
  const auto rows = seg.beats.rows;
  const std::int64_t n_rows = rows.valid() ? rows.shape(0) : 0;
  if (options.progress)
    options.progress(robust ? "found " + std::to_string(n_rows) + " beats"
                            : "found " + std::to_string(seg.lengths.size()) + " beat candidates, kept " +
                                  std::to_string(n_rows));
  ZF_EXPECTS(n_rows >= 8, options.input.string(), ": only ", n_rows,
             robust ? " beats were found" : " beats survived pruning", "; is the sample rate (",
             segmentation.sample_rate, " Hz) right for this recording?");

  std::optional<detail::beat_model> scorer;  // the LightVAE or the MLP autoencoder (beat_model.hpp)
  model::train_result trained;
  const model::row_provenance run_rows = rows_made_by(segmentation, seg.sizes);
  if (options.model) {
    scorer = stage("load_model", [&] { return detail::beat_model::load(*options.model, result.where); });
    check_model_fits(*scorer, run_rows, seg.sizes.row_width, options.model->string());
  } else {
    scorer = detail::beat_model::create(options.model_type, seg.sizes.row_width, result.where, options.seed);
    scorer->describe_rows(run_rows);
    stage("train", [&] {
      std::function<void(int, double)> on_epoch;
      // Each epoch's loss costs a synchronisation; only taken when someone is watching.
      if (options.progress)
        on_epoch = [&](int epoch, double loss) {
          options.progress("epoch " + std::to_string(epoch + 1) + "/" + std::to_string(options.epochs) + "  loss " +
                           std::to_string(loss));
        };
      trained = scorer->train(
          chunked
              ? chunked->training_rows(rows, options.batch, options.model_type == model_kind::mlp_autoencoder, stream)
              : rows,
          options.epochs, options.batch, options.seed, on_epoch, stream);
    });
    result.trained = true;
    result.epoch_loss = trained.epoch_loss;
    result.test_loss = trained.test_loss;
    if (!model_out.empty()) {
      scorer->save(model_out, stream);
      result.model_file = model_out;
    }
  }
  result.model = scorer->summary();
  if (result.trained) result.model.training_path = model::training_path_name(trained.path);
  if (!result.trained) result.model.learning_rate = result.model.weight_decay = 0;
  auto scored =
      stage("score", [&] { return chunked ? chunked->score(*scorer, rows, stream) : scorer->score(rows, stream); });
  // A saturated decoder scores every beat alike near float32's largest value: finite, but no
  // ranking. Counted where the scores are (a 32-byte read-back on a GPU).
  const auto score_census = detail::count_samples(scored.score.reshape({scored.score.size()}), stream);
  const auto saturated = score_census.unusable;
  // The robust method ranks beats by shape and rhythm together (signal/beat_score.hpp).
  signal::beat_scores combined;
  if (robust)
    combined =
        stage("rhythm_score", [&] { return signal::combine_beat_scores(scored.score, seg.rr.irregularity, stream); });
  auto grid = stage("decode_grid", [&] { return scorer->decode_grid(); });

  // The one hand-off to the host: per-beat results for the files and the report.
  stage("collect", [&] {
    if (robust) {
      collect_robust(seg, scored, combined, trained, grid, result, stream);
      return;
    }
    result.start = to_host_vector<std::int64_t>(seg.positions, stream);
    result.peak = to_host_vector<std::int64_t>(seg.peaks, stream);
    result.detected_peaks = result.peak;
    const auto lengths = to_host_vector<std::int64_t>(seg.lengths, stream);
    const auto candidates = lengths.size();
    result.start.resize(candidates);
    result.peak.resize(candidates);
    result.length = lengths;
    result.kept = to_host_vector<std::uint8_t>(seg.beats.kept, stream);
    result.histogram = to_host_vector<std::int64_t>(seg.histogram, stream);
    const auto kept_index = to_host_vector<std::int64_t>(seg.beats.kept_index, stream);
    const auto score = to_host_vector<float>(scored.score, stream);
    const auto mu = latent_means(scored, kept_index.size(), stream);
    result.decoded_grid =
        grid.valid() ? to_host_vector<float>(grid.reshape({grid.size()}), stream) : std::vector<float>{};
    constexpr float nan = std::numeric_limits<float>::quiet_NaN();
    result.score.assign(candidates, nan);
    result.mu0.assign(candidates, nan);
    result.mu1.assign(candidates, nan);
    result.split.assign(candidates, '-');
    for (std::size_t row = 0; row < kept_index.size(); ++row) {
      const auto c = static_cast<std::size_t>(kept_index[row]);
      result.score[c] = score[row];
      result.mu0[c] = mu[2 * row];
      result.mu1[c] = mu[2 * row + 1];
    }
    if (result.trained) {
      for (auto row : to_host_vector<std::int64_t>(trained.train_index, stream))
        result.split[static_cast<std::size_t>(kept_index[static_cast<std::size_t>(row)])] = 't';
      for (auto row : to_host_vector<std::int64_t>(trained.test_index, stream))
        result.split[static_cast<std::size_t>(kept_index[static_cast<std::size_t>(row)])] = 'v';
    }
  });

  // Results that cannot be true are never written: a model whose weights overflow (a damaged or
  // hand-made file, or training that diverged) scores beats inf or NaN, or puts them at an
  // infinite latent mean. (The latent means are NaN by design for a model without a latent
  // space, the MLP autoencoder.)
  const bool has_latent = result.model.name != pipeline::model_kind_name(model_kind::mlp_autoencoder);
  std::size_t unusable = 0, scored_beats = 0;
  for (std::size_t c = 0; c < result.kept.size(); ++c) {
    if (!result.kept[c]) continue;
    ++scored_beats;
    const bool latent_ok = !has_latent || (std::isfinite(result.mu0[c]) && std::isfinite(result.mu1[c]));
    unusable += std::isfinite(result.score[c]) && latent_ok ? 0 : 1;
  }
  // A model score of NaN (a decoder whose output overflows) can hide behind a finite combined score.
  unusable = std::max(unusable, static_cast<std::size_t>(score_census.missing));
  if (saturated > 0) {
    const std::string who = options.model ? "the model " + options.model->string() : std::string("training");
    ZF_THROW(error, who, options.model ? " scores " : " gave a model that scores ", saturated, " of ", scored_beats,
             " beats beyond ", detail::unusable_magnitude, " (a saturated decoder): its scores rank nothing; ",
             options.model ? "train a new model with zeroflow run" : "try fewer `epochs` or another `seed`");
  }
  if (unusable > 0) {
    if (options.model)
      ZF_THROW(error, "the model ", options.model->string(), " scores ", unusable, " of ", scored_beats,
               " beats as not finite (inf or NaN): its weights cannot be used; train a new model with zeroflow run");
    ZF_THROW(error, "training diverged: the model scores ", unusable, " of ", scored_beats,
             " beats as not finite (inf or NaN); try fewer `epochs`, a smaller `batch` or another `seed`");
  }

  // The answer for a reader: a class for every beat and the AF episodes (classify/beat_classes.hpp).
  // The rows are measured where they are (on a GPU by kernels; only per-beat numbers come back)
  // and the rule decides on the host, so that a GPU and a CPU run decide with the same code.
  if (robust) {
    stage("classify", [&] {
      const array contiguous = rows.is_contiguous() ? rows : copy_to(rows, rows.where(), stream);
      // Where the signal holds one value, or only mains hum, for a second or more (sample_check.hpp),
      // or where the detector found no beat for half a minute, a lead is off.
      std::vector<classify::sample_stretch> no_signal =
          classify::beatless_stretches(result.peak, signal.shape(0), result.sample_rate);
      const auto half_second = std::max<std::int64_t>(1, std::llround(0.5 * result.sample_rate));
      for (const auto& [first, last] : detail::no_signal_stretches(signal, half_second, result.sample_rate, stream))
        no_signal.push_back({first, last});
      std::sort(no_signal.begin(), no_signal.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      const auto other_rows = detail::other_lead_rows(other_leads, seg.peaks, seg.sizes.window_before,
                                                      seg.sizes.window_after, contiguous.shape(1), stream);
      for (const auto& lead : other_leads)
        if (lead.ecg) result.shape_leads.push_back(lead.name);
      auto classes =
          classify::classify_beats(result.peak, contiguous, seg.sizes.window_before, seg.sizes.window_after,
                                   result.sample_rate, stream, {}, {.no_signal = no_signal, .other_leads = other_rows});
      result.other_lead_similarity = std::move(classes.other_lead_similarity);
      result.beat_class = std::move(classes.classes);
      // The evidence gains the parts the rule measured (a QRS and a P wave unlike the dominant
      // beat's), then the ranking follows the answer: beats called S or V first, then Q
      // (scores_following_classes).
      if (classes.p_similarity.size() == result.score.size()) {
        const auto atrial = classify::atrial_evidence(classes.p_similarity, classes.in_af);
        const auto shape = classify::shape_evidence(classes.similarity);
        for (std::size_t b = 0; b < atrial.size(); ++b) result.score[b] += atrial[b] + shape[b];
      }
      result.score = classify::scores_following_classes(result.score, result.beat_class);
      result.similarity = std::move(classes.similarity);
      result.family = std::move(classes.family);
      result.p_similarity = std::move(classes.p_similarity);
      result.p_coherence = std::move(classes.p_coherence);
      result.clarity = std::move(classes.clarity);
      result.unreadable = std::move(classes.unreadable_stretches);
      if (!result.unreadable.empty() && options.progress) {
        // A loose lead or noise yields no beats to trust: said where a person reads, not only in files.
        std::int64_t beats = 0;
        double seconds = 0;
        for (const auto& s : result.unreadable) {
          beats += s.last_beat - s.first_beat + 1;
          seconds += static_cast<double>(s.offset - s.onset) / result.sample_rate;
        }
        const auto& first = result.unreadable.front();
        char line[360];
        std::snprintf(line, sizeof line,
                      "warning: no readable ECG in %zu stretch(es), %.0f s, %lld beats called Q (the first from %.1f s "
                      "to %.1f s): no QRS stands out of the signal around it (noise, no signal, or no beat for "
                      "%.0f s or more, docs/detection.md); is a lead off?",
                      result.unreadable.size(), seconds, static_cast<long long>(beats),
                      static_cast<double>(first.onset) / result.sample_rate,
                      static_cast<double>(first.offset) / result.sample_rate,
                      classify::quality_params{}.beatless_seconds);
        options.progress(line);
      }
      result.fast_rhythm = std::move(classes.fast_rhythm_stretches);
      if (!result.fast_rhythm.empty() && options.progress) {
        // Beats the detector cannot follow read as a rhythm of half the rate: said where a person reads.
        double seconds = 0;
        for (const auto& s : result.fast_rhythm)
          seconds += static_cast<double>(s.offset - s.onset) / result.sample_rate;
        const auto& first = result.fast_rhythm.front();
        char line[360];
        std::snprintf(line, sizeof line,
                      "warning: in %zu stretch(es), %.0f s (the first from %.1f s to %.1f s), a second QRS-like "
                      "complex stands between every two beats: the rhythm may be twice the rate found (over 240 bpm, "
                      "faster than the detector follows); check the recording there",
                      result.fast_rhythm.size(), seconds, static_cast<double>(first.onset) / result.sample_rate,
                      static_cast<double>(first.offset) / result.sample_rate);
        options.progress(line);
      }
      result.prematurity = std::move(classes.prematurity);
      result.episodes = std::move(classes.episodes);
    });
    // What a Holter report prints, from the beat table the host now has (holter/holter.hpp).
    stage("holter", [&] { result.holter = holter::analyse(holter_record(result), options.holter); });
  }

  // The report's figure inputs, reduced where the data is (overview buckets, thumbnails) so that
  // only a few MB reach the host.
  stage("figures", [&] {
    result.figures = chunked ? chunked->figures(result, stream)
                             : detail::collect_figures(signal, seg.filtered, rows, result, stream);
    result.figures.strips = detail::collect_strips(signal, result, stream);
  });
  // Strips show every lead a reader would see on paper: the others are read now where the classes
  // did not need them.
  if (!result.figures.strips.empty()) {
    if (!shapes_from_other_leads) stage("other_leads", [&] { read_other_leads(cpu_device); });
    detail::add_other_leads(result.figures, recording.lead, other_leads, stream);
  }

  if (options.labels) {
    stage("evaluate", [&] {
      result.quality =
          eval::evaluate_labels_file(result.detected_peaks, result.score, result.sample_rate, *options.labels,
                                     options.progress, eval::default_tolerance_seconds, result.samples);
    });
  }
  result.peak_host_bytes = memory.peak(device_type::cpu);
  result.peak_device_bytes = memory.peak(device_type::cuda);
  return result;
}

}  // namespace zeroflow::pipeline
