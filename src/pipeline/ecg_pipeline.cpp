#include "zeroflow/pipeline/ecg_pipeline.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "beat_model.hpp"
#include "beat_table.hpp"
#include "figures.hpp"
#include "host_vector.hpp"
#include "joint_detection.hpp"
#include "memory_watch.hpp"
#include "model_fit.hpp"
#include "other_leads.hpp"
#include "run_executor.hpp"
#include "sample_check.hpp"
#include "zeroflow/classify/beat_classes.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/eval/metrics.hpp"
#include "zeroflow/interop/torch_cuda_allocator.hpp"
#include "zeroflow/io/csv.hpp"
#include "zeroflow/io/recording.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/model/model_stream_scope.hpp"
#include "zeroflow/model/vae.hpp"
#include "zeroflow/pipeline/stage_clock.hpp"
#include "zeroflow/signal/beat_score.hpp"
#include "zeroflow/signal/warm_up.hpp"

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

/// The run's stream: on a GPU one of its own, after CUDA is initialised, so that runs in other
/// threads (many recordings on one GPU) overlap with it; everything of this run follows in order.
stream_view run_stream(device where) {
  if (where.type != device_type::cuda) return {};
  cuda_initialize(where.id);  // charged to the cuda_init stage
  return pooled_stream(where.id);
}

/// One run, built up stage by stage in the order of `run` below. The members that install
/// something (the model stream, the memory watch, the executor's budget) put it back in reverse
/// order when the run ends.
struct run_state {
  run_state(const run_options& o, const std::filesystem::path& out)
      : options{o},
        model_out{out},
        where{resolve(o.where)},
        cuda_started{std::chrono::steady_clock::now()},
        stream{run_stream(where)},
        models_on_run_stream{where, stream},
        memory{where},
        // --max-device-memory: installed before LibTorch's allocator is routed, so training counts too.
        executor{detail::make_executor(where, o.max_device_memory, o.progress)},
        stage{result.stages, stream, o.progress},
        table{detail::beat_table_for(o.segmentation.method)} {
    result.input = o.input.string();
    result.where = where;
  }

  const run_options& options;
  const std::filesystem::path model_out;
  run_result result;
  const device where;
  const std::chrono::steady_clock::time_point cuda_started;
  const stream_view stream;
  const model::model_stream_scope models_on_run_stream;
  detail::memory_watch memory;
  const std::unique_ptr<detail::run_executor> executor;
  stage_clock stage;
  const std::unique_ptr<detail::beat_table> table;

  io::recording_options read;
  io::recording recording;
  array signal;
  signal::segment_params segmentation;
  signal::segmentation seg;
  std::vector<detail::other_lead> other_leads;
  bool leads_joined = false;                 ///< the other leads located the beats and inform their classes
  std::optional<detail::beat_model> scorer;  ///< the LightVAE or the MLP autoencoder (beat_model.hpp)
  detail::scored_beats scored;
  detail::sample_census score_census;
  signal::beat_scores ranked;

  [[nodiscard]] bool on_gpu() const { return where.type == device_type::cuda; }
  void say(const std::string& line) const {
    if (options.progress) options.progress(line);
  }
  /// The recording's other leads, read to `to` (a line for each that cannot be read).
  void read_other_leads(device to) {
    auto got = detail::read_other_leads(options.input, read, recording, to, stream);
    for (const auto& line : got.unread) say("warning: " + line + "; the run goes on without it");
    other_leads = std::move(got.leads);
  }
};

void start_device(run_state& s) {
  s.stage("cuda_init", s.cuda_started, [&] {
    // One pool for everything: LibTorch's tensors, if a path loads LibTorch at all, come from
    // the same (statistics-wrapped) pool as zeroflow's arrays. LibTorch accepts this only before
    // its first CUDA allocation.
    if (s.options.route_torch_memory) interop::route_torch_allocator_when_loaded(memory::current_resource(s.where));
    // The CSV reader's one-time costs (pinned staging buffers, loading its kernels) belong to
    // start-up, not to the load stage they would otherwise inflate.
    io::prepare_csv_reads(s.where, s.stream);
  });
}

