// Size arithmetic that would wrap: checked against 128-bit integer arithmetic, and the arrays
// whose sizes once wrapped (a shape of 2^62 float32 took 0 bytes and passed its bounds check).
#include "zeroflow/core/checked_size.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "zeroflow/core/array.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zf = zeroflow;

namespace {

__extension__ typedef __int128 i128;  // wide enough for any int64 product or sum
constexpr i128 int64_max = std::numeric_limits<std::int64_t>::max();
constexpr i128 int64_min = std::numeric_limits<std::int64_t>::min();

bool fits(i128 v) { return v >= int64_min && v <= int64_max; }

std::shared_ptr<zf::buffer> host_buffer(std::size_t bytes) {
  return zf::buffer::adopt(new char[bytes + 1], bytes, zf::cpu_device,
                           [](void* p, std::size_t) { delete[] static_cast<char*>(p); });
}

/// Values near the interesting edges: small, around 2^31, 2^32, 2^62, 2^63 and their negatives.
std::int64_t edgy(std::mt19937_64& rng) {
  static const std::int64_t scales[] = {1,
                                        7,
                                        std::int64_t{1} << 31,
                                        std::int64_t{1} << 32,
                                        std::int64_t{1} << 40,
                                        std::int64_t{1} << 62,
                                        std::numeric_limits<std::int64_t>::max()};
  const std::int64_t scale = scales[rng() % std::size(scales)];
  std::int64_t v =
      static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(scale)) + static_cast<std::int64_t>(rng() % 3);
  return rng() % 2 ? v : -v;
}

}  // namespace

TEST(CheckedSize, MulAndAddAgreeWith128BitArithmetic) {
  std::mt19937_64 rng(20240607);
  for (int i = 0; i < 200000; ++i) {
    const std::int64_t a = edgy(rng), b = edgy(rng);
    const i128 product = i128{a} * b, sum = i128{a} + b;
    const auto m = zf::checked_mul(a, b);
    const auto s = zf::checked_add(a, b);
    ASSERT_EQ(m.has_value(), fits(product)) << a << " * " << b;
    ASSERT_EQ(s.has_value(), fits(sum)) << a << " + " << b;
    if (m) {
      ASSERT_EQ(i128{*m}, product);
    }
    if (s) {
      ASSERT_EQ(i128{*s}, sum);
    }
  }
  EXPECT_FALSE(zf::checked_mul(std::numeric_limits<std::int64_t>::min(), -1));
  EXPECT_THROW((void)zf::multiply_sizes(std::int64_t{1} << 32, std::int64_t{1} << 31, "rows"), zf::invalid_argument);
}

TEST(CheckedSize, ElementAndByteCountsAgreeWith128BitProducts) {
  std::mt19937_64 rng(7);
  const zf::dtype types[] = {zf::int8, zf::float32, zf::float64, {zf::type_code::complex, 128, 1}};
  for (int i = 0; i < 50000; ++i) {
    zf::shape_t shape(rng() % 5);
    for (auto& e : shape) {
      const int kind = static_cast<int>(rng() % 10);
      e = kind == 0  ? 0
          : kind < 5 ? static_cast<std::int64_t>(rng() % 100)
                     : static_cast<std::int64_t>(rng() >> (rng() % 63 + 1));
    }
    const zf::dtype type = types[rng() % std::size(types)];
    i128 nonzero = 1;
    bool wide = false, zero = false;
    for (auto e : shape) {
      if (e == 0) {
        zero = true;
        continue;
      }
      nonzero *= e;
      wide = wide || !fits(nonzero);
      if (wide) nonzero = 1;  // keep the 128-bit product itself from wrapping; the answer is known
    }
    const bool bytes_fit = !wide && fits(nonzero * static_cast<i128>(type.itemsize()));
    if (wide) {
      EXPECT_THROW((void)zf::element_count(shape), zf::invalid_argument);
    } else {
      EXPECT_EQ(i128{zf::element_count(shape)}, zero ? 0 : nonzero);
    }
    if (bytes_fit) {
      EXPECT_EQ(static_cast<i128>(zf::contiguous_bytes(shape, type)),
                zero ? 0 : nonzero * static_cast<i128>(type.itemsize()));
    } else {
      EXPECT_THROW((void)zf::contiguous_bytes(shape, type), zf::invalid_argument);
    }
  }
  EXPECT_THROW((void)zf::element_count(zf::shape_t{3, -1}), zf::invalid_argument);
}

