// LibTorch's CUDA allocations routed to a zeroflow resource (torch_cuda_allocator.hpp): tensors
// are counted byte for byte by a statistics_adaptor, rebinding works, and LibTorch's training of
// the LightVAE (the tests' oracle module) and a CUDA graph of its forward pass run from the
// resource, release the graph's pool and compute what they compute with LibTorch's own allocator. LibTorch accepts a
// new allocator only before its first CUDA allocation, and other tests of this program make such allocations, so the
// routed part runs in a fresh process (a "threadsafe" death test re-executes this program for the one test). Skipped
// without a GPU.
#include "zeroflow/interop/torch_cuda_allocator.hpp"

#include <gtest/gtest.h>
#include <torch/cuda.h>
#include <torch/types.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "model/model_test_util.hpp"
#include "torch_oracle/light_vae.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/memory/cuda_pool_resource.hpp"
#include "zeroflow/memory/statistics_adaptor.hpp"
#include "zeroflow/model/vae.hpp"

#if ZEROFLOW_HAS_CUDA
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/optim/adam.h>
#endif

namespace zf = zeroflow;
using zf::model::vae;
using namespace zeroflow::model_test;

namespace {

bool have_gpu() {
  return zf::model::training_path_possible(zf::model::training_path::fused_kernels, zf::cuda_device(0), 64) &&
         zf::cuda_available() && torch::cuda::is_available();
}

// LibTorch's own CUDA allocator has served a tensor in this process (routing is refused then).
bool torch_cuda_allocations_made() {
#if ZEROFLOW_HAS_CUDA
  return c10::cuda::CUDACachingAllocator::get()->initialized();
#else
  return false;
#endif
}

std::filesystem::path loss_file() {
  const char* env = std::getenv("ZEROFLOW_TEST_TMP");
  const std::filesystem::path dir = env != nullptr ? env : std::filesystem::temp_directory_path();
  std::filesystem::create_directories(dir);
  return dir / "torch_cuda_allocator_test_losses.txt";
}

// LibTorch's own work on the GPU, sized so that the test also finishes under compute-sanitizer
// (scripts/gpu-sanitize), which instruments both processes: three epochs of the oracle LightVAE
// with autograd and torch::optim::Adam (hundreds of allocations a step), then its forward pass
// captured in a CUDA graph (a private pool) and replayed. The epochs' losses, then the replayed
// output's sum.
std::vector<double> libtorch_workload() {
#if ZEROFLOW_HAS_CUDA
  const torch::Device gpu(torch::kCUDA, 0);
  const zf::array host = make_rows(600, 64, 21);
  const torch::Tensor rows = torch::from_blob(const_cast<void*>(host.data()), {600, 64}, torch::kFloat).to(gpu);
  torch::manual_seed(4);
  zf::model::detail::light_vae net(64);
  net->to(gpu);
  torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(1e-3));
  std::vector<double> out;
  for (int epoch = 0; epoch < 3; ++epoch) {
    double sum = 0;
    for (std::int64_t first = 0; first < 600; first += 128) {
      const torch::Tensor x = rows.slice(0, first, std::min<std::int64_t>(first + 128, 600));
      const zf::model::detail::reconstruction r = net->forward(x);
      const torch::Tensor loss = zf::model::detail::vae_loss(r.recon, x, r.mu, r.logvar);
      opt.zero_grad();
      loss.backward();
      opt.step();
      sum += loss.item<double>();
    }
    out.push_back(sum / 600);
  }
  torch::NoGradGuard no_grad;
  const torch::Tensor input = rows.slice(0, 0, 256).clone();
  torch::Tensor decoded;
  {
    at::cuda::CUDAGraph graph;
    const c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool(false, 0);
    {
      const c10::cuda::CUDAStreamGuard on(side);
      (void)net->decode(net->encode(input).mu);  // warm-up outside the capture
      graph.capture_begin();
      decoded = net->decode(net->encode(input).mu);
      graph.capture_end();
    }
    graph.replay();
    out.push_back(decoded.sum().item<double>());
  }
  return out;
#else
  return {};
#endif
}

