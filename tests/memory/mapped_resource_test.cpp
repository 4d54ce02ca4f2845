// mapped_resource and mapped_device_view beyond the conformance suite: the view is an array on the
// GPU over the very host bytes (kernels read what the host wrote, the host sees what the GPU
// wrote), it keeps the host memory alive, and what is not mapped host memory is refused. GPU tests
// skip without one; the refusals of arguments run anywhere.
#include "zeroflow/memory/mapped_resource.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <numeric>
#include <vector>

#include "memory/memory_test_util.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/memory/host_resource.hpp"
#include "zeroflow/memory/pinned_resource.hpp"

namespace {

using namespace zf_test;

zf::array iota_floats(std::int64_t n, const zm::resource_ptr& mr) {
  zf::array a = zf::empty({n}, zf::float32, {}, mr);
  auto s = a.span<float>();
  std::iota(s.begin(), s.end(), 0.0F);
  return a;
}

std::vector<float> on_host(const zf::array& a) {
  const zf::array host = zf::copy_to(a, zf::cpu_device);
  const auto s = host.span<const float>();
  return {s.begin(), s.end()};
}

}  // namespace

TEST(MappedResource, NeedsAGpu) {
  if (zf::cuda_available()) GTEST_SKIP() << "a GPU is present";
  EXPECT_THROW((void)zm::mapped_resource{}, zf::cuda_error);
  const zf::array host = zf::empty({4}, zf::float32);
  EXPECT_THROW((void)zm::mapped_device_view(host, zf::cuda_device(0)), zf::cuda_error);
}

TEST(MappedDeviceView, RefusesWhatItCannotView) {
  const zf::array host = zf::empty({4}, zf::float32);
  EXPECT_THROW((void)zm::mapped_device_view(host, zf::cpu_device), zf::invalid_argument);
  EXPECT_THROW((void)zm::mapped_device_view(zf::array{}, zf::cuda_device(0)), zf::invalid_argument);
  // Device memory (a borrowed address: never touched) is not host memory to map.
  static float fake[4];
  const zf::array device{zf::buffer::adopt(fake, sizeof fake, zf::cuda_device(0), nullptr), zf::float32, {4}};
  EXPECT_THROW((void)zm::mapped_device_view(device, zf::cuda_device(0)), zf::invalid_argument);
}

TEST(MappedDeviceView, KernelsReadWhatTheHostWroteInPlace) {
  if (!zf::cuda_available()) GTEST_SKIP() << "no GPU";
  const auto mr = std::make_shared<zm::mapped_resource>(0);
  const zf::array host = iota_floats(10000, mr);
  const zf::array view = zm::mapped_device_view(host, zf::cuda_device(0));
  EXPECT_EQ(view.where(), zf::cuda_device(0));
  EXPECT_EQ(view.shape(), host.shape());
  // A strided view gathered on the GPU (a kernel, not a copy engine) reads the host's values.
  const zf::array every_third = zf::copy_to(view.slice(0, 1, 10000, 3), zf::cuda_device(0));
  const std::vector<float> got = on_host(every_third);
  ASSERT_EQ(got.size(), 3333U);
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], static_cast<float>(1 + 3 * i)) << i;
    // What the GPU writes through the view, the host reads in its own array.
#if ZEROFLOW_HAS_CUDA
  ZF_TEST_CUDA(cudaMemsetAsync(view.data(), 0, 400 * sizeof(float), nullptr));
  ZF_TEST_CUDA(cudaStreamSynchronize(nullptr));
#endif
  const auto values = host.span<const float>();
  EXPECT_EQ(values[0], 0.0F);
  EXPECT_EQ(values[399], 0.0F);
  EXPECT_EQ(values[400], 400.0F);
  // Views of views keep the offset and strides.
  const zf::array tail = zm::mapped_device_view(host.slice(0, 9000, 10000), zf::cuda_device(0));
  EXPECT_EQ(on_host(tail).front(), 9000.0F);
}

TEST(MappedDeviceView, KeepsTheHostMemoryUntilTheLastViewGoes) {
  if (!zf::cuda_available()) GTEST_SKIP() << "no GPU";
  const auto counted = std::make_shared<counting_resource>(std::make_shared<zm::mapped_resource>(0));
  zf::array view;
  {
    const zf::array host = iota_floats(1000, counted);
    view = zm::mapped_device_view(host, zf::cuda_device(0));
  }
  EXPECT_EQ(counted->deallocations.load(), 0);
  EXPECT_EQ(on_host(view)[999], 999.0F);
  view = {};
  EXPECT_EQ(counted->deallocations.load(), 1);
}

TEST(MappedDeviceView, PinnedMemoryIsMappedTooButPageableIsRefused) {
  if (!zf::cuda_available()) GTEST_SKIP() << "no GPU";
  // Unified addressing maps every page-locked allocation into the GPUs' address space.
  const zf::array pinned = iota_floats(100, std::make_shared<zm::pinned_resource>());
  EXPECT_EQ(on_host(zm::mapped_device_view(pinned, zf::cuda_device(0)))[42], 42.0F);
  const zf::array pageable = iota_floats(100, std::make_shared<zm::host_resource>());
  EXPECT_THROW((void)zm::mapped_device_view(pageable, zf::cuda_device(0)), zf::invalid_argument);
  EXPECT_THROW((void)zm::mapped_device_view(pinned, zf::cuda_device(zf::cuda_device_count())), zf::invalid_argument);
}
