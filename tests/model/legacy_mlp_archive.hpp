#pragma once
// The bytes of an MLP autoencoder as zeroflows before the safetensors bytes wrote them (a LibTorch
// archive: the format number 1, the widths, every weight under its state_dict name), for the tests
// that such bytes and the model files holding them are still read.
#include <torch/serialize/output-archive.h>
#include <torch/torch.h>

#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "zeroflow/model/mlp_autoencoder.hpp"

namespace zeroflow::testing {

inline std::string legacy_mlp_archive(const model::mlp_autoencoder& net) {
  torch::serialize::OutputArchive archive;
  archive.write("zeroflow_mlp_autoencoder_format", torch::tensor({std::int64_t{1}}, torch::kLong));
  const model::mlp_shape& s = net.shape();
  archive.write("zeroflow_mlp_autoencoder_shape", torch::tensor({s.features, s.hidden, s.code}, torch::kLong));
  for (const io::safetensor& t : net.weights()) {
    std::vector<float> values(t.bytes.size() / sizeof(float));
    std::memcpy(values.data(), t.bytes.data(), t.bytes.size());
    archive.write(t.name, torch::tensor(values, torch::kFloat).reshape(t.shape));
  }
  std::ostringstream out;
  archive.save_to(out);
  return std::move(out).str();
}

}  // namespace zeroflow::testing
