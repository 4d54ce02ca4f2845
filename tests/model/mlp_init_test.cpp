// zeroflow's own copy of LibTorch's initialisation of the MLP autoencoder (src/model/mlp_init.hpp)
// against LibTorch itself: a model created on the CPU (LibTorch's module after
// torch::manual_seed(seed)) must hold the same weights, slot by slot, for several seeds and
// widths, so that the GPU path trained by zeroflow's kernels starts where LibTorch starts.
#include "model/mlp_init.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "zeroflow/model/mlp_autoencoder.hpp"

namespace zm = zeroflow::model;
namespace zfd = zeroflow::model::detail;

TEST(MlpInit, EqualsLibTorchsDefaultInitialisation) {
  for (const zm::mlp_shape shape : {zm::mlp_shape{}, zm::mlp_shape{5, 7, 3}, zm::mlp_shape{200, 32, 16}}) {
    for (const std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{42}, std::uint64_t{7} << 33 | 5}) {
      const auto model = zm::mlp_autoencoder::create(shape, zeroflow::cpu_device, seed);
      const std::vector<float> own = zfd::mlp_initial_parameters(shape, seed);
      const auto offsets = zfd::mlp_slot_offsets(shape);
      ASSERT_EQ(static_cast<std::int64_t>(own.size()), offsets.back());
      ASSERT_EQ(offsets.back(), model.parameter_count());
      const auto tensors = model.weights();
      ASSERT_EQ(tensors.size(), static_cast<std::size_t>(zfd::mlp_slots));
      for (int s = 0; s < zfd::mlp_slots; ++s) {
        const auto& t = tensors[static_cast<std::size_t>(s)];
        EXPECT_EQ(t.name, zfd::mlp_slot_names[static_cast<std::size_t>(s)]);
        EXPECT_EQ(t.shape, zfd::mlp_slot_shape(s, shape)) << t.name;
        const auto begin = static_cast<std::size_t>(offsets[static_cast<std::size_t>(s)]);
        const auto count = static_cast<std::size_t>(offsets[static_cast<std::size_t>(s) + 1]) - begin;
        ASSERT_EQ(t.bytes.size(), count * sizeof(float)) << t.name;
        std::vector<float> theirs(count);
        std::memcpy(theirs.data(), t.bytes.data(), t.bytes.size());
        for (std::size_t i = 0; i < count; ++i)
          ASSERT_EQ(own[begin + i], theirs[i]) << "seed " << seed << " " << t.name << "[" << i << "]";
      }
    }
  }
}
