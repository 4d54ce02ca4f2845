// Host min-max scaling against a plain re-computation in double-checked steps: per-column
// minimum and maximum ignoring NaN, scikit-learn's scale and offset in the input's dtype, the
// transform, clipping and the inverse; strided and 1-D inputs; refusals.
#include "zeroflow/signal/min_max.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "signal/signal_test_helpers.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zf = zeroflow;
namespace sig = zeroflow::signal;
using namespace zeroflow::signal::testing;

namespace {

template <class T>
zf::array matrix(const std::vector<T>& values, std::int64_t rows, std::int64_t cols) {
  return to_array(values).reshape({rows, cols});
}

template <class T>
std::vector<T> elements(const zf::array& a) {
  EXPECT_TRUE(a.is_contiguous());
  std::vector<T> out(static_cast<std::size_t>(a.size()));
  if (!out.empty()) std::memcpy(out.data(), a.data(), out.size() * sizeof(T));
  return out;
}

/// The reference: what scikit-learn's MinMaxScaler computes, written out per column.
template <class T>
struct reference {
  std::vector<T> min, max, range, scale, offset;
};

template <class T>
reference<T> reference_fit(const std::vector<T>& x, std::int64_t rows, std::int64_t cols, double lo_d, double hi_d) {
  reference<T> r;
  const T lo = static_cast<T>(lo_d), hi = static_cast<T>(hi_d);
  for (std::int64_t c = 0; c < cols; ++c) {
    T mn = std::numeric_limits<T>::quiet_NaN(), mx = mn;
    for (std::int64_t i = 0; i < rows; ++i) {
      const T v = x[static_cast<std::size_t>(i * cols + c)];
      if (std::isnan(v)) continue;
      if (std::isnan(mn) || v < mn) mn = v;
      if (std::isnan(mx) || v > mx) mx = v;
    }
    const T range = mx - mn;
    const T scale = (hi - lo) / (range < T(10) * std::numeric_limits<T>::epsilon() ? T(1) : range);
    r.min.push_back(mn);
    r.max.push_back(mx);
    r.range.push_back(range);
    r.scale.push_back(scale);
    r.offset.push_back(lo - mn * scale);
  }
  return r;
}

template <class T>
bool same(T a, T b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

template <class T>
void expect_same(const std::vector<T>& got, const std::vector<T>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_TRUE(same(got[i], want[i])) << what << " [" << i << "]: " << got[i] << " vs " << want[i];
}

template <class T>
std::vector<T> random_values(std::mt19937_64& rng, std::size_t n, double nan_share) {
  std::normal_distribution<double> normal(3, 40);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<T> x(n);
  for (auto& v : x) v = unit(rng) < nan_share ? std::numeric_limits<T>::quiet_NaN() : static_cast<T>(normal(rng));
  return x;
}

template <class T>
void check_against_reference(std::int64_t rows, std::int64_t cols, double lo, double hi, double nan_share) {
  std::mt19937_64 rng(static_cast<std::uint64_t>(rows * 131 + cols));
  const auto x = random_values<T>(rng, static_cast<std::size_t>(rows * cols), nan_share);
  const auto want = reference_fit(x, rows, cols, lo, hi);
  const auto fit = sig::min_max_fit(matrix(x, rows, cols), {lo, hi}, {});
  expect_same(elements<T>(fit.data_min), want.min, "data_min");
  expect_same(elements<T>(fit.data_max), want.max, "data_max");
  expect_same(elements<T>(fit.data_range), want.range, "data_range");
  expect_same(elements<T>(fit.scale), want.scale, "scale");
  expect_same(elements<T>(fit.offset), want.offset, "offset");

  const auto y = elements<T>(sig::min_max_transform(matrix(x, rows, cols), fit.scale, fit.offset, std::nullopt, {}));
  std::vector<T> want_y(x.size()), want_back(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const auto c = static_cast<std::size_t>(static_cast<std::int64_t>(i) % cols);
    const T scaled = x[i] * want.scale[c];
    want_y[i] = scaled + want.offset[c];
    want_back[i] = (want_y[i] - want.offset[c]) / want.scale[c];
  }
  expect_same(y, want_y, "transform");
  const auto back = elements<T>(sig::min_max_inverse(matrix(y, rows, cols), fit.scale, fit.offset, {}));
  expect_same(back, want_back, "inverse");
  for (std::size_t i = 0; i < x.size(); ++i) {  // and the inverse gives the data back (to rounding)
    if (!std::isnan(x[i])) {
      ASSERT_NEAR(back[i], x[i], 1e-4 * (std::fabs(x[i]) + 1)) << i;
    }
  }
}

}  // namespace

class MinMaxHost : public poisoned_host {};

TEST_F(MinMaxHost, MatchesTheReferenceFloat32) {
  for (auto [rows, cols] : {std::pair{1, 1}, {2, 1}, {26304, 1}, {300, 3}, {1000, 17}, {5, 2000}, {70000, 2}})
    check_against_reference<float>(rows, cols, 0.0, 1.0, 0.0);
}

TEST_F(MinMaxHost, MatchesTheReferenceFloat64WithNaNAndAnotherRange) {
  for (auto [rows, cols] : {std::pair{1, 1}, {100, 1}, {300, 4}, {70000, 3}})
    check_against_reference<double>(rows, cols, -2.0, 3.5, 0.1);
}

TEST_F(MinMaxHost, ConstantAndAllNaNColumns) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // column 0 constant, column 1 all NaN, column 2 spans [-1, 3]
  const std::vector<float> x{7, nan, -1, 7, nan, 3, 7, nan, 1};
  const auto fit = sig::min_max_fit(matrix(x, 3, 3), {}, {});
  const auto scale = elements<float>(fit.scale), offset = elements<float>(fit.offset);
  EXPECT_EQ(scale[0], 1.0f);  // a constant column keeps its scale 1: its values map to lo + 0
  EXPECT_EQ(offset[0], -7.0f);
  EXPECT_TRUE(std::isnan(elements<float>(fit.data_min)[1]) && std::isnan(scale[1]));
  EXPECT_EQ(scale[2], 0.25f);
  const auto y = elements<float>(sig::min_max_transform(matrix(x, 3, 3), fit.scale, fit.offset, std::nullopt, {}));
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_TRUE(std::isnan(y[1]));
  EXPECT_EQ(y[2], 0.0f);
  EXPECT_EQ(y[5], 1.0f);
  EXPECT_EQ(y[8], 0.5f);
}

