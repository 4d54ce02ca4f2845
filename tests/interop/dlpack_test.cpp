// DLPack export/import: round trips, foreign producers, lifetimes and misuse.
#include "zeroflow/interop/dlpack.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "zeroflow/core/cuda.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zf = zeroflow;
namespace dl = zeroflow::dlpack;

namespace {

/// A host buffer whose release is counted (and checked to happen on the right pointer).
std::shared_ptr<zf::buffer> counted_buffer(std::size_t bytes, std::atomic<int>* releases,
                                           zf::device where = zf::cpu_device) {
  char* memory = new char[bytes == 0 ? 1 : bytes];
  return zf::buffer::adopt(memory, bytes, where, [releases, memory](void* p, std::size_t) {
    EXPECT_EQ(p, memory);
    delete[] static_cast<char*>(p);
    if (releases) ++*releases;
  });
}

/// How a T is stored in a std::vector with data() (std::vector<bool> has none).
template <class T>
using stored_t = std::conditional_t<std::is_same_v<T, bool>, std::uint8_t, T>;

/// Seeded random values of T (0/1 for bool).
template <class T>
std::vector<stored_t<T>> random_values(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<stored_t<T>> out(n);
  for (auto& v : out) {
    if constexpr (std::is_same_v<T, bool>)
      v = (rng() & 1) != 0;
    else if constexpr (std::is_floating_point_v<T>)
      v = static_cast<T>(std::uniform_real_distribution<double>(-1e3, 1e3)(rng));
    else
      v = static_cast<T>(rng());
  }
  return out;
}

/// A contiguous host array holding `values` (counted release).
template <class V>
zf::array host_array(const std::vector<V>& values, zf::shape_t shape, std::atomic<int>* releases = nullptr,
                     zf::dtype type = zf::dtype_of<V>()) {
  auto owner = counted_buffer(values.size() * sizeof(V), releases);
  if (!values.empty()) std::memcpy(owner->data(), values.data(), values.size() * sizeof(V));
  return zf::array(owner, type, std::move(shape));
}

/// Element at a multi-index, read through the array's own strides (host arrays).
template <class T>
T at(const zf::array& a, const std::vector<std::int64_t>& index) {
  std::int64_t offset = 0;
  for (std::size_t d = 0; d < index.size(); ++d) offset += index[d] * a.strides()[d];
  return static_cast<const T*>(a.data())[offset];
}

/// A foreign producer's tensor: owns its shape/strides and counts deleter calls.
template <class Managed>
struct foreign_tensor {
  Managed managed{};
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;
  int deletes = 0;

  static void deleter(Managed* self) { ++reinterpret_cast<foreign_tensor*>(self)->deletes; }

