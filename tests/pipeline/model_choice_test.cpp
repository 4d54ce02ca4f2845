// `zeroflow run --model mlp`: the seed-004 MLP autoencoder scores the beats. Its scores are checked
// against a re-computation that shares no code with the pipeline's model: the weights read from
// the model file (safetensors) by hand, the min-max scaling computed here from the rows,
// and the forward pass written out as loops in double. The model file round-trips through
// `score`, is refused when damaged or made for other rows, and the LightVAE stays the default.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pipeline/beat_model.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/recording.hpp"
#include "zeroflow/io/safetensors.hpp"
#include "zeroflow/model/mlp_autoencoder.hpp"
#include "zeroflow/pipeline/ecg_pipeline.hpp"
#include "zeroflow/signal/segment.hpp"
#include "zeroflow/synth/ecg.hpp"
#include "zeroflow/synth/ecg_io.hpp"

namespace zf = zeroflow;
namespace fs = std::filesystem;

namespace {

fs::path folder() {
  static const fs::path dir = [] {
    const fs::path d = fs::temp_directory_path() / ("zf_model_choice_" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

// Three minutes of synthetic ECG at 250 Hz with ventricular beats, written once.
fs::path recording() {
  static const fs::path csv = [] {
    zf::synth::ecg_options o;
    o.hours = 3.0 / 60;
    o.heart_rate_bpm = 80;
    o.seed = 11;
    const fs::path path = folder() / "ecg.csv";
    zf::synth::write_ecg_csv(zf::synth::generate_ecg(o), path);
    return path;
  }();
  return csv;
}

zf::pipeline::run_options mlp_options() {
  zf::pipeline::run_options o;
  o.input = recording();
  o.where = zf::pipeline::device_choice::cpu;
  o.model_type = zf::pipeline::model_kind::mlp_autoencoder;
  o.epochs = 20;
  o.batch = 0;
  o.segmentation.method = zf::signal::segmentation_method::gate_to_gate;  // score = reconstruction error
  return o;
}

std::string file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::uint64_t u64_at(const std::string& bytes, std::size_t at) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)]);
  return v;
}

/// The model file read by hand as the safetensors format defines it (u64 header length, JSON
/// header, raw little-endian tensors): no zeroflow reader involved.
struct mlp_file {
  nlohmann::json header;  ///< the JSON header, tensors and "__metadata__"
  nlohmann::json meta;    ///< header["__metadata__"]
  std::string data;       ///< the bytes after the header

  [[nodiscard]] std::vector<double> tensor(const std::string& name, std::vector<std::int64_t>* shape = nullptr) const {
    const auto& entry = header.at(name);
    EXPECT_EQ(entry.at("dtype"), "F32") << name;
    if (shape != nullptr) *shape = entry.at("shape").get<std::vector<std::int64_t>>();
    const auto begin = entry.at("data_offsets")[0].get<std::size_t>(),
               end = entry.at("data_offsets")[1].get<std::size_t>();
    std::vector<float> f((end - begin) / 4);
    std::memcpy(f.data(), data.data() + begin, end - begin);
    return {f.begin(), f.end()};
  }
};

mlp_file read_mlp_file(const fs::path& path) {
  const std::string bytes = file_bytes(path);
  EXPECT_GE(bytes.size(), 8U);
  const auto n = u64_at(bytes, 0);
  mlp_file f;
  f.header = nlohmann::json::parse(bytes.substr(8, n));
  f.meta = f.header.at("__metadata__");
  f.data = bytes.substr(8 + n);
  return f;
}

/// A layer's weights (out × in) and bias as doubles, from the file.
struct layer {
  std::vector<double> w, b;
  std::int64_t in = 0, out = 0;
};

layer read_layer(const mlp_file& file, const std::string& name) {
  layer l;
  std::vector<std::int64_t> shape;
  l.w = file.tensor(name + ".weight", &shape);
  l.b = file.tensor(name + ".bias");
  l.out = shape.at(0);
  l.in = shape.at(1);
  return l;
}

std::vector<double> apply(const layer& l, const std::vector<double>& x, bool relu) {
  std::vector<double> y(static_cast<std::size_t>(l.out));
  for (std::int64_t o = 0; o < l.out; ++o) {
    double s = l.b[static_cast<std::size_t>(o)];
    for (std::int64_t i = 0; i < l.in; ++i)
      s += l.w[static_cast<std::size_t>(o * l.in + i)] * x[static_cast<std::size_t>(i)];
    y[static_cast<std::size_t>(o)] = relu ? std::max(0.0, s) : 1.0 / (1.0 + std::exp(-s));
  }
  return y;
}

