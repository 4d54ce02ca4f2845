// Which GPUs a build's code runs on: CUDA's rules for machine code (same major version, minor at
// or below) and PTX (any capability at or above), as cuda_available() and `zeroflow info` apply them.
#include <gtest/gtest.h>

#include <utility>

#include "zeroflow/config.hpp"
#include "zeroflow/core/cuda.hpp"

namespace zf = zeroflow;

TEST(CudaArchitectures, MachineCodeRunsOnItsMajorVersionAtOrAboveItsMinor) {
  EXPECT_TRUE(zf::cuda_code_runs_on("80-real", 8, 0));
  EXPECT_TRUE(zf::cuda_code_runs_on("80-real", 8, 6));  // an A10 or an RTX 30 runs sm_80 code
  EXPECT_FALSE(zf::cuda_code_runs_on("86-real", 8, 0));
  EXPECT_FALSE(zf::cuda_code_runs_on("80-real", 9, 0));  // no PTX: Hopper cannot run Ampere code
  EXPECT_FALSE(zf::cuda_code_runs_on("90-real", 8, 9));
}

TEST(CudaArchitectures, PtxRunsOnEveryLaterGpu) {
  EXPECT_TRUE(zf::cuda_code_runs_on("90-virtual", 9, 0));
  EXPECT_TRUE(zf::cuda_code_runs_on("90-virtual", 10, 0));
  EXPECT_TRUE(zf::cuda_code_runs_on("90-virtual", 12, 0));
  EXPECT_FALSE(zf::cuda_code_runs_on("90-virtual", 8, 9));
  EXPECT_TRUE(zf::cuda_code_runs_on("90", 12, 0));  // a bare number is machine code and PTX
  EXPECT_TRUE(zf::cuda_code_runs_on("90", 9, 0));
}

TEST(CudaArchitectures, ThePortableListCoversAmpereAdaAndHopperAndLater) {
  const char* portable = "80-real,86-real,89-real,90-real,90-virtual";
  for (auto [major, minor] : {std::pair{8, 0}, {8, 6}, {8, 7}, {8, 9}, {9, 0}, {10, 0}, {12, 0}})
    EXPECT_TRUE(zf::cuda_code_runs_on(portable, major, minor)) << major << "." << minor;
  EXPECT_FALSE(zf::cuda_code_runs_on(portable, 7, 5));  // Turing: not in the list
  EXPECT_FALSE(zf::cuda_code_runs_on("", 9, 0));
  EXPECT_FALSE(zf::cuda_code_runs_on("junk,-real,9x", 9, 0));
}

TEST(CudaArchitectures, ThisBuildSaysWhatItCarries) {
#if ZEROFLOW_HAS_CUDA
  EXPECT_FALSE(zf::cuda_architectures().empty());
#else
  EXPECT_TRUE(zf::cuda_architectures().empty());
#endif
  for (const auto& gpu : zf::cuda_devices())
    EXPECT_EQ(gpu.has_code, zf::cuda_code_runs_on(zf::cuda_architectures(), gpu.compute_major, gpu.compute_minor));
}