  foreign_tensor(void* data, zf::dtype type, std::vector<std::int64_t> extents,
                 std::optional<std::vector<std::int64_t>> element_strides, std::uint64_t byte_offset = 0,
                 dl::DLDevice where = {dl::kDLCPU, 0})
      : shape(std::move(extents)) {
    static_assert(offsetof(foreign_tensor, managed) == 0);
    auto& t = managed.dl_tensor;
    t.data = data;
    t.device = where;
    t.ndim = static_cast<std::int32_t>(shape.size());
    t.dtype = {static_cast<std::uint8_t>(type.code), type.bits, type.lanes};
    t.shape = shape.data();
    if (element_strides) {
      strides = *element_strides;
      t.strides = strides.data();
    }
    t.byte_offset = byte_offset;
    managed.deleter = &deleter;
    if constexpr (std::is_same_v<Managed, dl::DLManagedTensorVersioned>) managed.version = {1, 1};
  }
};

using foreign_versioned = foreign_tensor<dl::DLManagedTensorVersioned>;
using foreign_legacy = foreign_tensor<dl::DLManagedTensor>;

/// Exports `a` with the versioned or the legacy struct and imports it back.
zf::array round_trip(const zf::array& a, bool versioned) {
  if (versioned) return zf::from_dlpack(zf::to_dlpack_versioned(a));
  return zf::from_dlpack(zf::to_dlpack(a));
}

// ---- round trips ------------------------------------------------------------------------

template <class T>
class DlpackRoundTrip : public ::testing::Test {};
using round_trip_types = ::testing::Types<float, double, std::int64_t, std::int32_t, std::uint8_t, bool>;
TYPED_TEST_SUITE(DlpackRoundTrip, round_trip_types);

TYPED_TEST(DlpackRoundTrip, ExportDescribesTheArrayAndImportSeesTheSameMemory) {
  using T = TypeParam;
  for (bool versioned : {true, false}) {
    SCOPED_TRACE(versioned ? "versioned" : "legacy");
    const auto values = random_values<T>(3 * 5, 7);
    std::atomic<int> releases{0};
    {
      zf::array a = host_array(values, {3, 5}, &releases, zf::dtype_of<T>());
      const zf::dtype expected = zf::dtype_of<T>();
      const dl::DLTensor* t = nullptr;
      zf::array back;
      if (versioned) {
        auto* m = zf::to_dlpack_versioned(a);
        EXPECT_EQ(m->version.major, 1u);
        EXPECT_EQ(m->version.minor, 1u);
        EXPECT_EQ(m->flags, 0u);
        t = &m->dl_tensor;
        EXPECT_EQ(t->data, a.data());
        EXPECT_EQ(t->byte_offset, 0u);
        EXPECT_EQ(t->device.device_type, dl::kDLCPU);
        EXPECT_EQ(t->device.device_id, 0);
        EXPECT_EQ(t->ndim, 2);
        EXPECT_EQ(t->dtype.code, static_cast<std::uint8_t>(expected.code));
        EXPECT_EQ(t->dtype.bits, sizeof(T) * 8);
        EXPECT_EQ(t->dtype.lanes, 1);
        EXPECT_EQ(std::vector<std::int64_t>(t->shape, t->shape + 2), (std::vector<std::int64_t>{3, 5}));
        ASSERT_NE(t->strides, nullptr);
        EXPECT_EQ(std::vector<std::int64_t>(t->strides, t->strides + 2), (std::vector<std::int64_t>{5, 1}));
        back = zf::from_dlpack(m);
      } else {
        auto* m = zf::to_dlpack(a);
        t = &m->dl_tensor;
        EXPECT_EQ(t->data, a.data());
        EXPECT_EQ(t->dtype.code, static_cast<std::uint8_t>(expected.code));
        EXPECT_EQ(std::vector<std::int64_t>(t->strides, t->strides + 2), (std::vector<std::int64_t>{5, 1}));
        back = zf::from_dlpack(m);
      }
      EXPECT_EQ(back.data(), a.data());
      EXPECT_EQ(back.type(), expected);
      EXPECT_EQ(back.shape(), a.shape());
      EXPECT_EQ(back.strides(), a.strides());
      EXPECT_EQ(back.where(), zf::cpu_device);
      EXPECT_FALSE(back.read_only());
      for (std::int64_t i = 0; i < 3; ++i)
        for (std::int64_t j = 0; j < 5; ++j)
          EXPECT_EQ(at<T>(back, {i, j}), values[static_cast<std::size_t>(i * 5 + j)]);
      // Zero copy: a write through the import is a write to the original.
      back.data_as<T>()[4] = values[3];
      EXPECT_EQ(a.data_as<T>()[4], values[3]);
      EXPECT_EQ(releases, 0);
    }
    EXPECT_EQ(releases, 1);
  }
}

TEST(Dlpack, BoolIsCodeSixStoredInEightBits) {
  auto* m = zf::to_dlpack_versioned(host_array(std::vector<std::uint8_t>{}, {0}, nullptr, zf::bool8));
  EXPECT_EQ(m->dl_tensor.dtype.code, dl::kDLBool);
  EXPECT_EQ(m->dl_tensor.dtype.bits, 8);
  m->deleter(m);
  // A foreign bool tensor of 1-bit elements is not something zeroflow can view.
  std::uint8_t bytes[4] = {1, 0, 1, 1};
  foreign_versioned f(bytes, zf::dtype{zf::type_code::bool_, 1, 1}, {4}, std::nullopt);
  EXPECT_THROW((void)zf::from_dlpack(&f.managed), zf::invalid_argument);
  EXPECT_EQ(f.deletes, 1);
  foreign_versioned g(bytes, zf::bool8, {4}, std::nullopt);
  {
    zf::array b = zf::from_dlpack(&g.managed);
    EXPECT_EQ(b.type(), zf::bool8);
    EXPECT_EQ(std::vector<bool>(b.data_as<bool>(), b.data_as<bool>() + 4), (std::vector<bool>{1, 0, 1, 1}));
  }
  EXPECT_EQ(g.deletes, 1);
}

TEST(Dlpack, ZeroDimRoundTrip) {
  for (bool versioned : {true, false}) {
    std::atomic<int> releases{0};
    {
      zf::array scalar = host_array(std::vector<double>{2.5}, {}, &releases);
      auto* m = zf::to_dlpack_versioned(scalar);
      EXPECT_EQ(m->dl_tensor.ndim, 0);
      m->deleter(m);
      zf::array back = round_trip(scalar, versioned);
      EXPECT_EQ(back.ndim(), 0);
      EXPECT_EQ(back.size(), 1);
      EXPECT_EQ(back.data(), scalar.data());
      EXPECT_EQ(*back.data_as<double>(), 2.5);
    }
    EXPECT_EQ(releases, 1);
  }
  // A foreign 0-d tensor with NULL shape and strides.
  float value = -4.0f;
  foreign_legacy f(&value, zf::float32, {}, std::nullopt);
  f.managed.dl_tensor.shape = nullptr;
  {
    zf::array back = zf::from_dlpack(&f.managed);
    EXPECT_EQ(back.ndim(), 0);
    EXPECT_EQ(*back.data_as<float>(), -4.0f);
  }
  EXPECT_EQ(f.deletes, 1);
}

TEST(Dlpack, ZeroSizeRoundTrip) {
  for (bool versioned : {true, false}) {
    std::atomic<int> releases{0};
    {
      zf::array empty = host_array(std::vector<std::int64_t>{}, {0, 5}, &releases);
      auto* m = zf::to_dlpack_versioned(empty);
      EXPECT_EQ(m->dl_tensor.data, nullptr);  // the spec asks for NULL when there are no elements
      EXPECT_EQ(m->dl_tensor.shape[0], 0);
      EXPECT_EQ(m->dl_tensor.shape[1], 5);
      m->deleter(m);
      zf::array back = round_trip(empty, versioned);
      EXPECT_EQ(back.shape(), (zf::shape_t{0, 5}));
      EXPECT_EQ(back.size(), 0);
      EXPECT_EQ(back.type(), zf::int64);
    }
    EXPECT_EQ(releases, 1);
  }
}

TEST(Dlpack, StridedViewRoundTrip) {
  const auto values = random_values<float>(6 * 8, 11);
  for (bool versioned : {true, false}) {
    zf::array full = host_array(values, {6, 8});
    // Rows 1, 3 (step 2) and columns 0, 3, 6 (step 3): a non-contiguous view with an offset.
    zf::array view = full.slice(0, 1, 5, 2).slice(1, 0, 8, 3);
    ASSERT_FALSE(view.is_contiguous());
    auto* m = zf::to_dlpack_versioned(view);
    EXPECT_EQ(m->dl_tensor.data, view.data());
    EXPECT_EQ(m->dl_tensor.byte_offset, 0u);
    EXPECT_EQ(std::vector<std::int64_t>(m->dl_tensor.strides, m->dl_tensor.strides + 2),
              (std::vector<std::int64_t>{16, 3}));
    m->deleter(m);
    zf::array back = round_trip(view, versioned);
    EXPECT_EQ(back.data(), view.data());
    EXPECT_EQ(back.shape(), (zf::shape_t{2, 3}));
    EXPECT_EQ(back.strides(), (zf::shape_t{16, 3}));
    for (std::int64_t i = 0; i < 2; ++i)
      for (std::int64_t j = 0; j < 3; ++j)
        EXPECT_EQ(at<float>(back, {i, j}), values[static_cast<std::size_t>((1 + 2 * i) * 8 + 3 * j)]);
  }
}

TEST(Dlpack, NegativeStrideRoundTrip) {
  const auto values = random_values<std::int32_t>(4 * 6, 13);
  for (bool versioned : {true, false}) {
    zf::array full = host_array(values, {4, 6});
    zf::array reversed = full.slice(0, 3, -1, -1).slice(1, 5, -1, -2);  // rows 3..0, columns 5, 3, 1
    auto* m = zf::to_dlpack_versioned(reversed);
    EXPECT_EQ(m->dl_tensor.data, reversed.data());  // element 0, the highest address
    EXPECT_EQ(std::vector<std::int64_t>(m->dl_tensor.strides, m->dl_tensor.strides + 2),
              (std::vector<std::int64_t>{-6, -2}));
    m->deleter(m);
    zf::array back = round_trip(reversed, versioned);
    EXPECT_EQ(back.data(), reversed.data());
    EXPECT_EQ(back.shape(), (zf::shape_t{4, 3}));
    for (std::int64_t i = 0; i < 4; ++i)
      for (std::int64_t j = 0; j < 3; ++j)
        EXPECT_EQ(at<std::int32_t>(back, {i, j}), values[static_cast<std::size_t>((3 - i) * 6 + 5 - 2 * j)]);
  }
}

TEST(Dlpack, ForeignNegativeStridesWithByteOffset) {
  // Element (i, j) = buf[11 - 4i - j]: data is the buffer start, element 0 is its last float.
  std::vector<float> buf(12);
  for (std::size_t k = 0; k < buf.size(); ++k) buf[k] = static_cast<float>(k) * 1.5f;
  foreign_versioned f(buf.data(), zf::float32, {3, 4}, std::vector<std::int64_t>{-4, -1}, 11 * sizeof(float));
  {
    zf::array a = zf::from_dlpack(&f.managed);
    EXPECT_EQ(a.data(), &buf[11]);
    EXPECT_EQ(a.owner()->data(), buf.data());  // the span starts at the lowest reachable element
    EXPECT_EQ(a.owner()->size(), 12 * sizeof(float));
    for (std::int64_t i = 0; i < 3; ++i)
      for (std::int64_t j = 0; j < 4; ++j)
        EXPECT_EQ(at<float>(a, {i, j}), buf[static_cast<std::size_t>(11 - 4 * i - j)]);
  }
  EXPECT_EQ(f.deletes, 1);
}

TEST(Dlpack, ForeignNullStridesAndByteOffset) {
  std::vector<float> buf(20, -1.0f);
  for (std::size_t k = 0; k < buf.size(); ++k) buf[k] = static_cast<float>(k);
  foreign_legacy f(buf.data(), zf::float32, {3, 4}, std::nullopt, 2 * sizeof(float));
  {
    zf::array a = zf::from_dlpack(&f.managed);
    EXPECT_EQ(a.strides(), (zf::shape_t{4, 1}));  // NULL strides: C-contiguous
    EXPECT_EQ(a.data(), &buf[2]);
    for (std::int64_t i = 0; i < 3; ++i)
      for (std::int64_t j = 0; j < 4; ++j)
        EXPECT_EQ(at<float>(a, {i, j}), buf[static_cast<std::size_t>(2 + 4 * i + j)]);
    a.data_as<float>()[5] = 99.0f;  // zero copy: the producer sees the write
    EXPECT_EQ(buf[7], 99.0f);
    EXPECT_EQ(f.deletes, 0);
  }
  EXPECT_EQ(f.deletes, 1);
}

TEST(Dlpack, ForeignZeroStrideBroadcast) {
  double value = 3.0;
  foreign_versioned f(&value, zf::float64, {5, 2}, std::vector<std::int64_t>{0, 0});
  zf::array a = zf::from_dlpack(&f.managed);
  EXPECT_EQ(a.owner()->size(), sizeof(double));
  EXPECT_EQ(at<double>(a, {4, 1}), 3.0);
}

// ---- read-only --------------------------------------------------------------------------

TEST(Dlpack, ReadOnlyFlagBothWays) {
  zf::array a = host_array(random_values<float>(4, 3), {4}).as_read_only();
  auto* m = zf::to_dlpack_versioned(a);
  EXPECT_EQ(m->flags & dl::flag_bitmask_read_only, dl::flag_bitmask_read_only);
  zf::array back = zf::from_dlpack(m);
  EXPECT_TRUE(back.read_only());
  EXPECT_THROW((void)back.data_as<float>(), zf::invalid_argument);
  EXPECT_NO_THROW((void)back.data_as<const float>());
  // The legacy struct cannot carry the flag, so a read-only array is refused.
  EXPECT_THROW((void)zf::to_dlpack(a), zf::invalid_argument);

  float values[2] = {1, 2};
  foreign_versioned ro(values, zf::float32, {2}, std::nullopt);
  ro.managed.flags = dl::flag_bitmask_read_only | dl::flag_bitmask_is_copied;
  EXPECT_TRUE(zf::from_dlpack(&ro.managed).read_only());
  foreign_versioned rw(values, zf::float32, {2}, std::nullopt);
  rw.managed.flags = dl::flag_bitmask_is_copied;
  EXPECT_FALSE(zf::from_dlpack(&rw.managed).read_only());
  EXPECT_EQ(ro.deletes + rw.deletes, 2);
}

// ---- lifetimes --------------------------------------------------------------------------

TEST(Dlpack, ExportKeepsTheBufferAliveUntilTheDeleter) {
  for (bool versioned : {true, false}) {
    std::atomic<int> releases{0};
    const auto values = random_values<std::int64_t>(6, 5);
    dl::DLManagedTensorVersioned* mv = nullptr;
    dl::DLManagedTensor* ml = nullptr;
    {
      zf::array a = host_array(values, {6}, &releases);
      if (versioned)
        mv = zf::to_dlpack_versioned(a);
      else
        ml = zf::to_dlpack(a);
    }
    EXPECT_EQ(releases, 0);  // the array is gone, the export holds the buffer
    const dl::DLTensor& t = versioned ? mv->dl_tensor : ml->dl_tensor;
    const auto* data = static_cast<const std::int64_t*>(t.data);
    EXPECT_EQ(std::vector<std::int64_t>(data, data + 6), values);
    if (versioned)
      mv->deleter(mv);
    else
      ml->deleter(ml);
    EXPECT_EQ(releases, 1);
  }
}

TEST(Dlpack, ImportOfAnExportReleasesOnceWhenEverythingIsGone) {
  std::atomic<int> releases{0};
  zf::array back;
  dl::DLManagedTensorVersioned* second = nullptr;
  {
    zf::array a = host_array(random_values<float>(8, 1), {8}, &releases);
    back = zf::from_dlpack(zf::to_dlpack_versioned(a));
    second = zf::to_dlpack_versioned(back);  // an export of the import
  }
  EXPECT_EQ(releases, 0);
  back = zf::array{};
  EXPECT_EQ(releases, 0);  // `second` still holds the chain
  second->deleter(second);
  EXPECT_EQ(releases, 1);
}

TEST(Dlpack, NullDeleterIsAccepted) {
  float value = 1.0f;
  foreign_legacy f(&value, zf::float32, {1}, std::nullopt);
  f.managed.deleter = nullptr;
  { zf::array a = zf::from_dlpack(&f.managed); }
  EXPECT_EQ(f.deletes, 0);
}

// ---- refused tensors --------------------------------------------------------------------

TEST(Dlpack, UnknownMajorVersionCallsTheDeleterAndThrows) {
  float value = 0.0f;
  foreign_versioned f(&value, zf::float32, {1}, std::nullopt);
  f.managed.version = {2, 0};
  try {
    (void)zf::from_dlpack(&f.managed);
    FAIL() << "version 2.0 was accepted";
  } catch (const zf::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("version 2.0"), std::string::npos) << e.what();
  }
  EXPECT_EQ(f.deletes, 1);
  // A newer minor version of 1.x keeps the layout and is accepted.
  foreign_versioned newer(&value, zf::float32, {1}, std::nullopt);
  newer.managed.version = {1, 7};
  EXPECT_NO_THROW((void)zf::from_dlpack(&newer.managed));
  EXPECT_EQ(newer.deletes, 1);
}

