// One conformance suite for every memory resource, adaptor and some stacks of them: whatever a
// resource is, it must hand out aligned, writable, disjoint memory, in any size, on any stream,
// from several threads at once. CUDA instances skip when no GPU is present.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <random>
#include <thread>

#include "memory/memory_test_util.hpp"
#include "zeroflow/memory/arena_resource.hpp"
#include "zeroflow/memory/cuda_pool_resource.hpp"
#include "zeroflow/memory/host_resource.hpp"
#include "zeroflow/memory/leak_tracking_adaptor.hpp"
#include "zeroflow/memory/limiting_adaptor.hpp"
#include "zeroflow/memory/logging_adaptor.hpp"
#include "zeroflow/memory/mapped_resource.hpp"
#include "zeroflow/memory/pinned_resource.hpp"
#include "zeroflow/memory/statistics_adaptor.hpp"

namespace {

using namespace zf_test;

constexpr std::size_t generous_budget = std::size_t{1} << 30;  // limiting instances must not fail here

struct resource_case {
  std::string label;  // test-name suffix
  std::string name;   // what resource::name() must say
  zf::device where;   // what resource::where() must say
  bool needs_cuda;
  std::function<zm::resource_ptr(std::vector<std::filesystem::path>& scratch)> make;
};

zm::resource_ptr host() { return std::make_shared<zm::host_resource>(); }
zm::resource_ptr pinned() { return std::make_shared<zm::pinned_resource>(); }
zm::resource_ptr mapped() { return std::make_shared<zm::mapped_resource>(); }
zm::resource_ptr pool() { return std::make_shared<zm::cuda_pool_resource>(0); }
zm::resource_ptr statistics(zm::resource_ptr up) { return std::make_shared<zm::statistics_adaptor>(std::move(up)); }
zm::resource_ptr limiting(zm::resource_ptr up) {
  return std::make_shared<zm::limiting_adaptor>(std::move(up), generous_budget);
}
zm::resource_ptr leak_tracking(zm::resource_ptr up) {
  return std::make_shared<zm::leak_tracking_adaptor>(std::move(up));
}
// A small chunk, so that the random sizes below are partly carved and partly passed upstream.
zm::resource_ptr arena(zm::resource_ptr up) {
  return std::make_shared<zm::arena_resource>(std::move(up), std::size_t{1} << 20, std::size_t{64} << 10,
                                              zf::stream_view{});
}
zm::resource_ptr logging(zm::resource_ptr up, std::vector<std::filesystem::path>& scratch) {
  scratch.push_back(scratch_path("conformance_log_" + std::to_string(scratch.size()) + ".csv"));
  return std::make_shared<zm::logging_adaptor>(std::move(up), scratch.back());
}

std::vector<resource_case> all_cases() {
  const zf::device cpu = zf::cpu_device, pinned_host{zf::device_type::cuda_host, 0}, gpu = zf::cuda_device(0);
  return {
      {"host", "host", cpu, false, [](auto&) { return host(); }},
      {"default_cpu", "host", cpu, false, [](auto&) { return zm::make_default_resource(zf::cpu_device); }},
      {"pinned", "pinned", pinned_host, true, [](auto&) { return pinned(); }},
      {"mapped", "mapped", pinned_host, true, [](auto&) { return mapped(); }},
      {"cuda_pool", "cuda_pool", gpu, true, [](auto&) { return pool(); }},
      {"statistics_host", "statistics(host)", cpu, false, [](auto&) { return statistics(host()); }},
      {"limiting_host", "limiting(host)", cpu, false, [](auto&) { return limiting(host()); }},
      {"logging_host", "logging(host)", cpu, false, [](auto& s) { return logging(host(), s); }},
      {"leak_tracking_host", "leak_tracking(host)", cpu, false, [](auto&) { return leak_tracking(host()); }},
      {"statistics_leak_tracking_limiting_host", "statistics(leak_tracking(limiting(host)))", cpu, false,
       [](auto&) { return statistics(leak_tracking(limiting(host()))); }},
      {"statistics_limiting_cuda_pool", "statistics(limiting(cuda_pool))", gpu, true,
       [](auto&) { return statistics(limiting(pool())); }},
      {"leak_tracking_pinned", "leak_tracking(pinned)", pinned_host, true,
       [](auto&) { return leak_tracking(pinned()); }},
      {"statistics_limiting_mapped", "statistics(limiting(mapped))", pinned_host, true,
       [](auto&) { return statistics(limiting(mapped())); }},
      {"arena_host", "arena(host)", cpu, false, [](auto&) { return arena(host()); }},
      {"arena_statistics_cuda_pool", "arena(statistics(cuda_pool))", gpu, true,
       [](auto&) { return arena(statistics(pool())); }},
      {"logging_leak_tracking_cuda_pool", "logging(leak_tracking(cuda_pool))", gpu, true,
       [](auto& s) { return logging(leak_tracking(pool()), s); }},
  };
}

class ResourceConformance : public ::testing::TestWithParam<resource_case> {
 protected:
  void SetUp() override {
    if (GetParam().needs_cuda && !zf::cuda_available()) GTEST_SKIP() << GetParam().name << " needs a GPU";
    mr_ = GetParam().make(scratch_);
  }
  void TearDown() override {
    mr_.reset();
    for (const auto& p : scratch_) std::filesystem::remove(p);
  }

