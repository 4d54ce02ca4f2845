// Beats too small for their shape to say anything (features.hpp, too_small).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "features.hpp"

namespace zeroflow::classify::detail {

namespace {

/// Peak-to-peak span of each of the segments of `length` samples in `segments`.
std::vector<double> spans(std::span<const float> segments, std::int64_t length) {
  std::vector<double> out;
  if (length <= 0) return out;
  for (std::size_t at = 0; at + static_cast<std::size_t>(length) <= segments.size();
       at += static_cast<std::size_t>(length)) {
    const auto [low, high] = std::minmax_element(segments.begin() + static_cast<std::ptrdiff_t>(at),
                                                 segments.begin() + static_cast<std::ptrdiff_t>(at) + length);
    out.push_back(static_cast<double>(*high) - static_cast<double>(*low));
  }
  return out;
}

}  // namespace

std::vector<std::uint8_t> too_small(row_measurements& rows, std::span<const std::int64_t> beats,
                                    std::span<const float> segments, std::span<const std::uint8_t> dominant,
                                    const class_params& params) {
  std::vector<std::uint8_t> out(dominant.size(), 0);
  std::vector<std::int64_t> dominant_beats;
  for (std::size_t b = 0; b < dominant.size(); ++b)
    if (dominant[b]) dominant_beats.push_back(static_cast<std::int64_t>(b));
  if (dominant_beats.empty() || beats.empty()) return out;
  const auto count = static_cast<std::int64_t>(dominant_beats.size());
  const std::int64_t used = template_rows_used(count, params.shape.template_rows);
  std::vector<std::int64_t> chosen(static_cast<std::size_t>(used));
  for (std::int64_t i = 0; i < used; ++i)
    chosen[static_cast<std::size_t>(i)] = dominant_beats[static_cast<std::size_t>(i * count / used)];
  const qrs_window w = rows.qrs();
  const std::int64_t length = w.end - w.begin;
  const double typical = upper_median(spans(rows.qrs_segments(chosen), length));
  const auto own = spans(segments, length);
  for (std::size_t i = 0; i < beats.size() && i < own.size(); ++i)
    out[static_cast<std::size_t>(beats[i])] = own[i] < params.shape.smallest_qrs_fraction * typical;
  return out;
}

}  // namespace zeroflow::classify::detail