TEST(Dlpack, UnknownDeviceCallsTheDeleterAndThrows) {
  float value = 0.0f;
  foreign_versioned metal(&value, zf::float32, {1}, std::nullopt, 0, {dl::kDLMetal, 0});
  try {
    (void)zf::from_dlpack(&metal.managed);
    FAIL() << "a Metal tensor was accepted";
  } catch (const zf::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("Metal"), std::string::npos) << e.what();
  }
  EXPECT_EQ(metal.deletes, 1);
  foreign_legacy strange(&value, zf::float32, {1}, std::nullopt, 0, {static_cast<dl::DLDeviceType>(999), 0});
  EXPECT_THROW((void)zf::from_dlpack(&strange.managed), zf::invalid_argument);
  EXPECT_EQ(strange.deletes, 1);
}

TEST(Dlpack, UnsupportedDtypesAndBadShapesCallTheDeleterAndThrow) {
  std::uint64_t storage[4] = {};
  const zf::dtype bad_types[] = {
      zf::dtype{static_cast<zf::type_code>(dl::kDLOpaqueHandle), 64, 1},
      zf::dtype{zf::type_code::float_, 12, 1},
      zf::dtype{static_cast<zf::type_code>(17), 4, 1},  // a sub-byte float of DLPack 1.1+
      zf::dtype{zf::type_code::int_, 32, 0},
  };
  for (const auto& type : bad_types) {
    foreign_versioned f(storage, type, {2}, std::nullopt);
    EXPECT_THROW((void)zf::from_dlpack(&f.managed), zf::invalid_argument);
    EXPECT_EQ(f.deletes, 1);
  }
  foreign_legacy negative(storage, zf::float32, {2, -1}, std::nullopt);
  EXPECT_THROW((void)zf::from_dlpack(&negative.managed), zf::invalid_argument);
  EXPECT_EQ(negative.deletes, 1);
  foreign_legacy no_data(nullptr, zf::float32, {2}, std::nullopt);
  EXPECT_THROW((void)zf::from_dlpack(&no_data.managed), zf::invalid_argument);
  EXPECT_EQ(no_data.deletes, 1);
  foreign_versioned no_shape(storage, zf::float32, {2}, std::nullopt);
  no_shape.managed.dl_tensor.shape = nullptr;
  EXPECT_THROW((void)zf::from_dlpack(&no_shape.managed), zf::invalid_argument);
  EXPECT_EQ(no_shape.deletes, 1);
  foreign_versioned overflow(storage, zf::float32, {std::int64_t{1} << 62, 4}, std::nullopt);
  EXPECT_THROW((void)zf::from_dlpack(&overflow.managed), zf::invalid_argument);
  EXPECT_EQ(overflow.deletes, 1);
  // Empty, yet its C-contiguous strides would overflow.
  foreign_versioned empty_overflow(storage, zf::float32, {0, std::int64_t{1} << 62, 8}, std::nullopt);
  EXPECT_THROW((void)zf::from_dlpack(&empty_overflow.managed), zf::invalid_argument);
  EXPECT_EQ(empty_overflow.deletes, 1);
}

