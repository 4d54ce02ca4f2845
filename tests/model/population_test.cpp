// Population training on the CPU (population.hpp): zeroflow's own CPU trainer takes vae::train's
// steps when the training rows make whole batches, a run resumed from its checkpoint equals one
// never stopped, bit for bit, and a group of processes takes the steps of one process with the
// same global batch (two ranks as two threads of this test, summing through a barrier).
#include "zeroflow/model/population.hpp"

#include <gtest/gtest.h>

#include <barrier>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "model/model_test_util.hpp"
#include "model/population_test_util.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/model/vae.hpp"

namespace zf = zeroflow;
namespace zm = zeroflow::model;
namespace fs = std::filesystem;

namespace {

constexpr std::int64_t width = 32;
constexpr int n_rows = 1024;  // 768 training rows: 6 whole batches of 128

fs::path temp_file(const std::string& name) { return zf::model_test::temp_file("population_cpu", name); }

std::string file_of(const zm::vae& m, const std::string& name) {
  return zf::model_test::file_of(m, "population_cpu", name);
}

zm::population_options options(int epochs) { return zf::model_test::short_population_run(epochs, 128); }

/// Ranks as threads of one process: every operation waits for all of them, then each rank adds
/// the ranks' values in rank order (the same sum in every rank).
class thread_group final : public zm::gradient_group {
 public:
  struct shared {
    explicit shared(int ranks) : barrier(ranks), slots(static_cast<std::size_t>(ranks)) {}
    std::barrier<> barrier;
    std::vector<std::vector<double>> slots;
  };
  thread_group(shared& s, int rank) : s_{s}, rank_{rank} {}
  [[nodiscard]] int rank() const override { return rank_; }
  [[nodiscard]] int size() const override { return static_cast<int>(s_.slots.size()); }
  void sum(float* data, std::int64_t n, zf::stream_view) override { sum_of(data, n); }
  void sum(double* data, std::int64_t n, zf::stream_view) override { sum_of(data, n); }
  void broadcast(float* data, std::int64_t n, int root, zf::stream_view) override {
    if (rank_ == root) s_.slots[0].assign(data, data + n);
    s_.barrier.arrive_and_wait();
    if (rank_ != root)
      for (std::int64_t i = 0; i < n; ++i) data[i] = static_cast<float>(s_.slots[0][static_cast<std::size_t>(i)]);
    s_.barrier.arrive_and_wait();
  }

 private:
  template <class T>
  void sum_of(T* data, std::int64_t n) {
    s_.slots[static_cast<std::size_t>(rank_)].assign(data, data + n);
    s_.barrier.arrive_and_wait();
    for (std::int64_t i = 0; i < n; ++i) {
      double total = 0;
      for (const auto& slot : s_.slots) total += slot[static_cast<std::size_t>(i)];
      data[i] = static_cast<T>(total);
    }
    s_.barrier.arrive_and_wait();
  }
  shared& s_;
  int rank_;
};

}  // namespace

TEST(PopulationTrainingCpu, TakesVaeTrainsStepsWhenBatchesAreWhole) {
  const zf::array rows = zf::model_test::make_rows(n_rows, static_cast<int>(width), 3, {5, 50, 500});
  zm::vae reference = zm::vae::create(width, zf::cpu_device, 11);
  zm::train_options t;
  t.epochs = 3;
  t.batch = 128;
  t.seed = 11;
  const zm::train_result expected = reference.train(rows, t);

  zm::vae m = zm::vae::create(width, zf::cpu_device, 11);
  const zm::population_result got = zm::train_population(m, rows, options(3));
  EXPECT_EQ(got.epoch_loss, expected.epoch_loss);
  EXPECT_EQ(got.test_loss, expected.test_loss);
  EXPECT_EQ(got.train_rows, 768);
  EXPECT_EQ(got.steps, 3 * 6);
  EXPECT_EQ(file_of(m, "population.safetensors"), file_of(reference, "reference.safetensors"));
}

