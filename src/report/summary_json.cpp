#include "zeroflow/report/summary_json.hpp"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <vector>

#include "html_data.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/io/atomic_file.hpp"
#include "zeroflow/io/labels.hpp"
#include "zeroflow/pipeline/run_option_table.hpp"
#include "zeroflow/report/evaluation_output.hpp"
#include "zeroflow/report/holter_outputs.hpp"

namespace zeroflow::report {

namespace {
/// What the score column means, for whoever reads beats.csv without the README.
nlohmann::json score_json(const pipeline::run_result& r) {
  using nlohmann::json;
  const char* morphology =
      r.model.name == "mlp"
          ? "reconstruction error mean_t (x_hat - x)^2 of the normalised beat, min-max scaled (the MLP autoencoder's "
            "view of its shape)"
          : "reconstruction error mean_t (decode(mu) - x)^2 of the normalised beat (the VAE's view of its shape)";
  if (r.method != "robust") return json{{"definition", std::string(morphology) + "; higher = more anomalous"}};
  return json{
      {"definition",
       "the class first, then the evidence: 0.5 + atan(e) / pi for a beat of class N, 1 + atan(e) / pi for Q and "
       "1.5 + atan(e) / pi for S and V, with e = max(0, z(morphology)) + max(0, z(irregularity)) + max(0, z(1 - "
       "similarity)) + max(0, z(1 - p_similarity)) (the last outside AF only); higher = more anomalous"},
      {"morphology", morphology},
      {"irregularity",
       "max(0, ln(local_rr / rr_before)) + max(0, ln(rr_after / rr_before)): early beats and the pause after them"},
      {"local_rr", "median of the 16 R-R intervals around the beat"},
      {"similarity",
       "Pearson correlation of the beat's QRS segment with the dominant beat's (classification); z over every "
       "beat, floor 0.005"},
      {"p_similarity",
       "Pearson correlation of the beat's P-wave segment (-0.25 s .. -0.07 s, the line through its ends removed) "
       "with the dominant beat's; z over the beats outside AF, floor 0.05"},
      {"z",
       "robust z-score over the recording's beats: (v - median) / max(1.4826 MAD, floor); floors 5 % of the "
       "median error (morphology) and 0.03 (irregularity)"},
      {"flags",
       "early: rr_before < 0.85 local_rr; pause: rr_after > 1.15 rr_before and > 1.1 local_rr; rhythm / shape: "
       "that z-score > 3; long / short: rr_after outside [min_length, max_length]"},
  };
}
}  // namespace

/// Counts of each class, five typical beats of each, the rule, and the AF episodes with their
/// total duration. The examples are the beats at the 10th, 30th, 50th, 70th and 90th percentile
/// of the class's scores, highest first: typical members of the class, not only its oddest (the
/// highest scores of N are mostly artefacts).
nlohmann::json detail::classes_json(const pipeline::run_result& r) {
  using nlohmann::json;
  const auto counts = classify::class_counts(r.beat_class);
  json examples = json::object();
  for (const char c : {'N', 'S', 'V', 'Q'}) {
    std::vector<std::size_t> of_class;
    for (std::size_t b = 0; b < r.beat_class.size(); ++b)
      if (r.beat_class[b] == c) of_class.push_back(b);
    std::stable_sort(of_class.begin(), of_class.end(), [&](auto a, auto b) { return r.score[a] > r.score[b]; });
    std::vector<std::size_t> chosen;
    for (const double q : {0.1, 0.3, 0.5, 0.7, 0.9}) {
      if (of_class.empty()) break;
      const auto at = static_cast<std::size_t>(q * static_cast<double>(of_class.size()));
      const std::size_t beat = of_class[std::min(at, of_class.size() - 1)];
      if (chosen.empty() || chosen.back() != beat) chosen.push_back(beat);
    }
    examples[std::string(1, c)] = chosen;
  }
  // AF episodes and unreadable stretches alike: where, how long, how many beats.
  const auto stretches = [&](const std::vector<classify::episode>& list, double& seconds) {
    json out = json::array();
    for (const auto& e : list) {
      const double duration = static_cast<double>(e.offset - e.onset) / r.sample_rate;
      seconds += duration;
      out.push_back({{"rhythm", e.rhythm},
                     {"onset", e.onset},
                     {"offset", e.offset},
                     {"onset_seconds", static_cast<double>(e.onset) / r.sample_rate},
                     {"duration_seconds", duration},
                     {"first_beat", e.first_beat},
                     {"last_beat", e.last_beat},
                     {"beats", e.last_beat - e.first_beat + 1}});
    }
    return out;
  };
  double af_seconds = 0, unreadable_seconds = 0, fast_seconds = 0;
  const json episodes = stretches(r.episodes, af_seconds);
  const json unreadable = stretches(r.unreadable, unreadable_seconds);
  const json fast = stretches(r.fast_rhythm, fast_seconds);
  return json{
      {"counts", {{"N", counts[0]}, {"S", counts[1]}, {"V", counts[2]}, {"Q", counts[3]}}},
      {"examples", examples},
      {"rule",
       "per recording, without labels (docs/classification.md): unreadable (Q whatever else) = the median "
       "clarity (largest squared 10 ms slope within +-50 ms of the peak over its mean elsewhere in the row) of "
       "the beats within +-4 is under 10; unlike = QRS similarity to the dominant "
       "beat below the recording's bound (its median less 10 robust deviations, within 0.85..0.95); V = "
       "unlike and early or before a pause, or unlike in a shape family mostly so timed, or unlike inside "
       "AF; otherwise, where the other leads read the beat, N if their median QRS similarity is >= 0.5, V if it is "
       "< 0.5 and so is the beat's own (another shape in every lead); a beat called V is N where the other leads "
       "that read it see its QRS no further from the N and S beats within +-8 than those lie from each other; "
       "in a recording of several leads, Q = a lone beat called V that no other lead reads, with a clarity "
       "under 15; "
       "Q = unlike with a QRS under 1/8 of the dominant size or no clearer than noise, N = unlike otherwise; "
       "S = dominant shape outside AF, R-R before < 0.87 of the local normal interval, or < 0.95 with a P wave "
       "unlike the dominant "
       "beat's (P similarity <= 0) in a regular rhythm, or inside a supraventricular run (onset < 0.75 of the rhythm "
       "before it, regular, < 0.87); "
       "AF = over +-16 beats more than 40 % of intervals changing by > 10 % (V, unreadable and early-then-pause "
       "beats left out), >= 60 % of the pairs of consecutive changes distinct (no repeating pattern) and no "
       "consistent P wave; stretches <= 30 s apart one episode"},
      {"af_episodes", episodes},
      {"af_seconds", af_seconds},
      {"unreadable", unreadable},
      {"unreadable_seconds", unreadable_seconds},
      // Stretches whose beats may be every other beat of a rhythm over 240 bpm: a warning.
      {"possibly_faster", fast},
      {"possibly_faster_seconds", fast_seconds}};
}

void detail::write_json_file(const nlohmann::json& j, const std::filesystem::path& path) {
  // File, column and lead names are bytes, not always UTF-8 (a Latin-1 file name, a header cell):
  // what is not UTF-8 is written as U+FFFD rather than failing the run after its work is done.
  const auto text = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  io::write_atomically(path, [&](std::ostream& out) { out << text << '\n'; });
}

nlohmann::json summary_json(const pipeline::run_result& r, const pipeline::run_options& options) {
  using nlohmann::json;
  json stages = json::object();
  json copied = json::object();
  double total = 0;
  for (const auto& s : r.stages) {
    stages[s.name] = s.milliseconds;
    copied[s.name] = s.device_to_host_bytes;
    total += s.milliseconds;
  }
  stages["total"] = total;
  json j = {
      {"zeroflow_version", ZEROFLOW_VERSION},
      {"input", r.input},
      {"samples", r.samples},
      {"sample_rate", r.sample_rate},
      {"duration_seconds", static_cast<double>(r.samples) / r.sample_rate},
      {"device", r.where.name()},
      {"beats_found", static_cast<std::int64_t>(r.length.size())},
      {"beats_kept", r.beats_kept()},
      {"stages_ms", stages},
      {"stages_device_to_host_bytes", copied},
      {"peak_host_bytes", r.peak_host_bytes},
      {"peak_device_bytes", r.peak_device_bytes},
      {"loss_per_epoch", r.epoch_loss},
      {"test_loss", r.trained ? json(r.test_loss) : json(nullptr)},
      {"normalization",
       {{"method", options.segmentation.normalize_rows ? "robust z-score (median, 1.4826 MAD)"
                                                       : "none (raw samples, as the seed)"},
        {"center", r.norm.center},
        {"scale", r.norm.scale}}},
      {"parameters",
       {{"column", options.lead},
        {"epochs", options.epochs},
        {"batch", options.batch},
        {"seed", options.seed},
        {"ricker_width", r.sizes.ricker_width},
        {"nms_window", r.sizes.nms_window},
        {"min_length", r.sizes.min_length},
        {"max_length", r.sizes.max_length},
        {"row_width", r.sizes.row_width},
        {"segmentation", r.method},
        {"refractory", r.sizes.refractory},
        {"window_before", r.sizes.window_before},
        {"window_after", r.sizes.window_after},
        {"model", options.model ? json(options.model->string()) : json(nullptr)}}},
      {"score", score_json(r)},
      {"model",
       {{"name", r.model.name},
        {"architecture", r.model.architecture},
        {"parameters", r.model.parameters},
        {"input_scaling", r.model.input_scaling},
        {"learning_rate", r.model.learning_rate},
        {"weight_decay", r.model.weight_decay},
        // fused_kernels (model/training_path.hpp); null when no training ran.
        {"training_path", r.model.training_path.empty() ? json(nullptr) : json(r.model.training_path)}}},
  };
  // Every option of the run as its text (run_option_table.hpp), so that a run can be told apart from
  // another, and repeated, from its summary alone.
  json settings = json::object();
  for (const auto& o : pipeline::run_option_table()) settings[std::string(o.name)] = o.value(options);
  j["options"] = settings;
  if (!r.beat_class.empty()) j["classes"] = detail::classes_json(r);
  // Which leads were used: the beats were found in one, their shapes read in it and the others.
  json shapes = json::array({r.lead});
  for (const auto& lead : r.shape_leads) shapes.push_back(lead);
  json joined = json::array();
  for (const auto& lead : r.detection_leads) joined.push_back(lead);
  j["leads"] = {{"beats", r.lead},
                {"shapes", r.beat_class.empty() ? json::array() : shapes},
                {"joined", joined},
                {"joined_dropped", r.joined_dropped},
                {"joined_added", r.joined_added}};
  if (r.holter) j["holter"] = holter_json(*r.holter, r.sample_rate);
  // The labels file is recorded so that `zeroflow evaluate DIR` finds it again; an unreadable
  // one leaves the reason instead of a result.
  j["labels"] = r.quality ? json(std::filesystem::absolute(r.quality->labels).string()) : json(nullptr);
  // ... with their fingerprint: evaluate follows the path only to this very file, so that a summary
  // from elsewhere cannot make it read another.
  if (r.quality && r.quality->not_evaluated.empty()) {
    try {
      j["labels_fingerprint"] = io::file_fingerprint(r.quality->labels);
    } catch (const std::exception&) {
      j["labels_fingerprint"] = nullptr;  // gone since it was read: evaluate then asks for the labels
    }
  }
  if (r.quality) {
    j["evaluation"] = r.quality->not_evaluated.empty() ? evaluation_json(r.quality->result, r.sample_rate)
                                                       : json{{"not_evaluated", r.quality->not_evaluated}};
  }
  return j;
}

void write_summary_json(const pipeline::run_result& r, const pipeline::run_options& options,
                        const std::filesystem::path& path) {
  detail::write_json_file(summary_json(r, options), path);
}

}  // namespace zeroflow::report