// The routed checks, in a process whose LibTorch has not allocated on the GPU yet: what failed.
std::vector<std::string> routed_checks() {
  std::vector<std::string> problems;
  const auto check = [&](bool ok, const std::string& what) {
    if (!ok) problems.push_back(what);
  };
  try {
    namespace mem = zf::memory;
    auto stats = std::make_shared<mem::statistics_adaptor>(std::make_shared<mem::cuda_pool_resource>(0));
    check(!zf::interop::torch_allocator_routed(), "routed before routing");
    zf::interop::route_torch_allocator_to(stats);
    check(zf::interop::torch_allocator_routed(), "not routed after routing");
    const auto on_gpu = torch::TensorOptions().dtype(torch::kFloat).device(torch::kCUDA, 0);
    {  // LibTorch's lazy initialisation first, so that the counts below see only the tensors
      const torch::Tensor warm = torch::ones({16}, on_gpu);
      check(warm.sum().item<float>() == 16.0F, "a routed tensor computes wrongly");
    }
    const mem::allocation_statistics before = stats->statistics();
    {
      torch::Tensor t = torch::empty({1 << 20}, on_gpu);
      const mem::allocation_statistics during = stats->statistics();
      check(during.current_bytes - before.current_bytes == (std::size_t{4} << 20),
            "a 4 MiB tensor changed the resource's bytes by " +
                std::to_string(during.current_bytes - before.current_bytes));
      check(during.current_count == before.current_count + 1, "a tensor is not one allocation");
      check(zf::interop::torch_allocation_counts_now().live >= 1, "the router does not count the live tensor");
      t.fill_(2.0F);
      check(t.sum().item<float>() == 2.0F * (1 << 20), "routed memory computes wrongly");
    }
    check(stats->statistics().current_bytes == before.current_bytes, "a freed tensor's bytes stay allocated");

    // Rebinding: new allocations come from the new resource, the old one sees none.
    auto stats2 = std::make_shared<mem::statistics_adaptor>(std::make_shared<mem::cuda_pool_resource>(0));
    zf::interop::route_torch_allocator_to(stats2);
    const std::int64_t old_total = stats->statistics().total_count;
    {
      const torch::Tensor t = torch::zeros({1000}, on_gpu);
      check(stats2->statistics().current_bytes == 4000, "the rebound resource does not hold the new tensor");
    }
    check(stats->statistics().total_count == old_total, "the old resource still allocates after rebinding");

    // LibTorch's training and a CUDA graph from the resource; the graph's pool is given back afterwards.
    const std::int64_t allocations_before = stats2->statistics().total_count;
    const std::vector<double> results = libtorch_workload();
    const zf::interop::torch_allocation_counts counts = zf::interop::torch_allocation_counts_now();
    check(stats2->statistics().total_count - allocations_before > 100, "training did not allocate from the resource");
    check(counts.graph_pools == 0, "graph pools not released: " + std::to_string(counts.graph_pools));
    check(counts.graph_blocks == 0, "graph blocks left: " + std::to_string(counts.graph_blocks));
    check(counts.deferred_frees == 0, "frees still deferred: " + std::to_string(counts.deferred_frees));
    check(counts.failed_frees == 0, "failed frees: " + std::to_string(counts.failed_frees));
    check(results.size() == 4 && std::isfinite(results[2]) && results[2] < results[0],
          "routed LibTorch training does not learn");
    std::ofstream out(loss_file());
    out.precision(17);
    for (const double l : results) out << l << '\n';
    out.close();
    check(static_cast<bool>(out), "cannot write the losses");
  } catch (const std::exception& e) {
    problems.push_back(std::string("exception: ") + e.what());
  }
  return problems;
}

// The routed process of the death test: every failed check is printed; the exit code says
// whether any failed.
[[noreturn]] void routed_process() {
  const std::vector<std::string> problems = routed_checks();
  for (const auto& p : problems) std::fprintf(stderr, "routed process: %s\n", p.c_str());
  std::fflush(stderr);
  // _Exit: the check is done; LibTorch's static teardown is not what this test is about.
  std::_Exit(problems.empty() ? 0 : 1);
}

}  // namespace

TEST(TorchCudaAllocator, RoutesLibTorchAndItsGraphsToAZeroflowResource) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::filesystem::remove(loss_file());
  EXPECT_EXIT(routed_process(), ::testing::ExitedWithCode(0), "");

  // This process keeps LibTorch's own allocator: the same work is the reference.
  const std::vector<double> reference = libtorch_workload();
  std::ifstream in(loss_file());
  std::vector<double> routed;
  for (double l = 0; in >> l;) routed.push_back(l);
  ASSERT_EQ(routed.size(), reference.size());
  for (std::size_t e = 0; e < routed.size(); ++e)
    EXPECT_NEAR(routed[e], reference[e], 1e-3 * std::abs(reference[e]) + 1e-6) << "value " << e;  // cuDNN's atomics

  // LibTorch has allocated through its own allocator here: routing now must be refused.
  EXPECT_FALSE(zf::interop::torch_allocator_routed());
  EXPECT_THROW(zf::interop::route_torch_allocator_to(zf::memory::current_resource(zf::cuda_device(0))), zf::error);
}

// The same checks without the death test's second process, when this test is the first of its
// process to use LibTorch on the GPU (a process of its own: --gtest_filter=TorchCudaAllocatorFresh.*,
// as scripts/gpu-sanitize runs it, where the tools would otherwise instrument two LibTorch start-ups).
// Elsewhere LibTorch has allocated already and routing is refused: skipped, the death test above
// checks the same in any process.
TEST(TorchCudaAllocatorFresh, RoutesInAProcessOfItsOwn) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  if (zf::interop::torch_allocator_routed() || torch_cuda_allocations_made())
    GTEST_SKIP() << "LibTorch has used the GPU in this process already; run this test alone";
  for (const auto& problem : routed_checks()) ADD_FAILURE() << problem;
}

TEST(TorchCudaAllocator, RejectsBadResources) {
  EXPECT_THROW(zf::interop::route_torch_allocator_to(nullptr), zf::invalid_argument);
  EXPECT_THROW(zf::interop::route_torch_allocator_to(zf::memory::current_resource(zf::cpu_device)),
               zf::invalid_argument);
  EXPECT_FALSE(zf::interop::torch_allocator_routed());
}
