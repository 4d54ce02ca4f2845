// zeros, copy_to and copy_bytes: values against a brute-force reference, for every pair of host, pinned
// and device memory (the CUDA pairs skip without a GPU), contiguous and strided sources.
#include "zeroflow/memory/allocate.hpp"

#include <gtest/gtest.h>

#include <random>

#include "memory/memory_test_util.hpp"
#include "zeroflow/core/transfers.hpp"

namespace {

using namespace zf_test;

const zf::dtype complex128{zf::type_code::complex, 128, 1};
const zf::dtype rgb8{zf::type_code::uint, 8, 3};  // 3-byte items: no power-of-two fast path

/// Makes every new block on `where` start as 0xCD for the test's lifetime.
class poisoned_current {
 public:
  explicit poisoned_current(zf::device where) : use_(std::make_shared<poison_resource>(zm::current_resource(where))) {}

 private:
  scoped_current_resource use_;
};

/// An array with random extents (0 to 5, up to 4-d), random element strides in [-6, 6] (zero,
/// negative and overlapping ones included) and sometimes a byte offset that is not a multiple
/// of the item size, over a buffer of random bytes on `where`. `raw` receives the buffer.
zf::array random_view(std::mt19937_64& rng, zf::dtype type, zf::device where, zf::stream_view stream,
                      std::vector<unsigned char>& raw, bool contiguous = false) {
  const auto item = static_cast<std::int64_t>(type.itemsize());
  const int ndim = static_cast<int>(rng() % 5);
  zf::shape_t shape, strides;
  for (int d = 0; d < ndim; ++d) shape.push_back(rng() % 12 == 0 ? 0 : 1 + static_cast<std::int64_t>(rng() % 5));
  if (contiguous) {
    strides = zf::contiguous_strides(shape);
  } else {
    for (int d = 0; d < ndim; ++d) strides.push_back(static_cast<std::int64_t>(rng() % 13) - 6);
  }
  std::int64_t low = 0, high = 0;
  for (int d = 0; d < ndim; ++d) {
    const auto reach =
        (std::max<std::int64_t>(shape[static_cast<std::size_t>(d)], 1) - 1) * strides[static_cast<std::size_t>(d)];
    (reach < 0 ? low : high) += reach;
  }
  const std::int64_t misalign = (!contiguous && rng() % 4 == 0) ? 1 : 0;
  const std::int64_t offset = -low * item + misalign;
  const auto bytes =
      static_cast<std::size_t>((high - low + 1) * item + misalign + static_cast<std::int64_t>(rng() % 3));
  raw.resize(bytes);
  for (auto& b : raw) b = static_cast<unsigned char>(rng());
  auto buf = zf::allocate_buffer(bytes, stream, zm::current_resource(where));
  write_bytes(where, buf->data(), raw.data(), bytes, stream);
  return zf::array(buf, type, shape, strides, offset);
}

/// The elements of `a` in C order, read from `raw` (its buffer's bytes) one index at a time.
std::vector<unsigned char> brute_force_gather(const zf::array& a, const std::vector<unsigned char>& raw) {
  const auto item = a.type().itemsize();
  std::vector<unsigned char> out;
  const auto n = a.size();
  for (std::int64_t flat = 0; flat < n; ++flat) {
    std::int64_t rest = flat, offset = a.byte_offset();
    for (std::int64_t d = a.ndim() - 1; d >= 0; --d) {
      const auto i = static_cast<std::size_t>(d);
      offset += (rest % a.shape()[i]) * a.strides()[i] * static_cast<std::int64_t>(item);
      rest /= a.shape()[i];
    }
    out.insert(out.end(), raw.begin() + offset, raw.begin() + offset + static_cast<std::int64_t>(item));
  }
  return out;
}

void expect_copy_matches(const zf::array& src, const std::vector<unsigned char>& raw, zf::device to,
                         zf::stream_view stream, const std::string& what) {
  const zf::array out = zf::copy_to(src, to, stream);
  ASSERT_TRUE(out.valid()) << what;
  EXPECT_EQ(out.where(), to) << what;
  EXPECT_EQ(out.type(), src.type()) << what;
  EXPECT_EQ(out.shape(), src.shape()) << what;
  EXPECT_EQ(out.strides(), zf::contiguous_strides(src.shape())) << what;
  EXPECT_FALSE(out.read_only()) << what;
  if (src.size() > 0) {
    EXPECT_NE(out.data(), src.data()) << what;
  }
  // A host-visible result must be ready when copy_to returns, so it is read by the CPU at once
  // (even pinned memory); a device result is only stream-ordered, so it is read on the stream.
  const zf::device read_as = to.host_accessible() ? zf::cpu_device : to;
  EXPECT_EQ(read_bytes(read_as, out.data(), out.nbytes(), stream), brute_force_gather(src, raw)) << what;
}

std::string describe(const zf::array& a) {
  std::string s = a.type().name() + " " + a.where().name() + " shape [";
  for (auto e : a.shape()) s += std::to_string(e) + " ";
  s += "] strides [";
  for (auto e : a.strides()) s += std::to_string(e) + " ";
  return s + "] offset " + std::to_string(a.byte_offset());
}

// ---- host paths -----------------------------------------------------------------------------

TEST(Zeros, HostArraysAreAllZeroOverPoisonedMemory) {
  poisoned_current poison(zf::cpu_device);
  for (const zf::shape_t& shape :
       {zf::shape_t{}, zf::shape_t{0}, zf::shape_t{1}, zf::shape_t{37}, zf::shape_t{3, 4, 5}}) {
    for (zf::dtype type : {zf::uint8, zf::int16, zf::float32, zf::float64, complex128, rgb8}) {
      const zf::array z = zf::zeros(shape, type);
      EXPECT_EQ(z.shape(), shape);
      EXPECT_EQ(z.type(), type);
      EXPECT_EQ(z.where(), zf::cpu_device);
      EXPECT_TRUE(z.is_contiguous());
      const auto bytes = read_bytes(zf::cpu_device, z.data(), z.nbytes());
      EXPECT_EQ(bytes, std::vector<unsigned char>(z.nbytes(), 0)) << describe(z);
    }
  }
}

TEST(CopyTo, ContiguousHostCopyIsDeepAndExact) {
  zf::array src = zf::empty({4, 6}, zf::int32);
  auto values = src.span<std::int32_t>();
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::int32_t>(i * i) - 50;
  const zf::array copy = zf::copy_to(src.as_read_only(), zf::cpu_device);
  ASSERT_NE(copy.data(), src.data());
  values[3] = 12345;  // the copy does not alias the source
  const auto copied = copy.span<const std::int32_t>();
  for (std::size_t i = 0; i < copied.size(); ++i) EXPECT_EQ(copied[i], static_cast<std::int32_t>(i * i) - 50) << i;
}

TEST(CopyTo, StridedHostViewsGatherLikeBruteForce) {
  poisoned_current poison(zf::cpu_device);
  std::mt19937_64 rng(1234);
  for (int trial = 0; trial < 400; ++trial) {
    for (zf::dtype type : {zf::uint8, zf::int16, zf::float32, zf::float64, complex128, rgb8}) {
      std::vector<unsigned char> raw;
      const zf::array src = random_view(rng, type, zf::cpu_device, {}, raw);
      expect_copy_matches(src, raw, zf::cpu_device, {}, describe(src));
      if (HasFailure()) return;
    }
  }
}

TEST(CopyTo, NamedViewsReversedTransposedBroadcastZeroDimAndEmpty) {
  poisoned_current poison(zf::cpu_device);
  zf::array base = zf::empty({3, 4}, zf::float32);
  auto v = base.span<float>();
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);

