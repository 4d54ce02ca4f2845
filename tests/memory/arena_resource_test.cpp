// arena_resource (one upstream chunk carved into many allocations) and scoped_resource (a current
// resource for one thread and one scope).
#include "zeroflow/memory/arena_resource.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <tuple>
#include <vector>

#include "memory/memory_test_util.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/memory/host_resource.hpp"
#include "zeroflow/memory/statistics_adaptor.hpp"

namespace {

using namespace zf_test;

auto address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

struct arena_fixture : ::testing::Test {
  std::shared_ptr<counting_resource> upstream =
      std::make_shared<counting_resource>(std::make_shared<zm::host_resource>());
  zf::stream_view home = zf::stream_view::per_thread();
};

using ArenaResource = arena_fixture;

TEST_F(ArenaResource, CarvesSmallAllocationsFromOneUpstreamChunkInOrder) {
  auto arena = std::make_shared<zm::arena_resource>(upstream, 10000, 4096, home);
  EXPECT_EQ(upstream->allocations.load(), 1);
  EXPECT_EQ(arena->chunk_bytes(), 10240u) << "rounded up to 256 bytes";
  void* a = arena->allocate(1, home);
  void* b = arena->allocate(300, home);
  void* c = arena->allocate(4096, home);
  EXPECT_EQ(upstream->allocations.load(), 1) << "no upstream call for carved memory";
  EXPECT_EQ(address(a) % 256, 0u);
  EXPECT_EQ(address(b), address(a) + 256);
  EXPECT_EQ(address(c), address(b) + 512);
  EXPECT_EQ(arena->carved_bytes(), 256u + 512u + 4096u);
  EXPECT_EQ(arena->passed_on(), 0u);
  arena->deallocate(b, 300, home);
  EXPECT_EQ(upstream->deallocations.load(), 0) << "a carved release frees nothing";
  void* d = arena->allocate(100, home);
  EXPECT_EQ(address(d), address(c) + 4096) << "monotonic: released space is not reused";
  arena->deallocate(a, 1, home);
  arena->deallocate(c, 4096, home);
  arena->deallocate(d, 100, home);
  arena.reset();
  EXPECT_EQ(upstream->deallocations.load(), 1) << "the chunk goes back with the arena";
}

TEST_F(ArenaResource, PassesOnWhatIsTooLargeDoesNotFitOrIsOnAnotherStream) {
  auto arena = std::make_shared<zm::arena_resource>(upstream, 2048, 1024, home);
  void* large = arena->allocate(1025, home);  // over largest_carved
  EXPECT_EQ(upstream->allocations.load(), 2);
  void* a = arena->allocate(1024, home);
  void* b = arena->allocate(1024, home);
  EXPECT_EQ(upstream->allocations.load(), 2) << "two 1 KiB carves fill the 2 KiB chunk";
  void* no_room = arena->allocate(1, home);
  void* elsewhere = arena->allocate(16, zf::stream_view::legacy());
  EXPECT_EQ(upstream->allocations.load(), 4);
  EXPECT_EQ(arena->passed_on(), 3u);
  // Passed-on memory goes back to upstream at once, carved memory with its chunk.
  for (auto [p, bytes, stream] : {std::tuple{large, 1025, home}, std::tuple{no_room, 1, home},
                                  std::tuple{elsewhere, 16, zf::stream_view::legacy()}})
    arena->deallocate(p, static_cast<std::size_t>(bytes), stream);
  EXPECT_EQ(upstream->deallocations.load(), 3);
  arena->deallocate(a, 1024, home);
  arena->deallocate(b, 1024, home);
  EXPECT_EQ(upstream->deallocations.load(), 3);
  arena.reset();
  EXPECT_EQ(upstream->deallocations.load(), 4);
}

TEST_F(ArenaResource, ArraysKeepTheChunkUntilTheLastOneGoes) {
  zf::array kept;
  {
    auto arena = std::make_shared<zm::arena_resource>(upstream, 4096, 4096, home);
    zf::array scratch = zf::empty({64}, zf::float32, home, arena);
    kept = zf::empty({8}, zf::int64, home, arena);
    EXPECT_EQ(address(kept.data()), address(scratch.data()) + 256);
  }
  EXPECT_EQ(upstream->deallocations.load(), 0) << "the arena lives on in `kept`";
  kept.data_as<std::int64_t>()[7] = 42;  // still usable
  kept = zf::array{};
  EXPECT_EQ(upstream->deallocations.load(), 1);
  EXPECT_EQ(upstream->allocations.load(), 1);
}

TEST_F(ArenaResource, RejectsANullUpstream) {
  EXPECT_THROW(zm::arena_resource(nullptr, 1024, 1024, home), zf::invalid_argument);
}

TEST(ScopedResource, IsCurrentForThisThreadAndScopeOnly) {
  const auto global = zm::current_resource(zf::cpu_device);
  auto mine = std::make_shared<zm::statistics_adaptor>(global);
  {
    zm::scoped_resource scope(mine);
    EXPECT_EQ(zm::current_resource(zf::cpu_device), mine);
    zm::resource_ptr seen_elsewhere;
    std::thread other([&] { seen_elsewhere = zm::current_resource(zf::cpu_device); });
    other.join();
    EXPECT_EQ(seen_elsewhere, global) << "another thread keeps the process-wide resource";
    zf::array a = zf::empty({5}, zf::float64);
    EXPECT_EQ(mine->statistics().current_bytes, 40u);
  }
  EXPECT_EQ(zm::current_resource(zf::cpu_device), global);
  EXPECT_EQ(mine->statistics().current_count, 0);
}

TEST(ScopedResource, NestsAndLeavesOtherDevicesAlone) {
  const auto global = zm::current_resource(zf::cpu_device);
  auto outer = std::make_shared<zm::statistics_adaptor>(global);
  auto inner = std::make_shared<zm::statistics_adaptor>(global);
  {
    zm::scoped_resource a(outer);
    {
      zm::scoped_resource b(inner);
      EXPECT_EQ(zm::current_resource(zf::cpu_device), inner);
    }
    EXPECT_EQ(zm::current_resource(zf::cpu_device), outer);
    if (zf::cuda_available()) {
      EXPECT_NE(zm::current_resource(zf::cuda_device(0)), outer);
    }
  }
  EXPECT_EQ(zm::current_resource(zf::cpu_device), global);
  EXPECT_THROW(zm::scoped_resource(nullptr), zf::invalid_argument);
}

TEST(ScopedResource, SetCurrentResourceDoesNotOverrideAScope) {
  const auto global = zm::current_resource(zf::cpu_device);
  auto mine = std::make_shared<zm::statistics_adaptor>(global);
  auto replacement = std::make_shared<zm::statistics_adaptor>(global);
  zm::scoped_resource scope(mine);
  {
    scoped_current_resource swap(replacement);
    EXPECT_EQ(zm::current_resource(zf::cpu_device), mine) << "the thread's scope wins";
  }
}

}  // namespace
