#include "zeroflow/synth/ecg.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numbers>

#include "artefacts.hpp"
#include "random.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::synth {
namespace {

using detail::random_source;
using detail::two_pi;
using namespace detail::streams;

/// Waves are cut at this many standard deviations (exp(-12.5) ~ 4e-6 of the amplitude).
constexpr double wave_extent_sigmas = 5.0;

/// The waves of a normal beat at RR = 1 s, for one recording; amplitudes in mV, times in s
/// relative to the R peak.
struct sinus_shape {
  double p_offset, p_amp, p_sigma;
  double q_offset, q_amp, q_sigma;
  double r_amp, r_sigma;
  double s_offset, s_amp, s_sigma;
  double t_offset, t_amp, t_sigma;
};

/// The waves of the PVCs of one ectopic focus (a patient's PVCs from one focus look alike).
struct pvc_shape {
  double polarity;  // +1 or -1: sign of the main QRS deflection
  double main_amp, main_sigma;
  double notch_offset, notch_amp, notch_sigma;  // the opposite lobe that makes the QRS bizarre
  double t_offset, t_amp, t_sigma;              // discordant T: sign opposite to the QRS
  double coupling;                              // fraction of the sinus RR before the PVC
};

/// The P wave of the atrial premature beats of one recording (one ectopic atrial focus).
struct apb_p_wave {
  double offset, amp, sigma;
};

enum class beat_kind { sinus, atrial, ventricular };

struct beat_event {
  double time;      // fiducial point, seconds
  double sinus_rr;  // RR of the underlying sinus rhythm, seconds (drives QT scaling)
  int focus;        // the PVC focus of a ventricular beat, else -1
  beat_kind kind;
};

sinus_shape draw_sinus_shape(random_source& rng) {
  sinus_shape s{};
  s.p_offset = -rng.uniform(0.13, 0.17);
  s.p_amp = rng.uniform(0.10, 0.20);
  s.p_sigma = rng.uniform(0.018, 0.024);
  s.q_offset = -rng.uniform(0.022, 0.028);
  s.q_amp = -rng.uniform(0.05, 0.15);
  s.q_sigma = rng.uniform(0.007, 0.009);
  s.r_amp = rng.uniform(0.9, 1.5);
  s.r_sigma = rng.uniform(0.009, 0.011);
  s.s_offset = rng.uniform(0.024, 0.030);
  s.s_amp = -rng.uniform(0.15, 0.35);
  s.s_sigma = rng.uniform(0.008, 0.010);
  s.t_offset = rng.uniform(0.25, 0.29);
  s.t_amp = rng.uniform(0.20, 0.40);
  s.t_sigma = rng.uniform(0.042, 0.050);
  return s;
}

pvc_shape draw_pvc_shape(random_source& rng) {
  pvc_shape v{};
  v.polarity = rng.bernoulli(0.5) ? 1.0 : -1.0;
  v.main_amp = rng.uniform(1.3, 2.0);
  // QRS lasts about +-2 sigma of the main lobe plus the notch: 120-160 ms.
  v.main_sigma = rng.uniform(0.030, 0.036);
  v.notch_offset = (rng.bernoulli(0.5) ? 1.0 : -1.0) * rng.uniform(0.035, 0.050);
  v.notch_amp = rng.uniform(0.25, 0.50);
  v.notch_sigma = rng.uniform(0.016, 0.022);
  v.t_offset = rng.uniform(0.30, 0.34);
  v.t_amp = rng.uniform(0.35, 0.60);
  v.t_sigma = rng.uniform(0.065, 0.080);
  v.coupling = rng.uniform(0.60, 0.70);
  return v;
}

apb_p_wave draw_apb_p_wave(random_source& rng, const sinus_shape& sinus) {
  // An ectopic atrial focus depolarises the atria along another path: a P wave of another size
  // or polarity (inverted for a focus low in the atria) and another P-R interval.
  apb_p_wave p{};
  p.offset = -rng.uniform(0.10, 0.16);
  p.amp = sinus.p_amp * (rng.bernoulli(0.4) ? -rng.uniform(0.4, 0.8) : rng.uniform(0.5, 1.3));
  p.sigma = rng.uniform(0.014, 0.026);
  return p;
}

/// Adds one Gaussian wave centred at `centre` seconds to the signal.
void add_wave(std::vector<float>& x, double fs, double centre, double amp, double sigma) {
  const double n = static_cast<double>(x.size());
  const double first = std::max(0.0, std::ceil((centre - wave_extent_sigmas * sigma) * fs));
  const double last = std::min(n - 1.0, std::floor((centre + wave_extent_sigmas * sigma) * fs));
  if (first > last) return;
  const double inv_two_var = 1.0 / (2.0 * sigma * sigma);
  const auto begin = static_cast<std::size_t>(first);
  const auto end = static_cast<std::size_t>(last) + 1;
  // exp(-(t-c)^2 / 2s^2) on a uniform grid by recurrence, three exp() per wave instead of one
  // per sample: g[k+1] = g[k] * r[k], r[k+1] = r[k] * q with q = exp(-h^2 / s^2). Relative
  // rounding grows by ~1e-16 a step, far below float resolution over a few hundred steps.
  const double h = 1.0 / fs;
  const double dt0 = static_cast<double>(begin) / fs - centre;
  double g = amp * std::exp(-dt0 * dt0 * inv_two_var);
  double r = std::exp(-(2.0 * dt0 * h + h * h) * inv_two_var);
  const double q = std::exp(-2.0 * h * h * inv_two_var);
  for (std::size_t k = begin; k < end; ++k) {
    x[k] += static_cast<float>(g);
    g *= r;
    r *= q;
  }
}

/// A sinusoid evaluated sample by sample by rotating a phasor, re-anchored exactly every
/// block so rounding cannot build up over a day of samples.
class oscillator {
 public:
  oscillator(double freq_hz, double phase, double fs)
      : freq_(freq_hz),
        phase_(phase),
        fs_(fs),
        step_cos_(std::cos(two_pi * freq_hz / fs)),
        step_sin_(std::sin(two_pi * freq_hz / fs)) {}

