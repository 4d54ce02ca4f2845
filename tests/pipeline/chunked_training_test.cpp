// Training under a device memory budget (pipeline/chunked_run.hpp): rows that fit the budget go to
// the device; rows that do not are read in place from mapped host memory, the same bytes the
// model's kernels would read from a device copy; only batches too large for the budget are refused,
// in the user's terms. The models' finiteness check reads the rows in slices (rows larger than the
// device's memory left need no temporary of their size) and still names the first bad value
// exactly. GPU tests skip without one; the end-to-end run is in chunked_run_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "model/model_test_util.hpp"
#include "pipeline/chunked_run.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/memory/limiting_adaptor.hpp"
#include "zeroflow/model/mlp_autoencoder.hpp"
#include "zeroflow/model/vae.hpp"
#include "zeroflow/pipeline/chunked.hpp"

namespace zf = zeroflow;
using zeroflow::model_test::message_of;

namespace {

constexpr std::int64_t width = 256;
constexpr std::int64_t budget = zf::pipeline::min_device_budget;

/// `n` host rows of `width` values, each value a function of its place (so a copy is checkable).
zf::array rows_of(std::int64_t n) {
  zf::array rows = zf::empty({n, width}, zf::float32);
  auto values = rows.span<float>();
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 1009) / 1009.0F - 0.5F;
  return rows;
}

std::vector<float> host_values(const zf::array& a) {
  const zf::array host = zf::copy_to(a, zf::cpu_device);
  const auto s = host.span<const float>();
  return {s.begin(), s.end()};
}

/// `n` rows (n > 35000: three slices or more of the finiteness check, 16 MiB each) with
/// non-finite values in the second slice, the third and the last row.
zf::array rows_with_bad_values(std::int64_t n) {
  zf::array rows = rows_of(n);
  auto values = rows.span<float>();
  values[20000 * width + 17] = std::numeric_limits<float>::quiet_NaN();
  values[35000 * width + 3] = -std::numeric_limits<float>::infinity();
  values[(n - 1) * width + 255] = std::numeric_limits<float>::infinity();
  return rows;
}

/// The budget's limiting adaptor, which chunked_run makes the GPU's current resource.
std::shared_ptr<zf::memory::limiting_adaptor> current_limit() {
  return std::dynamic_pointer_cast<zf::memory::limiting_adaptor>(zf::memory::current_resource(zf::cuda_device(0)));
}

}  // namespace

TEST(ChunkedTraining, FiniteCheckCountsAndLocatesBadValuesAcrossSlices) {
  const zf::array rows = rows_with_bad_values(40000);
  zf::model::train_options o;
  o.epochs = 1;
  zf::model::vae vae = zf::model::vae::create(width, zf::cpu_device, 3);
  const std::string message = message_of<zf::invalid_argument>([&] { (void)vae.train(rows, o); });
  EXPECT_NE(message.find("rows hold 3 values that are NaN or infinite (the first in row 20000, column 17)"),
            std::string::npos)
      << message;
  EXPECT_EQ(vae.history().epochs, 0);

  zf::model::mlp_shape shape;
  shape.features = width;
  zf::model::mlp_autoencoder mlp = zf::model::mlp_autoencoder::create(shape, zf::cpu_device, 3);
  zf::model::mlp_train_options m;
  m.epochs = 1;
  const std::string mlp_message = message_of<zf::invalid_argument>([&] { (void)mlp.train(rows, m); });
  EXPECT_NE(mlp_message.find("rows hold 3 values that are NaN or infinite (the first in row 20000)"), std::string::npos)
      << mlp_message;
}

TEST(ChunkedTraining, FiniteCheckFindsOneBadValueInTheLastSlice) {
  zf::array rows = rows_of(40000);
  rows.span<float>()[39999 * width + 255] = std::numeric_limits<float>::quiet_NaN();
  zf::model::vae vae = zf::model::vae::create(width, zf::cpu_device, 3);
  const std::string message = message_of<zf::invalid_argument>([&] { (void)vae.score(rows); });
  EXPECT_NE(message.find("rows hold 1 value that is NaN or infinite (the first in row 39999, column 255)"),
            std::string::npos)
      << message;
}

TEST(ChunkedTraining, HostRunsTrainOnTheHostRowsThemselves) {
  zf::pipeline::detail::chunked_run run(zf::cpu_device, budget, {});
  const zf::array rows = rows_of(1000);
  const zf::array taken = run.training_rows(rows, 1024, false, {});
  EXPECT_EQ(taken.owner(), rows.owner());
  EXPECT_EQ(taken.data(), rows.data());
}

TEST(ChunkedTraining, RowsThatFitAreCopiedToTheGpu) {
  if (!zf::cuda_available()) GTEST_SKIP() << "no GPU";
  zf::pipeline::detail::chunked_run run(zf::cuda_device(0), budget, {});
  const zf::array rows = rows_of(1000);
  const auto limit = current_limit();
  ASSERT_NE(limit, nullptr);
  const zf::array taken = run.training_rows(rows, 1024, false, {});
  EXPECT_EQ(taken.where(), zf::cuda_device(0));
  EXPECT_GE(limit->used(), rows.nbytes());  // a device copy, inside the budget
  EXPECT_EQ(host_values(taken), host_values(rows));
}

