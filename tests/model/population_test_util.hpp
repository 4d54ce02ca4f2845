#pragma once
// What the population tests (population_test.cpp on the CPU, population_cuda_test.cpp on a GPU)
// share: a fresh temporary file, a model file's bytes, and the options of a short run.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "zeroflow/model/population.hpp"
#include "zeroflow/model/vae.hpp"

namespace zeroflow::model_test {

/// `name` in the test folder `folder` (under ZEROFLOW_TEST_TMP), removed if it was there.
inline std::filesystem::path temp_file(const std::string& folder, const std::string& name) {
  const char* root = std::getenv("ZEROFLOW_TEST_TMP");
  const auto dir =
      std::filesystem::path(root != nullptr ? root : std::filesystem::temp_directory_path().string()) / folder;
  std::filesystem::create_directories(dir);
  std::filesystem::remove(dir / name);
  return dir / name;
}

/// The model file's bytes (the weights under their names, the history and a checksum), saved as
/// `name` in `folder`: two models are the same when these are.
inline std::string file_of(const model::vae& m, const std::string& folder, const std::string& name) {
  const std::filesystem::path p = temp_file(folder, name);
  m.save(p);
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// A run of `epochs` epochs of `batch` rows a step, seed 11.
inline model::population_options short_population_run(int epochs, std::int64_t batch) {
  model::population_options o;
  o.epochs = epochs;
  o.batch = batch;
  o.seed = 11;
  o.rows_identity = "test rows";
  return o;
}

}  // namespace zeroflow::model_test