  const auto as_floats = [](const zf::array& a) {
    const auto s = a.span<const float>();
    return std::vector<float>(s.begin(), s.end());
  };
  // Rows reversed and every other column: rows 2,1,0 × columns 3,1.
  const zf::array reversed = base.slice(0, 2, -1, -1).slice(1, 3, -1, -2);
  EXPECT_EQ(as_floats(zf::copy_to(reversed, zf::cpu_device)), (std::vector<float>{11, 9, 7, 5, 3, 1}));
  // Transposed through explicit strides.
  const zf::array transposed(base.owner(), zf::float32, {4, 3}, zf::shape_t{1, 4});
  EXPECT_EQ(as_floats(zf::copy_to(transposed, zf::cpu_device)),
            (std::vector<float>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));
  // Row 1 broadcast three times (zero stride on the outer dimension).
  const zf::array broadcast(base.owner(), zf::float32, {3, 4}, zf::shape_t{0, 1}, 4 * 4);
  EXPECT_EQ(as_floats(zf::copy_to(broadcast, zf::cpu_device)),
            (std::vector<float>{4, 5, 6, 7, 4, 5, 6, 7, 4, 5, 6, 7}));
  // A 0-d view of element (2, 1).
  const zf::array scalar(base.owner(), zf::float32, {}, zf::shape_t{}, 9 * 4);
  EXPECT_EQ(as_floats(zf::copy_to(scalar, zf::cpu_device)), (std::vector<float>{9}));
  // 0-size with odd strides: nothing to copy, but the shape survives.
  const zf::array none(base.owner(), zf::float32, {2, 0, 3}, zf::shape_t{-5, 7, 0}, 40);
  const zf::array copied = zf::copy_to(none, zf::cpu_device);
  EXPECT_EQ(copied.shape(), (zf::shape_t{2, 0, 3}));
  EXPECT_EQ(copied.nbytes(), 0u);
}