TEST_F(MinMaxHost, ClipKeepsNaNAndBoundsTheRest) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto fit = sig::min_max_fit(to_array(std::vector<float>{0, 10}), {}, {});
  const std::vector<float> x{-5, 5, 20, nan};
  const auto y = elements<float>(sig::min_max_transform(to_array(x), fit.scale, fit.offset, sig::feature_range{}, {}));
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[1], 0.5f);
  EXPECT_EQ(y[2], 1.0f);
  EXPECT_TRUE(std::isnan(y[3]));
  const auto unclipped = elements<float>(sig::min_max_transform(to_array(x), fit.scale, fit.offset, std::nullopt, {}));
  EXPECT_EQ(unclipped[0], -0.5f);
  EXPECT_EQ(unclipped[2], 2.0f);
}

TEST_F(MinMaxHost, StridedColumnOfATableIsReadInPlace) {
  // A 4 x 3 row-major table; column 1 as a 1-D strided view, and the transposed 3 x 4 view.
  std::vector<float> table(12);
  for (std::size_t i = 0; i < table.size(); ++i) table[i] = static_cast<float>((i * 7) % 11) - 3.0f;
  const zf::array t = matrix(table, 4, 3);
  const zf::array column = t.reshape({12}).slice(0, 1, 12, 3);
  ASSERT_EQ(column.strides()[0], 3);
  const auto fit = sig::min_max_fit(column, {}, {});
  std::vector<float> dense{table[1], table[4], table[7], table[10]};
  const auto want = reference_fit(dense, 4, 1, 0.0, 1.0);
  expect_same(elements<float>(fit.data_min), want.min, "strided min");
  expect_same(elements<float>(fit.scale), want.scale, "strided scale");
  const auto y = sig::min_max_transform(column, fit.scale, fit.offset, std::nullopt, {});
  EXPECT_EQ(y.shape(), (zf::shape_t{4}));
  const auto values = elements<float>(y);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(values[i], dense[i] * want.scale[0] + want.offset[0]);
}

TEST_F(MinMaxHost, Refusals) {
  const auto x = to_array(std::vector<float>{1, 2, 3});
  EXPECT_THROW((void)sig::min_max_fit(x, {1.0, 1.0}, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::min_max_fit(x, {0.0, std::numeric_limits<double>::infinity()}, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::min_max_fit(to_array(std::vector<std::int64_t>{1, 2}), {}, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::min_max_fit(to_array(std::vector<float>{}), {}, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::min_max_fit(to_array(std::vector<float>(8)).reshape({2, 2, 2}), {}, {}),
               zf::invalid_argument);
  const auto fit = sig::min_max_fit(matrix(std::vector<float>{1, 2, 3, 4}, 2, 2), {}, {});
  try {
    (void)sig::min_max_transform(x, fit.scale, fit.offset, std::nullopt, {});
    FAIL() << "a column count that differs from the fit must be refused";
  } catch (const zf::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("1 column but the scaling was fitted on 2"), std::string::npos) << e.what();
  }
  const auto fit64 = sig::min_max_fit(to_array(std::vector<double>{1, 2}), {}, {});
  EXPECT_THROW((void)sig::min_max_transform(x, fit64.scale, fit64.offset, std::nullopt, {}), zf::invalid_argument);
  // zero rows transform to zero rows
  const auto none = sig::min_max_transform(to_array(std::vector<float>{}), sig::min_max_fit(x, {}, {}).scale,
                                           sig::min_max_fit(x, {}, {}).offset, std::nullopt, {});
  EXPECT_EQ(none.size(), 0);
}