TEST(ChunkedTraining, RowsLargerThanTheBudgetAreReadFromMappedHostMemory) {
  if (!zf::cuda_available()) GTEST_SKIP() << "no GPU";
  const zf::array rows = rows_of(80000);  // 78 MiB, past the 64 MiB budget
  zf::model::train_options o;
  o.epochs = 2;
  // The reference first, outside the budget: the same model trained on a device copy.
  zf::model::vae on_device = zf::model::vae::create(width, zf::cuda_device(0), 5);
  const auto reference = on_device.train(zf::copy_to(rows, zf::cuda_device(0)), o);

  zf::model::vae in_place = zf::model::vae::create(width, zf::cuda_device(0), 5);
  zf::model::train_result trained;
  std::string bad_rows;
  {
    std::vector<std::string> progress;
    zf::pipeline::detail::chunked_run run(zf::cuda_device(0), budget,
                                          [&](const std::string& line) { progress.push_back(line); });
    const auto limit = current_limit();
    ASSERT_NE(limit, nullptr);
    const std::size_t used = limit->used();
    const zf::array taken = run.training_rows(rows, 1024, false, {});
    EXPECT_EQ(taken.where(), zf::cuda_device(0));  // device memory to LibTorch and the kernels
    EXPECT_EQ(taken.shape(), rows.shape());
    EXPECT_EQ(limit->used(), used);  // nothing of the budget
    EXPECT_EQ(host_values(taken), host_values(rows));
    ASSERT_EQ(progress.size(), 1U);
    EXPECT_NE(progress[0].find("from host memory"), std::string::npos) << progress[0];
    trained = in_place.train(taken, o);

    // The finiteness check reads them in place too.
    const zf::array bad = run.training_rows(rows_with_bad_values(80000), 1024, false, {});
    bad_rows = message_of<zf::invalid_argument>(
        [&] { (void)zf::model::vae::create(width, zf::cuda_device(0), 5).train(bad, o); });
  }
  // The same bytes and kernels as on a device copy: the same losses and model.
  EXPECT_EQ(trained.epoch_loss, reference.epoch_loss);
  EXPECT_EQ(trained.test_loss, reference.test_loss);
  EXPECT_EQ(host_values(in_place.score(rows).score), host_values(on_device.score(rows).score));
  EXPECT_NE(bad_rows.find("rows hold 3 values that are NaN or infinite (the first in row 20000, column 17)"),
            std::string::npos)
      << bad_rows;
}

TEST(ChunkedTraining, BatchesLargerThanTheBudgetAreRefusedInTheUsersTerms) {
  if (!zf::cuda_available()) GTEST_SKIP() << "no GPU";
  zf::pipeline::detail::chunked_run run(zf::cuda_device(0), budget, {});
  const zf::array rows = rows_of(20000);
  const std::string message =
      message_of<zf::out_of_memory>([&] { (void)run.training_rows(rows, 10000, false, {}); });  // ~156 MiB of batch
  EXPECT_NE(message.find("training needs about"), std::string::npos) << message;
  EXPECT_NE(message.find("`max_device_memory`"), std::string::npos) << message;
  EXPECT_NE(message.find("a smaller `batch`"), std::string::npos) << message;
  EXPECT_EQ(message.find("::"), std::string::npos) << message;
  // Batch 0 is every row in one batch (the MLP autoencoder's default): refused alike.
  EXPECT_NE(
      message_of<zf::out_of_memory>([&] { (void)run.training_rows(rows, 0, false, {}); }).find("a smaller `batch`"),
      std::string::npos);
}

TEST(ChunkedTraining, TheMlpsDeviceCopyOfRowsThatDoNotFitIsRefusedInTheUsersTerms) {
  if (!zf::cuda_available()) GTEST_SKIP() << "no GPU";
  zf::pipeline::detail::chunked_run run(zf::cuda_device(0), budget, {});
  const zf::array rows = rows_of(80000);  // 78 MiB, past the 64 MiB budget; batches of 1024 fit
  const std::string message =
      message_of<zf::out_of_memory>([&] { (void)run.training_rows(rows, 1024, /*rows_copied_on_device=*/true, {}); });
  EXPECT_NE(message.find("`model_kind`=mlp trains on a scaled copy"), std::string::npos) << message;
  EXPECT_NE(message.find("give `max_device_memory`="), std::string::npos) << message;
  EXPECT_NE(message.find("`model_kind`=lightvae"), std::string::npos) << message;
  EXPECT_EQ(message.find("::"), std::string::npos) << message;
  // Rows that fit are copied as for any model.
  const zf::array few = rows_of(2000);
  EXPECT_EQ(run.training_rows(few, 1024, true, {}).where(), zf::cuda_device(0));
}
