#pragma once
/// @file host_resource.hpp
/// Pageable host memory, 256-byte aligned (so SIMD loads and DLPack consumers are happy).
#include "zeroflow/memory/resource.hpp"

namespace zeroflow::memory {

class host_resource final : public resource {
 public:
  [[nodiscard]] device where() const override { return cpu_device; }
  [[nodiscard]] std::string name() const override { return "host"; }

 private:
  void* do_allocate(std::size_t bytes, stream_view stream) override;
  void do_deallocate(void* p, std::size_t bytes, stream_view stream) override;
};

}  // namespace zeroflow::memory