TEST(CopyTo, RejectsAnEmptyHandle) {
  EXPECT_THROW((void)zf::copy_to(zf::array{}, zf::cpu_device), zf::invalid_argument);
}

TEST(CopyTo, CudaTargetsNeedAGpu) {
  if (zf::cuda_available()) GTEST_SKIP() << "a GPU is present";
  const zf::array src = zf::zeros({4}, zf::float32);
  EXPECT_THROW((void)zf::copy_to(src, zf::cuda_device(0)), zf::cuda_error);
  EXPECT_THROW((void)zf::copy_to(src, {zf::device_type::cuda_host, 0}), zf::cuda_error);
  EXPECT_THROW((void)zf::zeros({4}, zf::float32, zf::cuda_device(0)), zf::cuda_error);
}

TEST(CopyBytes, HostBytesAreCopiedExactlyAndZeroBytesTouchNothing) {
  std::vector<unsigned char> from(1001), to(1001, 0xCD);
  std::mt19937_64 rng(5);
  for (auto& b : from) b = static_cast<unsigned char>(rng());
  zf::copy_bytes(to.data(), zf::cpu_device, from.data(), zf::cpu_device, 0);
  EXPECT_EQ(to, std::vector<unsigned char>(1001, 0xCD));
  zf::copy_bytes(to.data(), zf::cpu_device, from.data(), zf::cpu_device, from.size());
  EXPECT_EQ(to, from);
}

TEST(CopyBytes, CudaMemoryNeedsAGpu) {
  if (zf::cuda_available()) GTEST_SKIP() << "a GPU is present";
  float a = 0, b = 0;
  EXPECT_THROW(zf::copy_bytes(&a, zf::cuda_device(0), &b, zf::cpu_device, sizeof a), zf::cuda_error);
}

// ---- every pair of host, pinned and device memory (GPU only) -----------------------------------

const std::vector<zf::device> memory_kinds{zf::cpu_device, {zf::device_type::cuda_host, 0}, zf::cuda_device(0)};