  struct block {
    void* p;
    std::size_t bytes;
    std::uint64_t seed;
  };

  /// Allocates, checks alignment and writes the block's own pattern into it.
  block make_block(std::size_t bytes, std::uint64_t seed, zf::stream_view s = {}) {
    void* p = mr_->allocate(bytes, s);
    EXPECT_NE(p, nullptr) << bytes << " bytes";
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 256, 0u) << p << " (" << bytes << " bytes) is not 256-byte aligned";
    write_bytes(mr_->where(), p, pattern(bytes, seed).data(), bytes, s);
    return {p, bytes, seed};
  }
  /// The block still holds exactly its own pattern.
  void expect_intact(const block& b, zf::stream_view s = {}) {
    EXPECT_EQ(read_bytes(mr_->where(), b.p, b.bytes, s), pattern(b.bytes, b.seed))
        << b.bytes << "-byte block at " << b.p << " was overwritten";
  }

  zm::resource_ptr mr_;
  std::vector<std::filesystem::path> scratch_;
};

TEST_P(ResourceConformance, ReportsItsDeviceAndName) {
  EXPECT_EQ(mr_->where(), GetParam().where);
  EXPECT_EQ(mr_->name(), GetParam().name);
}

TEST_P(ResourceConformance, ZeroBytesIsNullAndNullReleaseIsANoOp) {
  EXPECT_EQ(mr_->allocate(0, {}), nullptr);
  EXPECT_NO_THROW(mr_->deallocate(nullptr, 0, {}));
}

TEST_P(ResourceConformance, OneByteIsUsable) {
  const block b = make_block(1, 7);
  expect_intact(b);
  mr_->deallocate(b.p, b.bytes, {});
}

TEST_P(ResourceConformance, RandomSizesAreAlignedWritableAndDisjoint) {
  std::mt19937_64 rng(20240601);
  std::vector<std::size_t> sizes{1, 2, 3, 7, 255, 256, 257, 4095, 4096, 65537, std::size_t{1} << 20, 5u << 20};
  // Log-uniform sizes from 1 byte to 256 KiB: many small blocks, some large.
  std::uniform_real_distribution<double> log_size(0.0, 18.0);
  for (int i = 0; i < 150; ++i) sizes.push_back(static_cast<std::size_t>(std::exp2(log_size(rng))));
  std::shuffle(sizes.begin(), sizes.end(), rng);

  std::vector<block> blocks;
  for (std::size_t i = 0; i < sizes.size(); ++i) blocks.push_back(make_block(sizes[i], i + 1));
  // Written all first, checked all after: a block sharing bytes with another would now differ.
  for (const auto& b : blocks) expect_intact(b);
  auto sorted = blocks;
  std::sort(sorted.begin(), sorted.end(), [](const block& a, const block& b) { return a.p < b.p; });
  for (std::size_t i = 1; i < sorted.size(); ++i) {
    const auto end_of_previous = reinterpret_cast<std::uintptr_t>(sorted[i - 1].p) + sorted[i - 1].bytes;
    EXPECT_LE(end_of_previous, reinterpret_cast<std::uintptr_t>(sorted[i].p))
        << "blocks at " << sorted[i - 1].p << " and " << sorted[i].p << " overlap";
  }
  std::shuffle(blocks.begin(), blocks.end(), rng);
  for (const auto& b : blocks) mr_->deallocate(b.p, b.bytes, {});
}

