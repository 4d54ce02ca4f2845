#pragma once
// The model layer's opt-out switches (ZEROFLOW_CUDA_GRAPHS, ZEROFLOW_FUSED_STEP,
// ZEROFLOW_FUSED_CUDA_OPS): on unless the environment sets the variable to "0".
#include <cstdlib>
#include <cstring>

namespace zeroflow::model::detail {

/// False when the environment variable `name` is "0", true otherwise (unset included).
inline bool enabled_unless_zero(const char* name) {
  const char* value = std::getenv(name);
  return !(value != nullptr && std::strcmp(value, "0") == 0);
}

}  // namespace zeroflow::model::detail
