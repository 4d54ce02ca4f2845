// zeroflow::model::vae on the CPU: training, reproducibility, the anomaly score, persistence.
#include "zeroflow/model/vae.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "model/model_test_util.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zf = zeroflow;
using zf::model::vae;
using namespace zeroflow::model_test;

namespace {

// std::filesystem::remove_all must not be called here: the torch wheel's libtorch.so exports its own
// (GCC 13) copy, which calls a libstdc++ symbol that Debian's GCC 12 lacks and so jumps to NULL.
void remove_tree(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) files.push_back(entry.path());
  for (const auto& f : files) std::filesystem::remove(f, ec);
  std::filesystem::remove(dir, ec);
}

std::filesystem::path temp_dir() {
  const char* env = std::getenv("ZEROFLOW_TEST_TMP");
  std::filesystem::path dir = env != nullptr ? env : std::filesystem::temp_directory_path();
  dir /= "model_vae_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
         ::testing::UnitTest::GetInstance()->current_test_info()->name();
  remove_tree(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace

// The CPU tests run LibTorch on one thread: their batches are small, and several threads that
// wait on each other make them crawl on a machine shared with other busy processes. The thread
// count is restored afterwards (it is process-wide).
class Vae : public ::testing::Test {
 protected:
  void SetUp() override {
    threads_ = zf::model::cpu_threads();
    zf::model::set_cpu_threads(1);
  }
  void TearDown() override { zf::model::set_cpu_threads(threads_); }
  int threads_ = 1;
};

TEST_F(Vae, CreateDescribesTheModel) {
  const vae m = vae::create(64);
  EXPECT_EQ(m.width(), 64);
  EXPECT_EQ(m.where(), zf::cpu_device);
  EXPECT_EQ(m.parameter_count(), 850 + 3 * 64);
  EXPECT_EQ(vae::create(256).parameter_count(), 850 + 3 * 256);
}

TEST_F(Vae, RejectsBadArguments) {
  EXPECT_THROW((void)vae::create(48), zf::invalid_argument);
  EXPECT_THROW((void)vae::create(64, zf::device{zf::device_type::cuda_host, 0}), zf::invalid_argument);
  vae m = vae::create(64);
  const zf::array rows = make_rows(16, 64, 1);
  EXPECT_THROW((void)m.score(make_rows(4, 32, 1)), zf::invalid_argument);              // width
  EXPECT_THROW((void)m.score(zf::empty({4, 64}, zf::float64)), zf::invalid_argument);  // dtype
  EXPECT_THROW((void)m.score(rows.reshape({16 * 64})), zf::invalid_argument);          // 1-D
  EXPECT_THROW((void)m.score(rows, 0), zf::invalid_argument);                          // batch
  zf::model::train_options bad;
  bad.test_fraction = 1.0;
  EXPECT_THROW((void)m.train(rows, bad), zf::invalid_argument);
  bad = {};
  bad.batch = 0;
  EXPECT_THROW((void)m.train(rows, bad), zf::invalid_argument);
  bad = {};
  bad.epochs = -1;
  EXPECT_THROW((void)m.train(rows, bad), zf::invalid_argument);
  EXPECT_THROW((void)m.decode_grid(0), zf::invalid_argument);
}

TEST_F(Vae, TrainingReducesTheLossAndSplitsTheRows) {
  const int n = 3000;
  const zf::array rows = make_rows(n, 64, 5);
  vae m = vae::create(64, zf::cpu_device, 1);
  zf::model::train_options opt;
  opt.epochs = 6;
  opt.batch = 64;
  std::vector<std::pair<int, double>> seen;
  opt.on_epoch = [&](int epoch, double loss) { seen.emplace_back(epoch, loss); };
  const auto r = m.train(rows, opt);

  ASSERT_EQ(r.epoch_loss.size(), 6U);
  ASSERT_EQ(seen.size(), 6U);
  for (int e = 0; e < 6; ++e) {
    EXPECT_EQ(seen[static_cast<std::size_t>(e)].first, e);
    EXPECT_EQ(seen[static_cast<std::size_t>(e)].second, r.epoch_loss[static_cast<std::size_t>(e)]);
  }
  for (const double l : r.epoch_loss) EXPECT_TRUE(std::isfinite(l));
  EXPECT_LT(r.epoch_loss.back(), 0.5 * r.epoch_loss.front());
  EXPECT_TRUE(std::isfinite(r.test_loss));
  // The rows are i.i.d., so the held-out loss is close to the last training epoch's.
  EXPECT_LT(r.test_loss, 1.5 * r.epoch_loss.back());

  // 75 % / 25 % as int(0.75 · N), disjoint, covering every row, ascending.
  ASSERT_EQ(r.train_index.type(), zf::int64);
  ASSERT_EQ(r.test_index.type(), zf::int64);
  EXPECT_EQ(r.train_index.where(), zf::cpu_device);
  ASSERT_EQ(r.train_index.shape(), (zf::shape_t{2250}));
  ASSERT_EQ(r.test_index.shape(), (zf::shape_t{750}));
  std::vector<int> hits(n, 0);
  for (const auto& idx : {r.train_index, r.test_index}) {
    const auto s = idx.span<const std::int64_t>();
    EXPECT_TRUE(std::is_sorted(s.begin(), s.end()));
    for (const std::int64_t i : s) {
      ASSERT_GE(i, 0);
      ASSERT_LT(i, n);
      ++hits[static_cast<std::size_t>(i)];
    }
  }
  EXPECT_TRUE(std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; }));
}

