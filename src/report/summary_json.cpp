#include <nlohmann/json.hpp>

#include "zeroflow/config.hpp"
#include "zeroflow/io/atomic_file.hpp"
#include "zeroflow/report/outputs.hpp"

namespace zeroflow::report {

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
      {"normalization", {{"method", options.segmentation.normalize_rows ? "robust z-score (median, 1.4826 MAD)"
                                                                       : "none (raw samples, as the seed)"},
                         {"center", r.norm.center},
                         {"scale", r.norm.scale}}},
      {"parameters",
       {{"column", options.column},
        {"epochs", options.epochs},
        {"batch", options.batch},
        {"seed", options.seed},
        {"ricker_width", r.sizes.ricker_width},
        {"nms_window", r.sizes.nms_window},
        {"min_length", r.sizes.min_length},
        {"max_length", r.sizes.max_length},
        {"row_width", r.sizes.row_width},
        {"model", options.model ? json(options.model->string()) : json(nullptr)}}},
      {"score", "reconstruction error mean_t (decode(mu) - x)^2 of the normalised beat; higher = more anomalous"},
  };
  if (r.quality) {
    const auto& q = *r.quality;
    j["evaluation"] = {{"labelled_beats", q.labelled_beats},
                       {"true_positives", q.true_positives},
                       {"false_positives", q.false_positives},
                       {"false_negatives", q.false_negatives},
                       {"sensitivity", q.sensitivity},
                       {"positive_predictivity", q.positive_predictivity},
                       {"scored_normal", q.scored_normal},
                       {"scored_abnormal", q.scored_abnormal},
                       {"auroc", q.auroc},
                       {"average_precision", q.average_precision}};
  }
  return j;
}

void write_summary_json(const pipeline::run_result& r, const pipeline::run_options& options,
                        const std::filesystem::path& path) {
  const auto text = summary_json(r, options).dump(2);
  io::write_atomically(path, [&](std::ostream& out) { out << text << '\n'; });
}

void write_all(const pipeline::run_result& r, const pipeline::run_options& options,
               const std::filesystem::path& folder) {
  std::filesystem::create_directories(folder);
  write_beats_csv(r, folder / "beats.csv");
  write_summary_json(r, options, folder / "summary.json");
  write_report_html(r, options, folder / "report.html");
}

}  // namespace zeroflow::report
