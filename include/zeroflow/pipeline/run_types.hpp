#pragma once
/// @file run_types.hpp
/// What a run of the ECG pipeline (ecg_pipeline.hpp) takes and hands on, on the host: its options,
/// and its per-beat results, figures' data, timings and evaluation against labels. Plain data
/// without LibTorch, so that the report (which reads them) builds and is tested without the model.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "zeroflow/classify/beat_classes.hpp"
#include "zeroflow/core/device.hpp"
#include "zeroflow/eval/label_evaluation.hpp"
#include "zeroflow/holter/holter.hpp"
#include "zeroflow/io/recording.hpp"
#include "zeroflow/signal/normalize.hpp"
#include "zeroflow/signal/params.hpp"

namespace zeroflow::pipeline {

/// Where the pipeline runs; `automatic` takes the GPU when one is present.
enum class device_choice { automatic, cpu, cuda };

/// Which model `run` trains to score the beats' shapes (`zeroflow run --model`).
enum class model_kind {
  light_vae,        ///< the seed's LightVAE (model/vae.hpp): "lightvae"
  mlp_autoencoder,  ///< the seed-004 MLP autoencoder (model/mlp_autoencoder.hpp) on min-max scaled rows: "mlp"
};

/// "auto", "cpu" or "cuda" (also "gpu") as a device_choice.
[[nodiscard]] device_choice parse_device_choice(const std::string& text);

/// "lightvae" or "mlp" as a model_kind.
/// @throws invalid_argument for any other name (saying which names there are).
[[nodiscard]] model_kind parse_model_kind(const std::string& text);
/// The name parse_model_kind reads: "lightvae" or "mlp".
[[nodiscard]] const char* model_kind_name(model_kind kind);

/// The reference labels that sit beside a recording, if any: NAME.atr for a WFDB record or an EDF
/// file (the MIT-BIH convention), else NAME.labels.csv (what `zeroflow generate` writes).
[[nodiscard]] std::optional<std::filesystem::path> labels_beside(const std::filesystem::path& input);

/// Epochs of a training run of the MLP autoencoder when none are given: its notebook's 100 (the
/// LightVAE's are the seed's 30, run_options' default).
inline constexpr int mlp_default_epochs = 100;

/// Options of a run. Every one of them is described in run_option_table.hpp (name, default,
/// range, help), from which the command line and Python take theirs.
struct run_options {
  std::filesystem::path input;  ///< CSV recording
  /// The signal to read: a CSV column or a WFDB/EDF signal, by name or 0-based index; empty: the
  /// default (io::recording_options::lead).
  std::string lead;
  io::raw_layout raw;  ///< channels and gain of a raw recording (.f32, .i16, .i32)
  /// Which signal files a WFDB header may name (io::record_files): its own folder unless the user
  /// trusts the header (--allow-outside-record).
  io::record_files record_files = io::record_files::own_folder;
  /// How the recording's bytes reach a CUDA device (io/file_loading.hpp).
  io::io_method io = io::io_method::automatic;
  /// The caller stated segmentation.sample_rate (make_run_options sets it when `sample_rate` is
  /// given): a file that states another rate is then refused. Otherwise a WFDB or EDF file's own
  /// rate replaces it (CSV files state none).
  bool sample_rate_explicit = false;
  signal::segment_params segmentation{};  ///< sample rate and the seed's windows, in seconds
  device_choice where = device_choice::automatic;
  /// The model a training run makes; a run that scores with `model` takes the file's kind.
  model_kind model_type = model_kind::light_vae;
  int epochs = 30;
  /// Rows per optimiser step; 0 (the MLP autoencoder only): every row in one step, as the seed-004 notebook.
  int batch = 1024;
  std::uint64_t seed = 42;
  std::optional<std::filesystem::path> labels;  ///< R-peak labels (sample,label); evaluated when given
  std::optional<std::filesystem::path> model;   ///< score with this model instead of training one
  int threads = 0;                              ///< CSV parser threads (0 = all cores)
  /// The most bytes the run may hold on its device at once (0: no bound). With
  /// a bound the recording is read to the host and segmented and scored in chunks (chunked.hpp),
  /// with the results of the in-memory run; on the CPU the bound applies to the host memory the run
  /// allocates after loading. At least min_device_budget; robust segmentation only.
  std::int64_t max_device_memory = 0;
  /// On CUDA, make LibTorch allocate from zeroflow's pool too (must precede LibTorch's first
  /// CUDA allocation in the process; later runs in the same process keep the first routing).
  bool route_torch_memory = true;
  /// The class rule's parameters (classify/beat_classes.hpp; the defaults are the documented method).
  classify::class_params classes{};
  /// The Holter analysis's thresholds (pauses, brady- and tachycardia, runs).
  holter::holter_params holter{};
  /// Progress lines for a person (stderr in the CLI): loading, each epoch, each stage.
  std::function<void(const std::string&)> progress;
};

struct stage_time {
  std::string name;
  double milliseconds;
  /// Bytes zeroflow copied from device to host during the stage (core/transfers.hpp): only
  /// scalars between loading and collecting on a GPU.
  std::int64_t device_to_host_bytes = 0;
};

/// Beat detection and anomaly ranking quality against the labels file, when one was given
/// (eval::evaluate_labels_file): a labels file that cannot be read is a warning, never a failed
/// run, and `not_evaluated` says why.
using evaluation = eval::label_evaluation;

/// A few seconds of the recording around one event of the Holter analysis.
struct event_strip {
  std::int64_t event = 0;      ///< index into run_result::holter->events
  std::int64_t start = 0;      ///< the strip's first sample
  std::vector<float> samples;  ///< the lead that was read, from `start` on
  /// The same stretch of the recording's other leads, in figure_data::strip_leads' order after
  /// the first (each in its own units).
  std::vector<std::vector<float>> other_leads;
};

/// The figures' data, computed on the run's device and handed to the host once, with the
/// per-beat results. Sized for the report (a few MB at most), never the raw recording.
struct figure_data {
  /// Finest overview level: min and max of every `overview_bucket` consecutive samples
  /// (the last bucket may be shorter); the report derives the coarser levels. A bucket of 1
  /// means the whole recording fits the budget and these are the raw samples.
  std::int64_t overview_bucket = 1;
  std::vector<float> overview_min, overview_max;
  /// A few seconds of the recording as the seed plots them: raw signal and band-pass response
  /// from sample `excerpt_start` on (the gates are the candidates' starts inside it).
  std::int64_t excerpt_start = 0;
  std::vector<float> excerpt_signal, excerpt_filtered;
  /// Full-width embedded rows (normalised, zero-padded, sizes.row_width each) of selected
  /// candidates: the most anomalous ones and a few dozen others for the overlay figure.
  std::vector<std::int64_t> row_beats;  ///< candidate index of each row
  std::vector<float> rows;              ///< row_beats.size() × sizes.row_width
  /// Every kept beat's row reduced to `thumb_width` points (hover previews in the latent
  /// figure), in kept order (the order of candidates with kept = 1).
  std::int64_t thumb_width = 0;
  std::vector<float> thumbs;
  /// Strips of the recording (the lead that was read, its own units) around the events a Holter
  /// reader looks at first (holter::notable_events), for the report's ECG paper.
  std::vector<event_strip> strips;
  /// The leads of every strip: the one that was read first, then the recording's others (WFDB,
  /// EDF and raw recordings; a CSV's other columns are not read again).
  std::vector<std::string> strip_leads;
};

/// Which model scored the beats and how it was made (summary.json's "model").
struct model_summary {
  std::string name;             ///< model_kind_name: "lightvae" or "mlp"
  std::string architecture;     ///< its layers, for a person
  std::int64_t parameters = 0;  ///< learnable scalars
  std::string input_scaling;    ///< what is done to a beat's row before the model sees it
  double learning_rate = 0;     ///< Adam's step size in training (0 for a loaded model)
  double weight_decay = 0;      ///< Adam's L2 weight decay in training
  /// The path its training took (model::training_path_name: "fused_kernels", "cuda_graph" or
  /// "eager"); empty for a loaded model.
  std::string training_path;
};

/// Everything a report needs, on the host (the final hand-off).
struct run_result {
  std::string input;
  std::string lead;  ///< the signal that was read (a CSV column, a WFDB/EDF lead)
  device where;
  std::int64_t samples = 0;
  double sample_rate = 0;
  signal::segment_sizes sizes{};
  signal::normalization norm{};
  // One entry per beat candidate (a span between two consecutive gate positions).
  std::vector<std::int64_t> start, peak, length;
  std::vector<std::uint8_t> kept;
  std::vector<char> split;             ///< 't' train, 'v' test (validation), '-' not kept / not split
  std::vector<float> score, mu0, mu1;  ///< NaN where not kept (the seed's method; the robust method keeps every beat)
  // Robust method only (empty for the seed's): rhythm in seconds, the score's two parts as robust
  // z-scores (signal/beat_score.hpp), and why a beat stands out ("early;pause;shape;long").
  std::vector<float> rr_before, rr_after, local_rr, morphology, rhythm;
  std::vector<std::string> flags;
  // Robust method only: each beat's AAMI class ('N', 'S', 'V', 'Q'), the measurements the class
  // rule used (classify/beat_classes.hpp) and the atrial fibrillation episodes it found.
  std::vector<char> beat_class;
  std::vector<float> similarity, p_similarity, prematurity, p_coherence, clarity, f_wave_rate;
  std::vector<std::int32_t> family;  ///< shape family (0: the dominant shape; classify::classification::family)
  /// classify::classification::other_lead_similarity (NaN: no other lead read the beat).
  std::vector<float> other_lead_similarity;
  /// classify::classification::other_lead_deviation (NaN: not a beat called V before that check, or
  /// no other lead measured it).
  std::vector<float> other_lead_deviation;
  /// The other leads whose shapes the class rule used (classify::recording_context::other_leads),
  /// besides `lead`; empty for one lead, a CSV, or when `lead` named the one to use.
  std::vector<std::string> shape_leads;
  /// The other ECG leads whose own detections joined the beats' lead's
  /// (classify/joint_detection.hpp), and what that changed: the beats' lead's detections dropped
  /// as noise no lead confirmed, and beats only another lead found.
  std::vector<std::string> detection_leads;
  std::int64_t joined_dropped = 0, joined_added = 0;
  std::vector<classify::episode> episodes;
  std::vector<classify::episode> unreadable;  ///< stretches without readable ECG (their beats are Q)
  /// Stretches whose beats may be every other beat of a faster rhythm (a warning; classify::classification).
  std::vector<classify::episode> fast_rhythm;
  std::string method;                        ///< "robust" or "gate-to-gate" (segment_params::method)
  std::vector<std::int64_t> histogram;       ///< beat-length histogram (samples)
  std::vector<std::int64_t> detected_peaks;  ///< every detected R-peak, for evaluation and figures
  std::vector<double> epoch_loss;
  double test_loss = 0;
  bool trained = false;
  std::vector<float> decoded_grid;  ///< 5×5 latent grid, 25 × row_width
  figure_data figures;
  std::vector<stage_time> stages;
  std::int64_t peak_host_bytes = 0, peak_device_bytes = 0;
  std::optional<evaluation> quality;
  /// What a Holter report prints (holter/holter.hpp): robust method only, from the classes above.
  std::optional<holter::holter_analysis> holter;
  std::filesystem::path model_file;  ///< where the trained model was saved (if any)
  model_summary model;               ///< the model that scored the beats
  std::int64_t beats_kept() const;
};

/// The beats, classes and rhythm of a run with classes, as the Holter analysis reads them (a view
/// of `r`).
[[nodiscard]] holter::beat_record holter_record(const run_result& r);

}  // namespace zeroflow::pipeline
