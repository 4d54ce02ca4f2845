#pragma once
// The per-beat arithmetic of beat_score.hpp, shared by the host and the CUDA implementation.
#include "zeroflow/core/array.hpp"
#include "zeroflow/core/detail/host_device.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/signal/beat_score.hpp"
#include "zeroflow/signal/normalize.hpp"

namespace zeroflow::signal::detail {

struct one_score {
  float score, morphology, rhythm;
};

/// z-scores of one beat and their combination; a non-finite error (a failed reconstruction)
/// counts as the most anomalous shape rather than vanishing from the ranking.
ZF_HD inline one_score combine_one(float error, float irregularity, normalization m, normalization r) {
  const float zm = error == error ? (error - m.center) / m.scale : 3.4e38F;
  const float zr = irregularity == irregularity ? (irregularity - r.center) / r.scale : 0.0F;
  return {(zm > 0 ? zm : 0.0F) + (zr > 0 ? zr : 0.0F), zm, zr};
}

beat_scores combine_scores_cuda(const array& morphology, const array& irregularity, normalization m, normalization r,
                                stream_view stream);

}  // namespace zeroflow::signal::detail
