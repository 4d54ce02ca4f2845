// The model file (model/model_file.hpp, src/model/vae_file.cpp): what it records, and that a damaged,
// foreign, old or non-finite file is refused with a zeroflow::error instead of loading as a different
// model. save() writes format 3 (safetensors); format 2 (a LibTorch archive with a trailer) is
// recognised and refused with a line saying so.
// The reference for "the same model" is the saved model's own scores: a file that loads must
// score exactly as the model that wrote it.
#include <gtest/gtest.h>
#include <torch/serialize/output-archive.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "model/model_test_util.hpp"
#include "torch_oracle/light_vae.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/safetensors.hpp"
#include "zeroflow/model/model_file.hpp"
#include "zeroflow/model/vae.hpp"

namespace zf = zeroflow;
namespace fs = std::filesystem;
using zf::model::vae;
using namespace zeroflow::model_test;

namespace {

// Not fs::remove_all: the torch wheel's libtorch exports a copy that crashes with this libstdc++
// (vae_test.cpp says more).
void remove_tree(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  std::vector<fs::path> entries;
  for (const auto& entry : fs::directory_iterator(dir)) entries.push_back(entry.path());
  for (const auto& e : entries) fs::is_directory(e, ec) ? remove_tree(e) : (void)fs::remove(e, ec);
  fs::remove(dir, ec);
}

class VaeFile : public ::testing::Test {
 protected:
  void SetUp() override {
    threads_ = zf::model::cpu_threads();
    zf::model::set_cpu_threads(1);
    const char* env = std::getenv("ZEROFLOW_TEST_TMP");
    dir_ = fs::path(env != nullptr ? env : fs::temp_directory_path().string()) /
           ("model_vae_file_test_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    remove_tree(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    zf::model::set_cpu_threads(threads_);
    remove_tree(dir_);
  }
  fs::path dir_;
  int threads_ = 1;
};

zf::model::row_provenance robust_rows(double rate = 360) {
  zf::model::row_provenance p;
  p.sample_rate = rate;
  p.segmentation = "robust";
  p.normalized = true;
  p.window_before = 90;
  p.window_after = 162;
  return p;
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// The message of the zeroflow::error that loading `path` throws ("" when it loads).
std::string load_error(const fs::path& path) {
  try {
    (void)vae::load(path);
  } catch (const zf::error& e) {
    return e.what();
  }
  return "";
}

/// A small trained model, described, and its scores on `rows`.
struct saved_model {
  fs::path path;
  std::vector<float> score;
};

saved_model save_small_model(const fs::path& dir, const zf::array& rows) {
  vae m = vae::create(32, zf::cpu_device, 11);
  m.describe_rows(robust_rows());
  zf::model::train_options opt;
  opt.epochs = 1;
  opt.batch = 64;
  opt.seed = 5;
  (void)m.train(rows, opt);
  const fs::path path = dir / "model.safetensors";
  m.save(path);
  return {path, to_vector(m.score(rows).score)};
}

}  // namespace

TEST_F(VaeFile, RecordsRowsAndHistory) {
  const zf::array rows = make_rows(200, 32, 3);
  vae m = vae::create(32, zf::cpu_device, 11);
  EXPECT_FALSE(m.described_rows().has_value());
  EXPECT_EQ(m.history().init_seed, 11U);
  EXPECT_FALSE(m.history().train_seed.has_value());
  m.describe_rows(robust_rows());
  zf::model::train_options opt;
  opt.epochs = 2;
  opt.batch = 64;
  opt.seed = 5;
  (void)m.train(rows, opt);
  opt.epochs = 1;
  opt.seed = 6;
  (void)m.train(rows, opt);
  EXPECT_EQ(m.history().epochs, 3);
  EXPECT_EQ(m.history().train_seed, std::optional<std::uint64_t>(6));
  m.save(dir_ / "m.pt");

  const vae back = vae::load(dir_ / "m.pt");
  ASSERT_TRUE(back.described_rows().has_value());
  EXPECT_EQ(*back.described_rows(), robust_rows());
  EXPECT_EQ(back.history(), m.history());
  EXPECT_EQ(to_vector(back.score(rows).score), to_vector(m.score(rows).score));

  // A model never described (the library or Python without a pipeline) loads without rows.
  vae plain = vae::create(32, zf::cpu_device, 2);
  plain.save(dir_ / "plain.pt");
  const vae plain_back = vae::load(dir_ / "plain.pt");
  EXPECT_FALSE(plain_back.described_rows().has_value());
  EXPECT_EQ(plain_back.history().init_seed, 2U);

  // The gate-to-gate method records its beat lengths instead of a window.
  zf::model::row_provenance gated;
  gated.sample_rate = 250;
  gated.segmentation = "gate-to-gate";
  gated.normalized = false;
  gated.min_length = 100;
  gated.max_length = 256;
  plain.describe_rows(gated);
  plain.save(dir_ / "gated.pt");
  EXPECT_EQ(vae::load(dir_ / "gated.pt").described_rows(), std::optional(gated));

  // Files from before the method had its name say "seed": they read as gate-to-gate.
  zf::io::safetensors_content earlier = zf::io::from_safetensors(read_bytes(dir_ / "gated.pt"));
  ASSERT_EQ(earlier.metadata.at("rows.segmentation"), "gate-to-gate");
  earlier.metadata["rows.segmentation"] = "seed";
  write_bytes(dir_ / "earlier.pt", zf::io::sealed_safetensors(earlier));
  EXPECT_EQ(vae::load(dir_ / "earlier.pt").described_rows(), std::optional(gated));

  // A rate that is no whole number reads back exactly, written as "%.17g" writes it.
  for (const double rate : {360.5, 1000.0 / 3.0, 2.5e-05 * 1e7}) {
    plain.describe_rows(robust_rows(rate));
    plain.save(dir_ / "rate.pt");
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", rate);
    EXPECT_EQ(zf::io::from_safetensors(read_bytes(dir_ / "rate.pt")).metadata.at("rows.sample_rate"), text);
    EXPECT_EQ(vae::load(dir_ / "rate.pt").described_rows()->sample_rate, rate);
  }
}

TEST_F(VaeFile, DescribeRowsRefusesNonsense) {
  vae m = vae::create(32);
  auto bad = [&](auto change) {
    auto p = robust_rows();
    change(p);
    EXPECT_THROW(m.describe_rows(p), zf::invalid_argument);
  };
  bad([](auto& p) { p.sample_rate = 0; });
  bad([](auto& p) { p.sample_rate = std::numeric_limits<double>::quiet_NaN(); });
  bad([](auto& p) { p.sample_rate = std::numeric_limits<double>::infinity(); });
  bad([](auto& p) { p.segmentation = "fancy"; });
  bad([](auto& p) { p.window_before = -1; });
  bad([](auto& p) { p.min_length = 300, p.max_length = 200; });
  EXPECT_FALSE(m.described_rows().has_value());
}

TEST_F(VaeFile, EmptyMissingAndForeignFilesAreRefused) {
  write_bytes(dir_ / "empty.pt", "");
  EXPECT_NE(load_error(dir_ / "empty.pt").find("empty"), std::string::npos) << load_error(dir_ / "empty.pt");
  EXPECT_NE(load_error(dir_ / "missing.pt").find("no such file"), std::string::npos);
  fs::create_directories(dir_ / "folder.pt");
  EXPECT_NE(load_error(dir_ / "folder.pt").find("not a file"), std::string::npos);

  std::mt19937_64 rng(17);
  for (const std::size_t size : {1UL, 22UL, 100UL, 4096UL, 100000UL}) {
    std::string noise(size, '\0');
    for (auto& c : noise) c = static_cast<char>(rng());
    write_bytes(dir_ / "noise.pt", noise);
    const std::string message = load_error(dir_ / "noise.pt");
    EXPECT_NE(message.find("not a zeroflow model file"), std::string::npos) << size << ": " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;  // one line for a person
  }

  // A LibTorch archive of someone else's tensors: a zip file, said to be a LibTorch archive.
  torch::serialize::OutputArchive other;
  other.write("weights", torch::ones({3}));
  other.save_to((dir_ / "other.pt").string());
  EXPECT_NE(load_error(dir_ / "other.pt").find("is a LibTorch archive"), std::string::npos)
      << load_error(dir_ / "other.pt");

  // safetensors files: another program's, a newer zeroflow's, and an MLP autoencoder's.
  const float ones[3] = {1, 1, 1};
  zf::io::safetensors_content foreign;
  foreign.tensors.push_back(zf::io::make_safetensor("weights", {3}, ones));
  write_bytes(dir_ / "foreign.safetensors", zf::io::to_safetensors(foreign));
  EXPECT_NE(load_error(dir_ / "foreign.safetensors").find("not one zeroflow wrote"), std::string::npos)
      << load_error(dir_ / "foreign.safetensors");
  zf::io::safetensors_content later = foreign;
  later.metadata = zf::model::model_file_metadata({"lightvae", 32, std::nullopt, {}});
  later.metadata["format_version"] = "4";
  write_bytes(dir_ / "later.safetensors", zf::io::sealed_safetensors(later));
  EXPECT_NE(load_error(dir_ / "later.safetensors").find("model format 4, this zeroflow reads format 3"),
            std::string::npos)
      << load_error(dir_ / "later.safetensors");
  zf::io::safetensors_content mlp = foreign;
  mlp.metadata = zf::model::model_file_metadata({"mlp", 1, std::nullopt, {}});
  write_bytes(dir_ / "mlp.safetensors", zf::io::sealed_safetensors(mlp));
  EXPECT_NE(load_error(dir_ / "mlp.safetensors").find("kind 'mlp', not a LightVAE"), std::string::npos)
      << load_error(dir_ / "mlp.safetensors");
}

// The LibTorch archives earlier builds wrote: format 1 (a bare archive) and format 2 (the archive
// and zeroflow's trailer, ending in "ZEROFLOW"); each refused in one line that says what it is.
TEST_F(VaeFile, OlderFormatsAreRefusedWithAReason) {
  torch::serialize::OutputArchive archive;
  archive.write("zeroflow_format", torch::tensor(std::int64_t{1}));
  archive.write("width", torch::tensor(std::int64_t{32}));
  zf::model::detail::light_vae net(32);
  net->save(archive);
  archive.save_to((dir_ / "v1.pt").string());
  std::string format2 = read_bytes(dir_ / "v1.pt");
  for (const std::uint64_t v : {std::uint64_t{format2.size()}, std::uint64_t{0x1234}, std::uint64_t{2}})
    for (int i = 0; i < 8; ++i) format2 += static_cast<char>((v >> (8 * i)) & 0xFF);
  format2 += "ZEROFLOW";
  write_bytes(dir_ / "v2.pt", format2);
  for (const char* name : {"v1.pt", "v2.pt"}) {
    const std::string message = load_error(dir_ / name);
    EXPECT_NE(message.find("is a LibTorch archive (model format 2, from earlier builds of zeroflow), which this one "
                           "no longer reads; train the model again"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find(name), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

// Format 3: every truncation is refused, and every flipped byte either is refused or leaves the
// content as it was (a flip of the header's space padding to NUL, where JSON ends anyway): the
// checksum covers every metadata value, tensor name, dtype, shape and weight. Every one against
// the file check in memory, a sample of them through files and vae::load. The untouched file
// still loads and scores as the model that wrote it.
TEST_F(VaeFile, EveryTruncationAndFlippedByteIsRefused) {
  const zf::array rows = make_rows(200, 32, 3);
  const saved_model saved = save_small_model(dir_, rows);
  const std::string bytes = read_bytes(saved.path);
  ASSERT_GT(bytes.size(), 1000U);
  ASSERT_TRUE(zf::io::looks_like_safetensors(bytes));
  const auto original = zf::model::open_model_file(bytes).first;
  auto flipped = [&](std::size_t at) {
    std::string copy = bytes;
    copy[at] = static_cast<char>(copy[at] ^ (1 << (at % 8)));
    return copy;
  };
  for (std::size_t keep = 0; keep < bytes.size(); ++keep)
    ASSERT_THROW((void)zf::model::open_model_file(std::string_view(bytes).substr(0, keep)), zf::error) << keep;
  int harmless = 0;
  for (std::size_t at = 0; at < bytes.size(); ++at) {
    try {
      const auto content = zf::model::open_model_file(flipped(at)).first;
      ASSERT_EQ(content.metadata, original.metadata) << at;
      ASSERT_EQ(content.tensors.size(), original.tensors.size()) << at;
      for (std::size_t i = 0; i < content.tensors.size(); ++i)
        ASSERT_EQ(content.tensors[i].bytes, original.tensors[i].bytes) << at;
      ++harmless;
    } catch (const zf::error&) {
    }
  }
  EXPECT_LT(harmless, 8) << "flips that parse to the same content: only the header's padding";

  const fs::path damaged = dir_ / "damaged.safetensors";
  std::mt19937_64 rng(29);
  std::uniform_int_distribution<std::size_t> anywhere(0, bytes.size() - 1);
  for (int k = 0; k < 100; ++k) {
    const std::size_t at = anywhere(rng);
    write_bytes(damaged, k % 2 == 0 ? bytes.substr(0, at) : flipped(at));
    const std::string message = load_error(damaged);
    if (message.empty()) continue;  // a harmless flip, checked above
    EXPECT_NE(message.find(at == 0 && k % 2 == 0 ? "empty" : "is not a zeroflow model file or is damaged"),
              std::string::npos)
        << (k % 2 == 0 ? "cut at " : "flipped ") << at << ": " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  write_bytes(damaged, bytes);
  EXPECT_EQ(to_vector(vae::load(damaged).score(rows).score), saved.score);
}

// What PyTorch, JAX or NumPy see: a safetensors file whose tensors are the LightVAE's state_dict
// under its names, float32, and whose metadata records the rows and the history.
TEST_F(VaeFile, TheFileIsSafetensorsWithTheStateDictsNames) {
  vae m = vae::create(32, zf::cpu_device, 11);
  m.describe_rows(robust_rows(250));
  m.save(dir_ / "m.safetensors");
  const std::string bytes = read_bytes(dir_ / "m.safetensors");
  std::uint64_t header = 0;
  for (int i = 7; i >= 0; --i) header = (header << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  EXPECT_EQ(header % 8, 0U);  // tensors start 8-byte aligned
  EXPECT_EQ(bytes[8], '{');
  const auto content = zf::io::from_safetensors(bytes);
  std::set<std::string> names;
  std::int64_t floats = 0;
  for (const auto& t : content.tensors) {
    names.insert(t.name);
    EXPECT_EQ(t.dtype, "F32") << t.name;
    floats += static_cast<std::int64_t>(t.bytes.size()) / 4;
  }
  zf::model::detail::light_vae net(32);
  std::set<std::string> expected;
  std::int64_t expected_floats = 0;
  for (const auto& p : net->named_parameters(true)) expected.insert(p.key()), expected_floats += p.value().numel();
  for (const auto& b : net->named_buffers(true)) expected.insert(b.key()), expected_floats += b.value().numel();
  EXPECT_EQ(names, expected);
  EXPECT_TRUE(names.contains("sigma.alpha") && names.contains("restore.weight") && names.contains("conv5.bias"));
  EXPECT_EQ(floats, expected_floats);
  EXPECT_EQ(content.metadata.at("format"), "zeroflow-model");
  EXPECT_EQ(content.metadata.at("model"), "lightvae");
  EXPECT_EQ(content.metadata.at("width"), "32");
  EXPECT_EQ(content.metadata.at("rows.sample_rate"), "250");
  EXPECT_EQ(content.metadata.at("rows.window_after"), "162");
  EXPECT_EQ(content.metadata.at("init_seed"), "11");
  EXPECT_FALSE(content.metadata.contains("train_seed"));
  EXPECT_EQ(content.metadata.at("checksum"), zf::io::content_checksum(content));
}

TEST_F(VaeFile, NonFiniteWeightsAreRefusedEvenWithAValidChecksum) {
  for (const float poison : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    zf::model::detail::light_vae net(32);
    {
      torch::NoGradGuard no_grad;
      net->parameters().back().view({-1})[0] = poison;
    }
    zf::model::detail::model_metadata meta{32, robust_rows(), {}};
    write_bytes(dir_ / "poisoned.safetensors", zf::model::detail::model_file_bytes(meta, net));
    const std::string message = load_error(dir_ / "poisoned.safetensors");
    EXPECT_NE(message.find("1 weight that is NaN or infinite"), std::string::npos) << message;
  }
}

TEST_F(VaeFile, MetadataNoSaveWritesIsRefused) {
  zf::model::detail::light_vae net(32);
  auto write = [&](const zf::model::detail::model_metadata& meta) {
    write_bytes(dir_ / "odd.pt", zf::model::detail::model_file_bytes(meta, net));
  };
  auto rows = robust_rows();
  rows.segmentation = "fancy";
  write({32, rows, {}});
  EXPECT_NE(load_error(dir_ / "odd.pt").find("segmentation is robust or gate-to-gate"), std::string::npos)
      << load_error(dir_ / "odd.pt");
  rows = robust_rows(-250);
  write({32, rows, {}});
  EXPECT_NE(load_error(dir_ / "odd.pt").find("sample rate"), std::string::npos) << load_error(dir_ / "odd.pt");
  write({48, robust_rows(), {}});  // not a power of two
  EXPECT_NE(load_error(dir_ / "odd.pt").find("power of two"), std::string::npos) << load_error(dir_ / "odd.pt");
  write({64, robust_rows(), {}});  // says 64, holds the weights of a 32-wide model
  EXPECT_NE(load_error(dir_ / "odd.pt").find("is not float32 of shape"), std::string::npos)
      << load_error(dir_ / "odd.pt");
  write({32, robust_rows(), {}});  // the control: the same writer, sane metadata, loads
  EXPECT_EQ(load_error(dir_ / "odd.pt"), "");
}

TEST_F(VaeFile, SaveIsAtomicAndLeavesNothingOnFailure) {
  vae m = vae::create(32);
  EXPECT_THROW(m.save(dir_ / "no_such_folder" / "m.pt"), zf::error);
  m.save(dir_ / "m.pt");
  std::vector<fs::path> names;
  for (const auto& entry : fs::directory_iterator(dir_)) names.push_back(entry.path().filename());
  EXPECT_EQ(names, std::vector<fs::path>{"m.pt"});
}
