#include "zeroflow/pipeline/ecg_pipeline.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <limits>

#include "figures.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/core/transfers.hpp"
#include "zeroflow/eval/metrics.hpp"
#include "zeroflow/io/csv.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/memory/statistics_adaptor.hpp"
#include "zeroflow/model/torch_cuda_allocator.hpp"
#include "zeroflow/model/vae.hpp"
#include "zeroflow/signal/warm_up.hpp"
#include "zeroflow/synth/ecg_io.hpp"

namespace zeroflow::pipeline {

device_choice parse_device_choice(const std::string& text) {
  if (text == "auto") return device_choice::automatic;
  if (text == "cpu") return device_choice::cpu;
  if (text == "cuda" || text == "gpu") return device_choice::cuda;
  ZF_THROW(invalid_argument, "unknown device '", text, "' (expected auto, cpu or cuda)");
}

device resolve(device_choice choice) {
  switch (choice) {
    case device_choice::cpu: return cpu_device;
    case device_choice::cuda: require_cuda("--device cuda"); return cuda_device(0);
    case device_choice::automatic: return cuda_available() ? cuda_device(0) : cpu_device;
  }
  return cpu_device;
}

std::int64_t run_result::beats_kept() const {
  std::int64_t n = 0;
  for (auto k : kept) n += k;
  return n;
}

namespace {

/// Times one stage; the stream is synchronised first so that GPU work is counted where it runs.
class stage_clock {
 public:
  stage_clock(run_result& result, stream_view stream, const run_options& options)
      : result_{result}, stream_{stream}, options_{options} {}
  template <class Fn>
  decltype(auto) operator()(const char* name, Fn&& fn) {
    if (options_.progress) options_.progress(std::string(name) + "...");
    const auto start = std::chrono::steady_clock::now();
    const std::int64_t copied_before = device_to_host_transfers().bytes;
    auto finish = [&] {
      synchronize(stream_);
      const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
      result_.stages.push_back({name, took.count(), device_to_host_transfers().bytes - copied_before});
    };
    if constexpr (std::is_void_v<decltype(fn())>) {
      fn();
      finish();
    } else {
      decltype(auto) value = fn();
      finish();
      return value;
    }
  }

 private:
  run_result& result_;
  stream_view stream_;
  const run_options& options_;
};

/// Copies a 1-D array to a host std::vector (the final hand-off to the report).
template <class T>
std::vector<T> to_host_vector(const array& a, stream_view stream) {
  if (!a.valid() || a.size() == 0) return {};
  array host = a.where().host_accessible() && a.is_contiguous() ? a : copy_to(a, cpu_device, stream);
  auto s = host.span<const T>();
  return {s.begin(), s.end()};
}

/// Wraps the current resources of `where` (and the host) in statistics adaptors for the run,
/// so the summary can report peak memory; restores the previous resources afterwards.
class memory_watch {
 public:
  explicit memory_watch(device where) {
    watch(cpu_device);
    if (where.type == device_type::cuda) watch(where);
  }
  ~memory_watch() {
    for (auto& [previous, stats] : installed_) memory::set_current_resource(previous);
  }
  memory_watch(const memory_watch&) = delete;
  memory_watch& operator=(const memory_watch&) = delete;
  std::int64_t peak(device_type type) const {
    for (const auto& [previous, stats] : installed_)
      if (stats->where().type == type) return static_cast<std::int64_t>(stats->statistics().peak_bytes);
    return 0;
  }

