#include "zeroflow/pipeline/run_option_table.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <optional>
#include <system_error>

#include "zeroflow/classify/param_names.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/file_loading.hpp"
#include "zeroflow/pipeline/chunked.hpp"

namespace zeroflow::pipeline {

namespace {

/// A finite number, as the command line reads one ("+5" is five); nothing otherwise.
std::optional<double> number_of(std::string_view text) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (first != last && *first == '+') ++first;
  double value = 0;
  const auto [end, ec] = std::from_chars(first, last, value);
  if (first == last || ec != std::errc{} || end != last || !std::isfinite(value)) return std::nullopt;
  return value;
}

/// The shortest text that reads back as `v` ("0.4", "1.024", "250").
std::string shown(double v) {
  char text[32];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, v);
  return std::string(text, ec == std::errc{} ? end : text);
}

std::string shown_g(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

double number(std::string_view text) { return *number_of(text); }

std::int64_t whole(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  std::int64_t value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

std::string yes_no(bool v) { return v ? "true" : "false"; }

bool truth(std::string_view text) { return text == "true" || text == "1" || text == "on" || text == "yes"; }

// Setters and getters by option, captureless so that the table holds plain function pointers.
#define ZF_SEG_SECONDS(field)                                                                  \
  .apply = [](run_options& o, std::string_view text) { o.segmentation.field = number(text); }, \
  .value = [](const run_options& o) { return shown(o.segmentation.field); }

std::vector<option_info> make_table() {
  using k = option_kind;
  using u = option_use;
  std::vector<option_info> table;
  const auto add = [&table](option_info info) { table.push_back(std::move(info)); };

  // ---- the recording
  add({.name = "lead",
       .help =
           "the signal to find the beats in, by name or 0-based index: a CSV column (default: the first), a WFDB or "
           "EDF lead (default: MLII where present, else the first ECG lead), a raw recording's channel (default: "
           "0). Left out, a WFDB, EDF or raw recording's other ECG leads inform the beats' classes too; given, the "
           "one lead named is used alone",
       .group = "recording",
       .apply = [](run_options& o, std::string_view v) { o.lead = std::string(v); },
       .value = [](const run_options& o) { return o.lead; }});
  add({.name = "sample_rate",
       .kind = k::number,
       .default_text = "250",
       .low = io::lowest_sample_rate,
       .high = io::highest_sample_rate,
       .unit = "Hz",
       .help = "samples per second of a CSV recording, required for a raw one (WFDB and EDF files state their own; a "
               "different value given for them is refused)",
       .group = "recording",
       .apply =
           [](run_options& o, std::string_view v) {
             o.segmentation.sample_rate = number(v);
             o.sample_rate_explicit = true;
           },
       .value = [](const run_options& o) { return shown(o.segmentation.sample_rate); }});
  add({.name = "channels",
       .kind = k::integer,
       .default_text = "1",
       .low = 1,
       .high = 4096,
       .help = "channels interleaved frame by frame in a raw recording (.f32, .i16, .i32); `lead` picks one by 0-based "
               "index",
       .group = "recording",
       .apply = [](run_options& o, std::string_view v) { o.raw.channels = static_cast<std::size_t>(whole(v)); },
       .value = [](const run_options& o) { return std::to_string(o.raw.channels); }});
  add({.name = "gain",
       .kind = k::number,
       .default_text = "1",
       .high = 1e9,
       .low_open = true,
       .help = "stored units per physical unit of a raw recording (e.g. ADC units per mV for .i16): its samples are "
               "divided by it (1: taken as stored)",
       .group = "recording",
       .apply = [](run_options& o, std::string_view v) { o.raw.gain = number(v); },
       .value = [](const run_options& o) { return shown(o.raw.gain); }});
  add({.name = "allow_outside_record",
       .kind = k::flag,
       .default_text = "false",
       .help = "let a WFDB header name signal files outside its own folder (an absolute path, or one through ..); by "
               "default a record reads only files beside its header, so that a record from elsewhere cannot read the "
               "rest of the machine",
       .group = "recording",
       .apply =
           [](run_options& o, std::string_view v) {
             o.record_files = truth(v) ? io::record_files::anywhere : io::record_files::own_folder;
           },
       .value = [](const run_options& o) { return yes_no(o.record_files == io::record_files::anywhere); }});
  add({.name = "io",
       .kind = k::choice,
       .default_text = "auto",
       .choices = {"auto", "kvikio", "posix", "mmap"},
       .help = "how files reach the GPU: auto (KvikIO where GPUDirect Storage runs, else posix), kvikio "
               "(KvikIO/cuFile; its compatibility mode without the nvidia-fs driver), posix (threads pread into pinned "
               "buffers, pipelined with the copies) or mmap (a memory map copied by the driver); `zeroflow info` says "
               "which GDS mode is active",
       .group = "recording",
       .apply = [](run_options& o, std::string_view v) { o.io = io::parse_io_method(v); },
       .value = [](const run_options& o) { return std::string(io::to_string(o.io)); }});
  add({.name = "threads",
       .kind = k::integer,
       .default_text = "0",
       .high = 4096,
       .help = "CSV parser threads (0: all cores)",
       .group = "recording",
       .apply = [](run_options& o, std::string_view v) { o.threads = static_cast<int>(whole(v)); },
       .value = [](const run_options& o) { return std::to_string(o.threads); }});
  add({.name = "labels",
       .kind = k::path,
       .help = "reference beats to evaluate against: a labels CSV (sample,label / sample,symbol / sample,symbol,aami) "
               "or WFDB annotations (NAME.atr); a file that cannot be read is a warning, not a failed run",
       .group = "recording",
       .apply = [](run_options& o, std::string_view v) { o.labels = std::filesystem::path(v); },
       .value = [](const run_options& o) { return o.labels ? o.labels->string() : std::string(); }});

  // ---- where and how the beats are found
  add({.name = "device",
       .kind = k::choice,
       .default_text = "auto",
       .choices = {"auto", "cpu", "cuda"},
       .help = "auto (GPU when present), cpu or cuda",
       .group = "run",
       .apply =
           [](run_options& o, std::string_view v) {
             o.where = v == "cpu" ? device_choice::cpu : v == "cuda" ? device_choice::cuda : device_choice::automatic;
           },
       .value =
           [](const run_options& o) {
             return std::string(o.where == device_choice::cpu    ? "cpu"
                                : o.where == device_choice::cuda ? "cuda"
                                                                 : "auto");
           }});
  add({.name = "segmentation",
       .kind = k::choice,
       .default_text = "robust",
       .choices = {"robust", "gate-to-gate", "seed"},
       .help = "how beats are found: robust (adaptive QRS detection; every beat scored by shape and rhythm) or "
               "gate-to-gate (the seed documents' method, exactly: NMS gate, a beat from one gate to the next, beats "
               "outside `min_beat_seconds`/`max_beat_seconds` not scored; \"seed\" is its earlier name)",
       .group = "segmentation",
       .apply =
           [](run_options& o, std::string_view v) {
             o.segmentation.method = signal::segmentation_named(v).value_or(signal::segmentation_method::robust);
           },
       .value = [](const run_options& o) { return std::string(signal::segmentation_name(o.segmentation.method)); }});
  add({.name = "normalize",
       .kind = k::choice,
       .default_text = "robust",
       .choices = {"robust", "none"},
       .help = "rows for the model: robust (z-score by the recording's median and MAD, unit-free) or none (raw "
               "samples, as the seed; its losses are then comparable)",
       .group = "segmentation",
       .apply = [](run_options& o, std::string_view v) { o.segmentation.normalize_rows = v == "robust"; },
       .value = [](const run_options& o) { return std::string(o.segmentation.normalize_rows ? "robust" : "none"); }});
  add({.name = "min_beat_seconds",
       .kind = k::beat_seconds,
       .default_text = "0.4",
       .high = 10,
       .low_open = true,
       .help = "shortest kept beat, seconds (seed: 0.4); below `max_beat_seconds`",
       .group = "segmentation",
       ZF_SEG_SECONDS(min_beat_seconds)});
  add({.name = "max_beat_seconds",
       .kind = k::beat_seconds,
       .default_text = "1.024",
       .high = 10,
       .low_open = true,
       .help = "longest kept beat, seconds (seed: 1.024; raise it to keep beats before long pauses)",
       .group = "segmentation",
       ZF_SEG_SECONDS(max_beat_seconds)});
  add({.name = "min_peak_ratio",
       .kind = k::number,
       .default_text = "0.1",
       .high = 1,
       .help = "drop detections weaker than this fraction of the median band-passed peak (0: the seed's detector)",
       .group = "segmentation",
       ZF_SEG_SECONDS(min_peak_ratio)});
  add({.name = "max_device_memory",
       .kind = k::byte_size,
       .low = static_cast<double>(min_device_budget),
       .help = "the most device memory the run may hold at once (2G, 512M, ...): the recording stays on the host and "
               "is segmented and scored in chunks, with the same results; robust segmentation only (default: no bound)",
       .group = "run",
       .apply = [](run_options& o,
                   std::string_view v) { o.max_device_memory = v.empty() ? 0 : parse_byte_size(std::string(v)); },
       .value =
           [](const run_options& o) { return o.max_device_memory > 0 ? std::to_string(o.max_device_memory) : ""; }});

  // ---- the model
  add({.name = "model",
       .kind = k::path,
       .use = u::scoring,
       .help = "model.safetensors written by `zeroflow run` (either model; the model.pt of earlier versions too), or a "
               "LightVAE saved from Python with its rows described (zeroflow.model.VAE.describe_rows)",
       .group = "model",
       .apply = [](run_options& o, std::string_view v) { o.model = std::filesystem::path(v); },
       .value = [](const run_options& o) { return o.model ? o.model->string() : std::string(); }});
  add({.name = "model_kind",
       .kind = k::choice,
       .use = u::training,
       .default_text = "lightvae",
       .choices = {"lightvae", "mlp"},
       .help = "the model that scores the beats' shapes: lightvae (the seed's LightVAE) or mlp (the seed-004 MLP "
               "autoencoder on min-max scaled beats; 100 full-batch epochs unless `epochs` or `batch` say otherwise). "
               "MONAI's VarAutoEncoder is Python's: zeroflow.sklearn.VAEOutlierDetector(model=\"monai\")",
       .group = "model",
       .apply = [](run_options& o, std::string_view v) { o.model_type = parse_model_kind(std::string(v)); },
       .value = [](const run_options& o) { return std::string(model_kind_name(o.model_type)); }});
  add({.name = "epochs",
       .kind = k::integer,
       .use = u::training,
       .default_text = "30",
       .low = 1,
       .high = 100000,
       .help = "training epochs (`model_kind`=mlp: 100)",
       .group = "model",
       .apply = [](run_options& o, std::string_view v) { o.epochs = static_cast<int>(whole(v)); },
       .value = [](const run_options& o) { return std::to_string(o.epochs); }});
  add({.name = "batch",
       .kind = k::integer,
       .use = u::training,
       .default_text = "1024",
       .low = 1,
       .high = 1 << 24,
       .help = "training batch size (`model_kind`=mlp: all beats in one batch)",
       .group = "model",
       .apply = [](run_options& o, std::string_view v) { o.batch = static_cast<int>(whole(v)); },
       .value = [](const run_options& o) { return std::to_string(o.batch); }});
  add({.name = "seed",
       .kind = k::seed,
       .use = u::training,
       .default_text = "42",
       .help = "seed of the shuffle, split and initial weights",
       .group = "model",
       .apply =
           [](run_options& o, std::string_view v) {
             if (!v.empty() && v.front() == '+') v.remove_prefix(1);
             std::from_chars(v.data(), v.data() + v.size(), o.seed);
           },
       .value = [](const run_options& o) { return std::to_string(o.seed); }});
  add({.name = "route_torch_memory",
       .kind = k::flag,
       .use = u::library,
       .default_text = "true",
       .help = "on CUDA, make LibTorch allocate from zeroflow's pool too; only possible before LibTorch's first CUDA "
               "allocation in the process",
       .group = "run",
       .apply = [](run_options& o, std::string_view v) { o.route_torch_memory = truth(v); },
       .value = [](const run_options& o) { return yes_no(o.route_torch_memory); }});

  // ---- the detector's windows (signal/params.hpp says what each one is for): seconds in (0, high],
  // under a --help heading of their own
  const auto window = [&add](option_info o) {
    o.kind = k::number;
    o.low_open = true;
    o.unit = "s";
    o.group = "detector";
    add(std::move(o));
  };

  window({.name = "ricker_seconds",
          .default_text = "0.12",
          .high = 10,
          .help = "width of the seed's Ricker band-pass kernel",
          ZF_SEG_SECONDS(ricker_seconds)});
  window({.name = "nms_window_seconds",
          .default_text = "0.72",
          .high = 10,
          .help = "the seed's non-maximum-suppression window",
          ZF_SEG_SECONDS(nms_window_seconds)});
  window({.name = "refractory_seconds",
          .default_text = "0.2",
          .high = 10,
          .help = "no two beats closer than this",
          ZF_SEG_SECONDS(refractory_seconds)});
  window({.name = "t_wave_seconds",
          .default_text = "0.36",
          .high = 10,
          .help = "a slower, weaker peak this soon after a beat is its T wave",
          ZF_SEG_SECONDS(t_wave_seconds)});
  window({.name = "replace_seconds",
          .default_text = "0.25",
          .high = 10,
          .help = "a stronger peak this soon after a beat replaces it (it was a P wave)",
          ZF_SEG_SECONDS(replace_seconds)});
  window({.name = "slope_seconds",
          .default_text = "0.075",
          .high = 10,
          .help = "half-width of the window in which a candidate's steepest slope is taken",
          ZF_SEG_SECONDS(slope_seconds)});
  window({.name = "learn_seconds",
          .default_text = "8",
          .high = 3600,
          .help = "the detector's levels start from this much of the recording",
          ZF_SEG_SECONDS(learn_seconds)});
  window({.name = "stretch_seconds",
          .default_text = "300",
          .high = 86400,
          .help = "the detector decides stretches this long independently",
          ZF_SEG_SECONDS(stretch_seconds)});
  window({.name = "overlap_seconds",
          .default_text = "30",
          .high = 3600,
          .help = "each stretch starts this much earlier (at least `learn_seconds`)",
          ZF_SEG_SECONDS(overlap_seconds)});
  window({.name = "window_before_seconds",
          .default_text = "0.25",
          .high = 10,
          .help = "a beat's row starts this long before its peak (P wave)",
          ZF_SEG_SECONDS(window_before_seconds)});
  window({.name = "window_after_seconds",
          .default_text = "0.45",
          .high = 10,
          .help = "a beat's row ends this long after its peak (T wave)",
          ZF_SEG_SECONDS(window_after_seconds)});
  // ---- the class rule (classify/beat_classes.hpp), by its parameters' names (classify/param_names.hpp)
  add({.name = "class_params",
       .kind = k::text,
       .help = "the class rule's parameters as NAME=VALUE pairs separated by commas "
               "(timing.one_cue_min_clarity=20,af.window_beats=32); docs/classification.md lists them, and the "
               "defaults are its documented method",
       .group = "classes",
       .apply = [](run_options& o, std::string_view v) { classify::set_class_params(o.classes, v); },
       .value = [](const run_options& o) { return classify::changed_class_params(o.classes); }});
  // ---- the Holter report's events (holter/holter_params.hpp): the conventions' thresholds
  add({.name = "pause_seconds",
       .kind = k::number,
       .default_text = "2",
       .high = 60,
       .low_open = true,
       .unit = "s",
       .help = "an R-R interval at least this long is a pause (events.csv)",
       .group = "Holter events",
       .apply = [](run_options& o, std::string_view v) { o.holter.events.pause_seconds = number(v); },
       .value = [](const run_options& o) { return shown(o.holter.events.pause_seconds); }});
  add({.name = "bradycardia_bpm",
       .kind = k::number,
       .default_text = "40",
       .high = 300,
       .low_open = true,
       .unit = "bpm",
       .help = "a heart rate (averaged over 8 R-R intervals) below this is bradycardia; below `tachycardia_bpm`",
       .group = "Holter events",
       .apply = [](run_options& o, std::string_view v) { o.holter.events.bradycardia_bpm = number(v); },
       .value = [](const run_options& o) { return shown(o.holter.events.bradycardia_bpm); }});
  add({.name = "tachycardia_bpm",
       .kind = k::number,
       .default_text = "120",
       .high = 400,
       .low_open = true,
       .unit = "bpm",
       .help = "a heart rate (averaged over 8 R-R intervals) above this is tachycardia",
       .group = "Holter events",
       .apply = [](run_options& o, std::string_view v) { o.holter.events.tachycardia_bpm = number(v); },
       .value = [](const run_options& o) { return shown(o.holter.events.tachycardia_bpm); }});
  add({.name = "run_beats",
       .kind = k::integer,
       .default_text = "3",
       .low = 3,
       .high = 1000,
       .help = "ectopic beats in a row that make a run (ventricular tachycardia, SVT); two are a couplet",
       .group = "Holter events",
       .apply = [](run_options& o, std::string_view v) { o.holter.events.run_beats = whole(v); },
       .value = [](const run_options& o) { return std::to_string(o.holter.events.run_beats); }});
  return table;
}

#undef ZF_SEG_SECONDS

std::string in_range(const option_info& o) {
  const auto bound = [&o](double v) {
    return o.kind == option_kind::integer ? std::to_string(static_cast<long long>(v)) : shown_g(v);
  };
  std::string r =
      std::string("in ") + (o.low_open ? "(" : "[") + bound(o.low) + ", " + bound(o.high) + (o.high_open ? ")" : "]");
  return o.unit.empty() ? r : r + " " + std::string(o.unit);
}

/// Whether `v` lies in the option's range, each end open or closed as the option says.
bool within(const option_info& o, double v) {
  return (o.low_open ? v > o.low : v >= o.low) && (o.high_open ? v < o.high : v <= o.high);
}

/// A loading method this build has (kvikio needs KvikIO), refused with the reason only: the caller
/// names the option.
void require_io_method(std::string_view text) {
  try {
    (void)io::resolve_io_method(io::parse_io_method(text));
  } catch (const invalid_argument& e) {
    std::string_view why = e.what();
    if (why.starts_with("`io`=")) why.remove_prefix(why.find(": ") + 2);
    ZF_THROW(invalid_argument, why);
  }
}

/// The names people try for a model that a run does not train, with where each one is used.
[[noreturn]] void refuse_model_kind(const std::string& text) {
  if (text == "monai")
    ZF_THROW(invalid_argument,
             "MONAI's VarAutoEncoder runs in Python only (PyPI monai): use "
             "zeroflow.sklearn.VAEOutlierDetector(model=\"monai\"); `zeroflow run` trains lightvae or mlp");
  std::error_code ec;
  if (text.ends_with(".safetensors") || text.ends_with(".pt") || std::filesystem::is_regular_file(text, ec))
    ZF_THROW(invalid_argument, "'", text,
             "' is a model file: `model_kind` names the model to train (lightvae or mlp); a saved model scores "
             "with `model`=",
             text, " (zeroflow score)");
  ZF_THROW(invalid_argument, "'", text, "' is no model zeroflow run trains; expected lightvae or mlp");
}

}  // namespace

std::span<const option_info> run_option_table() {
  static const std::vector<option_info> table = make_table();
  return table;
}

const option_info& run_option(std::string_view name) {
  for (const auto& o : run_option_table())
    if (o.name == name) return o;
  std::string names;
  for (const auto& o : run_option_table()) names += (names.empty() ? "" : ", ") + std::string(o.name);
  ZF_THROW(invalid_argument, "'", name, "' is no option of a run; the options are ", names);
}

std::string option_flag(const option_info& option) {
  if (option.use == option_use::library) return {};
  std::string flag = "--" + std::string(option.name);
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

std::string flag_before_value(const option_info& option) {
  const std::string flag = option_flag(option);
  return flag.empty() ? flag : flag + ' ';
}

std::string option_range_text(const option_info& o) {
  switch (o.kind) {
    case option_kind::beat_seconds:
      return "seconds " + in_range(o);
    case option_kind::number:
    case option_kind::integer:
      return in_range(o);
    case option_kind::byte_size:
      return "at least " + std::to_string(static_cast<std::int64_t>(o.low) >> 20) + "M";
    case option_kind::choice: {
      std::string r;
      for (auto c : o.choices) {
        if (!r.empty()) r += '|';
        r += c;
      }
      return r;
    }
    default:
      return {};
  }
}

void check_option_text(const option_info& o, std::string_view text) {
  const std::string typed(text);
  switch (o.kind) {
    case option_kind::number:
    case option_kind::beat_seconds: {
      const auto range = in_range(o);
      const auto v = number_of(text);
      if (o.kind == option_kind::beat_seconds) {
        if (!v) ZF_THROW(invalid_argument, "'", typed, "' is not a number; expected seconds ", range);
        if (within(o, *v)) return;
        std::string message = shown_g(*v) + " s is no heartbeat: expected seconds " + range;
        if (*v > o.high && *v / 1000 <= o.high)
          message += "; did you mean " + shown_g(*v / 1000) + " (" + shown_g(*v) + " ms)?";
        ZF_THROW(invalid_argument, message);
      }
      if (!v) ZF_THROW(invalid_argument, "'", typed, "' is not a number; expected a number ", range);
      if (!within(o, *v)) ZF_THROW(invalid_argument, shown_g(*v), " is not ", range);
      return;
    }
    case option_kind::integer: {
      std::string_view digits = text;
      if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
      long long value = 0;
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
      const auto range = in_range(o);
      if (digits.empty() || end != digits.data() + digits.size() || ec == std::errc::invalid_argument)
        ZF_THROW(invalid_argument, "'", typed, "' is not a whole number; expected one ", range);
      if (ec == std::errc::result_out_of_range || !within(o, static_cast<double>(value)))
        ZF_THROW(invalid_argument, typed, " is not ", range);
      return;
    }
    case option_kind::seed: {
      std::string_view digits = text;
      if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
      std::uint64_t value = 0;
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
      if (digits.empty() || end != digits.data() + digits.size() || ec != std::errc{})
        ZF_THROW(invalid_argument, "'", typed, "' is not a seed; expected a whole number from 0 to ",
                 std::numeric_limits<std::uint64_t>::max());
      return;
    }
    case option_kind::choice: {
      for (auto c : o.choices)
        if (c == text) {
          if (o.name == "io") require_io_method(text);
          return;
        }
      if (o.name == "model_kind") refuse_model_kind(typed);
      ZF_THROW(invalid_argument, "'", typed, "' is not one of ", option_range_text(o));
    }
    case option_kind::byte_size: {
      if (text.empty()) return;  // no bound
      const auto bytes = parse_byte_size(typed);
      if (bytes < static_cast<std::int64_t>(o.low))
        ZF_THROW(invalid_argument, typed, " is under the ", static_cast<std::int64_t>(o.low) >> 20,
                 "M a run needs at least");
      return;
    }
    case option_kind::flag:
      if (text == "true" || text == "false" || text == "1" || text == "0" || text == "on" || text == "off" ||
          text == "yes" || text == "no")
        return;
      ZF_THROW(invalid_argument, "'", typed, "' is not true or false");
    case option_kind::text:
    case option_kind::path:
      return;
  }
}

void check_run_options(const run_options& o) {
  const auto& s = o.segmentation;
  if (!(s.min_beat_seconds < s.max_beat_seconds))
    ZF_THROW(invalid_argument, "`min_beat_seconds`=", shown_g(s.min_beat_seconds),
             " s must be shorter than `max_beat_seconds`=", shown_g(s.max_beat_seconds), " s");
  if (!(o.holter.events.bradycardia_bpm < o.holter.events.tachycardia_bpm))
    ZF_THROW(invalid_argument, "`bradycardia_bpm`=", shown_g(o.holter.events.bradycardia_bpm),
             " must be below `tachycardia_bpm`=", shown_g(o.holter.events.tachycardia_bpm));
  if (o.max_device_memory > 0 && s.method == signal::segmentation_method::gate_to_gate)
    ZF_THROW(invalid_argument,
             "`max_device_memory` segments in chunks with the robust method only; leave out "
             "`segmentation`=gate-to-gate");
}

run_options make_run_options(const std::vector<std::pair<std::string, std::string>>& given) {
  run_options o;
  bool epochs_given = false, batch_given = false;
  for (const auto& [name, text] : given) {
    const auto& option = run_option(name);
    try {
      check_option_text(option, text);
      option.apply(o, text);
    } catch (const invalid_argument& e) {
      ZF_THROW(invalid_argument, "`", name, "`=", text, ": ", e.what());
    }
    epochs_given = epochs_given || name == "epochs";
    batch_given = batch_given || name == "batch";
  }
  if (o.model_type == model_kind::mlp_autoencoder) {
    if (!epochs_given) o.epochs = mlp_default_epochs;
    if (!batch_given) o.batch = 0;
  }
  check_run_options(o);
  return o;
}

std::string spell_options(std::string_view message, option_speller spelled) {
  std::string out;
  std::size_t i = 0;
  while (i < message.size()) {
    const auto open = message.find('`', i);
    if (open == std::string_view::npos) break;
    const auto close = message.find('`', open + 1);
    if (close == std::string_view::npos) break;
    const auto name = message.substr(open + 1, close - open - 1);
    const option_info* option = nullptr;
    for (const auto& o : run_option_table())
      if (o.name == name) option = &o;
    std::string spelling = option != nullptr ? spelled(*option) : std::string();
    out.append(message.substr(i, open - i));
    if (spelling.empty()) {
      out.append(message.substr(open, close + 1 - open));  // not the front's option: left as written
      i = close + 1;
      continue;
    }
    const bool valued = close + 1 < message.size() && message[close + 1] == '=';
    if (!valued && spelling.back() == ' ') spelling.pop_back();
    out.append(spelling);
    i = close + 1 + (valued ? 1 : 0);
  }
  out.append(message.substr(std::min(i, message.size())));
  return out;
}

}  // namespace zeroflow::pipeline
