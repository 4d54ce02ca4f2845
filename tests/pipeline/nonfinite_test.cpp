// The pipeline against non-finite and impossible input, and against models that do not fit:
// - the sample census (sample_check.hpp) against a plain loop, on the host and on a GPU;
// - a recording with a 3e38 sample (CSV) or infinite samples (WFDB with a tiny gain) is refused
//   after loading, with the count and the first sample; one with gaps (WFDB's invalid value) runs
//   with finite losses and scores under the robust method, and is refused by the seed's;
// - `score` refuses a model trained at another sample rate, normalisation or segmentation, one
//   saved without its row description, and one with NaN weights; a fitting model scores as the
//   run that trained it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "io/signal_file_writers.hpp"
#include "pipeline/sample_check.hpp"
#include "torch_oracle/light_vae.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/model/vae.hpp"
#include "zeroflow/pipeline/ecg_pipeline.hpp"
#include "zeroflow/synth/ecg.hpp"

namespace zf = zeroflow;
namespace fs = std::filesystem;
using zf::pipeline::detail::sample_census;

namespace {

constexpr float missing = std::numeric_limits<float>::quiet_NaN();
constexpr float inf = std::numeric_limits<float>::infinity();

fs::path folder() {
  static const fs::path dir = [] {
    const fs::path d = fs::temp_directory_path() / ("zf_nonfinite_" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

/// Three minutes of synthetic ECG at 250 Hz (millivolts), made once.
const std::vector<float>& ecg() {
  static const std::vector<float> samples = [] {
    zf::synth::ecg_options o;
    o.hours = 3.0 / 60;
    o.heart_rate_bpm = 80;
    o.seed = 13;
    return zf::synth::generate_ecg(o).samples;
  }();
  return samples;
}

fs::path write_csv(const std::string& name, const std::vector<float>& samples) {
  const fs::path path = folder() / name;
  std::ofstream out(path);
  out << "ecg\n";
  out.precision(9);
  for (const float v : samples) out << v << '\n';
  return path;
}

/// A WFDB record (format 16) of `samples` millivolts at `gain` units per mV; NaN samples are
/// stored as the format's invalid value -32768.
fs::path write_wfdb(const std::string& name, const std::vector<float>& samples, double gain = 200) {
  std::vector<std::int32_t> digital;
  for (const float v : samples)
    digital.push_back(std::isnan(v) ? -32768 : static_cast<std::int32_t>(std::lround(v * 200.0)));
  std::ofstream(folder() / (name + ".dat"), std::ios::binary) << zf::test::wfdb_stream(16, digital);
  std::ofstream(folder() / (name + ".hea")) << name << " 1 250 " << samples.size() << "\n"
                                            << name << ".dat 16 " << gain << "(0)/mV 16 0 0 0 0 ECG\n";
  return folder() / (name + ".hea");
}

zf::pipeline::run_options cpu_options(const fs::path& input) {
  zf::pipeline::run_options o;
  o.input = input;
  o.where = zf::pipeline::device_choice::cpu;
  o.epochs = 2;
  o.batch = 256;
  return o;
}

template <class Error>
std::string error_of(const zf::pipeline::run_options& o, const fs::path& model_out = {}) {
  try {
    (void)zf::pipeline::run(o, model_out);
  } catch (const Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("another error: ") + e.what();
  }
  return "";
}

/// The census as a plain loop (the reference).
sample_census reference_census(const std::vector<float>& x, std::int64_t stride = 1) {
  sample_census c;
  std::int64_t i = 0;
  for (std::size_t k = 0; k < x.size(); k += static_cast<std::size_t>(stride), ++i) {
    const float v = x[k];
    if (std::isnan(v)) {
      if (c.missing++ == 0) c.first_missing = i;
    } else if (std::isinf(v) || v > 1e30F || v < -1e30F) {
      if (c.unusable++ == 0) c.first_unusable = i;
    }
  }
  return c;
}

std::vector<float> random_signal(std::size_t n, std::mt19937_64& rng, double bad_share) {
  std::uniform_real_distribution<double> u(0, 1);
  const float poisons[] = {missing, inf, -inf, 3e38F, -3e38F, std::nextafter(1e30F, inf), 1e30F, -1e30F, 1e29F};
  std::vector<float> x(n);
  for (auto& v : x) {
    v = static_cast<float>(u(rng) * 4 - 2);
    if (u(rng) < bad_share) v = poisons[rng() % std::size(poisons)];
  }
  return x;
}

zf::array host_array(const std::vector<float>& x) {
  zf::array a = zf::empty({static_cast<std::int64_t>(x.size())}, zf::float32);
  std::copy(x.begin(), x.end(), a.span<float>().begin());
  return a;
}

}  // namespace

TEST(SampleCensus, MatchesAPlainLoopOnTheHost) {
  std::mt19937_64 rng(3);
  for (const std::size_t n : {0UL, 1UL, 7UL, 1000UL, 100003UL}) {
    for (const double share : {0.0, 0.001, 0.3}) {
      const auto x = random_signal(n, rng, share);
      const zf::array a = host_array(x);
      EXPECT_EQ(zf::pipeline::detail::count_samples(a, zf::stream_view{}), reference_census(x)) << n << " " << share;
      if (n >= 3) {
        const zf::array strided = a.slice(0, 0, static_cast<std::int64_t>(n), 3);
        EXPECT_EQ(zf::pipeline::detail::count_samples(strided, zf::stream_view{}), reference_census(x, 3));
      }
    }
  }
  // The boundary: ±1e30 itself is usable, the next float beyond it is not.
  const std::vector<float> edge = {1e30F, -1e30F, std::nextafter(-1e30F, -inf), missing, 0.0F, inf};
  const auto c = zf::pipeline::detail::count_samples(host_array(edge), zf::stream_view{});
  EXPECT_EQ(c, (sample_census{1, 3, 2, 2}));
}

TEST(SampleCensus, TheGpuCountMatchesTheHost) {
  if (!zf::cuda_available()) GTEST_SKIP() << "no GPU";
  std::mt19937_64 rng(5);
  for (const std::size_t n : {0UL, 1UL, 33UL, 4097UL, (1UL << 21) + 5}) {
    for (const double share : {0.0, 1e-5, 0.2}) {
      const auto x = random_signal(n, rng, share);
      const zf::array dev = zf::copy_to(host_array(x), zf::cuda_device(0));
      EXPECT_EQ(zf::pipeline::detail::count_samples(dev, zf::stream_view{}), reference_census(x)) << n;
      if (n >= 2) {
        const zf::array strided = dev.slice(0, 1, static_cast<std::int64_t>(n), 2);
        const std::vector<float> odd(x.begin() + 1, x.end());
        EXPECT_EQ(zf::pipeline::detail::count_samples(strided, zf::stream_view{}), reference_census(odd, 2)) << n;
      }
    }
  }
}

namespace {

using stretches = std::vector<std::pair<std::int64_t, std::int64_t>>;

/// Noise with runs of one value put in: (first sample, length, value) each.
std::vector<float> with_flat_runs(std::size_t n, std::mt19937_64& rng,
                                  const std::vector<std::tuple<std::size_t, std::size_t, float>>& runs) {
  std::normal_distribution<float> noise(0.0F, 0.02F);
  std::vector<float> x(n);
  for (auto& v : x) v = noise(rng);
  for (const auto& [first, length, value] : runs)
    std::fill_n(x.begin() + static_cast<std::ptrdiff_t>(first), length, value);
  return x;
}

/// The maximal runs of one value (NaN as one value) of at least `least` samples, by a plain scan.
stretches flat_runs(const std::vector<float>& x, std::size_t least) {
  stretches out;
  const auto same = [](float a, float b) { return a == b || (std::isnan(a) && std::isnan(b)); };
  for (std::size_t i = 0; i < x.size();) {
    std::size_t j = i + 1;
    while (j < x.size() && same(x[j], x[i])) ++j;
    if (j - i >= least) out.emplace_back(static_cast<std::int64_t>(i), static_cast<std::int64_t>(j - 1));
    i = j;
  }
  return out;
}

}  // namespace

TEST(NoSignalStretches, FindEveryRunOfOneValueOfTwoWindowsAndNothingInNoise) {
  std::mt19937_64 rng(9);
  constexpr std::int64_t window = 125;  // half a second at 250 Hz
  // Zeros (a lead off), a rail, a gap, a run just long enough, one too short, and one to the end.
  const std::vector<std::tuple<std::size_t, std::size_t, float>> runs = {{1000, 15000, 0.0F},   {20000, 600, 5.0F},
                                                                         {22000, 400, missing}, {30003, 375, -1.0F},
                                                                         {32000, 240, 2.0F},    {49000, 1000, 0.0F}};
  const auto x = with_flat_runs(50000, rng, runs);
  const auto found = zf::pipeline::detail::no_signal_stretches(host_array(x), window, 250.0, zf::stream_view{});
  // Each found stretch lies inside a run of one value; each run of at least 3 windows is found,
  // short of it by less than a window at each end (stretches start on window boundaries).
  const auto truth = flat_runs(x, 2);
  for (const auto& [first, last] : found)
    EXPECT_TRUE(
        std::any_of(truth.begin(), truth.end(), [&](const auto& t) { return t.first <= first && last <= t.second; }))
        << first << ".." << last;
  for (const auto& t : flat_runs(x, 3 * window)) {
    const bool covered = std::any_of(found.begin(), found.end(), [&](const auto& f) {
      return f.first < t.first + window && f.second > t.second - window;
    });
    EXPECT_TRUE(covered) << t.first << ".." << t.second;
  }
  EXPECT_EQ(found.size(), 5U);  // all but the 240-sample run (under two windows)
  EXPECT_TRUE(zf::pipeline::detail::no_signal_stretches(host_array(with_flat_runs(50000, rng, {})), window, 250.0,
                                                        zf::stream_view{})
                  .empty());
}

/// `x` with a sinusoid of `hz` (at `rate`) and `amplitude` added to samples [first, first + length),
/// replacing them where `replace`.
void put_sine(std::vector<float>& x, std::size_t first, std::size_t length, double hz, double rate, double amplitude,
              bool replace) {
  for (std::size_t i = first; i < first + length; ++i) {
    const double v = amplitude * std::sin(2 * std::numbers::pi * hz * static_cast<double>(i) / rate);
    x[i] = static_cast<float>(replace ? v : x[i] + v);
  }
}

TEST(NoSignalStretches, MainsHumAloneIsNoSignal) {
  // A floating electrode picks up the mains and nothing else: a stretch that is all 60 Hz (at
  // 250 Hz) or all 50 Hz (at 360 Hz), with a little noise, is found; the same hum on a lead with
  // beats (QRS-like bumps every 0.8 s, four times the hum), on noise of its own size, or at a rate
  // that cannot carry it is not.
  std::mt19937_64 rng(11);
  for (const auto& [rate, hz] : {std::pair{250.0, 60.0}, std::pair{360.0, 50.0}}) {
    const auto window = static_cast<std::int64_t>(rate / 2);
    auto x = with_flat_runs(static_cast<std::size_t>(60 * rate), rng, {});
    const auto at = [&](double seconds) { return static_cast<std::size_t>(seconds * rate); };
    put_sine(x, at(10), at(10), hz, rate, 0.5, true);    // the lead off: hum alone
    put_sine(x, at(30), at(10), hz, rate, 0.02, false);  // hum as large as the noise
    for (double t = 40; t < 50; t += 0.8)                // beats with hum over them
      for (std::size_t i = at(t); i < at(t) + at(0.1); ++i)
        x[i] += static_cast<float>(2.0 * std::sin(std::numbers::pi * static_cast<double>(i - at(t)) / (0.1 * rate)));
    put_sine(x, at(40), at(10), hz, rate, 0.5, false);
    const auto found = zf::pipeline::detail::no_signal_stretches(host_array(x), window, rate, zf::stream_view{});
    ASSERT_EQ(found.size(), 1U) << rate;
    EXPECT_GE(found[0].first, static_cast<std::int64_t>(at(10)));
    EXPECT_LT(found[0].first, static_cast<std::int64_t>(at(10)) + window);
    EXPECT_LE(found[0].second, static_cast<std::int64_t>(at(20)) - 1);
    EXPECT_GT(found[0].second, static_cast<std::int64_t>(at(20)) - 1 - window);
  }
  // At 100 Hz a 60 Hz hum cannot be sampled as itself (it aliases to 40 Hz): nothing is claimed.
  auto slow = with_flat_runs(6000, rng, {});
  put_sine(slow, 1000, 2000, 60.0, 100.0, 0.5, true);
  EXPECT_TRUE(zf::pipeline::detail::no_signal_stretches(host_array(slow), 50, 100.0, zf::stream_view{}).empty());
}

TEST(NoSignalStretches, TheGpuFindsWhatTheHostFinds) {
  if (!zf::cuda_available()) GTEST_SKIP() << "no GPU";
  std::mt19937_64 rng(10);
  for (const std::int64_t window : {1, 7, 125, 180}) {
    auto x = with_flat_runs(300007, rng,
                            {{5, 5000, 0.0F}, {90000, 999, 3.5F}, {120000, 2000, missing}, {299000, 1007, 0.0F}});
    put_sine(x, 150000, 5000, 60.0, 250.0, 0.5, true);
    const zf::array host = host_array(x);
    const zf::array dev = zf::copy_to(host, zf::cuda_device(0));
#if ZEROFLOW_HAS_CUDA
    EXPECT_EQ(zf::pipeline::detail::no_signal_window_pairs_cuda(dev, window, 250.0, zf::stream_view{}),
              zf::pipeline::detail::no_signal_window_pairs_on_host(host, window, 250.0))
        << window;
#endif
    EXPECT_EQ(zf::pipeline::detail::no_signal_stretches(dev, window, 250.0, zf::stream_view{}),
              zf::pipeline::detail::no_signal_stretches(host, window, 250.0, zf::stream_view{}))
        << window;
  }
}

TEST(NonFiniteRecording, AHugeSampleIsRefusedWithItsPosition) {
  auto x = ecg();
  x[12345] = 3e38F;
  std::string message = error_of<zf::parse_error>(cpu_options(write_csv("spike.csv", x)));
  EXPECT_NE(message.find("1 sample is infinite or larger than 1e30 in magnitude (the first is sample 12345"),
            std::string::npos)
      << message;
  x[20000] = -2e31F;
  x[500] = 1e35F;
  message = error_of<zf::parse_error>(cpu_options(write_csv("spikes.csv", x)));
  EXPECT_NE(message.find("3 samples are infinite or larger than 1e30 in magnitude (the first is sample 500"),
            std::string::npos)
      << message;
  EXPECT_EQ(message.find('\n'), std::string::npos);
}

TEST(NonFiniteRecording, InfiniteSamplesAreRefused) {
  // A gain of 1e-40 units per mV makes every non-zero sample infinite in float32.
  std::vector<float> x(ecg().begin(), ecg().begin() + 5000);
  x[0] = 0;
  const std::string message = error_of<zf::parse_error>(cpu_options(write_wfdb("tiny_gain", x, 1e-40)));
  std::size_t nonzero = 0;
  std::int64_t first = -1;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (std::lround(x[i] * 200.0) != 0) nonzero++, first = first < 0 ? static_cast<std::int64_t>(i) : first;
  EXPECT_NE(message.find(std::to_string(nonzero) +
                         " samples are infinite or larger than 1e30 in magnitude (the first "
                         "is sample " +
                         std::to_string(first)),
            std::string::npos)
      << message;
}

TEST(NonFiniteRecording, GapsRunUnderTheRobustMethodAndAreRefusedByTheSeeds) {
  auto x = ecg();
  for (std::size_t i = 10000; i < 10250; ++i) x[i] = missing;  // a second of signal lost
  x[30000] = missing;
  const fs::path record = write_wfdb("gaps", x);
  auto o = cpu_options(record);
  const auto r = zf::pipeline::run(o);
  ASSERT_EQ(r.epoch_loss.size(), 2U);
  for (const double loss : r.epoch_loss) EXPECT_TRUE(std::isfinite(loss));
  EXPECT_TRUE(std::isfinite(r.test_loss));
  ASSERT_GT(r.score.size(), 100U);
  for (const float s : r.score) EXPECT_TRUE(std::isfinite(s));

  o.segmentation.method = zf::signal::segmentation_method::gate_to_gate;
  const std::string message = error_of<zf::parse_error>(o);
  EXPECT_NE(message.find("251 samples are missing (NaN; the first is sample 10000"), std::string::npos) << message;
}

class ModelFit : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    csv_ = write_csv("fit.csv", ecg());
    model_ = folder() / "fit_model.pt";
    trained_ = new zf::pipeline::run_result(zf::pipeline::run(cpu_options(csv_), model_));
  }
  static void TearDownTestSuite() {
    delete trained_;
    trained_ = nullptr;
  }
  static zf::pipeline::run_options scoring(const fs::path& model) {
    auto o = cpu_options(csv_);
    o.model = model;
    return o;
  }
  static inline fs::path csv_, model_;
  static inline zf::pipeline::run_result* trained_ = nullptr;
};

TEST_F(ModelFit, AFittingModelScoresAsTheRunThatTrainedIt) {
  const auto r = zf::pipeline::run(scoring(model_));
  EXPECT_FALSE(r.trained);
  EXPECT_EQ(r.score, trained_->score);
  const auto m = zf::model::vae::load(model_);
  ASSERT_TRUE(m.described_rows().has_value());
  EXPECT_EQ(m.described_rows()->sample_rate, 250);
  EXPECT_EQ(m.described_rows()->segmentation, "robust");
  EXPECT_TRUE(m.described_rows()->normalized);
  EXPECT_EQ(m.described_rows()->window_before, trained_->sizes.window_before);
  EXPECT_EQ(m.described_rows()->window_after, trained_->sizes.window_after);
  EXPECT_EQ(m.history().train_seed, std::optional<std::uint64_t>(42));
  EXPECT_EQ(m.history().epochs, 2);
}

TEST_F(ModelFit, AnotherSampleRateIsRefused) {
  // 256 Hz keeps the row width (256) of 250 Hz: only the recorded rate tells them apart.
  auto o = scoring(model_);
  o.segmentation.sample_rate = 256;
  const std::string message = error_of<zf::invalid_argument>(o);
  EXPECT_NE(message.find("sample rate 250 Hz (this run: 256 Hz)"), std::string::npos) << message;
  EXPECT_NE(message.find("train a model on recordings like this one"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos);
}

TEST_F(ModelFit, AnotherNormalisationOrSegmentationIsRefused) {
  auto o = scoring(model_);
  o.segmentation.normalize_rows = false;
  std::string message = error_of<zf::invalid_argument>(o);
  EXPECT_NE(message.find("normalisation robust (this run: none)"), std::string::npos) << message;
  EXPECT_NE(message.find("give `normalize`=robust to match it"), std::string::npos) << message;

  o = scoring(model_);
  o.segmentation.method = zf::signal::segmentation_method::gate_to_gate;
  message = error_of<zf::invalid_argument>(o);
  EXPECT_NE(message.find("segmentation robust (this run: gate-to-gate)"), std::string::npos) << message;
}

TEST_F(ModelFit, TheSeedsBeatLengthsAreChecked) {
  auto o = cpu_options(csv_);
  o.segmentation.method = zf::signal::segmentation_method::gate_to_gate;
  const fs::path seed_model = folder() / "seed_model.pt";
  (void)zf::pipeline::run(o, seed_model);
  o.model = seed_model;
  o.segmentation.min_beat_seconds = 0.3;  // 75 samples instead of 100: the same row width
  const std::string message = error_of<zf::invalid_argument>(o);
  EXPECT_NE(message.find("beats of 100 to 256 samples (this run: 75 to 256)"), std::string::npos) << message;
  EXPECT_NE(message.find("`min_beat_seconds`=0.4 `max_beat_seconds`=1.024"), std::string::npos) << message;
}

TEST_F(ModelFit, ModelsWithoutRowsOrWithNanWeightsAreRefused) {
  const fs::path plain = folder() / "plain.pt";
  zf::model::vae::create(256).save(plain);  // as from Python: no row description
  std::string message = error_of<zf::invalid_argument>(scoring(plain));
  EXPECT_NE(message.find("does not record how its training rows were made"), std::string::npos) << message;

  zf::model::detail::light_vae net(256);
  {
    torch::NoGradGuard no_grad;
    net->parameters()[3].view({-1})[1] = missing;
  }
  zf::model::row_provenance rows;
  rows.sample_rate = 250;
  rows.segmentation = "robust";
  rows.window_before = trained_->sizes.window_before;
  rows.window_after = trained_->sizes.window_after;
  const fs::path poisoned = folder() / "poisoned.safetensors";
  {
    std::ofstream out(poisoned, std::ios::binary);
    out << zf::model::detail::model_file_bytes({256, rows, {}}, net);
  }
  message = error_of<zf::error>(scoring(poisoned));
  EXPECT_NE(message.find("holds 1 weight that is NaN or infinite"), std::string::npos) << message;
}

// The same refusals and the same gaps on a GPU run: the census runs where the recording was read.
TEST(NonFiniteRecording, OnTheGpuToo) {
  if (!zf::cuda_available()) GTEST_SKIP() << "no GPU";
  auto x = ecg();
  x[4321] = -3e38F;
  auto o = cpu_options(write_csv("gpu_spike.csv", x));
  o.where = zf::pipeline::device_choice::cuda;
  o.route_torch_memory = false;  // other tests of this process used LibTorch's CUDA allocator already
  const std::string message = error_of<zf::parse_error>(o);
  EXPECT_NE(message.find("1 sample is infinite or larger than 1e30 in magnitude (the first is sample 4321"),
            std::string::npos)
      << message;

  x = ecg();
  for (std::size_t i = 10000; i < 10250; ++i) x[i] = missing;
  o.input = write_wfdb("gpu_gaps", x);
  const auto r = zf::pipeline::run(o);
  for (const double loss : r.epoch_loss) EXPECT_TRUE(std::isfinite(loss));
  EXPECT_TRUE(std::isfinite(r.test_loss));
  ASSERT_GT(r.score.size(), 100U);
  for (const float s : r.score) EXPECT_TRUE(std::isfinite(s));
}