TEST_F(Vae, TrainingIsBitReproducibleOnTheCpu) {
  zf::model::set_cpu_threads(threads_);  // the default thread count, whatever it is here
  const zf::array rows = make_rows(600, 64, 9);
  zf::model::train_options opt;
  opt.epochs = 3;
  opt.batch = 128;
  opt.seed = 1234;
  auto run = [&](std::uint64_t model_seed, const zf::model::train_options& o) {
    vae m = vae::create(64, zf::cpu_device, model_seed);
    auto r = m.train(rows, o);
    return std::make_pair(r, to_vector(m.score(rows).score));
  };
  const auto [a, score_a] = run(7, opt);
  const auto [b, score_b] = run(7, opt);
  EXPECT_EQ(a.epoch_loss, b.epoch_loss);  // bit-identical
  EXPECT_EQ(a.test_loss, b.test_loss);
  EXPECT_EQ(score_a, score_b);
  EXPECT_EQ(to_vector_i64(a.test_index), to_vector_i64(b.test_index));

  // Another training seed gives another split and other losses; another model seed other weights.
  zf::model::train_options other = opt;
  other.seed = 99;
  const auto [c, score_c] = run(7, other);
  EXPECT_NE(a.epoch_loss, c.epoch_loss);
  EXPECT_NE(to_vector_i64(a.test_index), to_vector_i64(c.test_index));
  const auto [d, score_d] = run(8, opt);
  EXPECT_NE(a.epoch_loss, d.epoch_loss);
  EXPECT_EQ(to_vector_i64(a.test_index), to_vector_i64(d.test_index));  // the split depends on opt.seed only
}

TEST_F(Vae, ScoreRanksNoiseRowsAboveSmoothRows) {
  const int n = 3000;
  std::set<int> outliers;
  std::mt19937_64 pick(77);
  while (outliers.size() < 15) outliers.insert(static_cast<int>(pick() % n));
  const zf::array rows = make_rows(n, 64, 21, outliers);
  vae m = vae::create(64, zf::cpu_device, 3);
  zf::model::train_options opt;
  opt.epochs = 5;
  opt.batch = 64;
  (void)m.train(rows, opt);
  const auto s = m.score(rows);
  ASSERT_EQ(s.score.type(), zf::float32);
  ASSERT_EQ(s.score.shape(), (zf::shape_t{n}));
  ASSERT_EQ(s.mu.type(), zf::float32);
  ASSERT_EQ(s.mu.shape(), (zf::shape_t{n, 2}));
  EXPECT_EQ(s.score.where(), zf::cpu_device);
  const std::vector<float> score = to_vector(s.score);
  std::vector<float> inlier;
  for (int i = 0; i < n; ++i)
    if (!outliers.contains(i)) inlier.push_back(score[static_cast<std::size_t>(i)]);
  std::sort(inlier.begin(), inlier.end());
  const float p90 = inlier[inlier.size() * 9 / 10];
  for (const int i : outliers) EXPECT_GT(score[static_cast<std::size_t>(i)], p90) << "outlier row " << i;
  for (const float v : to_vector(s.mu)) EXPECT_TRUE(std::isfinite(v));

  // Deterministic (z = μ) and independent of how the rows are batched.
  const std::vector<float> again = to_vector(m.score(rows).score);
  EXPECT_EQ(again, score);
  const std::vector<float> small_batches = to_vector(m.score(rows, 7).score);
  for (std::size_t i = 0; i < score.size(); ++i) EXPECT_NEAR(small_batches[i], score[i], 1e-5F * (1 + score[i])) << i;
}

TEST_F(Vae, ScoreAcceptsStridedRows) {
  const zf::array rows = make_rows(40, 64, 4);
  const vae m = vae::create(64, zf::cpu_device, 5);
  // Every other row, as a strided view (row stride 128 elements), reaches LibTorch as is.
  const zf::array view = rows.slice(0, 1, 40, 2);
  ASSERT_FALSE(view.is_contiguous());
  const zf::array copy = zf::copy_to(view, zf::cpu_device);
  ASSERT_TRUE(copy.is_contiguous());
  const auto a = m.score(view);
  const auto b = m.score(copy);
  EXPECT_EQ(to_vector(a.score), to_vector(b.score));
  EXPECT_EQ(to_vector(a.mu), to_vector(b.mu));
  const auto e = m.score(zf::empty({0, 64}, zf::float32));
  EXPECT_EQ(e.score.shape(), (zf::shape_t{0}));
  EXPECT_EQ(e.mu.shape(), (zf::shape_t{0, 2}));
}

