#pragma once
// Shared helpers of the signal tests: host arrays from vectors and back, and a fixture whose
// host allocations come back filled with 0xFF bytes (NaN as float, -1 as int64, 255 as uint8),
// so an output element an implementation forgets to write fails the comparison.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "zeroflow/core/array.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/memory/resource.hpp"

namespace zeroflow::signal::testing {

class poison_resource final : public memory::resource {
 public:
  explicit poison_resource(memory::resource_ptr inner) : inner_{std::move(inner)} {}
  [[nodiscard]] device where() const override { return inner_->where(); }
  [[nodiscard]] std::string name() const override { return "poison(" + inner_->name() + ")"; }

 private:
  void* do_allocate(std::size_t bytes, stream_view stream) override {
    void* p = inner_->allocate(bytes, stream);
    std::memset(p, 0xFF, bytes);
    return p;
  }
  void do_deallocate(void* p, std::size_t bytes, stream_view stream) override { inner_->deallocate(p, bytes, stream); }
  memory::resource_ptr inner_;
};

/// Every host allocation during a test is poisoned.
class poisoned_host : public ::testing::Test {
 protected:
  void SetUp() override {
    previous_ = memory::set_current_resource(std::make_shared<poison_resource>(memory::current_resource(cpu_device)));
  }
  void TearDown() override { memory::set_current_resource(previous_); }

 private:
  memory::resource_ptr previous_;
};

template <class T>
array to_array(const std::vector<T>& values) {
  array out = empty({static_cast<std::int64_t>(values.size())}, dtype_of<T>(), cpu_device, stream_view{});
  if (!values.empty()) std::memcpy(out.data(), values.data(), values.size() * sizeof(T));
  return out;
}

/// Elements of a contiguous array on any device, copied to the host.
template <class T>
std::vector<T> host_vector(const array& a) {
  const array h = copy_to(a, cpu_device);
  const auto s = h.span<const T>();
  return {s.begin(), s.end()};
}

/// Elements of a 1-D host array of any stride.
template <class T>
std::vector<T> to_vector(const array& a) {
  EXPECT_EQ(a.ndim(), 1);
  EXPECT_EQ(a.type(), dtype_of<T>());
  std::vector<T> out(static_cast<std::size_t>(a.size()));
  const auto* base = static_cast<const T*>(a.data());
  for (std::int64_t i = 0; i < a.size(); ++i) out[static_cast<std::size_t>(i)] = base[i * a.strides()[0]];
  return out;
}

}  // namespace zeroflow::signal::testing
