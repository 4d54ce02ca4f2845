// zeroflow arrays ⇄ LibTorch tensors through DLPack: same memory, shapes and strides, and each
// side keeps the other's memory alive.
#include "interop/torch/tensor_bridge.hpp"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/cuda.h>

#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zf = zeroflow;
using zf::interop::detail::to_array;
using zf::interop::detail::to_tensor;

namespace {

zf::array iota_rows(std::int64_t rows, std::int64_t cols) {
  zf::array a = zf::empty({rows, cols}, zf::float32);
  auto s = a.span<float>();
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = static_cast<float>(i) + 0.5F;
  return a;
}

bool have_gpu() { return zf::cuda_available() && torch::cuda::is_available(); }

}  // namespace

TEST(TensorBridge, HostArrayBecomesATensorWithoutACopy) {
  zf::array a = iota_rows(5, 8);
  const auto owner = a.owner();
  const long refs = owner.use_count();
  {
    const at::Tensor t = to_tensor(a);
    EXPECT_EQ(t.data_ptr(), a.data());
    EXPECT_EQ(t.scalar_type(), at::kFloat);
    EXPECT_TRUE(t.device().is_cpu());
    EXPECT_EQ(t.sizes(), (std::vector<std::int64_t>{5, 8}));
    EXPECT_EQ(t.strides(), (std::vector<std::int64_t>{8, 1}));
    // Same memory: a write through the array shows in the tensor.
    a.span<float>()[13] = -7.0F;
    EXPECT_EQ(t[1][5].item<float>(), -7.0F);
    EXPECT_GT(owner.use_count(), refs);  // the tensor holds the buffer
    a = zf::array{};                     // drop the array: the tensor keeps the memory alive
    EXPECT_EQ(t[4][7].item<float>(), 39.5F);
  }
  EXPECT_EQ(owner.use_count(), refs - 1);  // the tensor's deleter gave its reference back
}

TEST(TensorBridge, StridedViewsKeepTheirLayout) {
  const zf::array a = iota_rows(6, 4);
  const zf::array every_other = a.slice(0, 1, 6, 2);  // rows 1, 3, 5
  const at::Tensor t = to_tensor(every_other);
  EXPECT_EQ(t.data_ptr(), every_other.data());
  EXPECT_EQ(t.sizes(), (std::vector<std::int64_t>{3, 4}));
  EXPECT_EQ(t.strides(), (std::vector<std::int64_t>{8, 1}));
  EXPECT_EQ(t[2][3].item<float>(), 23.5F);    // row 5, column 3
  const zf::array column = a.slice(1, 2, 3);  // one column, row stride 4
  const at::Tensor c = to_tensor(column);
  EXPECT_EQ(c.data_ptr(), column.data());
  EXPECT_EQ(c[5][0].item<float>(), 22.5F);
}

TEST(TensorBridge, Int64ArraysBecomeLongTensors) {
  zf::array a = zf::empty({3}, zf::int64);
  a.span<std::int64_t>()[2] = 1LL << 40;
  const at::Tensor t = to_tensor(a);
  EXPECT_EQ(t.scalar_type(), at::kLong);
  EXPECT_EQ(t[2].item<std::int64_t>(), 1LL << 40);
}

TEST(TensorBridge, TensorBecomesAnArrayWithoutACopy) {
  at::Tensor t = at::arange(12, at::kFloat).reshape({3, 4});
  const void* p = t.data_ptr();
  zf::array a = to_array(t);
  EXPECT_EQ(a.data(), p);
  EXPECT_EQ(a.type(), zf::float32);
  EXPECT_EQ(a.where(), zf::cpu_device);
  EXPECT_EQ(a.shape(), (zf::shape_t{3, 4}));
  t.fill_(0);  // same memory
  EXPECT_EQ(a.span<const float>()[11], 0.0F);
  t.index_put_({2, 3}, 5.0F);
  t = at::Tensor{};  // the array keeps the storage alive
  EXPECT_EQ(a.span<const float>()[11], 5.0F);

  const at::Tensor base = at::arange(6, at::kFloat).reshape({2, 3});
  const zf::array transposed = to_array(base.t());
  EXPECT_EQ(transposed.shape(), (zf::shape_t{3, 2}));
  EXPECT_EQ(transposed.strides(), (zf::shape_t{1, 3}));
  EXPECT_EQ(transposed.data(), base.data_ptr());
}

TEST(TensorBridge, RoundTripIsTheSameMemory) {
  const zf::array a = iota_rows(4, 4);
  const zf::array back = to_array(to_tensor(a));
  EXPECT_EQ(back.data(), a.data());
  EXPECT_EQ(back.shape(), a.shape());
  EXPECT_EQ(back.strides(), a.strides());
}

TEST(TensorBridge, DeviceNames) {
  using zf::interop::detail::from_torch;
  using zf::interop::detail::to_torch;
  EXPECT_EQ(to_torch(zf::cpu_device), c10::Device(c10::DeviceType::CPU));
  EXPECT_EQ(to_torch(zf::cuda_device(1)), c10::Device(c10::DeviceType::CUDA, 1));
  EXPECT_EQ(to_torch(zf::device{zf::device_type::cuda_host, 0}), c10::Device(c10::DeviceType::CPU));
  EXPECT_EQ(from_torch(c10::Device(c10::DeviceType::CUDA, 2)), zf::cuda_device(2));
  EXPECT_EQ(from_torch(c10::Device(c10::DeviceType::CPU)), zf::cpu_device);
  EXPECT_THROW((void)from_torch(c10::Device(c10::DeviceType::Meta)), zf::invalid_argument);
  EXPECT_THROW((void)to_tensor(zf::array{}), zf::invalid_argument);
}

TEST(TensorBridge, CudaArrayBecomesACudaTensorWithoutACopy) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  const zf::array host = iota_rows(8, 16);
  const zf::array a = zf::copy_to(host, zf::cuda_device(0));
  const at::Tensor t = to_tensor(a);
  EXPECT_TRUE(t.is_cuda());
  EXPECT_EQ(t.device().index(), 0);
  EXPECT_EQ(t.data_ptr(), a.data());
  EXPECT_EQ(t[7][15].item<float>(), 127.5F);

  const at::Tensor u = at::arange(10, at::TensorOptions().dtype(at::kFloat).device(at::kCUDA, 0));
  const zf::array b = to_array(u);
  EXPECT_EQ(b.where(), zf::cuda_device(0));
  EXPECT_EQ(b.data(), u.data_ptr());
  const zf::array back = zf::copy_to(b, zf::cpu_device);
  EXPECT_EQ(back.span<const float>()[9], 9.0F);
}
