// vae::train and vae::score against non-finite input: a NaN or an infinity in the rows is refused
// before the first step (one would turn every loss and then every weight into NaN), and a loss
// that stops being finite ends training with "training diverged" instead of a model that scores
// nothing. On a GPU the same holds for the CUDA-graph trainer, watched per epoch or not.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "model/model_test_util.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/model/vae.hpp"

namespace zf = zeroflow;
using zf::model::vae;
using namespace zeroflow::model_test;

namespace {

class VaeNonFinite : public ::testing::Test {
 protected:
  void SetUp() override {
    threads_ = zf::model::cpu_threads();
    zf::model::set_cpu_threads(1);
  }
  void TearDown() override { zf::model::set_cpu_threads(threads_); }
  int threads_ = 1;
};

zf::model::train_options few_epochs(int epochs = 3) {
  zf::model::train_options opt;
  opt.epochs = epochs;
  opt.batch = 64;
  return opt;
}

zf::array scaled(const zf::array& rows, float factor) {
  zf::array out = zf::copy_to(rows, zf::cpu_device);
  for (auto& v : out.span<float>()) v *= factor;
  return out;
}

}  // namespace

TEST_F(VaeNonFinite, RowsWithNanOrInfinityAreRefusedBeforeAnyStep) {
  const zf::array clean = make_rows(300, 32, 4);
  for (const float poison : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                             -std::numeric_limits<float>::infinity()}) {
    vae m = vae::create(32, zf::cpu_device, 3);
    const std::vector<float> before = to_vector(m.score(clean).score);
    zf::array rows = zf::copy_to(clean, zf::cpu_device);
    rows.span<float>()[123 * 32 + 7] = poison;
    rows.span<float>()[200 * 32 + 1] = poison;
    const std::string message = message_of<zf::invalid_argument>([&] { (void)m.train(rows, few_epochs()); });
    EXPECT_NE(message.find("rows hold 2 values that are NaN or infinite (the first in row 123, column 7)"),
              std::string::npos)
        << message;
    EXPECT_EQ(to_vector(m.score(clean).score), before);  // not one step was taken
    EXPECT_EQ(m.history().epochs, 0);
    const std::string scoring = message_of<zf::invalid_argument>([&] { (void)m.score(rows); });
    EXPECT_NE(scoring.find("the first in row 123, column 7"), std::string::npos) << scoring;
  }
}

TEST_F(VaeNonFinite, RowsTooLargeForFloat32StopTrainingAtTheFirstEpoch) {
  // 1e19 is a finite float32, but its square is not: every loss overflows.
  const zf::array rows = scaled(make_rows(300, 32, 4), 1e19F);
  float largest = 0;
  for (const float v : rows.span<const float>()) largest = std::max(largest, std::fabs(v));
  char reach[64];
  std::snprintf(reach, sizeof reach, "the rows reach %.3g in magnitude", static_cast<double>(largest));
  vae m = vae::create(32, zf::cpu_device, 3);
  std::vector<double> seen;
  auto opt = few_epochs();
  opt.on_epoch = [&](int, double loss) { seen.push_back(loss); };
  const std::string message = message_of<zf::error>([&] { (void)m.train(rows, opt); });
  EXPECT_NE(message.find("training diverged at epoch 1 of 3"), std::string::npos) << message;
  EXPECT_NE(message.find(reach), std::string::npos) << message;
  EXPECT_TRUE(seen.empty());  // the diverged epoch is never reported as a loss
  EXPECT_EQ(message.find('\n'), std::string::npos);
}

TEST_F(VaeNonFinite, AnExplodingLearningRateStopsTraining) {
  const zf::array rows = make_rows(300, 32, 4);
  vae m = vae::create(32, zf::cpu_device, 3);
  auto opt = few_epochs(20);
  opt.learning_rate = 1e30;
  std::vector<double> seen;
  opt.on_epoch = [&](int, double loss) { seen.push_back(loss); };
  const std::string message = message_of<zf::error>([&] { (void)m.train(rows, opt); });
  EXPECT_NE(message.find("training diverged at epoch " + std::to_string(seen.size() + 1) + " of 20"), std::string::npos)
      << message;
  EXPECT_NE(message.find("lower the learning rate"), std::string::npos) << message;
  for (const double loss : seen) EXPECT_TRUE(std::isfinite(loss));
}

TEST_F(VaeNonFinite, TheGpuTrainerStopsToo) {
  if (!zf::cuda_available()) GTEST_SKIP() << "no GPU";
  const zf::array host = scaled(make_rows(300, 32, 4), 1e19F);
  const zf::array rows = zf::copy_to(host, zf::cuda_device(0));
  for (const bool watched : {false, true}) {
    vae m = vae::create(32, zf::cuda_device(0), 3);
    auto opt = few_epochs();
    int reported = 0;
    if (watched) opt.on_epoch = [&](int, double) { ++reported; };
    const std::string message = message_of<zf::error>([&] { (void)m.train(rows, opt); });
    EXPECT_NE(message.find("training diverged at epoch 1 of 3"), std::string::npos)
        << message << (watched ? " (watched)" : "");
    EXPECT_EQ(reported, 0);
  }
  zf::array nan_rows = zf::copy_to(make_rows(300, 32, 4), zf::cpu_device);
  nan_rows.span<float>()[5 * 32 + 2] = std::numeric_limits<float>::quiet_NaN();
  vae m = vae::create(32, zf::cuda_device(0), 3);
  const std::string message =
      message_of<zf::invalid_argument>([&] { (void)m.train(zf::copy_to(nan_rows, zf::cuda_device(0)), few_epochs()); });
  EXPECT_NE(message.find("the first in row 5, column 2"), std::string::npos) << message;
}