  /// Positions the phasor at sample k exactly.
  void anchor(std::size_t k) {
    const double cycles = freq_ * (static_cast<double>(k) / fs_);
    const double angle = two_pi * (cycles - std::floor(cycles)) + phase_;
    cos_ = std::cos(angle);
    sin_ = std::sin(angle);
  }

  /// The value at the current sample, then moves one sample on.
  double next() {
    const double value = sin_;
    const double c = cos_ * step_cos_ - sin_ * step_sin_;
    sin_ = sin_ * step_cos_ + cos_ * step_sin_;
    cos_ = c;
    return value;
  }

 private:
  double freq_, phase_, fs_, step_cos_, step_sin_;
  double cos_ = 1.0, sin_ = 0.0;
};

void check_options(const ecg_options& o) {
  ZF_EXPECTS(std::isfinite(o.hours) && o.hours >= 0.0, "ecg_options.hours must be >= 0, got ", o.hours);
  ZF_EXPECTS(std::isfinite(o.sample_rate) && o.sample_rate >= 50.0, "ecg_options.sample_rate must be >= 50 Hz, got ",
             o.sample_rate);
  ZF_EXPECTS(o.hours * 3600.0 * o.sample_rate < 0x1.0p33,
             "ecg_options: hours * 3600 * sample_rate is too many samples (", o.hours * 3600.0 * o.sample_rate, ")");
  ZF_EXPECTS(o.anomaly_rate >= 0.0 && o.anomaly_rate < 0.5, "ecg_options.anomaly_rate must be in [0, 0.5), got ",
             o.anomaly_rate);
  ZF_EXPECTS(o.heart_rate_bpm >= 30.0 && o.heart_rate_bpm <= 200.0,
             "ecg_options.heart_rate_bpm must be in [30, 200], got ", o.heart_rate_bpm);
  ZF_EXPECTS(o.hrv >= 0.0 && o.hrv <= 0.2, "ecg_options.hrv must be in [0, 0.2], got ", o.hrv);
  ZF_EXPECTS(o.noise_mv >= 0.0 && std::isfinite(o.noise_mv), "ecg_options.noise_mv must be >= 0, got ", o.noise_mv);
  ZF_EXPECTS(o.baseline_wander_mv >= 0.0 && std::isfinite(o.baseline_wander_mv),
             "ecg_options.baseline_wander_mv must be >= 0, got ", o.baseline_wander_mv);
  ZF_EXPECTS(o.mains_mv >= 0.0 && std::isfinite(o.mains_mv), "ecg_options.mains_mv must be >= 0, got ", o.mains_mv);
  ZF_EXPECTS(o.mains_hz > 0.0 && std::isfinite(o.mains_hz), "ecg_options.mains_hz must be > 0, got ", o.mains_hz);
  ZF_EXPECTS(o.apb_rate >= 0.0 && o.apb_rate < 0.5,
             "the fraction of atrial premature beats (apb_rate) must be in [0, 0.5), got ", o.apb_rate);
  ZF_EXPECTS(o.anomaly_rate + o.apb_rate < 0.5,
             "the fractions of premature ventricular and atrial beats (anomaly_rate + apb_rate) must "
             " add up to less than 0.5, as every premature beat follows a normal one; got ",
             o.anomaly_rate, " + ", o.apb_rate);
  ZF_EXPECTS(o.noise_bursts_per_hour >= 0.0 && o.noise_bursts_per_hour <= 360.0,
             "noise bursts per hour (noise_bursts_per_hour) must be in [0, 360], got ", o.noise_bursts_per_hour);
  ZF_EXPECTS(o.baseline_jumps_per_hour >= 0.0 && o.baseline_jumps_per_hour <= 360.0,
             "baseline jumps per hour (baseline_jumps_per_hour) must be in [0, 360], got ", o.baseline_jumps_per_hour);
}

/// The beat sequence: a sinus rhythm with heart-rate variability in which, with the right
/// probabilities, a sinus beat is replaced by an earlier PVC or APB. After a PVC the sinus node
/// keeps its rhythm, the replaced sinus beat finds the ventricles refractory and is lost, so the
/// next beat comes on the sinus schedule: a full compensatory pause (RR before + after = two
/// sinus RRs). An APB instead discharges the sinus node, which starts its cycle again from the
/// APB: the next beat follows about one sinus RR later.
std::vector<beat_event> draw_beats(const ecg_options& o, double duration, double resp_hz, random_source& rng,
                                   random_source& apb_rng, const std::vector<pvc_shape>& foci) {
  const double rr0 = 60.0 / o.heart_rate_bpm;
  // Amplitudes chosen so that the RR standard deviation is about hrv * rr0:
  // 1/2 + 0.7^2/2 + 0.5^2 = 0.995.
  const double a_resp = o.hrv, a_mayer = 0.7 * o.hrv, a_jitter = 0.5 * o.hrv;
  const double mayer_hz = rng.uniform(0.08, 0.12);
  const double resp_phase = rng.uniform(0.0, two_pi), mayer_phase = rng.uniform(0.0, two_pi);
  const auto sinus_rr = [&](double t, random_source& jitter_rng) {
    const double f = 1.0 + a_resp * std::sin(two_pi * resp_hz * t + resp_phase) +
                     a_mayer * std::sin(two_pi * mayer_hz * t + mayer_phase) + a_jitter * jitter_rng.normal();
    return rr0 * std::clamp(f, 0.5, 1.5);
  };
  // Every premature beat follows a normal one, so with the normal fraction s = 1 - v - a the
  // stationary fractions are v = anomaly_rate and a = apb_rate when P(PVC | normal) = v / s and
  // P(APB | normal) = a / s. The PVC is decided first, from the rhythm stream as before APBs
  // existed, then the APB given no PVC.
  const double normal_fraction = 1.0 - o.anomaly_rate - o.apb_rate;
  const double p_pvc = o.anomaly_rate / normal_fraction;
  const double p_apb = o.apb_rate / normal_fraction;
  const double p_apb_given_no_pvc = p_apb / (1.0 - p_pvc);

  std::vector<beat_event> beats;
  beats.reserve(static_cast<std::size_t>(duration / rr0 * 1.3) + 16);
  // Start a little before 0 so that the first samples hold the tail of a beat, as a real
  // recording does.
  double previous = -rr0 * (1.0 + rng.uniform());
  double current = previous + sinus_rr(previous, rng);
  bool previous_was_ectopic = true;  // no premature first beat: it has no coupling interval
  while (previous < duration + 1.0) {
    const double next = current + sinus_rr(current, rng);
    const double rr = current - previous;
    if (!previous_was_ectopic && rng.bernoulli(p_pvc)) {
      const int focus = foci.size() > 1 && rng.bernoulli(0.3) ? 1 : 0;
      const double coupling = foci[static_cast<std::size_t>(focus)].coupling + rng.uniform(-0.02, 0.02);
      beats.push_back({previous + coupling * rr, rr, focus, beat_kind::ventricular});
      previous_was_ectopic = true;
    } else if (!previous_was_ectopic && p_apb > 0.0 && apb_rng.bernoulli(p_apb_given_no_pvc)) {
      const double apb = previous + apb_rng.uniform(0.55, 0.80) * rr;
      beats.push_back({apb, rr, -1, beat_kind::atrial});
      previous_was_ectopic = true;
      // The new sinus cycle starts at the APB, a little late by the time the ectopic impulse
      // takes to reach the sinus node.
      previous = apb;
      current = apb + sinus_rr(apb, apb_rng) * apb_rng.uniform(1.0, 1.08);
      continue;
    } else {
      beats.push_back({current, rr, -1, beat_kind::sinus});
      previous_was_ectopic = false;
    }
    previous = current;
    current = next;
  }
  return beats;
}

}  // namespace

