#include "zeroflow/pipeline/run_types.hpp"

#include "zeroflow/core/error.hpp"
#include "zeroflow/synth/ecg_io.hpp"

namespace zeroflow::pipeline {

device_choice parse_device_choice(const std::string& text) {
  if (text == "auto") return device_choice::automatic;
  if (text == "cpu") return device_choice::cpu;
  if (text == "cuda" || text == "gpu") return device_choice::cuda;
  ZF_THROW(invalid_argument, "unknown device '", text, "' (expected auto, cpu or cuda)");
}

model_kind parse_model_kind(const std::string& text) {
  if (text == "lightvae") return model_kind::light_vae;
  if (text == "mlp") return model_kind::mlp_autoencoder;
  ZF_THROW(invalid_argument, "unknown model '", text, "' (expected lightvae or mlp)");
}

const char* model_kind_name(model_kind kind) { return kind == model_kind::mlp_autoencoder ? "mlp" : "lightvae"; }

std::optional<std::filesystem::path> labels_beside(const std::filesystem::path& input) {
  // A name the system cannot look up (longer than a file name may be) names no labels.
  const auto there = [](const std::filesystem::path& p) {
    std::error_code ec;
    return std::filesystem::exists(p, ec) && !ec;
  };
  auto record = input;
  if (record.extension() == ".hea" || record.extension() == ".dat" || record.extension() == ".edf") {
    if (auto atr = std::filesystem::path(record).replace_extension(".atr"); there(atr)) return atr;
  }
  if (auto csv = synth::labels_path_for(input); there(csv)) return csv;
  return std::nullopt;
}

std::int64_t run_result::beats_kept() const {
  std::int64_t n = 0;
  for (auto k : kept) n += k;
  return n;
}

holter::beat_record holter_record(const run_result& r) {
  return {r.peak, r.beat_class, r.sample_rate, r.samples, r.episodes, r.unreadable, r.family};
}

}  // namespace zeroflow::pipeline
