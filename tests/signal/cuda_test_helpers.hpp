#pragma once
// Shared pieces of the signal layer's GPU tests: a fixture that skips without a GPU and poisons
// every device allocation (so an output element a kernel forgets to write fails the comparison),
// transfers between std::vector and device arrays, exact comparisons, an owned CUDA stream, and
// the comparison of the fields that both segmentation methods fill.
// Compiled in every build; without CUDA the fixture skips and nothing touches a device.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "signal/signal_test_helpers.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/array.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/memory/resource.hpp"
#include "zeroflow/memory/statistics_adaptor.hpp"
#include "zeroflow/signal/segment.hpp"

#if ZEROFLOW_HAS_CUDA
#include <cuda_runtime_api.h>
#endif

namespace zeroflow::signal::testing {

inline constexpr device gpu0 = cuda_device(0);

#if ZEROFLOW_HAS_CUDA
/// Fills every block it hands out with `byte` (in stream order, before any kernel writes it).
class device_poison_resource final : public memory::resource {
 public:
  device_poison_resource(memory::resource_ptr inner, unsigned char byte) : inner_{std::move(inner)}, byte_{byte} {}
  [[nodiscard]] device where() const override { return inner_->where(); }
  [[nodiscard]] std::string name() const override { return "poison(" + inner_->name() + ")"; }

 private:
  void* do_allocate(std::size_t bytes, stream_view stream) override {
    void* p = inner_->allocate(bytes, stream);
    if (cudaMemsetAsync(p, byte_, bytes, stream.value()) != cudaSuccess) {
      inner_->deallocate(p, bytes, stream);
      throw std::runtime_error("device_poison_resource: cudaMemsetAsync failed");
    }
    return p;
  }
  void do_deallocate(void* p, std::size_t bytes, stream_view stream) override { inner_->deallocate(p, bytes, stream); }
  memory::resource_ptr inner_;
  unsigned char byte_;
};

/// A CUDA stream owned by the test. Declare it before the arrays that use it, so that they are
/// released (in its order) before it is destroyed.
class owned_stream {
 public:
  owned_stream() {
    if (cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking) != cudaSuccess)
      throw std::runtime_error("cudaStreamCreate failed");
  }
  owned_stream(const owned_stream&) = delete;
  owned_stream& operator=(const owned_stream&) = delete;
  ~owned_stream() {
    (void)cudaStreamSynchronize(stream_);
    (void)cudaStreamDestroy(stream_);
  }
  [[nodiscard]] stream_view view() const { return stream_view{stream_}; }

 private:
  cudaStream_t stream_{};
};
#endif

/// Runs `body` with a created non-blocking stream (a stream_view) when CUDA is compiled in; the
/// arrays `body` makes are released (on that stream) before the stream is destroyed.
template <class Body>
void on_created_stream([[maybe_unused]] Body&& body) {
#if ZEROFLOW_HAS_CUDA
  const owned_stream stream;
  body(stream.view());
#endif
}

/// Skips without a GPU; poisons device allocations with 0xFF (NaN, −1, 255) unless a test
/// picks another byte with poison_with().
class cuda_signal_test : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
    poison_with(0xFF);
  }
  void TearDown() override {
    if (previous_) memory::set_current_resource(previous_);
    previous_ = nullptr;
  }
  /// Installs a poisoning resource with `byte` for the rest of the test. 0x7F gives a large
  /// finite float (3.4e38), for outputs where NaN is a legitimate value.
  void poison_with([[maybe_unused]] unsigned char byte) {
#if ZEROFLOW_HAS_CUDA
    if (previous_) memory::set_current_resource(previous_);
    previous_ =
        memory::set_current_resource(std::make_shared<device_poison_resource>(memory::current_resource(gpu0), byte));
#endif
  }

 private:
  memory::resource_ptr previous_;
};

