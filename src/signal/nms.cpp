#include "zeroflow/signal/nms.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include "checks.hpp"
#include "parallel.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/detail/nms.hpp"

namespace zeroflow::signal {

array nms_gate(const array& filtered, std::int64_t window, stream_view stream) {
  detail::expect_1d(filtered, "nms_gate: filtered", {float32});
  ZF_EXPECTS(window >= 2, "nms_gate: window must be >= 2 samples, got ", window);
  ZF_EXPECTS(filtered.size() >= window, "nms_gate: the signal (", filtered.size(),
             " samples) is shorter than the window (", window, ")");
  if (detail::on_cuda(filtered))
    return detail::nms_gate_cuda(detail::cuda_input(filtered, "nms_gate: filtered"), window, stream);
  return detail::nms_gate_host(detail::host_input(filtered, stream), window, stream);
}

namespace detail {

namespace {
// Indices of a sliding window whose values decrease from front to back: the front is the window
// maximum. NaNs are never entered, which is the seed's `value > accum` maximum (NaN never wins).
class max_queue {
 public:
  max_queue(const float* x, std::int64_t window) : x_{x}, ring_(static_cast<std::size_t>(window + 1)) {}

  void push(std::int64_t i) {
    const float v = x_[i];
    if (std::isnan(v)) return;
    // Older values <= v can never be the maximum again while i is in the window.
    while (size_ > 0 && x_[at(size_ - 1)] <= v) --size_;
    ring_[slot(size_)] = i;
    ++size_;
  }
  void drop_before(std::int64_t first) {
    while (size_ > 0 && at(0) < first) {
      head_ = slot(1);
      --size_;
    }
  }
  [[nodiscard]] float max() const { return size_ > 0 ? x_[at(0)] : -std::numeric_limits<float>::infinity(); }

 private:
  // head_ + k < 2 · capacity, so one conditional subtraction wraps it (cheaper than %).
  [[nodiscard]] std::size_t slot(std::size_t k) const {
    const std::size_t s = head_ + k;
    return s >= ring_.size() ? s - ring_.size() : s;
  }
  [[nodiscard]] std::int64_t at(std::size_t k) const { return ring_[slot(k)]; }

  const float* x_;
  std::vector<std::int64_t> ring_;
  std::size_t head_ = 0, size_ = 0;
};
}  // namespace

array nms_gate_host(const array& filtered, std::int64_t window, stream_view stream) {
  const std::int64_t count = filtered.size() - window + 1;
  const std::int64_t half = (window + 1) / 2;
  array out = empty({count}, uint8, filtered.where(), stream);
  const float* x = filtered.data_as<const float>();
  std::uint8_t* gate = out.data_as<std::uint8_t>();

  parallel_chunks(count, std::int64_t{1} << 16, [&](std::int64_t begin, std::int64_t end) {
    // A chunk also evaluates the raw gate at begin−1: the rising-edge rule needs it.
    const std::int64_t first = begin > 0 ? begin - 1 : 0;
    max_queue queue(x, window);
    for (std::int64_t i = first; i < first + window - 1; ++i) queue.push(i);
    bool previous = false;  // raw (unmodified) gate at p − 1
    for (std::int64_t p = first; p < end; ++p) {
      queue.push(p + window - 1);
      queue.drop_before(p);
      const bool raw = x[p + half] == queue.max();
      if (p >= begin) gate[p] = (raw && !previous) ? 1 : 0;
      previous = raw;
    }
  });
  return out;
}

}  // namespace detail
}  // namespace zeroflow::signal
