// DLPack round trips against a real consumer and producer: LibTorch (at::fromDLPack / at::toDLPack).
// With the model's tests: the model layer is the one that hands arrays to LibTorch through DLPack,
// and its test program is one of the two that link LibTorch.
#include <ATen/ATen.h>
#include <ATen/DLConvertor.h>
#include <ATen/dlpack.h>
#include <gtest/gtest.h>
#include <torch/cuda.h>

#include <atomic>
#include <cstddef>
#include <cstring>
#include <random>
#include <vector>

#include "zeroflow/core/cuda.hpp"
#include "zeroflow/interop/dlpack.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zf = zeroflow;
namespace dl = zeroflow::dlpack;

// zeroflow's structs and torch's dlpack.h (global names) must be the same ABI, field by field,
// or the reinterpret_casts below (and in the model layer) would corrupt the exchange.
#define ZF_SAME_FIELD(type, field) \
  static_assert(offsetof(::type, field) == offsetof(dl::type, field), #type "::" #field " differs")
static_assert(sizeof(::DLPackVersion) == sizeof(dl::DLPackVersion));
ZF_SAME_FIELD(DLPackVersion, major);
ZF_SAME_FIELD(DLPackVersion, minor);
static_assert(sizeof(::DLDevice) == sizeof(dl::DLDevice));
ZF_SAME_FIELD(DLDevice, device_type);
ZF_SAME_FIELD(DLDevice, device_id);
static_assert(sizeof(::DLDataType) == sizeof(dl::DLDataType));
ZF_SAME_FIELD(DLDataType, code);
ZF_SAME_FIELD(DLDataType, bits);
ZF_SAME_FIELD(DLDataType, lanes);
static_assert(sizeof(::DLTensor) == sizeof(dl::DLTensor));
ZF_SAME_FIELD(DLTensor, data);
ZF_SAME_FIELD(DLTensor, device);
ZF_SAME_FIELD(DLTensor, ndim);
ZF_SAME_FIELD(DLTensor, dtype);
ZF_SAME_FIELD(DLTensor, shape);
ZF_SAME_FIELD(DLTensor, strides);
ZF_SAME_FIELD(DLTensor, byte_offset);
static_assert(sizeof(::DLManagedTensor) == sizeof(dl::DLManagedTensor));
ZF_SAME_FIELD(DLManagedTensor, dl_tensor);
ZF_SAME_FIELD(DLManagedTensor, manager_ctx);
ZF_SAME_FIELD(DLManagedTensor, deleter);
static_assert(sizeof(::DLManagedTensorVersioned) == sizeof(dl::DLManagedTensorVersioned));
ZF_SAME_FIELD(DLManagedTensorVersioned, version);
ZF_SAME_FIELD(DLManagedTensorVersioned, manager_ctx);
ZF_SAME_FIELD(DLManagedTensorVersioned, deleter);
ZF_SAME_FIELD(DLManagedTensorVersioned, flags);
ZF_SAME_FIELD(DLManagedTensorVersioned, dl_tensor);
#undef ZF_SAME_FIELD
// Enumerators of two different enum types: compared as the integers the ABI carries.
constexpr bool same_value(int a, int b) { return a == b; }
static_assert(same_value(::kDLCPU, dl::kDLCPU) && same_value(::kDLCUDA, dl::kDLCUDA) &&
              same_value(::kDLCUDAHost, dl::kDLCUDAHost) && same_value(::kDLCUDAManaged, dl::kDLCUDAManaged) &&
              same_value(::kDLMetal, dl::kDLMetal));
static_assert(same_value(::kDLInt, dl::kDLInt) && same_value(::kDLUInt, dl::kDLUInt) &&
              same_value(::kDLFloat, dl::kDLFloat) && same_value(::kDLOpaqueHandle, dl::kDLOpaqueHandle) &&
              same_value(::kDLBfloat, dl::kDLBfloat) && same_value(::kDLComplex, dl::kDLComplex) &&
              same_value(::kDLBool, dl::kDLBool));
static_assert(DLPACK_FLAG_BITMASK_READ_ONLY == dl::flag_bitmask_read_only &&
              DLPACK_FLAG_BITMASK_IS_COPIED == dl::flag_bitmask_is_copied);
static_assert(DLPACK_MAJOR_VERSION == dl::major_version);

namespace {

::DLManagedTensor* as_torch(dl::DLManagedTensor* t) { return reinterpret_cast<::DLManagedTensor*>(t); }
::DLManagedTensorVersioned* as_torch(dl::DLManagedTensorVersioned* t) {
  return reinterpret_cast<::DLManagedTensorVersioned*>(t);
}
dl::DLManagedTensor* as_zeroflow(::DLManagedTensor* t) { return reinterpret_cast<dl::DLManagedTensor*>(t); }
dl::DLManagedTensorVersioned* as_zeroflow(::DLManagedTensorVersioned* t) {
  return reinterpret_cast<dl::DLManagedTensorVersioned*>(t);
}

/// A host array of seeded random floats whose buffer release is counted.
zf::array counted_floats(zf::shape_t shape, std::atomic<int>* releases, unsigned seed) {
  std::int64_t n = 1;
  for (auto e : shape) n *= e;
  auto* memory = new float[static_cast<std::size_t>(n)];
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-10.0f, 10.0f);
  for (std::int64_t k = 0; k < n; ++k) memory[k] = dist(rng);
  auto owner = zf::buffer::adopt(memory, static_cast<std::size_t>(n) * sizeof(float), zf::cpu_device,
                                 [releases](void* p, std::size_t) {
                                   delete[] static_cast<float*>(p);
                                   ++*releases;
                                 });
  return zf::array(owner, zf::float32, std::move(shape));
}

/// Element (i, j) of a 2-D host float array, through its strides.
float at2(const zf::array& a, std::int64_t i, std::int64_t j) {
  return static_cast<const float*>(a.data())[i * a.strides()[0] + j * a.strides()[1]];
}

/// Checks that `t` shows exactly the 2-D float array `a` (same memory, layout and values).
void expect_same_view(const at::Tensor& t, const zf::array& a) {
  EXPECT_EQ(t.data_ptr(), a.data());
  EXPECT_EQ(t.scalar_type(), at::kFloat);
  EXPECT_EQ(std::vector<std::int64_t>(t.sizes().begin(), t.sizes().end()), a.shape());
  EXPECT_EQ(std::vector<std::int64_t>(t.strides().begin(), t.strides().end()), a.strides());
  auto view = t.accessor<float, 2>();
  for (std::int64_t i = 0; i < a.shape(0); ++i)
    for (std::int64_t j = 0; j < a.shape(1); ++j) EXPECT_EQ(view[i][j], at2(a, i, j));
}

// ---- zeroflow -> torch ----------------------------------------------------------------------

TEST(DlpackTorch, LegacyExportBecomesATensorOnTheSameMemory) {
  std::atomic<int> releases{0};
  at::Tensor t;
  {
    zf::array a = counted_floats({3, 4}, &releases, 1);
    t = at::fromDLPack(as_torch(zf::to_dlpack(a)));
    expect_same_view(t, a);
    t.index_put_({1, 2}, 42.0f);  // a write through the tensor is seen by the array
    EXPECT_EQ(at2(a, 1, 2), 42.0f);
  }
  EXPECT_EQ(releases, 0);  // the array is gone, the tensor holds the buffer
  EXPECT_EQ(t[1][2].item<float>(), 42.0f);
  t = at::Tensor();
  EXPECT_EQ(releases, 1);
}

TEST(DlpackTorch, VersionedExportBecomesATensorOnTheSameMemory) {
  std::atomic<int> releases{0};
  {
    zf::array a = counted_floats({5, 6}, &releases, 2);
    at::Tensor t = at::fromDLPackVersioned(as_torch(zf::to_dlpack_versioned(a)));
    expect_same_view(t, a);
    t.mul_(2.0f);
    EXPECT_EQ(t.data_ptr(), a.data());
    EXPECT_EQ(at2(a, 4, 5), t[4][5].item<float>());
    // Views with an offset, steps and a transposition keep pointing at element 0.
    zf::array view = a.slice(0, 1, 5, 2).slice(1, 1, 6, 2);
    at::Tensor tv = at::fromDLPackVersioned(as_torch(zf::to_dlpack_versioned(view)));
    expect_same_view(tv, view);
    EXPECT_EQ(releases, 0);
  }
  EXPECT_EQ(releases, 1);
}

TEST(DlpackTorch, DtypesZeroDimAndZeroSize) {
  auto check = [](zf::dtype type, at::ScalarType expected) {
    zf::array a = zf::zeros({4}, type);
    at::Tensor t = at::fromDLPackVersioned(as_torch(zf::to_dlpack_versioned(a)));
    EXPECT_EQ(t.scalar_type(), expected) << type.name();
    EXPECT_EQ(t.data_ptr(), a.data());
  };
  check(zf::float64, at::kDouble);
  check(zf::int64, at::kLong);
  check(zf::int32, at::kInt);
  check(zf::uint8, at::kByte);
  check(zf::bool8, at::kBool);
  check(zf::bfloat16, at::kBFloat16);

  zf::array scalar = zf::empty({}, zf::float32);
  *scalar.data_as<float>() = 1.25f;
  at::Tensor ts = at::fromDLPack(as_torch(zf::to_dlpack(scalar)));
  EXPECT_EQ(ts.dim(), 0);
  EXPECT_EQ(ts.item<float>(), 1.25f);

  zf::array empty = zf::empty({0, 3}, zf::float32);
  at::Tensor te = at::fromDLPackVersioned(as_torch(zf::to_dlpack_versioned(empty)));
  EXPECT_EQ(te.numel(), 0);
  EXPECT_EQ(te.size(1), 3);
}

// ---- torch -> zeroflow ----------------------------------------------------------------------

/// A tensor over host memory whose freeing is counted, so we see when torch lets go.
at::Tensor counted_tensor(std::int64_t rows, std::int64_t cols, std::atomic<int>* freed) {
  auto* memory = new float[static_cast<std::size_t>(rows * cols)];
  for (std::int64_t k = 0; k < rows * cols; ++k) memory[k] = static_cast<float>(k) * 0.5f - 3.0f;
  return at::from_blob(
      memory, {rows, cols},
      [freed](void* p) {
        delete[] static_cast<float*>(p);
        ++*freed;
      },
      at::kFloat);
}

TEST(DlpackTorch, TorchTensorBecomesAnArrayOnTheSameMemory) {
  for (bool versioned : {true, false}) {
    SCOPED_TRACE(versioned ? "versioned" : "legacy");
    std::atomic<int> freed{0};
    zf::array a;
    {
      at::Tensor t = counted_tensor(4, 6, &freed);
      a = versioned ? zf::from_dlpack(as_zeroflow(at::toDLPackVersioned(t)))
                    : zf::from_dlpack(as_zeroflow(at::toDLPack(t)));
      EXPECT_EQ(a.where(), zf::cpu_device);
      EXPECT_FALSE(a.read_only());
      expect_same_view(t, a);
      a.data_as<float>()[7] = -1.0f;  // and the other way round: torch sees our write
      EXPECT_EQ(t[1][1].item<float>(), -1.0f);
    }
    EXPECT_EQ(freed, 0);  // the tensor is gone, our array holds its storage
    EXPECT_EQ(at2(a, 3, 5), 23 * 0.5f - 3.0f);
    a = zf::array{};
    EXPECT_EQ(freed, 1);
  }
}

TEST(DlpackTorch, TorchViewsKeepTheirLayout) {
  std::atomic<int> freed{0};
  {
    at::Tensor t = counted_tensor(5, 4, &freed);
    at::Tensor narrowed = t.narrow(0, 1, 3).narrow(1, 1, 2);  // storage offset and strides
    zf::array a = zf::from_dlpack(as_zeroflow(at::toDLPackVersioned(narrowed)));
    expect_same_view(narrowed, a);
    at::Tensor transposed = t.t();
    zf::array b = zf::from_dlpack(as_zeroflow(at::toDLPackVersioned(transposed)));
    EXPECT_EQ(b.strides(), (zf::shape_t{1, 4}));
    expect_same_view(transposed, b);
    at::Tensor flags = t.gt(0.0);
    zf::array c = zf::from_dlpack(as_zeroflow(at::toDLPack(flags)));
    EXPECT_EQ(c.type(), zf::bool8);
    EXPECT_EQ(c.data(), flags.data_ptr());
  }
  EXPECT_EQ(freed, 1);
}

// ---- GPU ----------------------------------------------------------------------------------

TEST(DlpackTorch, GpuRoundTrip) {
  if (!zf::cuda_available() || !torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  zf::array a = zf::empty({8, 4}, zf::float32, zf::cuda_device(0));
  {
    at::Tensor t = at::fromDLPackVersioned(as_torch(zf::to_dlpack_versioned(a)));
    EXPECT_TRUE(t.is_cuda());
    EXPECT_EQ(t.device().index(), 0);
    EXPECT_EQ(t.data_ptr(), a.data());
    t.fill_(3.5f);
    torch::cuda::synchronize();
  }
  zf::array host = zf::copy_to(a, zf::cpu_device);
  zf::synchronize({});
  for (float v : host.span<const float>()) EXPECT_EQ(v, 3.5f);

  at::Tensor t = at::arange(12, at::TensorOptions().dtype(at::kFloat).device(at::kCUDA, 0)).reshape({3, 4});
  torch::cuda::synchronize();
  zf::array b = zf::from_dlpack(as_zeroflow(at::toDLPack(t)));
  EXPECT_EQ(b.where(), zf::cuda_device(0));
  EXPECT_EQ(b.data(), t.data_ptr());
  zf::array back = zf::copy_to(b, zf::cpu_device);
  zf::synchronize({});
  auto values = back.span<const float>();
  for (std::size_t k = 0; k < values.size(); ++k) EXPECT_EQ(values[k], static_cast<float>(k));
}

}  // namespace