TEST(PopulationTrainingCpu, AResumedRunEqualsAnUninterruptedOne) {
  const zf::array rows = zf::model_test::make_rows(n_rows, static_cast<int>(width), 4, {7});
  zm::vae whole = zm::vae::create(width, zf::cpu_device, 11);
  const auto uninterrupted = zm::train_population(whole, rows, options(4));

  const fs::path checkpoint = temp_file("run.checkpoint");
  auto first = options(2);
  first.checkpoint = checkpoint;
  zm::vae stopped = zm::vae::create(width, zf::cpu_device, 11);
  (void)zm::train_population(stopped, rows, first);
  ASSERT_TRUE(fs::exists(checkpoint));
  auto rest = options(4);
  rest.checkpoint = checkpoint;
  rest.resume = true;
  zm::vae resumed = zm::vae::create(width, zf::cpu_device, 11);
  const auto r = zm::train_population(resumed, rows, rest);
  EXPECT_EQ(r.first_epoch, 2);
  EXPECT_EQ(r.epoch_loss, uninterrupted.epoch_loss);
  EXPECT_EQ(r.test_loss, uninterrupted.test_loss);
  EXPECT_EQ(file_of(resumed, "resumed.safetensors"), file_of(whole, "whole.safetensors"));
}

// Two ranks, each with half of every global batch of 128 rows and the gradients summed before
// every update: the steps of one process (sums in another order, so within float rounding), and
// the same weights in both ranks.
TEST(PopulationTrainingCpu, AGroupTakesTheStepsOfOneProcess) {
  const zf::array rows = zf::model_test::make_rows(n_rows, static_cast<int>(width), 5, {9, 90});
  zm::vae alone = zm::vae::create(width, zf::cpu_device, 11);
  const auto single = zm::train_population(alone, rows, options(3));

  const int threads = zm::cpu_threads();
  zm::set_cpu_threads(1);  // process-wide: two ranks on the machine's two cores
  thread_group::shared shared(2);
  std::vector<zm::population_result> results(2);
  std::vector<std::string> files(2), failures(2);
  std::vector<std::thread> ranks;
  for (int r = 0; r < 2; ++r)
    ranks.emplace_back([&, r] {
      try {
        thread_group group(shared, r);
        zm::vae m = zm::vae::create(width, zf::cpu_device, 11);
        results[static_cast<std::size_t>(r)] = zm::train_population(m, rows, options(3), &group);
        files[static_cast<std::size_t>(r)] = file_of(m, "rank" + std::to_string(r) + ".safetensors");
      } catch (const std::exception& e) {
        failures[static_cast<std::size_t>(r)] = e.what();
      }
    });
  for (auto& t : ranks) t.join();
  zm::set_cpu_threads(threads);
  ASSERT_EQ(failures, (std::vector<std::string>{"", ""}));
  EXPECT_EQ(files[0], files[1]);
  EXPECT_EQ(results[0].epoch_loss, results[1].epoch_loss);
  ASSERT_EQ(results[0].epoch_loss.size(), single.epoch_loss.size());
  for (std::size_t e = 0; e < single.epoch_loss.size(); ++e)
    EXPECT_NEAR(results[0].epoch_loss[e], single.epoch_loss[e], 1e-4 * single.epoch_loss[e]) << "epoch " << e;
  EXPECT_NEAR(results[0].test_loss, single.test_loss, 1e-3 * single.test_loss);
  EXPECT_EQ(results[0].steps, single.steps);
}

TEST(PopulationTrainingCpu, RefusesBadSettings) {
  const zf::array rows = zf::model_test::make_rows(n_rows, static_cast<int>(width), 3);
  zm::vae m = zm::vae::create(width, zf::cpu_device, 11);
  auto o = options(1);
  o.batch = 4096;  // more than the 768 training rows
  EXPECT_THROW((void)zm::train_population(m, rows, o), zf::invalid_argument);
  zm::vae other = zm::vae::create(64, zf::cpu_device, 11);
  EXPECT_THROW((void)zm::train_population(other, rows, options(1)), zf::invalid_argument);
}
