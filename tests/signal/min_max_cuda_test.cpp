// GPU min-max scaling against the host implementation, bit for bit: float32 and float64, one
// column and many (more than fit in shared memory too), NaN and all-NaN columns, ±0, strided
// views, clipping and the inverse, a non-default stream. Skipped without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "signal/cuda_test_helpers.hpp"
#include "zeroflow/signal/min_max.hpp"

namespace zf = zeroflow;
namespace sig = zeroflow::signal;
using namespace zeroflow::signal::testing;

namespace {

template <class T>
std::vector<T> values_of(const zf::array& a, zf::stream_view stream = {}) {
  const zf::array host = zf::copy_to(a, zf::cpu_device, stream);
  return to_vector<T>(host.reshape({host.size()}));
}

template <class T>
bool same_bits(T a, T b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
std::string mismatch(const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size()) return "sizes " + std::to_string(got.size()) + " vs " + std::to_string(want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!same_bits(got[i], want[i]))
      return "index " + std::to_string(i) + ": GPU " + std::to_string(got[i]) + " vs host " + std::to_string(want[i]);
  return {};
}

template <class T>
std::vector<T> random_values(std::mt19937_64& rng, std::size_t n) {
  std::normal_distribution<double> normal(-2, 25);
  std::uniform_int_distribution<int> pick(0, 99);
  std::vector<T> x(n);
  for (auto& v : x) {
    const int p = pick(rng);
    v = p < 3 ? std::numeric_limits<T>::quiet_NaN() : p < 5 ? T(-0.0) : p < 7 ? T(0.0) : static_cast<T>(normal(rng));
  }
  return x;
}

template <class T>
void compare(const zf::array& host_x, const zf::array& device_x, sig::feature_range range, zf::stream_view stream) {
  const auto want = sig::min_max_fit(host_x, range, {});
  const auto got = sig::min_max_fit(device_x, range, stream);
  ASSERT_EQ(got.scale.where(), gpu0);
  EXPECT_EQ(mismatch(values_of<T>(got.data_min, stream), values_of<T>(want.data_min)), "") << "data_min";
  EXPECT_EQ(mismatch(values_of<T>(got.data_max, stream), values_of<T>(want.data_max)), "") << "data_max";
  EXPECT_EQ(mismatch(values_of<T>(got.data_range, stream), values_of<T>(want.data_range)), "") << "data_range";
  EXPECT_EQ(mismatch(values_of<T>(got.scale, stream), values_of<T>(want.scale)), "") << "scale";
  EXPECT_EQ(mismatch(values_of<T>(got.offset, stream), values_of<T>(want.offset)), "") << "offset";
  for (const auto clip : {std::optional<sig::feature_range>{}, std::optional<sig::feature_range>{range}}) {
    const auto y_host = sig::min_max_transform(host_x, want.scale, want.offset, clip, {});
    const auto y_dev = sig::min_max_transform(device_x, got.scale, got.offset, clip, stream);
    ASSERT_EQ(y_dev.where(), gpu0);
    ASSERT_EQ(y_dev.shape(), host_x.shape());
    EXPECT_EQ(mismatch(values_of<T>(y_dev, stream), values_of<T>(y_host)), "") << "transform";
    const auto back_host = sig::min_max_inverse(y_host, want.scale, want.offset, {});
    const auto back_dev = sig::min_max_inverse(y_dev, got.scale, got.offset, stream);
    EXPECT_EQ(mismatch(values_of<T>(back_dev, stream), values_of<T>(back_host)), "") << "inverse";
  }
}

template <class T>
void compare_shapes() {
  std::mt19937_64 rng(7);
  for (auto [rows, cols] :
       {std::pair{1, 1}, {3, 1}, {26304, 1}, {1'000'003, 1}, {300, 3}, {4097, 33}, {7, 1500}, {2, 5000}}) {
    SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols));
    const auto x = random_values<T>(rng, static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
    const zf::array host = to_array(x).reshape({rows, cols});
    const zf::array dev = to_device(x).reshape({rows, cols});
    compare<T>(host, dev, {0.0, 1.0}, {});
    compare<T>(host, dev, {-1.5, 2.25}, {});
  }
}

}  // namespace

class MinMaxCuda : public cuda_signal_test {};

TEST_F(MinMaxCuda, Float32MatchesHost) { compare_shapes<float>(); }

TEST_F(MinMaxCuda, Float64MatchesHost) { compare_shapes<double>(); }

TEST_F(MinMaxCuda, AllNaNAndConstantColumns) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x{4, nan, 1, 4, nan, -1, 4, nan, 0};
  compare<float>(to_array(x).reshape({3, 3}), to_device(x).reshape({3, 3}), {0.0, 1.0}, {});
}

TEST_F(MinMaxCuda, StridedViewsAndTransposes) {
  std::mt19937_64 rng(11);
  const auto x = random_values<float>(rng, 6000);
  const zf::array host = to_array(x).reshape({1000, 6});
  const zf::array dev = to_device(x).reshape({1000, 6});
  // every other row, columns 1..4; and a single column read with stride 6
  compare<float>(host.slice(0, 0, 1000, 2).slice(1, 1, 5), dev.slice(0, 0, 1000, 2).slice(1, 1, 5), {0.0, 1.0}, {});
  compare<float>(host.reshape({6000}).slice(0, 2, 6000, 6), dev.reshape({6000}).slice(0, 2, 6000, 6), {0.0, 1.0}, {});
}

#if ZEROFLOW_HAS_CUDA
TEST_F(MinMaxCuda, OnAnotherStream) {
  owned_stream stream;
  std::mt19937_64 rng(3);
  const auto x = random_values<float>(rng, 200'000);
  const zf::array dev = to_device(x, stream.view()).reshape({100'000, 2});
  compare<float>(to_array(x).reshape({100'000, 2}), dev, {0.0, 1.0}, stream.view());
}
#endif
