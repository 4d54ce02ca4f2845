// Builds without CUDA: rows on a device cannot be measured (features.hpp, cuda_measurements).
#include "features.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/error.hpp"

#if !ZEROFLOW_HAS_CUDA
namespace zeroflow::classify::detail {

std::unique_ptr<row_measurements> cuda_measurements(const array&, const beat_rows&, double, std::int64_t, stream_view) {
  ZF_THROW(cuda_error, "classifying beats whose rows are on a GPU needs a CUDA build of zeroflow");
}

}  // namespace zeroflow::classify::detail
#endif
