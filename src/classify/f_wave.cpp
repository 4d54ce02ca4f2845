// F-wave rates (f_wave.hpp): a Butterworth band-pass applied forward and backward, then zero
// crossings counted in each T–Q interval.
#include "zeroflow/classify/f_wave.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <limits>
#include <numbers>

#include "zeroflow/core/error.hpp"

namespace zeroflow::classify {

namespace {

/// A second-order section y = (b0 + b1 z⁻¹ + b2 z⁻²) / (1 + a1 z⁻¹ + a2 z⁻²) x, in transposed
/// direct form II.
struct biquad {
  double b0 = 0, b1 = 0, b2 = 0, a1 = 0, a2 = 0;
};

/// The 4th-order Butterworth band-pass [low, high] Hz: the 2nd-order analog low-pass prototype
/// moved to the band (s → (s² + ω0²) / (B s)) and mapped by the bilinear transform with both
/// edges pre-warped, so that the digital filter is −3 dB exactly at them. Each conjugate pair of
/// poles makes a section with one zero at z = 1 (DC) and one at z = −1 (Nyquist); the gain makes
/// the response 1 at the band's centre.
std::array<biquad, 2> butterworth_bandpass(double low_hz, double high_hz, double sample_rate) {
  const double fs2 = 2 * sample_rate;
  const double w_low = fs2 * std::tan(std::numbers::pi * low_hz / sample_rate);
  const double w_high = fs2 * std::tan(std::numbers::pi * high_hz / sample_rate);
  const double bandwidth = w_high - w_low, centre = std::sqrt(w_low * w_high);
  const std::complex<double> prototype = std::polar(1.0, 3 * std::numbers::pi / 4);  // its conjugate is the other
  const std::complex<double> half = prototype * bandwidth / 2.0;
  const std::complex<double> root = std::sqrt(half * half - centre * centre);
  std::array<biquad, 2> out;
  const std::array<std::complex<double>, 2> analog{half + root, half - root};
  for (std::size_t k = 0; k < 2; ++k) {
    const std::complex<double> z = (fs2 + analog[k]) / (fs2 - analog[k]);
    out[k] = {1, 0, -1, -2 * z.real(), std::norm(z)};
  }
  // The response at the centre, mapped back to the digital frequency.
  const std::complex<double> at = std::polar(1.0, -2 * std::atan(centre / fs2));  // z⁻¹ there
  std::complex<double> response = 1;
  for (const biquad& s : out) response *= (s.b0 + s.b1 * at + s.b2 * at * at) / (1.0 + s.a1 * at + s.a2 * at * at);
  const double gain = 1 / std::sqrt(std::abs(response));
  for (biquad& s : out) s.b0 *= gain, s.b1 *= gain, s.b2 *= gain;
  return out;
}

/// Runs the sections over `values` in place, from rest, forward or backward.
void filter(std::span<double> values, const std::array<biquad, 2>& sections, bool backward) {
  for (const biquad& s : sections) {
    double w1 = 0, w2 = 0;
    const auto n = values.size();
    for (std::size_t i = 0; i < n; ++i) {
      double& x = values[backward ? n - 1 - i : i];
      const double y = s.b0 * x + w1;
      w1 = s.b1 * x - s.a1 * y + w2;
      w2 = s.b2 * x - s.a2 * y;
      x = y;
    }
  }
}

}  // namespace

std::vector<double> f_wave_rates(std::span<const float> signal, std::span<const std::int64_t> peaks, double sample_rate,
                                 const f_wave_params& p) {
  ZF_EXPECTS(sample_rate > 0 && std::isfinite(sample_rate), "the sample rate must be positive, got ", sample_rate);
  for (const double v : {p.band_low_hz, p.band_high_hz, p.t_wave_end_margin_seconds, p.qt_seconds_per_root_rr,
                         p.qrs_onset_seconds, p.min_interval_seconds})
    ZF_EXPECTS(v > 0 && std::isfinite(v), "f-wave parameters must be positive and finite, one is ", v);
  ZF_EXPECTS(p.band_low_hz < p.band_high_hz, "the f-wave band must run from low to high, got ", p.band_low_hz, " to ",
             p.band_high_hz, " Hz");
  const auto n = static_cast<std::int64_t>(signal.size());
  for (std::size_t b = 0; b < peaks.size(); ++b) {
    ZF_EXPECTS(peaks[b] >= 0 && peaks[b] < n, "R peak ", b, " at sample ", peaks[b], " lies outside the signal of ", n,
               " samples");
    ZF_EXPECTS(b == 0 || peaks[b] > peaks[b - 1], "R peaks must increase: beat ", b, " at sample ", peaks[b],
               " follows sample ", peaks[b - 1]);
  }
  std::vector<double> out(peaks.size(), std::numeric_limits<double>::quiet_NaN());
  const auto finite = std::find_if(signal.begin(), signal.end(), [](float v) { return std::isfinite(v); });
  if (peaks.size() < 2 || !(p.band_high_hz < sample_rate / 2) || finite == signal.end()) return out;

  // A missing sample (NaN: a gap, an invalid value) would spread through the recursive filter:
  // it reads as the baseline, and the intervals the filter carries it into are not measured.
  // missing_before[i] counts the missing samples before sample i.
  const double baseline = *finite;
  std::vector<double> band(signal.size());
  std::vector<std::int64_t> missing_before(signal.size() + 1, 0);
  for (std::size_t i = 0; i < signal.size(); ++i) {
    const bool missing = !std::isfinite(signal[i]);
    band[i] = missing ? 0.0 : signal[i] - baseline;
    missing_before[i + 1] = missing_before[i] + (missing ? 1 : 0);
  }
  const auto sections = butterworth_bandpass(p.band_low_hz, p.band_high_hz, sample_rate);
  filter(band, sections, false);
  filter(band, sections, true);

  // The filter starts from rest at both ends of the signal and at every missing sample: an
  // interval within one period of the band's lower edge of them is not measured.
  const auto reach = static_cast<std::int64_t>(std::ceil(sample_rate / p.band_low_hz));
  const auto onset = std::llround(p.qrs_onset_seconds * sample_rate);
  const auto shortest = std::llround(p.min_interval_seconds * sample_rate);
  for (std::size_t b = 1; b < peaks.size(); ++b) {
    // The QT from the interval it lies in: measured against the cycle before beat b − 1 instead,
    // AF strips found fell by half a point (docs/classification.md).
    const double rr_seconds = static_cast<double>(peaks[b] - peaks[b - 1]) / sample_rate;
    const double t_end_seconds = p.t_wave_end_margin_seconds + p.qt_seconds_per_root_rr * std::sqrt(rr_seconds);
    const std::int64_t first = peaks[b - 1] + static_cast<std::int64_t>(std::floor(t_end_seconds * sample_rate));
    const std::int64_t end = peaks[b] - onset;
    if (end - first < shortest || first - reach < 0 || end + reach > n) continue;
    if (missing_before[static_cast<std::size_t>(end + reach)] !=
        missing_before[static_cast<std::size_t>(first - reach)])
      continue;
    std::int64_t crossings = 0;
    for (auto i = first + 1; i < end; ++i)
      crossings += (band[static_cast<std::size_t>(i)] > 0) != (band[static_cast<std::size_t>(i - 1)] > 0) ? 1 : 0;
    out[b] = static_cast<double>(crossings) * sample_rate / static_cast<double>(end - first);
  }
  return out;
}

}  // namespace zeroflow::classify