/// load: the lead (CSV column, WFDB or EDF signal) straight into the device the executor keeps
/// it on, checked, and the sample rate it is read at.
void load(run_state& s) {
  const run_options& options = s.options;
  io::recording_options& read = s.read;
  const stream_view stream = s.stream;
  s.recording = s.stage("load", [&] {
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
    read.where = s.executor->recording_device();
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
  s.signal = s.recording.signal;
  s.executor->recording_loaded(s.signal);
  signal::segment_params& segmentation = s.segmentation;
  const io::recording& recording = s.recording;
  // A file that states its sample rate (WFDB, EDF) is believed; a different --sample-rate is refused
  // rather than silently overriding it.
  segmentation = options.segmentation;
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
  s.result.lead = recording.lead;
  s.result.samples = s.signal.size();
  s.result.sample_rate = segmentation.sample_rate;
}

/// segment: the beats of the lead, joined with those every other ECG lead finds (unless `lead`
/// named the one to use: other_leads.hpp, joint_detection.hpp).
void segment(run_state& s) {
  // The seed times its segmentation after running it once on the same recording (kernels
  // compiled, CuPy's pool grown to the working set); the segment stage is measured the same way,
  // and the cold first run is a stage of its own.
  if (s.on_gpu() && s.executor->whole())
    s.stage("warm_up", [&] { signal::warm_up(s.signal, s.segmentation, s.stream); });
  s.seg = s.stage("segment", [&] { return s.executor->segment(s.segmentation, s.stream); });
  s.leads_joined =
      s.table->heartbeats() && s.executor->whole() && s.options.lead.empty() && s.recording.leads.size() > 1;
  run_result& result = s.result;
  if (s.leads_joined) {
    s.stage("other_leads", [&] { s.read_other_leads(s.where); });
    const auto joined = s.stage("joint_detection", [&] {
      return detail::join_lead_detections(s.seg, s.signal, s.other_leads, s.segmentation, s.options.classes, s.stream);
    });
    result.joined_dropped = joined.dropped;
    result.joined_added = joined.added;
    for (const auto& lead : s.other_leads)
      if (lead.ecg) result.detection_leads.push_back(lead.name);
    if (joined.dropped > 0 || joined.added > 0)
      s.say("the other leads dropped " + std::to_string(joined.dropped) + " of " + result.lead +
            "'s detections as noise and added " + std::to_string(joined.added) +
            (joined.added == 1 ? " beat " : " beats ") + result.lead + " lost");
  }
  result.method = signal::segmentation_name(s.segmentation.method);
  result.sizes = s.seg.sizes;
  result.norm = s.seg.norm;
  const std::int64_t rows = s.seg.beats.rows.valid() ? s.seg.beats.rows.shape(0) : 0;
  s.say(s.table->found(s.seg));
  ZF_EXPECTS(rows >= 8, s.options.input.string(), ": only ", rows, s.table->too_few(), "; is the sample rate (",
             s.segmentation.sample_rate, " Hz) right for this recording?");
}

/// train (or load_model): the model that scores the beats, trained on them unless one was given.
void model_beats(run_state& s) {
  const run_options& options = s.options;
  run_result& result = s.result;
  const model::row_provenance run_rows = rows_made_by(s.segmentation, s.seg.sizes);
  model::train_result& trained = s.scored.training;
  if (options.model) {
    s.scorer = s.stage("load_model", [&] { return detail::beat_model::load(*options.model, s.where); });
    detail::check_model_fits(*s.scorer, run_rows, s.seg.sizes.row_width, options.model->string());
  } else {
    s.scorer = detail::beat_model::create(options.model_type, s.seg.sizes.row_width, s.where, options.seed);
    s.scorer->describe_rows(run_rows);
    s.stage("train", [&] {
      std::function<void(int, double)> on_epoch;
      // Each epoch's loss costs a synchronisation; only taken when someone is watching.
      if (options.progress)
        on_epoch = [&](int epoch, double loss) {
          options.progress("epoch " + std::to_string(epoch + 1) + "/" + std::to_string(options.epochs) + "  loss " +
                           std::to_string(loss));
        };
      const array rows = s.executor->training_rows(s.seg.beats.rows, options.batch,
                                                   options.model_type == model_kind::mlp_autoencoder, s.stream);
      trained = s.scorer->train(rows, options.epochs, options.batch, options.seed, on_epoch, s.stream);
    });
    result.trained = true;
    result.epoch_loss = trained.epoch_loss;
    result.test_loss = trained.test_loss;
    if (!s.model_out.empty()) {
      s.scorer->save(s.model_out, s.stream);
      result.model_file = s.model_out;
    }
  }
  result.model = s.scorer->summary();
  if (result.trained) result.model.training_path = model::training_path_name(trained.path);
  if (!result.trained) result.model.learning_rate = result.model.weight_decay = 0;
}

/// score, rhythm_score, decode_grid: every beat's scores where the rows are.
void score(run_state& s) {
  s.scored.scores = s.stage("score", [&] { return s.executor->score(*s.scorer, s.seg.beats.rows, s.stream); });
  // A saturated decoder scores every beat alike near float32's largest value: finite, but no
  // ranking. Counted where the scores are (a 32-byte read-back on a GPU).
  const array& model_score = s.scored.scores.score;
  s.score_census = detail::count_samples(model_score.reshape({model_score.size()}), s.stream);
  // Heartbeats are ranked by shape and rhythm together (signal/beat_score.hpp).
  if (s.table->heartbeats())
    s.ranked = s.stage("rhythm_score",
                       [&] { return signal::combine_beat_scores(model_score, s.seg.rr.irregularity, s.stream); });
  s.scored.decoded_grid = s.stage("decode_grid", [&] { return s.scorer->decode_grid(); });
}

/// collect: the one hand-off to the host (the beat table), then the check that the results can
/// be true.
void collect(run_state& s) {
  const run_options& options = s.options;
  run_result& result = s.result;
  s.stage("collect", [&] { s.table->collect(s.seg, s.scored, s.ranked, result, s.stream); });
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
  unusable = std::max(unusable, static_cast<std::size_t>(s.score_census.missing));
  const auto saturated = s.score_census.unusable;
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
}

/// Where the detector lost no beats but the rule could read none, and where it may have followed
/// only every other beat: said where a person reads, not only in the files.
void warn_of_stretches(const run_state& s) {
  const run_result& r = s.result;
  const auto seconds_of = [&](const std::vector<classify::episode>& stretches) {
    double seconds = 0;
    for (const auto& e : stretches) seconds += static_cast<double>(e.offset - e.onset) / r.sample_rate;
    return seconds;
  };
  char line[360];
  if (!r.unreadable.empty()) {
    // A loose lead or noise yields no beats to trust.
    std::int64_t beats = 0;
    for (const auto& e : r.unreadable) beats += e.last_beat - e.first_beat + 1;
    const auto& first = r.unreadable.front();
    std::snprintf(line, sizeof line,
                  "warning: no readable ECG in %zu stretch(es), %.0f s, %lld beats called Q (the first from %.1f s "
                  "to %.1f s): no QRS stands out of the signal around it (noise, no signal, or no beat for "
                  "%.0f s or more, docs/detection.md); is a lead off?",
                  r.unreadable.size(), seconds_of(r.unreadable), static_cast<long long>(beats),
                  static_cast<double>(first.onset) / r.sample_rate, static_cast<double>(first.offset) / r.sample_rate,
                  s.options.classes.quality.beatless_seconds);
    s.say(line);
  }
  if (!r.fast_rhythm.empty()) {
    // Beats the detector cannot follow read as a rhythm of half the rate.
    const auto& first = r.fast_rhythm.front();
    std::snprintf(line, sizeof line,
                  "warning: in %zu stretch(es), %.0f s (the first from %.1f s to %.1f s), a second QRS-like "
                  "complex stands between every two beats: the rhythm may be twice the rate found (over 240 bpm, "
                  "faster than the detector follows); check the recording there",
                  r.fast_rhythm.size(), seconds_of(r.fast_rhythm), static_cast<double>(first.onset) / r.sample_rate,
                  static_cast<double>(first.offset) / r.sample_rate);
    s.say(line);
  }
}

/// Where a lead is off: the signal holds one value, or only mains hum, for a second or more
/// (sample_check.hpp), or the detector found no beat for half a minute.
std::vector<classify::sample_stretch> lead_off_stretches(const run_state& s) {
  const run_result& r = s.result;
  std::vector<classify::sample_stretch> out =
      classify::beatless_stretches(r.peak, s.signal.shape(0), r.sample_rate, s.options.classes.quality);
  const auto half_second = std::max<std::int64_t>(1, std::llround(0.5 * r.sample_rate));
  for (const auto& [first, last] : detail::no_signal_stretches(s.signal, half_second, r.sample_rate, s.stream))
    out.push_back({first, last});
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

/// classify: a class for every heartbeat and the AF episodes (classify/beat_classes.hpp). The
/// rows are measured where they are (on a GPU by kernels; only per-beat numbers come back) and
/// the rule decides on the host, so that a GPU and a CPU run decide with the same code.
void classify_beats(run_state& s) {
  run_result& result = s.result;
  const signal::segmentation& seg = s.seg;
  s.stage("classify", [&] {
    const array& rows = seg.beats.rows;
    const array contiguous = rows.is_contiguous() ? rows : copy_to(rows, rows.where(), s.stream);
    const auto no_signal = lead_off_stretches(s);
    const auto other_rows = detail::other_lead_rows(s.other_leads, seg.peaks, seg.sizes.window_before,
                                                    seg.sizes.window_after, contiguous.shape(1), s.stream);
    for (const auto& lead : s.other_leads)
      if (lead.ecg) result.shape_leads.push_back(lead.name);
    auto classes = classify::classify_beats(result.peak, contiguous, seg.sizes.window_before, seg.sizes.window_after,
                                            result.sample_rate, s.stream, s.options.classes,
                                            {.no_signal = no_signal, .other_leads = other_rows, .signal = &s.signal});
    result.other_lead_similarity = std::move(classes.other_lead_similarity);
    result.other_lead_deviation = std::move(classes.other_lead_deviation);
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
    result.f_wave_rate = std::move(classes.f_wave_rate);
    result.clarity = std::move(classes.clarity);
    result.unreadable = std::move(classes.unreadable_stretches);
    result.fast_rhythm = std::move(classes.fast_rhythm_stretches);
    result.prematurity = std::move(classes.prematurity);
    result.episodes = std::move(classes.episodes);
    warn_of_stretches(s);
  });
}

/// figures: the report's figure inputs, reduced where the data is (overview buckets, thumbnails)
/// so that only a few MB reach the host, and the strips of every lead a reader would see on paper.
void figures(run_state& s) {
  s.stage("figures", [&] {
    s.result.figures = s.executor->figures(s.seg, s.result, s.stream);
    s.result.figures.strips = detail::collect_strips(s.signal, s.result, s.stream);
  });
  if (s.result.figures.strips.empty()) return;
  // The other leads are read now where the classes did not need them.
  if (!s.leads_joined) s.stage("other_leads", [&] { s.read_other_leads(cpu_device); });
  detail::add_other_leads(s.result.figures, s.recording.lead, s.other_leads, s.stream);
}

void evaluate(run_state& s) {
  run_result& result = s.result;
  s.stage("evaluate", [&] {
    result.quality =
        eval::evaluate_labels_file(result.detected_peaks, result.score, result.sample_rate, *s.options.labels,
                                   s.options.progress, eval::default_tolerance_seconds, result.samples);
  });
}

}  // namespace

run_result run(const run_options& options, const std::filesystem::path& model_out) {
  run_state s(options, model_out);
  if (s.on_gpu()) start_device(s);
  load(s);
  segment(s);
  model_beats(s);
  score(s);
  collect(s);
  if (s.table->heartbeats()) {
    classify_beats(s);
    // What a Holter report prints, from the beat table the host now has (holter/holter.hpp).
    s.stage("holter", [&] { s.result.holter = holter::analyse(holter_record(s.result), options.holter); });
  }
  figures(s);
  if (options.labels) evaluate(s);
  s.result.peak_host_bytes = s.memory.peak(device_type::cpu);
  s.result.peak_device_bytes = s.memory.peak(device_type::cuda);
  return std::move(s.result);
}

}  // namespace zeroflow::pipeline
