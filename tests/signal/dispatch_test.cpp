// Device arrays reach the CUDA implementations. In a build without CUDA these are the stand-ins
// of cuda_unavailable.cpp, which throw cuda_error without touching the (fake) device pointer;
// CUDA builds test the real kernels against the host versions in their own tests.
#include <gtest/gtest.h>

#include "zeroflow/config.hpp"
#include "zeroflow/core/buffer.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/signal/segment.hpp"

namespace zf = zeroflow;
namespace sig = zeroflow::signal;

TEST(SignalDispatch, DeviceArraysGoToTheCudaPath) {
#if ZEROFLOW_HAS_CUDA
  GTEST_SKIP() << "CUDA build: the CUDA signal tests cover the device path";
#else
  // Never dereferenced: the stand-ins throw first.
  auto fake = zf::buffer::adopt(reinterpret_cast<void*>(std::uintptr_t{0x1000}), 4096, zf::cuda_device(0), nullptr);
  const zf::array x(fake, zf::float32, {1000});
  const zf::array p(fake, zf::int64, {10});
  const zf::array g(fake, zf::uint8, {1000});
  EXPECT_THROW((void)sig::ricker_kernel(30, zf::cuda_device(0), {}), zf::cuda_error);
  EXPECT_THROW((void)sig::bandpass(x, 30, {}), zf::cuda_error);
  EXPECT_THROW((void)sig::nms_gate(x, 180, {}), zf::cuda_error);
  EXPECT_THROW((void)sig::gate_positions(g, {}), zf::cuda_error);
  EXPECT_THROW((void)sig::beat_lengths(p, {}), zf::cuda_error);
  EXPECT_THROW((void)sig::length_histogram(p, 10, {}), zf::cuda_error);
  EXPECT_THROW((void)sig::locate_peaks(x, p, 180, 30, 0, {}), zf::cuda_error);
  EXPECT_THROW((void)sig::robust_zscore(x, {}), zf::cuda_error);
  EXPECT_THROW((void)sig::embed_beats(x, p, p.slice(0, 0, 9), 1, 2, 16, {}, {}), zf::cuda_error);
  EXPECT_THROW((void)sig::segment_beats(x, {}, {}), zf::cuda_error);
  // Argument errors are found before dispatch, the same on every device.
  EXPECT_THROW((void)sig::bandpass(x, 0, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::bandpass(x.slice(0, 0, 1000, 2), 30, {}), zf::invalid_argument);  // strided device array
#endif
}
