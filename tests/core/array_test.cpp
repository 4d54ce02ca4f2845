#include "zeroflow/core/array.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace zf = zeroflow;

namespace {
std::shared_ptr<zf::buffer> host_buffer(std::size_t bytes, int* releases = nullptr) {
  return zf::buffer::adopt(new char[bytes], bytes, zf::cpu_device, [releases](void* p, std::size_t) {
    delete[] static_cast<char*>(p);
    if (releases) ++*releases;
  });
}
}  // namespace

TEST(Array, ContiguousDefaultsAndSize) {
  zf::array a(host_buffer(2 * 3 * 4), zf::float32, {2, 3});
  EXPECT_EQ(a.strides(), (zf::shape_t{3, 1}));
  EXPECT_EQ(a.size(), 6);
  EXPECT_EQ(a.nbytes(), 24u);
  EXPECT_TRUE(a.is_contiguous());
  EXPECT_EQ(a.where(), zf::cpu_device);
}

TEST(Array, ZeroDimAndZeroSize) {
  zf::array scalar(host_buffer(8), zf::float64, {});
  EXPECT_EQ(scalar.ndim(), 0);
  EXPECT_EQ(scalar.size(), 1);
  zf::array empty(host_buffer(0), zf::int64, {0, 5});
  EXPECT_EQ(empty.size(), 0);
  EXPECT_TRUE(empty.is_contiguous());
}

TEST(Array, RejectsOutOfBoundsStridesAndBadShapes) {
  EXPECT_THROW(zf::array(host_buffer(16), zf::float32, {5}), zf::invalid_argument);
  EXPECT_THROW(zf::array(host_buffer(64), zf::float32, {-1}), zf::invalid_argument);
  EXPECT_THROW(zf::array(host_buffer(64), zf::float32, {2, 2}, zf::shape_t{1}), zf::invalid_argument);
  // A negative stride starting at element 0 reaches before the buffer.
  EXPECT_THROW(zf::array(host_buffer(64), zf::float32, {3}, zf::shape_t{-1}, 0), zf::invalid_argument);
  EXPECT_NO_THROW(zf::array(host_buffer(64), zf::float32, {3}, zf::shape_t{-1}, 8));
  EXPECT_THROW(zf::array(host_buffer(64), zf::dtype{zf::type_code::float_, 12, 1}, {2}), zf::invalid_argument);
  EXPECT_THROW(zf::array(host_buffer(64), zf::float32, {2}, std::nullopt, -4), zf::invalid_argument);
}

TEST(Array, ZeroStrideBroadcastIsValid) {
  zf::array a(host_buffer(4), zf::float32, {1000}, zf::shape_t{0});
  EXPECT_EQ(a.size(), 1000);
  EXPECT_FALSE(a.is_contiguous());
}

TEST(Array, SliceWithNegativeStepMatchesManualIndexing) {
  auto buf = host_buffer(10 * sizeof(std::int64_t));
  zf::array a(buf, zf::int64, {10});
  auto* p = a.data_as<std::int64_t>();
  for (int i = 0; i < 10; ++i) p[i] = i * i;
  zf::array rev = a.slice(0, 8, 1, -3);  // elements 8, 5, 2
  ASSERT_EQ(rev.shape(0), 3);
  const auto* r = rev.data_as<const std::int64_t>();
  for (int k = 0; k < 3; ++k) EXPECT_EQ(r[k * rev.strides()[0]], (8 - 3 * k) * (8 - 3 * k));
  zf::array all_back = a.slice(0, 9, -1, -1);
  EXPECT_EQ(all_back.shape(0), 10);
  EXPECT_THROW((void)a.slice(0, 0, 11), zf::invalid_argument);
  EXPECT_THROW((void)a.slice(0, 0, 5, 0), zf::invalid_argument);
}

TEST(Array, ReadOnlyRefusesWritableAccess) {
  zf::array a = zf::array(host_buffer(16), zf::float32, {4}).as_read_only();
  EXPECT_THROW((void)a.data_as<float>(), zf::invalid_argument);
  EXPECT_NO_THROW((void)a.data_as<const float>());
  EXPECT_THROW((void)a.data_as<const double>(), zf::invalid_argument);
}

TEST(Array, BufferOutlivesEveryViewAndIsReleasedOnce) {
  int releases = 0;
  {
    zf::array view;
    {
      zf::array a(host_buffer(40, &releases), zf::int32, {10});
      view = a.slice(0, 2, 6).reshape({2, 2});
    }
    EXPECT_EQ(releases, 0);
    EXPECT_EQ(view.shape(), (zf::shape_t{2, 2}));
  }
  EXPECT_EQ(releases, 1);
}

// A person reads what(); the source location is for developers only (where()).
TEST(Array, ErrorsKeepFileAndLineOutOfTheMessage) {
  try {
    zf::array(host_buffer(4), zf::float32, {2});
    FAIL() << "expected an exception";
  } catch (const zf::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).find(".cpp"), std::string::npos) << e.what();
    EXPECT_NE(e.where().find("array.cpp:"), std::string::npos) << e.where();
    EXPECT_NE(std::string(e.what()).find("outside the 4-byte buffer"), std::string::npos) << e.what();
  }
}