template <class E>
std::string error_of(const zf::pipeline::run_options& o) {
  try {
    (void)zf::pipeline::run(o);
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

class MlpRun : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    model_ = folder() / "mlp_model.safetensors";
    trained_ = new zf::pipeline::run_result(zf::pipeline::run(mlp_options(), model_));
  }
  static void TearDownTestSuite() {
    delete trained_;
    trained_ = nullptr;
  }
  static zf::pipeline::run_options scoring(const fs::path& model) {
    auto o = mlp_options();
    o.model_type = zf::pipeline::model_kind::light_vae;  // the file's kind wins
    o.model = model;
    return o;
  }
  static inline fs::path model_;
  static inline zf::pipeline::run_result* trained_ = nullptr;
};

}  // namespace

TEST(ModelKind, NamesRoundTripAndOthersAreRefused) {
  EXPECT_EQ(zf::pipeline::parse_model_kind("lightvae"), zf::pipeline::model_kind::light_vae);
  EXPECT_EQ(zf::pipeline::parse_model_kind("mlp"), zf::pipeline::model_kind::mlp_autoencoder);
  EXPECT_STREQ(zf::pipeline::model_kind_name(zf::pipeline::model_kind::mlp_autoencoder), "mlp");
  EXPECT_STREQ(zf::pipeline::model_kind_name(zf::pipeline::model_kind::light_vae), "lightvae");
  EXPECT_THROW((void)zf::pipeline::parse_model_kind("monai"), zf::invalid_argument);
  EXPECT_EQ(zf::pipeline::run_options{}.model_type, zf::pipeline::model_kind::light_vae);
}

TEST_F(MlpRun, SummarySaysWhichModelAndItsParameters) {
  const auto& r = *trained_;
  const std::int64_t w = r.sizes.row_width;
  EXPECT_EQ(r.model.name, "mlp");
  EXPECT_EQ(r.model.parameters, 2 * w * 32 + 2 * 32 * 32 + 2 * 32 + 32 + w);
  EXPECT_NE(r.model.architecture.find(std::to_string(w) + "-32-32-32-" + std::to_string(w)), std::string::npos);
  EXPECT_NE(r.model.input_scaling.find("min-max"), std::string::npos);
  EXPECT_DOUBLE_EQ(r.model.learning_rate, 0.01);
  EXPECT_DOUBLE_EQ(r.model.weight_decay, 1e-5);
  EXPECT_EQ(r.epoch_loss.size(), 20U);
  EXPECT_LT(r.epoch_loss.back(), r.epoch_loss.front());
  EXPECT_TRUE(std::isnan(r.test_loss));  // the seed-004 notebook holds no rows out
  EXPECT_TRUE(r.decoded_grid.empty());   // no 2-D latent to decode
  for (std::size_t c = 0; c < r.kept.size(); ++c) {
    EXPECT_TRUE(std::isnan(r.mu0[c]) && std::isnan(r.mu1[c]));
    EXPECT_EQ(r.split[c], r.kept[c] ? 't' : '-');
  }
}

TEST_F(MlpRun, ScoresAreTheReconstructionErrorOfTheSavedWeights) {
  const auto file = read_mlp_file(model_);
  EXPECT_EQ(file.meta.at("model"), "mlp");
  EXPECT_EQ(file.meta.at("rows.segmentation"), "gate-to-gate");
  EXPECT_EQ(file.meta.at("epochs"), "20");
  EXPECT_EQ(file.meta.at("format"), "zeroflow-model");

  // The rows, as the run made them.
  const auto o = mlp_options();
  const auto rec = zf::io::read_recording(o.input);
  const auto seg = zf::signal::segment_recording(rec.signal, o.segmentation, {});
  const auto rows = seg.beats.rows.span<const float>();
  const std::int64_t n = seg.beats.rows.shape(0), w = seg.beats.rows.shape(1);
  ASSERT_EQ(w, trained_->sizes.row_width);

  // scikit-learn's MinMaxScaler per column, in float32 as it computes for float32 data.
  const auto scale = file.tensor("scale");
  const auto offset = file.tensor("offset");
  ASSERT_EQ(static_cast<std::int64_t>(scale.size()), w);
  for (std::int64_t j = 0; j < w; ++j) {
    float lo = rows[static_cast<std::size_t>(j)], hi = lo;
    for (std::int64_t i = 1; i < n; ++i) {
      lo = std::min(lo, rows[static_cast<std::size_t>(i * w + j)]);
      hi = std::max(hi, rows[static_cast<std::size_t>(i * w + j)]);
    }
    const float range = hi - lo < 10 * std::numeric_limits<float>::epsilon() ? 1.0F : hi - lo;
    EXPECT_FLOAT_EQ(static_cast<float>(scale[static_cast<std::size_t>(j)]), 1.0F / range) << j;
    EXPECT_NEAR(offset[static_cast<std::size_t>(j)], -lo / range, 1e-6) << j;
  }

  const layer l1 = read_layer(file, "first_layer_encoder"), l2 = read_layer(file, "second_layer_encoder");
  const layer l3 = read_layer(file, "first_layer_decoder"), l4 = read_layer(file, "second_layer_decoder");
  ASSERT_EQ(l1.in, w);
  ASSERT_EQ(l4.out, w);

  std::vector<double> want;
  for (std::int64_t i = 0; i < n; ++i) {
    std::vector<double> x(static_cast<std::size_t>(w));
    for (std::int64_t j = 0; j < w; ++j) {
      const auto k = static_cast<std::size_t>(j);
      x[k] = static_cast<double>(rows[static_cast<std::size_t>(i * w + j)] * static_cast<float>(scale[k]) +
                                 static_cast<float>(offset[k]));
    }
    const auto y = apply(l4, apply(l3, apply(l2, apply(l1, x, true), true), true), false);
    double e = 0;
    for (std::size_t k = 0; k < x.size(); ++k) e += (y[k] - x[k]) * (y[k] - x[k]);
    want.push_back(e / static_cast<double>(w));
  }
  std::vector<double> got;
  for (std::size_t c = 0; c < trained_->kept.size(); ++c)
    if (trained_->kept[c]) got.push_back(trained_->score[c]);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5 * want[i] + 1e-9) << i;
}

