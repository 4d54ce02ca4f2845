#pragma once
// Axis arithmetic shared by every PNG figure: nice tick steps, tick labels, data ranges, time
// units. Pure functions (no cairo), so the tests check them directly.
#include <span>
#include <string>
#include <vector>

namespace zeroflow::report::png {

/// A closed interval of data values.
struct range {
  double lo = 0, hi = 1;
  [[nodiscard]] double span() const { return hi - lo; }
};

/// Ticks of one axis: the multiples of `step` inside the axis range, and how many decimals
/// their labels need.
struct ticks {
  double step = 1;
  std::vector<double> values;
  int decimals = 0;
};

/// @brief The smallest step of the form {1, 2, 5}·10^k (k any integer) with at most `max_ticks`
/// of its multiples inside [lo, hi].
/// @throws zeroflow::invalid_argument unless lo < hi are finite and max_ticks >= 2
[[nodiscard]] double nice_step(double lo, double hi, int max_ticks);

/// @brief nice_step's multiples inside [lo, hi] (a rounding tolerance of 1e-9 steps at both
/// ends) and the decimals that label them exactly.
[[nodiscard]] ticks nice_ticks(double lo, double hi, int max_ticks);

/// nice_ticks with a step of at least 1 (epochs, counts).
[[nodiscard]] ticks integer_ticks(double lo, double hi, int max_ticks);

/// A tick label: fixed notation with `decimals` decimals, never "-0".
[[nodiscard]] std::string format_tick(double value, int decimals);

/// @brief The finite values' [min, max], widened by `pad` of its span on each side; a single
/// value (or none) becomes a unit-wide range around it (around 0).
[[nodiscard]] range padded_range(std::span<const float> values, double pad = 0.05);
/// The same for two sets of values at once (e.g. a min and a max series).
[[nodiscard]] range padded_range(std::span<const float> a, std::span<const float> b, double pad = 0.05);
/// Widens [lo, hi] by `pad` of its span; an empty or non-finite range becomes a unit-wide one.
[[nodiscard]] range padded(range r, double pad = 0.05);

/// The unit a time axis is labelled in.
struct time_unit {
  double seconds = 1;  ///< seconds per unit
  const char* name = "s";
};
/// Seconds below 3 minutes, minutes below 3 hours, hours beyond.
[[nodiscard]] time_unit time_unit_for(double duration_seconds);

/// A time in the recording as h:mm:ss.s ("0:12:04.3").
[[nodiscard]] std::string clock_time(double seconds);

}  // namespace zeroflow::report::png