TEST(Dlpack, NullAndEmptyAreRefused) {
  EXPECT_THROW((void)zf::from_dlpack(static_cast<dl::DLManagedTensorVersioned*>(nullptr)), zf::invalid_argument);
  EXPECT_THROW((void)zf::from_dlpack(static_cast<dl::DLManagedTensor*>(nullptr)), zf::invalid_argument);
  EXPECT_THROW((void)zf::to_dlpack_versioned(zf::array{}), zf::invalid_argument);
  EXPECT_THROW((void)zf::to_dlpack(zf::array{}), zf::invalid_argument);
}

// ---- devices ----------------------------------------------------------------------------

TEST(Dlpack, DeviceTypesMapBothWays) {
  // Never dereferenced: only the device labels travel.
  const zf::device devices[] = {
      zf::cuda_device(1), {zf::device_type::cuda_host, 0}, {zf::device_type::cuda_managed, 2}};
  const dl::DLDeviceType codes[] = {dl::kDLCUDA, dl::kDLCUDAHost, dl::kDLCUDAManaged};
  for (std::size_t k = 0; k < 3; ++k) {
    zf::array a(counted_buffer(16, nullptr, devices[k]), zf::float32, {4});
    auto* m = zf::to_dlpack_versioned(a);
    EXPECT_EQ(m->dl_tensor.device.device_type, codes[k]);
    EXPECT_EQ(m->dl_tensor.device.device_id, devices[k].id);
    zf::array back = zf::from_dlpack(m);
    EXPECT_EQ(back.where(), devices[k]);
    EXPECT_EQ(back.data(), a.data());
  }
}