ecg_recording generate_ecg(const ecg_options& o) {
  check_options(o);
  const double fs = o.sample_rate;
  const auto n = static_cast<std::size_t>(std::llround(o.hours * 3600.0 * fs));
  const double duration = static_cast<double>(n) / fs;

  random_source shape_rng(o.seed, shape_stream);
  const sinus_shape sinus = draw_sinus_shape(shape_rng);
  std::vector<pvc_shape> foci{draw_pvc_shape(shape_rng)};
  if (shape_rng.bernoulli(0.3)) foci.push_back(draw_pvc_shape(shape_rng));
  const double resp_hz = shape_rng.uniform(0.2, 0.3);
  const double resp_phase = shape_rng.uniform(0.0, two_pi);
  const double qrs_resp_mod = shape_rng.uniform(0.03, 0.08);  // electrical axis moves with breathing
  const double wander_hz = shape_rng.uniform(0.12, 0.18);
  const double wander_phase = shape_rng.uniform(0.0, two_pi);
  const double mains_phase = shape_rng.uniform(0.0, two_pi);

  random_source apb_rng(o.seed, apb_stream);
  const apb_p_wave apb_p = draw_apb_p_wave(apb_rng, sinus);

  random_source rhythm_rng(o.seed, rhythm_stream);
  const std::vector<beat_event> beats = draw_beats(o, duration, resp_hz, rhythm_rng, apb_rng, foci);

  ecg_recording rec;
  rec.sample_rate = fs;
  rec.samples.assign(n, 0.0f);
  rec.r_peaks.reserve(beats.size());
  rec.labels.reserve(beats.size());
  for (const beat_event& b : beats) {
    // Per-beat amplitude jitter comes from the shape stream, beat by beat, so it is the same
    // at every sample rate.
    const double resp = 1.0 + qrs_resp_mod * std::sin(two_pi * resp_hz * b.time + resp_phase);
    const double jitter = 1.0 + 0.03 * shape_rng.normal();
    const double t_jitter = 1.0 + 0.05 * shape_rng.normal();
    const double p_shift = 0.003 * shape_rng.normal();
    const double qt = std::sqrt(b.sinus_rr);  // Bazett: QT grows with sqrt(RR)
    auto& x = rec.samples;
    if (b.kind != beat_kind::ventricular) {
      // An APB is conducted through the normal pathway: only its P wave differs.
      const double a = resp * jitter;
      if (b.kind == beat_kind::sinus)
        add_wave(x, fs, b.time + sinus.p_offset + p_shift, sinus.p_amp * jitter, sinus.p_sigma);
      else
        add_wave(x, fs, b.time + apb_p.offset + p_shift, apb_p.amp * jitter, apb_p.sigma);
      add_wave(x, fs, b.time + sinus.q_offset, sinus.q_amp * a, sinus.q_sigma);
      add_wave(x, fs, b.time, sinus.r_amp * a, sinus.r_sigma);
      add_wave(x, fs, b.time + sinus.s_offset, sinus.s_amp * a, sinus.s_sigma);
      // The T wave rises slower than it falls: a smaller, wider wave leads the main one.
      const double t_centre = b.time + sinus.t_offset * qt;
      add_wave(x, fs, t_centre, sinus.t_amp * t_jitter, sinus.t_sigma * qt);
      add_wave(x, fs, t_centre - 0.045 * qt, 0.35 * sinus.t_amp * t_jitter, 1.3 * sinus.t_sigma * qt);
    } else {
      const pvc_shape& v = foci[static_cast<std::size_t>(b.focus)];
      const double a = resp * jitter * v.polarity;
      add_wave(x, fs, b.time, v.main_amp * a, v.main_sigma);
      add_wave(x, fs, b.time + v.notch_offset, -v.notch_amp * a, v.notch_sigma);
      add_wave(x, fs, b.time + v.t_offset * qt, -v.t_amp * v.polarity * t_jitter, v.t_sigma * qt);
    }
    const long long r = std::llround(b.time * fs);
    if (r >= 0 && static_cast<std::size_t>(r) < n) {
      rec.r_peaks.push_back(r);
      rec.labels.push_back(b.kind == beat_kind::sinus ? 'N' : b.kind == beat_kind::atrial ? 'A' : 'V');
    }
  }

  // Baseline wander (respiration plus a second, slower component), mains hum, white noise.
  const bool wander = o.baseline_wander_mv > 0.0, mains = o.mains_mv > 0.0, noise = o.noise_mv > 0.0;
  if (wander || mains || noise) {
    oscillator breathing(resp_hz, resp_phase, fs), drift(wander_hz, wander_phase, fs), hum(o.mains_hz, mains_phase, fs);
    random_source noise_rng(o.seed, noise_stream);
    const double w1 = 0.7 * o.baseline_wander_mv, w2 = 0.3 * o.baseline_wander_mv;
    constexpr std::size_t block = 4096;
    for (std::size_t k0 = 0; k0 < n; k0 += block) {
      breathing.anchor(k0);
      drift.anchor(k0);
      hum.anchor(k0);
      const std::size_t k1 = std::min(n, k0 + block);
      for (std::size_t k = k0; k < k1; ++k) {
        double v = rec.samples[k];
        const double b1 = breathing.next(), b2 = drift.next(), h = hum.next();
        if (wander) v += w1 * b1 + w2 * b2;
        if (mains) v += o.mains_mv * h;
        if (noise) v += o.noise_mv * noise_rng.normal();
        rec.samples[k] = static_cast<float>(v);
      }
    }
  }

  detail::add_noise_bursts(rec, o, sinus.r_amp);
  detail::add_baseline_jumps(rec, o);
  std::stable_sort(rec.artefacts.begin(), rec.artefacts.end(),
                   [](const artefact_interval& a, const artefact_interval& b) { return a.start < b.start; });
  return rec;
}

}  // namespace zeroflow::synth
