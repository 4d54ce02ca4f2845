#include "sample_check.hpp"

#include <algorithm>
#include <cmath>

#include "zeroflow/core/detail/parallel_chunks.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::pipeline::detail {

namespace {

void expect_signal(const array& signal) {
  ZF_EXPECTS(signal.valid() && signal.ndim() == 1 && signal.type() == float32,
             "the recording must be one float32 signal");
}

std::string samples(std::int64_t n) { return std::to_string(n) + (n == 1 ? " sample" : " samples"); }

}  // namespace

sample_census count_samples_on_host(const array& signal) {
  expect_signal(signal);
  ZF_EXPECTS(signal.where().host_accessible(), "count_samples_on_host needs host memory, got ", signal.where().name());
  sample_census c;
  const std::int64_t n = signal.size();
  if (n == 0) return c;
  const auto* x = static_cast<const float*>(signal.data());
  const std::int64_t stride = signal.strides()[0];
  for (std::int64_t i = 0; i < n; ++i) {
    const float v = x[i * stride];
    if (std::isnan(v)) {
      if (c.missing++ == 0) c.first_missing = i;
    } else if (!(std::fabs(v) <= unusable_magnitude)) {
      if (c.unusable++ == 0) c.first_unusable = i;
    }
  }
  return c;
}

sample_census count_samples(const array& signal, stream_view stream) {
  expect_signal(signal);
  if (signal.where().type == device_type::cuda) {
#if ZEROFLOW_HAS_CUDA
    return count_samples_cuda(signal, stream);
#else
    ZF_THROW(cuda_error, "a recording on ", signal.where().name(), " needs a CUDA build of zeroflow");
#endif
  }
  (void)stream;
  return count_samples_on_host(signal);
}

std::vector<std::int64_t> no_signal_window_pairs_on_host(const array& signal, std::int64_t window, double sample_rate) {
  expect_signal(signal);
  ZF_EXPECTS(window >= 1, "no_signal_stretches: the window must be at least one sample, got ", window);
  const auto* x = static_cast<const float*>(signal.data());
  const std::int64_t stride = signal.strides()[0], windows = signal.size() / window;
  // Window pairs are independent: each thread marks its own range, kept in order.
  std::vector<std::uint8_t> gives_none(static_cast<std::size_t>(std::max<std::int64_t>(windows, 0)), 0);
  ::zeroflow::detail::parallel_chunks(windows - 1, std::max<std::int64_t>(1, (std::int64_t{1} << 16) / window),
                                      [&](std::int64_t first, std::int64_t last) {
                                        for (std::int64_t k = first + 1; k <= last; ++k)
                                          gives_none[static_cast<std::size_t>(k)] = gives_no_signal(
                                              x + (k - 1) * window * stride, stride, 2 * window, sample_rate);
                                      });
  std::vector<std::int64_t> marked;
  for (std::int64_t k = 1; k < windows; ++k)
    if (gives_none[static_cast<std::size_t>(k)]) marked.push_back(k);
  return marked;
}

std::vector<std::pair<std::int64_t, std::int64_t>> no_signal_stretches(const array& signal, std::int64_t window,
                                                                       double sample_rate, stream_view stream) {
  expect_signal(signal);
  std::vector<std::int64_t> marked;
  if (signal.where().type == device_type::cuda) {
#if ZEROFLOW_HAS_CUDA
    marked = no_signal_window_pairs_cuda(signal, window, sample_rate, stream);
#else
    ZF_THROW(cuda_error, "a recording on ", signal.where().name(), " needs a CUDA build of zeroflow");
#endif
  } else {
    (void)stream;
    marked = no_signal_window_pairs_on_host(signal, window, sample_rate);
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  for (const std::int64_t k : marked) {
    const std::int64_t first = (k - 1) * window, last = (k + 1) * window - 1;
    if (!out.empty() && first <= out.back().second + 1)
      out.back().second = last;
    else
      out.emplace_back(first, last);
  }
  return out;
}

void check_samples(const sample_census& census, const std::string& source, bool gate_to_gate_segmentation) {
  if (census.unusable > 0)
    ZF_THROW(parse_error, source, ": ", samples(census.unusable), census.unusable == 1 ? " is" : " are",
             " infinite or larger than 1e30 in magnitude (the first is sample ", census.first_unusable,
             ", counted from 0), which no ECG reads; correct or remove ", census.unusable == 1 ? "it" : "them",
             " (a gap may be left as a missing value)");
  if (gate_to_gate_segmentation && census.missing > 0)
    ZF_THROW(
        parse_error, source, ": ", samples(census.missing), census.missing == 1 ? " is" : " are",
        " missing (NaN; the first is sample ", census.first_missing,
        ", counted from 0), and `segmentation`=gate-to-gate cannot read gaps; use `segmentation`=robust, which reads "
        "them as the recording's median");
}

}  // namespace zeroflow::pipeline::detail
