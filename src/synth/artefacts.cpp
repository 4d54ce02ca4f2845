#include "artefacts.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <vector>

#include "random.hpp"

namespace zeroflow::synth::detail {
namespace {

using namespace streams;

/// Arrival times in [0, duration) seconds of a Poisson process with `per_hour` events an hour.
std::vector<double> poisson_times(double per_hour, double duration, random_source& rng) {
  std::vector<double> times;
  if (per_hour <= 0.0) return times;
  const double mean_gap = 3600.0 / per_hour;
  const auto gap = [&] { return -mean_gap * std::log1p(-rng.uniform()); };
  for (double t = gap(); t < duration; t += gap()) times.push_back(t);
  return times;
}

/// The sample index of time t, clamped to [0, n].
std::int64_t sample_at(double t, double fs, std::size_t n) {
  return std::clamp<std::int64_t>(std::llround(t * fs), 0, static_cast<std::int64_t>(n));
}

}  // namespace

/// Muscle artefact: white noise band-limited to about 8-60 Hz (a high-pass and two low-pass
/// one-pole sections, the upper edge kept below Nyquist), scaled to an RMS of 15-40 % of the R
/// wave so that its peaks are as large as a QRS, with smooth onset and offset.
void add_noise_bursts(ecg_recording& rec, const ecg_options& o, double r_amp) {
  const double fs = o.sample_rate;
  const std::size_t n = rec.samples.size();
  const double duration = static_cast<double>(n) / fs;
  random_source rng(o.seed, burst_stream);
  struct burst {
    double start, length, rms;
  };
  std::vector<burst> bursts;
  // Every burst's timing and size are drawn before any noise, so that they do not depend on
  // the sample rate.
  for (const double t : poisson_times(o.noise_bursts_per_hour, duration, rng)) {
    const double length = std::exp(rng.uniform(std::log(0.3), std::log(3.0)));
    bursts.push_back({t, length, rng.uniform(0.15, 0.40) * r_amp});
  }
  random_source noise_rng(o.seed, burst_noise_stream);
  const double high_pass = std::exp(-two_pi * 8.0 / fs);
  const double low_pass = std::exp(-two_pi * std::min(60.0, 0.3 * fs) / fs);
  const auto warm_up = static_cast<std::size_t>(std::ceil(0.2 * fs));
  std::vector<double> noise;
  for (const burst& b : bursts) {
    const std::int64_t first = sample_at(b.start, fs, n), last = sample_at(b.start + b.length, fs, n);
    if (first >= last) continue;
    const auto count = static_cast<std::size_t>(last - first);
    // The filters run over a warm-up first, so the burst starts from stationary noise.
    noise.assign(count, 0.0);
    double hp_in = 0.0, hp_out = 0.0, lp1 = 0.0, lp2 = 0.0, energy = 0.0;
    for (std::size_t k = 0; k < warm_up + count; ++k) {
      const double w = noise_rng.normal();
      hp_out = high_pass * (hp_out + w - hp_in);
      hp_in = w;
      lp1 = low_pass * lp1 + (1.0 - low_pass) * hp_out;
      lp2 = low_pass * lp2 + (1.0 - low_pass) * lp1;
      if (k >= warm_up) {
        noise[k - warm_up] = lp2;
        energy += lp2 * lp2;
      }
    }
    if (energy <= 0.0) continue;
    const double scale = b.rms / std::sqrt(energy / static_cast<double>(count));
    // Muscle activity swells and fades: sin^2 ramps over the first and last tenth (at most 0.1 s).
    const double ramp = std::max(1.0, std::min(0.1 * fs, 0.1 * static_cast<double>(count)));
    for (std::size_t k = 0; k < count; ++k) {
      const double edge = std::min(static_cast<double>(k) + 0.5, static_cast<double>(count - k) - 0.5);
      const double s = edge < ramp ? std::sin(0.5 * std::numbers::pi * edge / ramp) : 1.0;
      float& x = rec.samples[static_cast<std::size_t>(first) + k];
      x = static_cast<float>(static_cast<double>(x) + scale * s * s * noise[k]);
    }
    rec.artefacts.push_back({first, last, artefact_kind::noise_burst});
  }
}

/// Electrode motion behind an AC-coupled amplifier: the baseline steps by 0.5-2 mV and the
/// coupling high-pass brings it back exponentially.
void add_baseline_jumps(ecg_recording& rec, const ecg_options& o) {
  const double fs = o.sample_rate;
  const std::size_t n = rec.samples.size();
  const double duration = static_cast<double>(n) / fs;
  random_source rng(o.seed, jump_stream);
  struct jump {
    double start, step, tau;
  };
  std::vector<jump> jumps;
  for (const double t : poisson_times(o.baseline_jumps_per_hour, duration, rng)) {
    const double sign = rng.bernoulli(0.5) ? 1.0 : -1.0;
    jumps.push_back({t, sign * rng.uniform(0.5, 2.0), rng.uniform(0.8, 2.5)});
  }
  for (const jump& j : jumps) {
    // The first sample at or after the step.
    const std::int64_t first =
        std::min(static_cast<std::int64_t>(std::ceil(j.start * fs)), static_cast<std::int64_t>(n));
    // Five time constants leave under 1 % of the step (annotated); twelve leave under 1e-5 of
    // it, below the resolution of the float samples, so the decay is cut there.
    const std::int64_t annotated_end = sample_at(j.start + 5.0 * j.tau, fs, n);
    const std::int64_t last = sample_at(j.start + 12.0 * j.tau, fs, n);
    if (first >= annotated_end) continue;
    const double decay = std::exp(-1.0 / (fs * j.tau));
    double level = j.step * std::exp(-(static_cast<double>(first) / fs - j.start) / j.tau);
    for (std::int64_t k = first; k < last; ++k) {
      float& x = rec.samples[static_cast<std::size_t>(k)];
      x = static_cast<float>(static_cast<double>(x) + level);
      level *= decay;
    }
    rec.artefacts.push_back({first, annotated_end, artefact_kind::baseline_jump});
  }
}

}  // namespace zeroflow::synth::detail
