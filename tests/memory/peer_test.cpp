// to_device: the same device hands the array back; GPU to GPU hands over a view of the source's
// bytes where peer access allows it — read there by a kernel on the target and exported to DLPack
// as the target's — and a copy otherwise. The GPU-to-GPU cases skip on machines with one GPU.
#include "zeroflow/memory/peer.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/dtype.hpp"
#include "zeroflow/interop/dlpack.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/decimate.hpp"

namespace {

namespace zf = zeroflow;

zf::array host_ramp(std::int64_t n) {
  zf::array a = zf::empty({n}, zf::float32);
  auto* v = a.data_as<float>();
  for (std::int64_t i = 0; i < n; ++i) v[i] = static_cast<float>((i * 7919) % 10007) - 5000.0F;
  return a;
}

std::vector<float> values_of(const zf::array& a) {
  const zf::array h = zf::copy_to(a, zf::cpu_device);
  const auto* v = h.data_as<float>();
  return {v, v + h.size()};
}

TEST(ToDevice, TheSameDeviceHandsTheArrayBack) {
  const zf::array a = host_ramp(10);
  const zf::device_handoff h = zf::to_device(a, zf::cpu_device);
  EXPECT_TRUE(h.zero_copy);
  EXPECT_EQ(h.data.data(), a.data());
  EXPECT_FALSE(zf::peer_access_possible(zf::cpu_device, zf::cpu_device));
  EXPECT_FALSE(zf::peer_access_possible(zf::cuda_device(0), zf::cuda_device(0)));
  EXPECT_THROW((void)zf::to_device(zf::array{}, zf::cpu_device), zf::invalid_argument);
}

TEST(ToDeviceCuda, AViewWherePeerAccessAllowsACopyOtherwise) {
  if (zf::cuda_device_count() < 2) GTEST_SKIP() << "needs two GPUs";
  const std::int64_t n = 1 << 20;
  const zf::array host = host_ramp(n);
  zf::device_handoff view;
  {
    const zf::array on0 = zf::copy_to(host, zf::cuda_device(0));
    view = zf::to_device(on0, zf::cuda_device(1));
    ASSERT_EQ(view.zero_copy, zf::peer_access_possible(zf::cuda_device(1), zf::cuda_device(0)));
    EXPECT_EQ(view.data.where(), zf::cuda_device(1));
    if (view.zero_copy) {
      EXPECT_EQ(view.data.data(), on0.data());
    }
  }  // the source array is gone; the view keeps its memory alive
  // A kernel on GPU 1 reads the handed-over bytes: the same buckets as the host's.
  const zf::array decimated = zf::signal::minmax_decimate(view.data, 1000, zf::stream_view{});
  EXPECT_EQ(decimated.where(), zf::cuda_device(1));
  EXPECT_EQ(values_of(decimated), values_of(zf::signal::minmax_decimate(host, 1000, zf::stream_view{})));
  // Exported, it says GPU 1: a DLPack consumer there reads GPU 0's bytes.
  zf::dlpack::DLManagedTensorVersioned* exported = zf::to_dlpack_versioned(view.data);
  EXPECT_EQ(exported->dl_tensor.device.device_id, 1);
  EXPECT_EQ(exported->dl_tensor.data, view.data.data());
  exported->deleter(exported);

  // always_copy: new memory on GPU 1 with the same values.
  const zf::array on0 = zf::copy_to(host, zf::cuda_device(0));
  const zf::device_handoff copied = zf::to_device(on0, zf::cuda_device(1), zf::peer_policy::always_copy);
  EXPECT_FALSE(copied.zero_copy);
  EXPECT_EQ(copied.data.where(), zf::cuda_device(1));
  EXPECT_NE(copied.data.data(), on0.data());
  EXPECT_EQ(values_of(copied.data), values_of(host));
  // Strided views are handed over as views too (or copied C-contiguous).
  const zf::array every_third = on0.slice(0, 1, n, 3);
  const zf::device_handoff strided = zf::to_device(every_third, zf::cuda_device(1));
  EXPECT_EQ(values_of(strided.data), values_of(every_third));
}

}  // namespace