TEST_F(MlpRun, ScoreReadsTheFileAndGivesTheSameScores) {
  const auto r = zf::pipeline::run(scoring(model_));
  EXPECT_FALSE(r.trained);
  EXPECT_EQ(r.model.name, "mlp");
  EXPECT_EQ(r.model.learning_rate, 0.0);
  ASSERT_EQ(r.score.size(), trained_->score.size());
  for (std::size_t c = 0; c < r.score.size(); ++c) {
    if (std::isnan(trained_->score[c])) {
      EXPECT_TRUE(std::isnan(r.score[c]));
    } else {
      EXPECT_EQ(r.score[c], trained_->score[c]) << c;
    }
  }
}

TEST_F(MlpRun, AModelForOtherRowsIsRefused) {
  auto o = scoring(model_);
  o.segmentation.method = zf::signal::segmentation_method::robust;
  const std::string message = error_of<zf::invalid_argument>(o);
  EXPECT_NE(message.find("segmentation gate-to-gate (this run: robust)"), std::string::npos) << message;
}

TEST_F(MlpRun, ADamagedFileIsRefusedBeforeItIsRead) {
  const std::string bytes = file_bytes(model_);
  const fs::path flipped = folder() / "flipped.pt", cut = folder() / "cut.pt";
  {
    std::string changed = bytes;
    changed[changed.size() / 2] = static_cast<char>(changed[changed.size() / 2] ^ 0x10);
    std::ofstream(flipped, std::ios::binary) << changed;
    std::ofstream(cut, std::ios::binary) << bytes.substr(0, 100) << bytes.substr(bytes.size() - 40);
  }
  // A file of format 2 (a LibTorch archive and JSON metadata before the MLP trailer), as earlier
  // builds wrote it, is refused in one line that says what it is.
  {
    const fs::path old = folder() / "format2.pt";
    std::string bytes2 = "PK\x03\x04 an archive, then its metadata";
    bytes2.append(32, '\0');
    bytes2.append(zf::pipeline::detail::mlp_file_magic);
    std::ofstream(old, std::ios::binary) << bytes2;
    const std::string refused = error_of<zf::error>(scoring(old));
    EXPECT_NE(refused.find("is an MLP model file of format 2 (a LibTorch archive, from earlier builds of zeroflow), "
                           "which this one no longer reads"),
              std::string::npos)
        << refused;
    EXPECT_NE(refused.find(old.string()), std::string::npos) << refused;
  }
  std::string message = error_of<zf::error>(scoring(flipped));
  EXPECT_NE(message.find("changed after it was saved"), std::string::npos) << message;
  EXPECT_NE(message.find(flipped.string()), std::string::npos) << message;
  message = error_of<zf::error>(scoring(cut));
  EXPECT_NE(message.find("is not a zeroflow model file or is damaged"), std::string::npos) << message;
}

TEST_F(MlpRun, TheGpuScoresTheCpusModelAlike) {
  if (!zf::cuda_available()) GTEST_SKIP() << "no GPU";
  auto o = scoring(model_);
  o.where = zf::pipeline::device_choice::cuda;
  o.route_torch_memory = false;  // other tests in this process used LibTorch's CUDA allocator first
  const auto r = zf::pipeline::run(o);
  ASSERT_EQ(r.score.size(), trained_->score.size());
  for (std::size_t c = 0; c < r.score.size(); ++c) {
    if (!std::isnan(trained_->score[c])) {
      EXPECT_NEAR(r.score[c], trained_->score[c], 1e-5 * trained_->score[c]) << c;
    }
  }
}

TEST(LightVaeRun, StaysTheDefaultAndSaysSo) {
  zf::pipeline::run_options o;
  o.input = recording();
  o.where = zf::pipeline::device_choice::cpu;
  o.epochs = 1;
  const auto r = zf::pipeline::run(o);
  EXPECT_EQ(r.model.name, "lightvae");
  EXPECT_EQ(r.model.parameters, 850 + 3 * r.sizes.row_width);
  EXPECT_EQ(r.decoded_grid.size(), static_cast<std::size_t>(25 * r.sizes.row_width));
}
