#include "zeroflow/eval/ec57.hpp"

#include <algorithm>
#include <limits>

#include "zeroflow/core/error.hpp"
#include "zeroflow/eval/metrics.hpp"

namespace zeroflow::eval {

namespace {

constexpr int N = 0, S = 1, V = 2, F = 3, Q = 4, O = 5;

std::int64_t overlap(const intervals& a, const intervals& b) {
  std::int64_t total = 0;
  for (const auto& [s, e] : a)
    for (const auto& [s2, e2] : b) total += std::max<std::int64_t>(0, std::min(e, e2) - std::max(s, s2));
  return total;
}

/// The intervals clipped to start at `start` or later.
intervals after(const intervals& in, std::int64_t start) {
  intervals out;
  for (const auto& [s, e] : in)
    if (e > start) out.emplace_back(std::max(s, start), e);
  return out;
}

std::int64_t length(const intervals& in) {
  std::int64_t total = 0;
  for (const auto& [s, e] : in) total += e - s;
  return total;
}

void derive(ec57_result& r) {
  const auto& m = r.matrix;
  std::int64_t matched = 0;
  for (int i = N; i <= Q; ++i)
    for (int j = N; j <= Q; ++j) matched += m[i][j];
  std::int64_t missed = 0, extra = 0;
  for (int i = N; i <= Q; ++i) missed += m[i][O], extra += m[O][i];
  r.qrs_se = {matched, matched + missed};
  r.qrs_pp = {matched, matched + extra};
  const std::int64_t vtp = m[V][V];
  const std::int64_t vfn = m[V][N] + m[V][S] + m[V][F] + m[V][Q] + m[V][O];
  const std::int64_t vfp = m[N][V] + m[S][V] + m[O][V];
  std::int64_t vtn = 0;
  for (int i : {N, S, F, Q, O})
    for (int j : {N, S, F, Q}) vtn += m[i][j];
  r.veb_se = {vtp, vtp + vfn};
  r.veb_pp = {vtp, vtp + vfp};
  r.veb_fpr = {vfp, vtn + vfp};
  const std::int64_t stp = m[S][S];
  const std::int64_t sfn = m[S][N] + m[S][V] + m[S][F] + m[S][Q] + m[S][O];
  const std::int64_t sfp = m[N][S] + m[V][S] + m[F][S] + m[O][S];
  r.sveb_se = {stp, stp + sfn};
  r.sveb_pp = {stp, stp + sfp};
  r.af_se = {r.af_overlap, r.af_reference};
  r.af_pp = {r.af_overlap, r.af_test};
}

}  // namespace

double ratio_stat::value() const noexcept {
  return denominator == 0 ? std::numeric_limits<double>::quiet_NaN()
                          : static_cast<double>(numerator) / static_cast<double>(denominator);
}

int ec57_index(char aami_class) noexcept {
  switch (aami_class) {
    case 'N':
      return N;
    case 'S':
      return S;
    case 'V':
      return V;
    case 'F':
      return F;
    case 'Q':
      return Q;
    default:
      return O;
  }
}

intervals af_intervals(std::span<const io::rhythm_change> changes, std::int64_t record_end) {
  intervals out;
  std::int64_t begin = -1;
  for (const auto& c : changes) {
    const bool af = c.rhythm == "AFIB" || c.rhythm == "AFL";
    if (af && begin < 0) begin = c.sample;
    if (!af && begin >= 0) {
      out.emplace_back(begin, c.sample);
      begin = -1;
    }
  }
  if (begin >= 0 && record_end > begin) out.emplace_back(begin, record_end);
  return out;
}

ec57_result compare_ec57(const io::beat_labels& test, const io::beat_labels& reference, std::int64_t match_samples,
                         std::int64_t start, std::int64_t record_end) {
  ZF_EXPECTS(test.samples.size() == test.classes.size() && reference.samples.size() == reference.classes.size(),
             "every beat needs a class");
  ec57_result r;
  r.start = start;
  // As bxb does: the reference's ventricular flutter is left out of the beat-by-beat comparison,
  // its beat annotations and the test beats inside it alike (they are judged as VF episodes).
  const auto& flutter = reference.ventricular_flutter;
  const auto in_flutter = [&](std::int64_t sample) {
    return std::any_of(flutter.begin(), flutter.end(),
                       [&](const auto& e) { return e.first <= sample && sample <= e.second; });
  };
  io::beat_labels kept;
  for (std::size_t i = 0; i < reference.samples.size(); ++i)
    if (!in_flutter(reference.samples[i])) {
      kept.samples.push_back(reference.samples[i]);
      kept.classes.push_back(reference.classes[i]);
    }
  const auto pairs = match_peak_pairs(test.samples, kept.samples, match_samples);
  std::vector<std::uint8_t> test_matched(test.samples.size(), 0);
  for (std::size_t i = 0; i < kept.samples.size(); ++i) {
    const auto k = pairs[i];
    if (k >= 0) test_matched[static_cast<std::size_t>(k)] = 1;
    if (kept.samples[i] < start) continue;
    const int row = ec57_index(kept.classes[i]);
    const int column = k >= 0 ? ec57_index(test.classes[static_cast<std::size_t>(k)]) : O;
    ++r.matrix[static_cast<std::size_t>(row)][static_cast<std::size_t>(column)];
  }
  for (std::size_t k = 0; k < test.samples.size(); ++k)
    if (!test_matched[k] && test.samples[k] >= start && !in_flutter(test.samples[k]))
      ++r.matrix[O][static_cast<std::size_t>(ec57_index(test.classes[k]))];
  for (const auto& [from, to] : flutter)
    r.flutter_excluded += std::max<std::int64_t>(0, std::min(to, record_end) - std::max(from, start));
  const auto reference_af = after(af_intervals(reference.rhythm, record_end), start);
  const auto test_af = after(af_intervals(test.rhythm, record_end), start);
  r.af_reference = length(reference_af);
  r.af_test = length(test_af);
  r.af_overlap = overlap(reference_af, test_af);
  derive(r);
  return r;
}

void add_counts(ec57_result& total, const ec57_result& record) {
  for (std::size_t i = 0; i < 6; ++i)
    for (std::size_t j = 0; j < 6; ++j) total.matrix[i][j] += record.matrix[i][j];
  total.af_reference += record.af_reference;
  total.af_test += record.af_test;
  total.af_overlap += record.af_overlap;
  total.flutter_excluded += record.flutter_excluded;
  derive(total);
}

}  // namespace zeroflow::eval