/// Installs a statistics adaptor over `where`'s current resource for the scope, and counts
/// what passes through it.
class counted_allocations {
 public:
  explicit counted_allocations(device where)
      : stats_{std::make_shared<memory::statistics_adaptor>(memory::current_resource(where))},
        previous_{memory::set_current_resource(stats_)} {}
  ~counted_allocations() { memory::set_current_resource(previous_); }
  counted_allocations(const counted_allocations&) = delete;
  counted_allocations& operator=(const counted_allocations&) = delete;
  [[nodiscard]] memory::allocation_statistics numbers() const { return stats_->statistics(); }

 private:
  std::shared_ptr<memory::statistics_adaptor> stats_;
  memory::resource_ptr previous_;
};

template <class T>
array to_device(const std::vector<T>& values, stream_view stream = {}) {
  return copy_to(to_array(values), gpu0, stream);
}

/// A device (or host) 1-D array's elements, after the work queued on `stream`.
template <class T>
std::vector<T> from_device(const array& a, stream_view stream = {}) {
  EXPECT_EQ(a.where(), gpu0);
  return to_vector<T>(copy_to(a, cpu_device, stream));
}

/// A float32 array of any shape (on any device) as its elements in order, after the work queued
/// on `stream`.
inline std::vector<float> flat_floats(const array& a, stream_view stream = {}) {
  const array host = copy_to(a, cpu_device, stream);
  return to_vector<float>(host.reshape({host.size()}));
}

/// Bit-for-bit equality, except that any NaN equals any NaN (the GPU's NaNs carry other payloads
/// than x86's) — the tests ask for exactly the host's floats.
inline bool same_float(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

/// Empty when equal; otherwise the first mismatching index and values.
inline std::string float_mismatch(const std::vector<float>& got, const std::vector<float>& want) {
  if (got.size() != want.size()) return "sizes " + std::to_string(got.size()) + " vs " + std::to_string(want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!same_float(got[i], want[i]))
      return "index " + std::to_string(i) + ": GPU " + std::to_string(got[i]) + " vs host " + std::to_string(want[i]);
  return {};
}

template <class T>
std::string int_mismatch(const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size()) return "sizes " + std::to_string(got.size()) + " vs " + std::to_string(want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i])
      return "index " + std::to_string(i) + ": GPU " + std::to_string(+got[i]) + " vs host " + std::to_string(+want[i]);
  return {};
}

/// The fields that segment_beats and segment_recording both fill, GPU against host: the
/// normalisation exactly, the filtered signal, peaks, positions, lengths and histogram, and the
/// rows bit for bit. `what` names the case in failure messages.
inline void expect_same_segmentation_fields(const segmentation& gpu, const segmentation& cpu, stream_view stream,
                                            const std::string& what) {
  EXPECT_EQ(gpu.norm.center, cpu.norm.center) << what;
  EXPECT_EQ(gpu.norm.scale, cpu.norm.scale) << what;
  EXPECT_EQ(float_mismatch(from_device<float>(gpu.filtered, stream), to_vector<float>(cpu.filtered)), "")
      << what << ": filtered";
  EXPECT_EQ(int_mismatch(from_device<std::int64_t>(gpu.peaks, stream), to_vector<std::int64_t>(cpu.peaks)), "")
      << what << ": peaks";
  EXPECT_EQ(int_mismatch(from_device<std::int64_t>(gpu.positions, stream), to_vector<std::int64_t>(cpu.positions)), "")
      << what << ": positions";
  EXPECT_EQ(int_mismatch(from_device<std::int64_t>(gpu.lengths, stream), to_vector<std::int64_t>(cpu.lengths)), "")
      << what << ": lengths";
  EXPECT_EQ(int_mismatch(from_device<std::int64_t>(gpu.histogram, stream), to_vector<std::int64_t>(cpu.histogram)), "")
      << what << ": histogram";
  ASSERT_EQ(gpu.beats.rows.where(), gpu0) << what;
  ASSERT_EQ(gpu.beats.rows.shape(), cpu.beats.rows.shape()) << what;
  EXPECT_EQ(float_mismatch(flat_floats(gpu.beats.rows, stream), flat_floats(cpu.beats.rows)), "") << what << ": rows";
}

}  // namespace zeroflow::signal::testing
