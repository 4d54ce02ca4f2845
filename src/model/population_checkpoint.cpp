/// @file population_checkpoint.cpp
/// The population training's checkpoint file (population_checkpoint.hpp): written atomically,
/// read back with every check before a run resumes from it.
#include "population_checkpoint.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "zeroflow/core/error.hpp"
#include "zeroflow/io/atomic_file.hpp"
#include "zeroflow/io/safetensors.hpp"

namespace zeroflow::model::detail {

namespace {

constexpr const char* format_name = "zeroflow-population-checkpoint";
constexpr const char* format_version = "1";

/// Shortest text that reads back as exactly `v`.
std::string exact(double v) {
  char text[32];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, v);
  return {text, end};
}

template <class T>
io::safetensor tensor(std::string name, const std::vector<T>& values) {
  return io::make_safetensor(std::move(name), {static_cast<std::int64_t>(values.size())}, values.data());
}

template <class T>
std::vector<T> values_of(const io::safetensors_content& c, const std::string& name, std::size_t count) {
  return io::safetensor_values<T>(c, name, {static_cast<std::int64_t>(count)});
}

std::map<std::string, std::string> settings_metadata(const population_settings& s) {
  return {{"width", std::to_string(s.width)},       {"rows", std::to_string(s.rows)},
          {"rows_identity", s.rows_identity},       {"seed", std::to_string(s.seed)},
          {"batch", std::to_string(s.batch)},       {"learning_rate", exact(s.learning_rate)},
          {"test_fraction", exact(s.test_fraction)}};
}

/// How each setting is named to a person, in the order a difference is reported.
constexpr std::pair<const char*, const char*> setting_names[] = {
    {"rows_identity", "the recordings' fingerprint (files, sizes, lead, rate, beats)"},
    {"rows", "the number of beats"},
    {"width", "the row width"},
    {"seed", "the seed"},
    {"batch", "the batch"},
    {"learning_rate", "the learning rate"},
    {"test_fraction", "the test fraction"}};

}  // namespace

void write_population_checkpoint(const std::filesystem::path& path, const population_checkpoint& c) {
  io::safetensors_content content;
  content.metadata = settings_metadata(c.settings);
  content.metadata["format"] = format_name;
  content.metadata["format_version"] = format_version;
  content.metadata["epochs_done"] = std::to_string(c.epochs_done);
  content.metadata["adam_step"] = exact(c.optimiser.adam_step);
  content.metadata["noise_step"] = std::to_string(c.optimiser.noise_step);
  content.tensors.push_back(tensor("weights", c.weights));
  content.tensors.push_back(tensor("exp_avg", c.optimiser.exp_avg));
  content.tensors.push_back(tensor("exp_avg_sq", c.optimiser.exp_avg_sq));
  content.tensors.push_back(tensor("epoch_loss", c.epoch_loss));
  const std::string bytes = io::sealed_safetensors(std::move(content));
  io::write_atomically(path,
                       [&](std::ostream& out) { out.write(bytes.data(), static_cast<std::streamsize>(bytes.size())); });
}

population_checkpoint read_population_checkpoint(const std::filesystem::path& path,
                                                 const population_settings& expected) {
  std::ifstream in(path, std::ios::binary);
  ZF_EXPECTS(in.good(), path.string(), ": no checkpoint to resume from (the file cannot be opened)");
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  try {
    const io::safetensors_content content = io::from_safetensors(bytes);
    const auto entry = [&](const std::string& key) -> const std::string& { return io::metadata_entry(content, key); };
    ZF_EXPECTS(entry("format") == format_name, "it is no population checkpoint (format '", entry("format"), "')");
    ZF_EXPECTS(entry("format_version") == format_version, "its format version is ", entry("format_version"),
               ", this zeroflow reads ", format_version);
    (void)entry(std::string(io::checksum_key));  // "lacks the entry checksum"
    ZF_EXPECTS(io::checksum_holds(content), "its checksum does not match its content (the file is damaged)");
    const auto wanted = settings_metadata(expected);
    for (const auto& [key, name] : setting_names)
      ZF_EXPECTS(entry(key) == wanted.at(key), "it belongs to another run: ", name, " was ", entry(key), ", now ",
                 wanted.at(key));
    population_checkpoint c;
    c.settings = expected;
    c.epochs_done = io::metadata_number<int>(content, "epochs_done");
    ZF_EXPECTS(c.epochs_done >= 1, "its epochs_done is ", c.epochs_done);
    c.optimiser.adam_step = io::metadata_number<float>(content, "adam_step");
    c.optimiser.noise_step = io::metadata_number<std::uint64_t>(content, "noise_step");
    const io::safetensor* w = content.find("weights");
    ZF_EXPECTS(w != nullptr && w->bytes.size() % sizeof(float) == 0, "it has no weights");
    const std::size_t n = w->bytes.size() / sizeof(float);
    c.weights = values_of<float>(content, "weights", n);
    c.optimiser.exp_avg = values_of<float>(content, "exp_avg", n);
    c.optimiser.exp_avg_sq = values_of<float>(content, "exp_avg_sq", n);
    c.epoch_loss = values_of<double>(content, "epoch_loss", static_cast<std::size_t>(c.epochs_done));
    // A run writes finite values only (a diverged epoch ends it), so any other is damage: resumed,
    // it would read as a training that diverged now.
    const auto finite = [](const auto& values) {
      return std::all_of(values.begin(), values.end(), [](auto v) { return std::isfinite(v); });
    };
    ZF_EXPECTS(finite(c.weights) && finite(c.optimiser.exp_avg) && finite(c.optimiser.exp_avg_sq) &&
                   finite(c.epoch_loss) && std::isfinite(c.optimiser.adam_step),
               "it holds NaN or infinite values (the file is damaged)");
    return c;
  } catch (const error& e) {
    ZF_THROW(invalid_argument, path.string(), ": cannot resume from this checkpoint: ", e.what(),
             "; resume with the settings it was made with, or start the run over");
  }
}

}  // namespace zeroflow::model::detail
