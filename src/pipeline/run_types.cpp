#include "zeroflow/pipeline/run_types.hpp"

namespace zeroflow::pipeline {

std::int64_t run_result::beats_kept() const {
  std::int64_t n = 0;
  for (auto k : kept) n += k;
  return n;
}

}  // namespace zeroflow::pipeline