TEST(Zeros, PinnedAndDeviceArraysAreAllZeroOverPoisonedMemory) {
  if (!zf::cuda_available()) GTEST_SKIP() << "no GPU";
  test_stream stream;
  for (zf::device where : memory_kinds) {
    poisoned_current poison(where);
    for (zf::stream_view s : {zf::stream_view{}, stream.view()}) {
      const zf::array z = zf::zeros({1000, 3}, zf::float64, where, s);
      EXPECT_EQ(z.where(), where);
      const zf::device read_as = where.host_accessible() ? zf::cpu_device : where;  // host-visible: ready now
      EXPECT_EQ(read_bytes(read_as, z.data(), z.nbytes(), s), std::vector<unsigned char>(z.nbytes(), 0))
          << where.name();
    }
  }
}

TEST(CopyTo, EveryPairOfMemoryKindsContiguousAndStrided) {
  if (!zf::cuda_available()) GTEST_SKIP() << "no GPU";
  test_stream stream;
  std::mt19937_64 rng(777);
  for (zf::device from : memory_kinds) {
    for (zf::device to : memory_kinds) {
      poisoned_current poison_from(from);
      poisoned_current poison_to(to);
      for (zf::stream_view s : {zf::stream_view{}, stream.view()}) {
        for (int trial = 0; trial < 40; ++trial) {
          for (zf::dtype type : {zf::uint8, zf::float32, zf::float64, complex128, rgb8}) {
            std::vector<unsigned char> raw;
            const zf::array src = random_view(rng, type, from, s, raw, /*contiguous=*/trial % 4 == 0);
            expect_copy_matches(src, raw, to, s, describe(src) + " -> " + to.name());
            if (HasFailure()) return;
          }
        }
      }
    }
  }
}

TEST(CopyBytes, EveryPairOfMemoryKindsRoundTripsAndCountsDownloads) {
  if (!zf::cuda_available()) GTEST_SKIP() << "no GPU";
  test_stream stream;
  std::vector<unsigned char> raw(4099);
  std::mt19937_64 rng(11);
  for (auto& b : raw) b = static_cast<unsigned char>(rng());
  for (zf::device from : memory_kinds) {
    for (zf::device to : memory_kinds) {
      auto src = zf::allocate_buffer(raw.size(), stream.view(), zm::current_resource(from));
      auto dst = zf::allocate_buffer(raw.size(), stream.view(), zm::current_resource(to));
      write_bytes(from, src->data(), raw.data(), raw.size(), stream.view());
      const zf::transfer_counts before = zf::device_to_host_transfers();
      zf::copy_bytes(dst->data(), to, src->data(), from, raw.size(), stream.view());
      const zf::transfer_counts after = zf::device_to_host_transfers();
      const bool download = to.host_accessible() && !from.host_accessible();
      EXPECT_EQ(after.bytes - before.bytes, download ? static_cast<std::int64_t>(raw.size()) : 0)
          << from.name() << " -> " << to.name();
      EXPECT_EQ(read_bytes(to, dst->data(), raw.size(), stream.view()), raw) << from.name() << " -> " << to.name();
    }
  }
}

TEST(CopyTo, LargeStridedDeviceArrayUsesTheWholeGrid) {
  if (!zf::cuda_available()) GTEST_SKIP() << "no GPU";
  // More elements than one grid of 65535 × 256 threads covers, so the grid-stride loop runs.
  std::vector<unsigned char> raw(std::size_t{40'000'000} * 4);
  std::mt19937_64 rng(3);
  for (auto& b : raw) b = static_cast<unsigned char>(rng());
  auto buf = zf::allocate_buffer(raw.size(), {}, zm::current_resource(zf::cuda_device(0)));
  write_bytes(zf::cuda_device(0), buf->data(), raw.data(), raw.size());
  const zf::array every_other(buf, zf::float32, {20'000'000}, zf::shape_t{2});
  expect_copy_matches(every_other, raw, zf::cpu_device, {}, "every other float of 40 M");
}

}  // namespace
