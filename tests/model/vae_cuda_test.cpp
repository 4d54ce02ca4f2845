// zeroflow::model::vae on a GPU: rows, indices and scores stay on the device, the split is the
// CPU's, and a model moves between devices through save/load. Skipped without a GPU.
#include <gtest/gtest.h>
#include <torch/cuda.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "model/model_test_util.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/model/vae.hpp"

namespace zf = zeroflow;
using zf::model::vae;
using namespace zeroflow::model_test;

namespace {

bool have_gpu() { return zf::cuda_available() && torch::cuda::is_available(); }

std::vector<float> host_floats(const zf::array& a) { return to_vector(zf::copy_to(a, zf::cpu_device)); }
std::vector<std::int64_t> host_longs(const zf::array& a) { return to_vector_i64(zf::copy_to(a, zf::cpu_device)); }

}  // namespace

TEST(VaeCuda, TrainsAndScoresOnTheDevice) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  const int n = 3000;
  std::set<int> outliers;
  for (int i = 7; i < n; i += 211) outliers.insert(i);
  const zf::array host_rows = make_rows(n, 64, 31, outliers);
  const zf::array rows = zf::copy_to(host_rows, zf::cuda_device(0));
  vae m = vae::create(64, zf::cuda_device(0), 3);
  EXPECT_EQ(m.where(), zf::cuda_device(0));
  zf::model::train_options opt;
  opt.epochs = 8;
  opt.batch = 64;
  const auto r = m.train(rows, opt);
  ASSERT_EQ(r.epoch_loss.size(), 8U);
  EXPECT_LT(r.epoch_loss.back(), 0.5 * r.epoch_loss.front());
  EXPECT_TRUE(std::isfinite(r.test_loss));
  EXPECT_EQ(r.train_index.where(), zf::cuda_device(0));
  EXPECT_EQ(r.test_index.where(), zf::cuda_device(0));

  // The split is drawn on the CPU: the same as a CPU model's for the same options.
  vae cpu_model = vae::create(64, zf::cpu_device, 3);
  zf::model::train_options one_epoch = opt;
  one_epoch.epochs = 1;
  const auto cpu_r = cpu_model.train(host_rows, one_epoch);
  EXPECT_EQ(host_longs(r.train_index), to_vector_i64(cpu_r.train_index));
  EXPECT_EQ(host_longs(r.test_index), to_vector_i64(cpu_r.test_index));

  const auto s = m.score(rows);
  EXPECT_EQ(s.score.where(), zf::cuda_device(0));
  EXPECT_EQ(s.mu.where(), zf::cuda_device(0));
  ASSERT_EQ(s.score.shape(), (zf::shape_t{n}));
  ASSERT_EQ(s.mu.shape(), (zf::shape_t{n, 2}));
  const std::vector<float> score = host_floats(s.score);
  std::vector<float> inlier;
  for (int i = 0; i < n; ++i)
    if (!outliers.contains(i)) inlier.push_back(score[static_cast<std::size_t>(i)]);
  std::sort(inlier.begin(), inlier.end());
  const float p90 = inlier[inlier.size() * 9 / 10];
  for (const int i : outliers) EXPECT_GT(score[static_cast<std::size_t>(i)], p90) << "outlier row " << i;

  // Host rows with a GPU model: results come back on the host, equal to the device run's.
  const auto from_host = m.score(host_rows);
  EXPECT_EQ(from_host.score.where(), zf::cpu_device);
  const std::vector<float> h = to_vector(from_host.score);
  for (std::size_t i = 0; i < h.size(); ++i) EXPECT_FLOAT_EQ(h[i], score[i]) << i;

  const zf::array grid = m.decode_grid();
  EXPECT_EQ(grid.where(), zf::cuda_device(0));
  EXPECT_EQ(grid.shape(), (zf::shape_t{25, 64}));
}

TEST(VaeCuda, SavedOnTheGpuLoadsOnTheCpu) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  const zf::array host_rows = make_rows(500, 64, 12);
  vae m = vae::create(64, zf::cuda_device(0), 5);
  zf::model::train_options opt;
  opt.epochs = 2;
  opt.batch = 100;
  (void)m.train(zf::copy_to(host_rows, zf::cuda_device(0)), opt);
  const char* env = std::getenv("ZEROFLOW_TEST_TMP");
  const std::filesystem::path dir = env != nullptr ? env : std::filesystem::temp_directory_path();
  std::filesystem::create_directories(dir);
  const auto path = dir / "model_vae_cuda_test.pt";
  m.save(path);
  const vae on_cpu = vae::load(path, zf::cpu_device);
  const vae on_gpu = vae::load(path, zf::cuda_device(0));
  std::filesystem::remove(path);
  EXPECT_EQ(on_cpu.where(), zf::cpu_device);
  const std::vector<float> a = to_vector(m.score(host_rows).score);
  const std::vector<float> b = to_vector(on_cpu.score(host_rows).score);
  const std::vector<float> c = to_vector(on_gpu.score(host_rows).score);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_NEAR(a[i], b[i], 1e-4F * (1 + a[i])) << i;  // other kernels, same weights
    EXPECT_FLOAT_EQ(a[i], c[i]) << i;                  // same weights, same kernels
  }
}