TEST_P(ResourceConformance, InterleavedAllocateAndDeallocateReusesMemorySafely) {
  std::mt19937_64 rng(99);
  std::uniform_int_distribution<std::size_t> size(0, 3000);
  std::vector<block> live;
  for (std::uint64_t op = 0; op < 600; ++op) {
    if (!live.empty() && rng() % 3 == 0) {
      const auto victim = rng() % live.size();
      expect_intact(live[victim]);
      mr_->deallocate(live[victim].p, live[victim].bytes, {});
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(victim));
    } else {
      const std::size_t bytes = size(rng);
      if (bytes == 0) {
        EXPECT_EQ(mr_->allocate(0, {}), nullptr);
        continue;
      }
      live.push_back(make_block(bytes, op + 1000));
    }
  }
  for (const auto& b : live) {
    expect_intact(b);
    mr_->deallocate(b.p, b.bytes, {});
  }
}

TEST_P(ResourceConformance, WorksOnANonDefaultStream) {
  test_stream stream;
  std::vector<block> blocks;
  for (std::size_t bytes : {1u, 300u, 4096u, 100000u}) blocks.push_back(make_block(bytes, bytes, stream.view()));
  for (const auto& b : blocks) expect_intact(b, stream.view());
  for (const auto& b : blocks) mr_->deallocate(b.p, b.bytes, stream.view());
  // Memory given back on the stream is reusable on the stream.
  const block again = make_block(4096, 5, stream.view());
  expect_intact(again, stream.view());
  mr_->deallocate(again.p, again.bytes, stream.view());
#if ZEROFLOW_HAS_CUDA
  if (zf::cuda_available()) {
    ASSERT_EQ(cudaStreamSynchronize(stream.view().value()), cudaSuccess);
  }
#endif
}

TEST_P(ResourceConformance, ConcurrentThreadsGetDisjointMemory) {
  constexpr int threads = 8;
  constexpr int ops = 150;
  std::vector<std::vector<block>> kept(threads);
  std::atomic<int> failures{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      try {
        std::mt19937_64 rng(static_cast<std::uint64_t>(t) * 7919 + 1);
        std::vector<block> live;
        for (int op = 0; op < ops; ++op) {
          if (!live.empty() && rng() % 2 == 0) {
            const block b = live.back();
            live.pop_back();
            if (read_bytes(mr_->where(), b.p, b.bytes) != pattern(b.bytes, b.seed)) ++failures;
            mr_->deallocate(b.p, b.bytes, {});
          } else {
            const std::size_t bytes = 1 + rng() % 5000;
            const std::uint64_t seed = (static_cast<std::uint64_t>(t) << 32) | static_cast<std::uint64_t>(op);
            void* p = mr_->allocate(bytes, {});
            if (p == nullptr || reinterpret_cast<std::uintptr_t>(p) % 256 != 0) ++failures;
            write_bytes(mr_->where(), p, pattern(bytes, seed).data(), bytes);
            live.push_back({p, bytes, seed});
          }
        }
        kept[static_cast<std::size_t>(t)] = std::move(live);
      } catch (const std::exception& e) {
        ADD_FAILURE() << "thread " << t << ": " << e.what();
        ++failures;
      }
    });
  }
  for (auto& th : pool) th.join();
  EXPECT_EQ(failures.load(), 0);
  // Everything still live across all threads holds its own pattern, i.e. nothing was shared.
  for (const auto& live : kept)
    for (const auto& b : live) {
      expect_intact(b);
      mr_->deallocate(b.p, b.bytes, {});
    }
}

INSTANTIATE_TEST_SUITE_P(Memory, ResourceConformance, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<resource_case>& param) { return param.param.label; });

}  // namespace
