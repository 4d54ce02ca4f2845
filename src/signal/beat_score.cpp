#include "zeroflow/signal/beat_score.hpp"

#include <algorithm>
#include <cmath>

#include "beat_score_detail.hpp"
#include "checks.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/normalize.hpp"

namespace zeroflow::signal {

namespace {

/// The robust z-score's centre and scale, with the scale at least `floor`.
normalization floored(const array& values, float floor, stream_view stream) {
  normalization n = robust_zscore(values, stream);
  n.scale = std::max(n.scale, floor);
  return n;
}

}  // namespace

beat_scores combine_beat_scores(const array& morphology, const array& irregularity, stream_view stream) {
  detail::expect_1d(morphology, "combine_beat_scores: morphology", {float32});
  detail::expect_1d(irregularity, "combine_beat_scores: irregularity", {float32});
  detail::expect_same_device(morphology, irregularity, "combine_beat_scores");
  ZF_EXPECTS(morphology.size() == irregularity.size(), "combine_beat_scores: ", morphology.size(),
             " morphology errors but ", irregularity.size(), " rhythm values");
  if (morphology.size() == 0) {
    const auto where = morphology.where();
    return {empty({0}, float32, where, stream), empty({0}, float32, where, stream), empty({0}, float32, where, stream)};
  }
  normalization m = robust_zscore(morphology, stream);
  m.scale = std::max({m.scale, morphology_scale_floor * std::abs(m.center), 1e-12F});
  const normalization r = floored(irregularity, irregularity_scale_floor, stream);
  if (detail::on_cuda(morphology))
    return detail::combine_scores_cuda(detail::cuda_input(morphology, "combine_beat_scores: morphology"),
                                       detail::cuda_input(irregularity, "combine_beat_scores: irregularity"), m, r,
                                       stream);
  const array mh = detail::host_input(morphology, stream);
  const array rh = detail::host_input(irregularity, stream);
  const auto n = mh.size();
  beat_scores out{empty({n}, float32, cpu_device, stream), empty({n}, float32, cpu_device, stream),
                  empty({n}, float32, cpu_device, stream)};
  for (std::int64_t i = 0; i < n; ++i) {
    const auto s = detail::combine_one(mh.data_as<const float>()[i], rh.data_as<const float>()[i], m, r);
    out.score.data_as<float>()[i] = s.score;
    out.morphology.data_as<float>()[i] = s.morphology;
    out.rhythm.data_as<float>()[i] = s.rhythm;
  }
  return out;
}

namespace detail {
#if !ZEROFLOW_HAS_CUDA
beat_scores combine_scores_cuda(const array&, const array&, normalization, normalization, stream_view) {
  ZF_THROW(cuda_error, "combine_beat_scores on GPU arrays needs a CUDA build of zeroflow");
}
#endif
}  // namespace detail
}  // namespace zeroflow::signal