TEST(CheckedSize, ArrayRefusesShapesWhoseBytesWrap) {
  // 2^62 float32 is 2^64 bytes, which wraps to 0: the allocation a wrapping size computation makes.
  EXPECT_THROW(zf::array(host_buffer(0), zf::float32, {std::int64_t{1} << 62}), zf::invalid_argument);
  // 2^62 + 1 float32 wraps to 4 bytes, and its last byte offset wrapped to 4 too.
  EXPECT_THROW(zf::array(host_buffer(4), zf::float32, {(std::int64_t{1} << 62) + 1}), zf::invalid_argument);
  EXPECT_THROW(zf::array(host_buffer(4), zf::float32, {std::int64_t{1} << 32, std::int64_t{1} << 32}),
               zf::invalid_argument);
  // Even with no elements (NumPy's rule): the other extents' bytes must fit.
  EXPECT_THROW(zf::array(host_buffer(0), zf::float32, {std::int64_t{1} << 62, 0}), zf::invalid_argument);
  const zf::array empty(host_buffer(0), zf::int8, {std::numeric_limits<std::int64_t>::max(), 0});
  EXPECT_EQ(empty.size(), 0);
  EXPECT_EQ(empty.nbytes(), 0u);
  EXPECT_THROW((void)zf::contiguous_strides({std::int64_t{1} << 32, std::int64_t{1} << 32}), zf::invalid_argument);
}

TEST(CheckedSize, ArrayRefusesStridesAndReachesThatWrap) {
  // One element repeated (stride 0) is fine until the element count itself cannot be held.
  const zf::array repeated(host_buffer(4), zf::float32, {std::int64_t{1} << 20, std::int64_t{1} << 20},
                           zf::shape_t{0, 0});
  EXPECT_EQ(repeated.size(), std::int64_t{1} << 40);
  EXPECT_EQ(repeated.nbytes(), std::size_t{1} << 42);
  EXPECT_THROW(
      zf::array(host_buffer(4), zf::float32, {std::int64_t{1} << 40, std::int64_t{1} << 40}, zf::shape_t{0, 0}),
      zf::invalid_argument);
  // A stride of extent 1 is never used, but its byte value is exported (NumPy, CAI): it must fit.
  EXPECT_THROW(zf::array(host_buffer(4), zf::float32, {1}, zf::shape_t{std::int64_t{1} << 62}), zf::invalid_argument);
  // (3 - 1) * 2^62 wraps to -2^63: the reach once looked like a small negative offset.
  EXPECT_THROW(zf::array(host_buffer(16), zf::int8, {3}, zf::shape_t{std::int64_t{1} << 62}), zf::invalid_argument);
  EXPECT_THROW(zf::array(host_buffer(16), zf::int8, {2, 2}, zf::shape_t{std::int64_t{1} << 62, std::int64_t{1} << 62}),
               zf::invalid_argument);
  // The byte offset plus the reach must fit too.
  EXPECT_THROW(zf::array(host_buffer(16), zf::int8, {2}, zf::shape_t{1}, std::numeric_limits<std::int64_t>::max()),
               zf::invalid_argument);
}

TEST(CheckedSize, SliceAndReshapeKeepSizesExact) {
  const zf::array a(host_buffer(10), zf::int8, {10});
  // A step far larger than the extent leaves one element; its stride does not matter.
  const auto one = a.slice(0, 3, 10, std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(one.size(), 1);
  EXPECT_EQ(one.byte_offset(), 3);
  EXPECT_EQ(a.slice(0, 9, -1, std::numeric_limits<std::int64_t>::min() + 1).size(), 1);
  EXPECT_EQ(a.slice(0, 9, -1, std::numeric_limits<std::int64_t>::min()).size(), 1);
  EXPECT_EQ(a.slice(0, 4, 4, -3).size(), 0);
  // 2^62 elements is a stride that fits, 2^64 bytes is not: one float32 element keeps its stride.
  const zf::array f(host_buffer(40), zf::float32, {10});
  EXPECT_EQ(f.slice(0, 2, 10, std::int64_t{1} << 62).strides(), (zf::shape_t{1}));
  EXPECT_EQ(f.slice(0, 2, 10, std::int64_t{1} << 62).byte_offset(), 8);
  // Counts against Python's range() semantics for every small slice.
  for (std::int64_t start = -1; start <= 10; ++start)
    for (std::int64_t stop = -1; stop <= 10; ++stop)
      for (std::int64_t step : {-11, -3, -2, -1, 1, 2, 3, 11}) {
        const bool ok =
            step > 0 ? 0 <= start && start <= stop && stop <= 10 : -1 <= stop && stop <= start && start < 10;
        if (!ok) continue;
        std::int64_t expected = 0;
        for (std::int64_t i = start; step > 0 ? i < stop : i > stop; i += step) ++expected;
        EXPECT_EQ(a.slice(0, start, stop, step).size(), expected) << start << ":" << stop << ":" << step;
      }
  EXPECT_THROW((void)a.reshape({std::int64_t{1} << 32, std::int64_t{1} << 32, 0}), zf::invalid_argument);
  EXPECT_THROW((void)a.reshape({std::int64_t{1} << 62, 4}), zf::invalid_argument);
  EXPECT_EQ(a.reshape({2, 5}).strides(), (zf::shape_t{5, 1}));
}

TEST(CheckedSize, EmptyRefusesSizesThatWrap) {
  EXPECT_THROW((void)zf::empty({std::int64_t{1} << 62}, zf::float32), zf::invalid_argument);
  EXPECT_THROW((void)zf::zeros({(std::int64_t{1} << 62) + 1}, zf::float32), zf::invalid_argument);
}
