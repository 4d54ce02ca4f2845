#include "png_axes.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "zeroflow/core/error.hpp"

namespace zeroflow::report::png {

namespace {

constexpr double tolerance = 1e-9;  // in steps: 0.1 + 0.2 still counts as a multiple of 0.1 inside [0, 0.3]

double count_multiples(double lo, double hi, double step) {
  return std::floor(hi / step + tolerance) - std::ceil(lo / step - tolerance) + 1;
}

}  // namespace

double nice_step(double lo, double hi, int max_ticks) {
  ZF_EXPECTS(std::isfinite(lo) && std::isfinite(hi) && lo < hi, "nice_step needs finite lo < hi, got [", lo, ", ", hi,
             "]");
  ZF_EXPECTS(max_ticks >= 2, "nice_step needs max_ticks >= 2, got ", max_ticks);
  // Any step below span/(max_ticks + 1) has more than max_ticks multiples in the range, so the
  // search starts one decade under it and walks up the 1-2-5 sequence.
  int exponent = static_cast<int>(std::floor(std::log10((hi - lo) / (max_ticks + 1)))) - 1;
  for (;; ++exponent) {
    const double decade = std::pow(10.0, exponent);
    for (double mantissa : {1.0, 2.0, 5.0}) {
      const double step = mantissa * decade;
      if (count_multiples(lo, hi, step) <= max_ticks) return step;
    }
  }
}

ticks nice_ticks(double lo, double hi, int max_ticks) {
  ticks t;
  t.step = nice_step(lo, hi, max_ticks);
  const auto first = static_cast<long long>(std::ceil(lo / t.step - tolerance));
  const auto last = static_cast<long long>(std::floor(hi / t.step + tolerance));
  for (long long k = first; k <= last; ++k) t.values.push_back(static_cast<double>(k) * t.step);
  // step = m·10^e with m in {1, 2, 5}: e < 0 needs -e decimals.
  t.decimals = std::max(0, -static_cast<int>(std::floor(std::log10(t.step) + tolerance)));
  return t;
}

ticks integer_ticks(double lo, double hi, int max_ticks) {
  auto t = nice_ticks(lo, hi, max_ticks);
  if (t.step >= 1) return t;
  ticks whole;
  for (auto k = static_cast<long long>(std::ceil(lo - tolerance));
       k <= static_cast<long long>(std::floor(hi + tolerance)); ++k)
    whole.values.push_back(static_cast<double>(k));
  return whole;
}

std::string format_tick(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", std::clamp(decimals, 0, 15), value);
  std::string s = text;
  if (s.front() == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

range padded(range r, double pad) {
  if (!std::isfinite(r.lo) || !std::isfinite(r.hi) || r.lo > r.hi) return {-0.5, 0.5};
  if (r.lo == r.hi) return {r.lo - 0.5, r.hi + 0.5};
  const double margin = pad * (r.hi - r.lo);
  return {r.lo - margin, r.hi + margin};
}

range padded_range(std::span<const float> a, std::span<const float> b, double pad) {
  range r{INFINITY, -INFINITY};
  for (auto values : {a, b})
    for (float v : values)
      if (std::isfinite(v)) r.lo = std::min<double>(r.lo, v), r.hi = std::max<double>(r.hi, v);
  return padded(r, pad);
}

range padded_range(std::span<const float> values, double pad) { return padded_range(values, {}, pad); }

time_unit time_unit_for(double duration_seconds) {
  if (duration_seconds < 180) return {1, "s"};
  if (duration_seconds < 3 * 3600) return {60, "min"};
  return {3600, "h"};
}

std::string clock_time(double seconds) {
  const auto tenths = static_cast<long long>(std::llround(std::max(0.0, seconds) * 10));
  const long long h = tenths / 36000, m = tenths / 600 % 60, s = tenths / 10 % 60, d = tenths % 10;
  char text[64];
  std::snprintf(text, sizeof text, "%lld:%02lld:%02lld.%lld", h, m, s, d);
  return text;
}

}  // namespace zeroflow::report::png
