#include "zeroflow/signal/normalize.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "checks.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/signal/detail/normalize.hpp"

namespace zeroflow::signal {

normalization robust_zscore(const array& signal, stream_view stream) {
  detail::expect_1d(signal, "robust_zscore: signal", {float32});
  ZF_EXPECTS(signal.size() > 0, "robust_zscore: the signal is empty");
  if (detail::on_cuda(signal))
    return detail::robust_zscore_cuda(detail::cuda_input(signal, "robust_zscore: signal"), stream);
  return detail::robust_zscore_host(detail::host_input(signal, stream), stream);
}

namespace detail {

namespace {
// Median of v (reordered), the mean of the two middle values when the count is even.
template <class T>
double median_of(std::vector<T>& v) {
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  const double upper = static_cast<double>(*mid);
  if (v.size() % 2 == 1) return upper;
  const double lower = static_cast<double>(*std::max_element(v.begin(), mid));  // nth_element left these <= *mid
  return 0.5 * (lower + upper);
}
}  // namespace

float robust_scale(double mad, double stddev) {
  for (double candidate : {1.4826 * mad, stddev}) {
    const auto f = static_cast<float>(candidate);
    if (std::isfinite(f) && f > 0) return f;
  }
  return 1.0f;
}

normalization robust_zscore_host(const array& signal, stream_view) {
  const auto x = signal.span<const float>();
  std::vector<float> values;
  values.reserve(x.size());
  for (float v : x)
    if (std::isfinite(v)) values.push_back(v);
  if (values.empty()) return {0.0f, 1.0f};

  double mean = 0;
  for (float v : values) mean += v;
  mean /= static_cast<double>(values.size());
  double squares = 0;
  for (float v : values) squares += (v - mean) * (v - mean);
  const double stddev = std::sqrt(squares / static_cast<double>(values.size()));

  const double median = median_of(values);
  std::vector<double> deviations(values.size());
  std::transform(values.begin(), values.end(), deviations.begin(),
                 [median](float v) { return std::fabs(static_cast<double>(v) - median); });
  values = {};  // give the memory back before the second selection
  const double mad = median_of(deviations);
  return {static_cast<float>(median), robust_scale(mad, stddev)};
}

}  // namespace detail
}  // namespace zeroflow::signal
