// zeroflow's own copy of LibTorch's initialisation of the LightVAE (src/model/light_vae_init.hpp)
// against LibTorch itself: the module built after torch::manual_seed(seed) must hold the same
// weights, slot by slot, for several seeds and widths, so that the GPU path trained by zeroflow's
// kernels starts where the LibTorch paths start.
#include "model/light_vae_init.hpp"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "torch_oracle/light_vae.hpp"

namespace zfd = zeroflow::model::detail;

TEST(LightVaeInit, EqualsLibTorchsDefaultInitialisation) {
  for (const std::int64_t width : {16, 256}) {
    for (const std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{42}, std::uint64_t{7} << 33 | 5}) {
      torch::manual_seed(seed);
      zfd::light_vae net(width);
      const std::vector<float> own = zfd::light_vae_initial_parameters(width, seed);
      const auto offsets = zfd::light_vae_slot_offsets(width);
      ASSERT_EQ(static_cast<std::int64_t>(own.size()), offsets.back());
      auto named = net->named_parameters();
      std::int64_t total = 0;
      for (int s = 0; s < zfd::slot_count; ++s) {
        const torch::Tensor* p = named.find(zfd::light_vae_slot_names[static_cast<std::size_t>(s)]);
        ASSERT_NE(p, nullptr) << zfd::light_vae_slot_names[static_cast<std::size_t>(s)];
        EXPECT_EQ(p->sizes().vec(), zfd::light_vae_slot_shape(s, width)) << s;
        const torch::Tensor t = p->detach().contiguous();
        const auto begin = static_cast<std::size_t>(offsets[static_cast<std::size_t>(s)]);
        for (std::int64_t i = 0; i < t.numel(); ++i)
          ASSERT_EQ(own[begin + static_cast<std::size_t>(i)], t.data_ptr<float>()[i])
              << "width " << width << " seed " << seed << " " << zfd::light_vae_slot_names[static_cast<std::size_t>(s)]
              << "[" << i << "]";
        total += t.numel();
      }
      EXPECT_EQ(total, offsets.back());
      EXPECT_EQ(static_cast<std::size_t>(net->parameters().size()), static_cast<std::size_t>(zfd::slot_count));
    }
  }
}