 private:
  void watch(device d) {
    auto stats = std::make_shared<memory::statistics_adaptor>(memory::current_resource(d));
    installed_.emplace_back(memory::set_current_resource(stats), stats);
  }
  std::vector<std::pair<memory::resource_ptr, std::shared_ptr<memory::statistics_adaptor>>> installed_;
};

evaluation evaluate(const run_result& r, const synth::beat_labels& labels) {
  evaluation q;
  const auto tolerance = static_cast<std::int64_t>(std::llround(0.150 * r.sample_rate));
  const auto det = eval::match_peaks(r.detected_peaks, labels.samples, tolerance);
  q.labelled_beats = static_cast<std::int64_t>(labels.samples.size());
  q.true_positives = det.true_positives;
  q.false_positives = det.false_positives;
  q.false_negatives = det.false_negatives;
  q.sensitivity = det.sensitivity;
  q.positive_predictivity = det.positive_predictivity;
  // A kept beat is abnormal when the labelled beat nearest its R-peak (within tolerance) is not 'N'.
  std::vector<double> scores;
  std::vector<std::uint8_t> abnormal;
  for (std::size_t c = 0; c < r.kept.size(); ++c) {
    if (!r.kept[c]) continue;
    auto it = std::lower_bound(labels.samples.begin(), labels.samples.end(), r.peak[c]);
    std::int64_t best = -1, best_distance = tolerance + 1;
    for (auto candidate : {it, it == labels.samples.begin() ? it : it - 1}) {
      if (candidate == labels.samples.end()) continue;
      const auto distance = std::llabs(*candidate - r.peak[c]);
      if (distance < best_distance) best_distance = distance, best = candidate - labels.samples.begin();
    }
    if (best < 0) continue;  // a detection with no labelled beat: not part of the ranking
    scores.push_back(r.score[c]);
    abnormal.push_back(labels.labels[static_cast<std::size_t>(best)] != 'N');
  }
  for (auto a : abnormal) (a ? q.scored_abnormal : q.scored_normal)++;
  if (q.scored_abnormal > 0 && q.scored_normal > 0) {
    q.auroc = eval::auroc(scores, abnormal);
    q.average_precision = eval::average_precision(scores, abnormal);
  }
  return q;
}

}  // namespace

run_result run(const run_options& options, const std::filesystem::path& model_out) {
  run_result result;
  result.input = options.input.string();
  result.where = resolve(options.where);
  const stream_view stream{};
  memory_watch memory(result.where);
  stage_clock stage(result, stream, options);

  if (result.where.type == device_type::cuda) {
    stage("cuda_init", [&] {
      cuda_initialize(result.where.id);
      // One pool for everything: LibTorch's tensors come from the same (statistics-wrapped) pool
      // as zeroflow's arrays. LibTorch accepts this only before its first CUDA allocation.
      if (options.route_torch_memory && !model::torch_allocator_routed())
        model::route_torch_allocator_to(memory::current_resource(result.where));
      // The CSV reader's one-time costs (pinned staging buffers, loading its kernels: ~50 ms on
      // an H100) belong to start-up, not to the load stage they would otherwise inflate.
      io::prepare_csv_reads(result.where, stream);
    });
  }

  // load: the column straight into the run's device
  array signal = stage("load", [&] {
    io::csv_options csv;
    if (!options.column.empty()) {
      const bool is_index = std::all_of(options.column.begin(), options.column.end(),
                                        [](unsigned char ch) { return std::isdigit(ch) != 0; });
      csv.columns = {is_index ? io::column_ref(std::stoull(options.column)) : io::column_ref(options.column)};
    }
    csv.default_type = float32;
    csv.threads = static_cast<unsigned>(std::max(0, options.threads));
    if (options.progress) {
      csv.progress = [&, last = -1](std::uint64_t done, std::uint64_t total) mutable {
        const int tenth = total ? static_cast<int>(10 * done / total) : 10;
        if (tenth == last || total < (64u << 20)) return;  // only big files get progress lines
        last = tenth;
        options.progress("loading " + std::to_string(10 * tenth) + " % of " + std::to_string(total >> 20) + " MiB");
      };
    }
    csv.where = result.where;
    auto table = io::read_csv(options.input, csv, stream);
    ZF_EXPECTS(table.num_columns() >= 1, options.input.string(), ": no columns");
    return table.column(0);
  });
  result.samples = signal.size();
  result.sample_rate = options.segmentation.sample_rate;

  // The seed times its segmentation after running it once on the same recording (kernels
  // compiled, CuPy's pool grown to the working set); the segment stage is measured the same way,
  // and the cold first run is a stage of its own.
  if (result.where.type == device_type::cuda)
    stage("warm_up", [&] { signal::warm_up(signal, options.segmentation, stream); });
  auto seg = stage("segment", [&] { return signal::segment_beats(signal, options.segmentation, stream); });
  result.sizes = seg.sizes;
  result.norm = seg.norm;
  const auto rows = seg.beats.rows;
  const std::int64_t n_rows = rows.valid() ? rows.shape(0) : 0;
  if (options.progress)
    options.progress("found " + std::to_string(seg.lengths.size()) + " beat candidates, kept " +
                     std::to_string(n_rows));
  ZF_EXPECTS(n_rows >= 8, options.input.string(), ": only ", n_rows,
             " beats survived pruning; is the sample rate (", options.segmentation.sample_rate,
             " Hz) right for this recording?");

  std::optional<model::vae> vae;
  model::train_result trained;
  if (options.model) {
    vae = stage("load_model", [&] { return model::vae::load(*options.model, result.where); });
    ZF_EXPECTS(vae->width() == seg.sizes.row_width, "model ", options.model->string(), " expects beats of width ",
               vae->width(), ", this recording gives ", seg.sizes.row_width, " (different sample rate?)");
  } else {
    vae = model::vae::create(seg.sizes.row_width, result.where, options.seed);
    stage("train", [&] {
      model::train_options train;
      train.epochs = options.epochs;
      train.batch = options.batch;
      train.seed = options.seed;
      // Each epoch's loss costs a synchronisation; only taken when someone is watching.
      if (options.progress) train.on_epoch = [&](int epoch, double loss) {
          options.progress("epoch " + std::to_string(epoch + 1) + "/" + std::to_string(options.epochs) +
                           "  loss " + std::to_string(loss));
      };
      trained = vae->train(rows, train);
    });
    result.trained = true;
    result.epoch_loss = trained.epoch_loss;
    result.test_loss = trained.test_loss;
    if (!model_out.empty()) {
      vae->save(model_out);
      result.model_file = model_out;
    }
  }
  auto scored = stage("score", [&] { return vae->score(rows); });
  auto grid = stage("decode_grid", [&] { return vae->decode_grid(5, 2.0); });

  // The one hand-off to the host: per-beat results for the files and the report.
  stage("collect", [&] {
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
    const auto mu = to_host_vector<float>(scored.mu.reshape({scored.mu.size()}), stream);
    result.decoded_grid = to_host_vector<float>(grid.reshape({grid.size()}), stream);
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

  // The report's figure inputs, reduced where the data is (overview buckets, thumbnails) so that
  // only a few MB reach the host.
  stage("figures", [&] { result.figures = detail::collect_figures(signal, seg.filtered, rows, result, stream); });

  if (options.labels) {
    stage("evaluate", [&] { result.quality = evaluate(result, synth::read_labels_csv(*options.labels)); });
  }
  result.peak_host_bytes = memory.peak(device_type::cpu);
  result.peak_device_bytes = memory.peak(device_type::cuda);
  return result;
}

}  // namespace zeroflow::pipeline