TEST(Dlpack, GpuRoundTrip) {
  if (!zf::cuda_available()) GTEST_SKIP() << "no CUDA device";
  zf::array a = zf::empty({64, 3}, zf::float32, zf::cuda_device(0));
  auto* m = zf::to_dlpack_versioned(a);
  EXPECT_EQ(m->dl_tensor.device.device_type, dl::kDLCUDA);
  EXPECT_EQ(m->dl_tensor.device.device_id, 0);
  EXPECT_EQ(m->dl_tensor.data, a.data());
  zf::array back = zf::from_dlpack(m);
  EXPECT_EQ(back.where(), zf::cuda_device(0));
  EXPECT_EQ(back.data(), a.data());
  // Values travel too: host -> device -> DLPack -> host.
  const auto values = random_values<float>(64 * 3, 17);
  zf::array host = host_array(values, {64, 3});
  zf::array dev = zf::copy_to(host, zf::cuda_device(0));
  zf::array imported = zf::from_dlpack(zf::to_dlpack(dev));
  zf::array again = zf::copy_to(imported, zf::cpu_device);
  zf::synchronize({});
  EXPECT_EQ(std::vector<float>(again.data_as<float>(), again.data_as<float>() + values.size()), values);
}

// ---- misuse: double release and double import ----------------------------------------------

