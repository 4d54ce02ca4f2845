// The parts of a beat's evidence that the class rule's measurements add to the score
// (beat_classes.hpp): how unlike the dominant beat its QRS and its P wave are.
#include <algorithm>
#include <cmath>
#include <vector>

#include "features.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::classify {

namespace {

/// max(0, robust z-score of 1 − similarity) for each beat that `counts`, over those beats; 0 for
/// the others. The spread is 1.4826 MAD, at least `floor`, so that where nearly every beat is
/// alike a small difference does not turn into a large score.
template <typename Counts>
std::vector<float> unlikeness(std::span<const float> similarity, Counts counts, double floor) {
  ZF_EXPECTS(floor > 0, "the spread's floor must be > 0, got ", floor);
  std::vector<double> unlike;
  for (std::size_t b = 0; b < similarity.size(); ++b)
    if (counts(b)) unlike.push_back(1.0 - static_cast<double>(similarity[b]));
  std::vector<float> out(similarity.size(), 0.0F);
  if (unlike.empty()) return out;
  const double centre = detail::upper_median(unlike);
  for (double& v : unlike) v = std::abs(v - centre);
  const double spread = std::max(1.4826 * detail::upper_median(unlike), floor);
  for (std::size_t b = 0; b < similarity.size(); ++b)
    if (counts(b))
      out[b] = static_cast<float>(std::max(0.0, (1.0 - static_cast<double>(similarity[b]) - centre) / spread));
  return out;
}

}  // namespace

std::vector<float> atrial_evidence(std::span<const float> p_similarity, std::span<const std::uint8_t> in_af,
                                   double floor) {
  ZF_EXPECTS(p_similarity.size() == in_af.size(), "expected an AF mark for each of the ", p_similarity.size(),
             " beats, got ", in_af.size());
  // Over the beats outside AF (mostly sinus beats, whose P waves agree): only a P wave unlike most
  // counts, and a record whose P waves all vary (noise, a wandering pacemaker) gets a wide spread
  // and little evidence from them. Inside AF there is no P wave to compare.
  return unlikeness(
      p_similarity, [&](std::size_t b) { return in_af[b] == 0; }, floor);
}

std::vector<float> shape_evidence(std::span<const float> similarity, double floor) {
  // Over every beat: the dominant shape is most beats' by construction, so the centre is its
  // similarity and only a QRS unlike most counts.
  return unlikeness(
      similarity, [](std::size_t) { return true; }, floor);
}

}  // namespace zeroflow::classify