TEST_F(Vae, DecodeGrid) {
  const vae m = vae::create(64, zf::cpu_device, 2);
  const zf::array grid = m.decode_grid();
  ASSERT_EQ(grid.type(), zf::float32);
  ASSERT_EQ(grid.shape(), (zf::shape_t{25, 64}));
  EXPECT_EQ(grid.where(), zf::cpu_device);
  const std::vector<float> g = to_vector(grid);
  const auto row = [&](int r) { return std::vector<float>(g.begin() + r * 64, g.begin() + (r + 1) * 64); };
  EXPECT_NE(row(0), row(24));  // z = (-2, -2) and (2, 2)
  EXPECT_NE(row(1), row(5));   // (-2, -1) and (-1, -2): the grid is not symmetric in its axes
  // A zero extent decodes z = (0, 0) n² times.
  const std::vector<float> zero = to_vector(m.decode_grid(3, 0.0));
  ASSERT_EQ(zero.size(), 9U * 64U);
  for (std::size_t i = 0; i < zero.size(); ++i) EXPECT_EQ(zero[i], zero[i % 64]) << i;
  // The centre of an odd grid is z = (0, 0) too.
  const std::vector<float> centre(g.begin() + 12 * 64, g.begin() + 13 * 64);
  const std::vector<float> origin(zero.begin(), zero.begin() + 64);
  for (std::size_t t = 0; t < 64; ++t) EXPECT_FLOAT_EQ(centre[t], origin[t]) << t;
}

TEST_F(Vae, SaveThenLoadGivesIdenticalScores) {
  const auto dir = temp_dir();
  const zf::array rows = make_rows(600, 64, 8);
  vae m = vae::create(64, zf::cpu_device, 4);
  zf::model::train_options opt;
  opt.epochs = 2;
  opt.batch = 100;
  (void)m.train(rows, opt);
  const auto path = dir / "model.pt";
  m.save(path);
  m.save(path);  // overwriting an existing model works too
  // Only the model is left: the temporary file was renamed over it.
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) files.push_back(entry.path().filename());
  EXPECT_EQ(files, (std::vector<std::filesystem::path>{"model.pt"}));

  const vae back = vae::load(path);
  EXPECT_EQ(back.width(), 64);
  EXPECT_EQ(back.parameter_count(), m.parameter_count());
  const auto a = m.score(rows);
  const auto b = back.score(rows);
  EXPECT_EQ(to_vector(a.score), to_vector(b.score));
  EXPECT_EQ(to_vector(a.mu), to_vector(b.mu));
  EXPECT_EQ(to_vector(m.decode_grid()), to_vector(back.decode_grid()));

  // A fresh model with another seed scores differently, so the check above can fail.
  EXPECT_NE(to_vector(vae::create(64, zf::cpu_device, 5).score(rows).score), to_vector(a.score));

  EXPECT_THROW((void)vae::load(dir / "missing.pt"), zf::error);
  std::ofstream(dir / "junk.pt") << "not a model";
  EXPECT_THROW((void)vae::load(dir / "junk.pt"), zf::error);
  remove_tree(dir);
}

// The seed's workload size on the CPU (≈4000 beats × 256, 30 epochs of batch 1024) costs about
// 10 s of one core (≈0.1 s per step, bound by memory traffic of unfused eager ops). Measured as
// the process's CPU time on one thread, so that a machine busy with other work does not fail it.
TEST_F(Vae, SeedSizedTrainingIsFastOnTheCpu) {
  const zf::array rows = make_rows(4000, 256, 6);
  vae m = vae::create(256, zf::cpu_device, 42);
  ASSERT_EQ(zf::model::cpu_threads(), 1);
  const std::clock_t cpu_start = std::clock();
  const auto start = std::chrono::steady_clock::now();
  const auto r = m.train(rows);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double cpu = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  RecordProperty("train_cpu_seconds", std::to_string(cpu));
  std::printf("seed-sized CPU training, 1 thread: %.2f s CPU, %.2f s wall, loss %.5f -> %.5f, test %.5f\n", cpu, wall,
              r.epoch_loss.front(), r.epoch_loss.back(), r.test_loss);
  EXPECT_EQ(r.epoch_loss.size(), 30U);
  EXPECT_LT(r.epoch_loss.back(), r.epoch_loss.front());
  EXPECT_LT(cpu, 30.0);
}

TEST_F(Vae, CpuThreadsCanBeSet) {
  const int before = threads_;
  EXPECT_GE(before, 1);
  EXPECT_THROW(zf::model::set_cpu_threads(0), zf::invalid_argument);
  zf::model::set_cpu_threads(1);
  EXPECT_EQ(zf::model::cpu_threads(), 1);
  zf::model::set_cpu_threads(before);
  EXPECT_EQ(zf::model::cpu_threads(), before);
  // The automatic default never exceeds the CPUs this process may use.
  EXPECT_LE(before, static_cast<int>(std::thread::hardware_concurrency()));
}