TEST(Dlpack, SecondDeleterCallIsReportedAndIgnored) {
  std::atomic<int> releases{0};
  auto* mv = zf::to_dlpack_versioned(host_array(std::vector<float>(3), {3}, &releases));
  auto* ml = zf::to_dlpack(host_array(std::vector<float>(3), {3}, &releases));
  mv->deleter(mv);
  ml->deleter(ml);
  EXPECT_EQ(releases, 2);
  ::testing::internal::CaptureStderr();
  mv->deleter(mv);  // the block is quarantined, so this read is of valid memory
  ml->deleter(ml);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("not a live zeroflow export"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 2) << err;
  EXPECT_EQ(releases, 2);
}

TEST(Dlpack, ImportOfADeletedExportThrows) {
  std::atomic<int> releases{0};
  auto* mv = zf::to_dlpack_versioned(host_array(std::vector<float>(3), {3}, &releases));
  auto* ml = zf::to_dlpack(host_array(std::vector<float>(3), {3}, &releases));
  mv->deleter(mv);
  ml->deleter(ml);
  for (auto attempt : {0, 1}) {
    try {
      if (attempt == 0)
        (void)zf::from_dlpack(mv);
      else
        (void)zf::from_dlpack(ml);
      FAIL() << "a deleted export was imported";
    } catch (const zf::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("deleter already ran"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(releases, 2);
  // The same holds once an import consumed the export and died.
  auto* consumed = zf::to_dlpack_versioned(host_array(std::vector<float>(3), {3}, &releases));
  { zf::array a = zf::from_dlpack(consumed); }
  EXPECT_EQ(releases, 3);
  EXPECT_THROW((void)zf::from_dlpack(consumed), zf::invalid_argument);
  EXPECT_EQ(releases, 3);
}

TEST(Dlpack, SecondImportWhileTheFirstIsAliveThrows) {
  std::atomic<int> releases{0};
  auto* m = zf::to_dlpack_versioned(host_array(std::vector<float>(3), {3}, &releases));
  {
    zf::array first = zf::from_dlpack(m);
    try {
      (void)zf::from_dlpack(m);
      FAIL() << "imported twice";
    } catch (const zf::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("already imported"), std::string::npos) << e.what();
    }
    EXPECT_EQ(releases, 0);  // the failed import released nothing
  }
  EXPECT_EQ(releases, 1);

  float value = 1.0f;
  foreign_legacy f(&value, zf::float32, {1}, std::nullopt);
  {
    zf::array first = zf::from_dlpack(&f.managed);
    EXPECT_THROW((void)zf::from_dlpack(&f.managed), zf::invalid_argument);
    EXPECT_EQ(f.deletes, 0);
  }
  EXPECT_EQ(f.deletes, 1);
}

TEST(Dlpack, ManyExportsOutliveTheQuarantine) {
  // More deletions than the quarantine holds: old blocks are freed, nothing leaks or crashes,
  // and a recent deletion is still recognised.
  std::atomic<int> releases{0};
  zf::array a = host_array(std::vector<float>(4), {4}, &releases);
  dl::DLManagedTensorVersioned* last = nullptr;
  for (int k = 0; k < 600; ++k) {
    last = zf::to_dlpack_versioned(a);
    last->deleter(last);
  }
  EXPECT_THROW((void)zf::from_dlpack(last), zf::invalid_argument);
  a = zf::array{};
  EXPECT_EQ(releases, 1);
}

/// A deleter that, the first time, imports the tensor it was called for once more: a new tensor
/// at the address it has just freed, as an allocator may hand out at once to another thread.
struct reuse_record {
  int calls = 0;
  bool imported = false;
  std::string error;
};
reuse_record* reuse = nullptr;
void import_again_in_deleter(dl::DLManagedTensor* t) {
  if (++reuse->calls != 1) return;  // the second import's own release
  try {
    const zf::array again = zf::from_dlpack(t);
    reuse->imported = again.data() == t->dl_tensor.data;
  } catch (const std::exception& e) {
    reuse->error = e.what();
  }
}

TEST(Dlpack, AnAddressFreedByTheDeleterCanBeImportedAtOnce) {
  // The import registry must forget a tensor before its deleter runs: afterwards its address
  // may already belong to a new tensor (ConcurrentExportsAndImports hit this across threads).
  std::vector<float> values{1, 2, 3};
  foreign_legacy f(values.data(), zf::float32, {3}, std::nullopt);
  f.managed.deleter = &import_again_in_deleter;
  reuse_record record;
  reuse = &record;
  { const zf::array a = zf::from_dlpack(&f.managed); }
  reuse = nullptr;
  EXPECT_EQ(record.error, "");
  EXPECT_TRUE(record.imported);
  EXPECT_EQ(record.calls, 2);
}

TEST(Dlpack, ConcurrentExportsAndImports) {
  std::atomic<int> releases{0};
  {
    zf::array a = host_array(random_values<std::int32_t>(32, 9), {32}, &releases);
    std::vector<std::thread> threads;
    std::atomic<int> mismatches{0};
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&] {
        for (int k = 0; k < 500; ++k) {
          zf::array back = zf::from_dlpack(zf::to_dlpack_versioned(a));
          if (back.data() != a.data()) ++mismatches;
          auto* legacy = zf::to_dlpack(back);
          legacy->deleter(legacy);
        }
      });
    for (auto& th : threads) th.join();
    EXPECT_EQ(mismatches, 0);
    EXPECT_EQ(releases, 0);
  }
  EXPECT_EQ(releases, 1);
}

}  // namespace
