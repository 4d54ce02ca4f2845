// The per-device current resource, and that every array allocation goes through it.
#include <gtest/gtest.h>

#include "memory/memory_test_util.hpp"
#include "zeroflow/memory/all.hpp"
#include "zeroflow/memory/cuda_pool_resource.hpp"
#include "zeroflow/memory/host_resource.hpp"
#include "zeroflow/memory/pinned_resource.hpp"
#include "zeroflow/memory/statistics_adaptor.hpp"

namespace {

using namespace zf_test;

TEST(CurrentResource, SetAndGetRoundTripAndReturnThePrevious) {
  const auto original = zm::current_resource(zf::cpu_device);
  ASSERT_NE(original, nullptr);
  EXPECT_EQ(zm::current_resource(zf::cpu_device), original) << "the default is made once and kept";
  auto stats = std::make_shared<zm::statistics_adaptor>(original);
  EXPECT_EQ(zm::set_current_resource(stats), original);
  EXPECT_EQ(zm::current_resource(zf::cpu_device), stats);
  EXPECT_EQ(zm::set_current_resource(original), stats);
  EXPECT_EQ(zm::current_resource(zf::cpu_device), original);
}

TEST(CurrentResource, RejectsNull) { EXPECT_THROW(zm::set_current_resource(nullptr), zf::invalid_argument); }

TEST(CurrentResource, EmptyAndZerosAllocateThroughIt) {
  auto stats = std::make_shared<zm::statistics_adaptor>(zm::current_resource(zf::cpu_device));
  {
    scoped_current_resource use(stats);
    zf::array a = zf::empty({10, 3}, zf::float32);
    auto s = stats->statistics();
    EXPECT_EQ(s.current_count, 1);
    EXPECT_EQ(s.current_bytes, 120u);
    {
      zf::array z = zf::zeros({7}, zf::int64);
      EXPECT_EQ(stats->statistics().current_bytes, 120u + 56u);
    }
    EXPECT_EQ(stats->statistics().current_bytes, 120u);
    zf::array c = zf::copy_to(a, zf::cpu_device);
    EXPECT_EQ(stats->statistics().current_bytes, 240u);
    EXPECT_EQ(stats->statistics().total_count, 3);
  }
  EXPECT_EQ(stats->statistics().current_bytes, 0u);
  EXPECT_EQ(stats->statistics().current_count, 0);
}

TEST(CurrentResource, ArraysKeepTheResourceThatMadeThemAfterASwap) {
  auto stats = std::make_shared<zm::statistics_adaptor>(zm::current_resource(zf::cpu_device));
  zf::array kept;
  {
    scoped_current_resource use(stats);
    kept = zf::empty({16}, zf::uint8);
  }
  EXPECT_NE(zm::current_resource(zf::cpu_device), stats);
  EXPECT_EQ(stats->statistics().current_count, 1);
  kept = zf::array{};  // released to the adaptor that allocated it, not the current one
  EXPECT_EQ(stats->statistics().current_count, 0);
}

TEST(CurrentResource, AnExplicitResourceBypassesTheCurrentOne) {
  auto current = std::make_shared<zm::statistics_adaptor>(zm::current_resource(zf::cpu_device));
  auto explicit_mr = std::make_shared<zm::statistics_adaptor>(std::make_shared<zm::host_resource>());
  scoped_current_resource use(current);
  zf::array a = zf::empty({4}, zf::float32, zf::stream_view{}, explicit_mr);
  EXPECT_EQ(current->statistics().total_count, 0);
  EXPECT_EQ(explicit_mr->statistics().current_bytes, 16u);
}

TEST(DefaultResource, IsHostForCpuAndTheCudaKindsOtherwise) {
  EXPECT_EQ(zm::make_default_resource(zf::cpu_device)->name(), "host");
  EXPECT_THROW((void)zm::make_default_resource({zf::device_type::cuda_managed, 0}), zf::cuda_error);
  if (!zf::cuda_available()) {
    // Without a GPU (or in a CPU build) asking for CUDA memory fails loudly and clearly.
    EXPECT_THROW((void)zm::make_default_resource(zf::cuda_device(0)), zf::cuda_error);
    EXPECT_THROW((void)zm::make_default_resource({zf::device_type::cuda_host, 0}), zf::cuda_error);
    EXPECT_THROW((void)zm::current_resource(zf::cuda_device(0)), zf::cuda_error);
    EXPECT_THROW((void)zf::empty({4}, zf::float32, zf::cuda_device(0)), zf::cuda_error);
    return;
  }
  auto pinned = zm::make_default_resource({zf::device_type::cuda_host, 0});
  EXPECT_EQ(pinned->name(), "pinned");
  auto pool = zm::make_default_resource(zf::cuda_device(0));
  EXPECT_EQ(pool->name(), "cuda_pool");
  EXPECT_EQ(pool->where(), zf::cuda_device(0));
  EXPECT_EQ(zm::current_resource(zf::cuda_device(0))->name(), "cuda_pool");
}

TEST(CudaResources, ConstructionNeedsAGpu) {
  if (zf::cuda_available()) GTEST_SKIP() << "a GPU is present";
  const auto message = [](auto make) {
    try {
      make();
    } catch (const zf::cuda_error& e) {
      return std::string(e.what());
    }
    return std::string("no cuda_error");
  };
  const auto pinned_msg = message([] { zm::pinned_resource r; });
  EXPECT_NE(pinned_msg.find("pinned_resource"), std::string::npos) << pinned_msg;
  EXPECT_NE(pinned_msg.find("CUDA"), std::string::npos) << pinned_msg;
  const auto pool_msg = message([] { zm::cuda_pool_resource r(0); });
  EXPECT_NE(pool_msg.find("cuda_pool_resource"), std::string::npos) << pool_msg;
}

#if ZEROFLOW_HAS_CUDA
TEST(CudaPoolResource, ExposesItsPoolAndKeepsFreedMemoryReserved) {
  if (!zf::cuda_available()) GTEST_SKIP() << "no GPU";
  zm::cuda_pool_resource pool(0);
  ASSERT_NE(pool.pool(), nullptr);
  EXPECT_EQ(pool.device_id(), 0);
  EXPECT_EQ(pool.release_threshold(), zm::cuda_pool_resource::keep_all);
  std::uint64_t threshold = 0;
  ZF_TEST_CUDA(cudaMemPoolGetAttribute(pool.pool(), cudaMemPoolAttrReleaseThreshold, &threshold));
  EXPECT_EQ(threshold, zm::cuda_pool_resource::keep_all);

  constexpr std::size_t bytes = 64u << 20;
  void* p = pool.allocate(bytes, {});
  ZF_TEST_CUDA(cudaMemsetAsync(p, 1, bytes, cudaStreamLegacy));
  pool.deallocate(p, bytes, {});
  ZF_TEST_CUDA(cudaDeviceSynchronize());
  // A synchronisation trims a pool down to its release threshold; ours keeps everything.
  EXPECT_GE(pool.reserved_bytes(), bytes);
  // A second pool is another pool (frameworks can tell zeroflow's apart from theirs).
  zm::cuda_pool_resource other(0, 0);
  EXPECT_NE(other.pool(), pool.pool());
  void* q = other.allocate(bytes, {});
  other.deallocate(q, bytes, {});
  ZF_TEST_CUDA(cudaDeviceSynchronize());
  EXPECT_LT(other.reserved_bytes(), bytes) << "threshold 0 gives freed memory back on synchronisation";
}

TEST(CudaPoolResource, ExhaustionIsOutOfMemory) {
  if (!zf::cuda_available()) GTEST_SKIP() << "no GPU";
  zm::cuda_pool_resource pool(0);
  EXPECT_THROW((void)pool.allocate(std::size_t{1} << 50, {}), zf::out_of_memory);
  // The failure is not sticky: the pool still works.
  void* p = pool.allocate(1024, {});
  EXPECT_NE(p, nullptr);
  pool.deallocate(p, 1024, {});
  ZF_TEST_CUDA(cudaDeviceSynchronize());
}

TEST(CudaPoolResource, RejectsAMissingDevice) {
  if (!zf::cuda_available()) GTEST_SKIP() << "no GPU";
  EXPECT_THROW(zm::cuda_pool_resource(zf::cuda_device_count()), zf::invalid_argument);
}
#endif

}  // namespace
