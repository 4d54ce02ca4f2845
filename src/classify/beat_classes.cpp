// The class rule of beat_classes.hpp, from the measurements of features.hpp.
#include "zeroflow/classify/beat_classes.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "features.hpp"
#include "zeroflow/classify/f_wave.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zeroflow::classify {

namespace {

void check(std::span<const std::int64_t> peaks, const beat_rows& rows, std::size_t row_values, double sample_rate,
           const class_params& p) {
  ZF_EXPECTS(sample_rate > 0 && std::isfinite(sample_rate), "the sample rate must be positive, got ", sample_rate);
  ZF_EXPECTS(
      rows.row_width >= rows.window_before + rows.window_after && rows.window_before >= 0 && rows.window_after >= 0,
      "a beat's window (", rows.window_before, " + ", rows.window_after, " samples) must fit its row of ",
      rows.row_width);
  ZF_EXPECTS(row_values == peaks.size() * static_cast<std::size_t>(rows.row_width), "expected ", peaks.size(),
             " rows of ", rows.row_width, " samples, got ", row_values, " samples");
  // The QRS segment with its shifts and the P-wave segment must lie inside the window.
  const double before = static_cast<double>(rows.window_before) / sample_rate;
  const double after = static_cast<double>(rows.window_after) / sample_rate;
  ZF_EXPECTS(before >= 0.12 && after >= 0.17, "classifying beats needs rows from at least 0.12 s before to 0.17 s ",
             "after the R peak, got ", before, " s and ", after, " s");
  ZF_EXPECTS(std::lround(0.25 * sample_rate) - std::lround(0.07 * sample_rate) >= 2, "the sample rate (", sample_rate,
             " Hz) is too low to see P waves");
  for (std::size_t b = 1; b < peaks.size(); ++b)
    ZF_EXPECTS(peaks[b] > peaks[b - 1], "R peaks must increase: beat ", b, " at sample ", peaks[b], " follows sample ",
               peaks[b - 1]);
  check_class_params(p);
}

/// A strip's f-wave rates (f_wave.hpp), measured on the host in the lead from a second before its
/// first beat to a second after its last: only a strip's prior weighs them, and a strip is a
/// minute of signal at most. Empty without the lead, or for a recording longer than a strip.
std::vector<double> strip_f_wave_rates(std::span<const std::int64_t> peaks, const array* signal, double sample_rate,
                                       const af_params& af, stream_view stream) {
  if (signal == nullptr) return {};
  ZF_EXPECTS(signal->type() == float32 && signal->ndim() == 1, "the beats' lead must be a 1-D float32 array");
  if (peaks.size() < 2 || static_cast<double>(peaks.back() - peaks.front()) / sample_rate > af.strip_max_seconds)
    return {};
  const auto n = signal->shape()[0];
  const auto second = std::llround(sample_rate);
  const std::int64_t first = std::max<std::int64_t>(0, peaks.front() - second);
  const std::int64_t end = std::min<std::int64_t>(n, peaks.back() + second + 1);
  ZF_EXPECTS(peaks.front() >= 0 && peaks.back() < n, "R peaks must lie inside the lead's ", n, " samples");
  const array strip = copy_to(signal->slice(0, first, end), cpu_device, stream);  // contiguous, readable
  std::vector<std::int64_t> local(peaks.begin(), peaks.end());
  for (auto& p : local) p -= first;
  return f_wave_rates(strip.span<const float>(), local, sample_rate);
}

}  // namespace

classification classify_beats(std::span<const std::int64_t> peaks, const beat_rows& rows, double sample_rate,
                              const class_params& p, const recording_context& context) {
  check(peaks, rows, rows.rows.size(), sample_rate, p);
  const auto beats = static_cast<std::int64_t>(peaks.size());
  const detail::other_leads others(context.other_leads, rows, beats, sample_rate, p, {});
  const auto measurements = detail::host_measurements(rows, beats, sample_rate, p.shape.template_rows);
  const auto f_wave = strip_f_wave_rates(peaks, context.signal, sample_rate, p.af, {});
  return detail::classify_measured(peaks, *measurements, sample_rate, p, context.no_signal, &others, f_wave);
}

classification classify_beats(std::span<const std::int64_t> peaks, const array& rows, std::int64_t window_before,
                              std::int64_t window_after, double sample_rate, stream_view stream, const class_params& p,
                              const recording_context& context) {
  ZF_EXPECTS(rows.type() == float32 && rows.ndim() == 2 && rows.is_contiguous(),
             "the beats' rows must be a C-contiguous 2-D float32 array");
  const beat_rows shape{{}, rows.shape()[1], window_before, window_after};
  check(peaks, shape, static_cast<std::size_t>(rows.size()), sample_rate, p);
  const auto beats = static_cast<std::int64_t>(peaks.size());
  const detail::other_leads others(context.other_leads, shape, beats, sample_rate, p, stream);
  const auto measurements = detail::measurements_of(rows, shape, beats, sample_rate, p.shape.template_rows, stream);
  const auto f_wave = strip_f_wave_rates(peaks, context.signal, sample_rate, p.af, stream);
  return detail::classify_measured(peaks, *measurements, sample_rate, p, context.no_signal, &others, f_wave);
}

namespace detail {

std::vector<std::uint8_t> beside_no_signal(std::span<const std::int64_t> peaks,
                                           std::span<const sample_stretch> no_signal) {
  std::vector<std::uint8_t> out(peaks.size(), 0);
  const auto n = static_cast<std::int64_t>(peaks.size());
  for (const auto& s : no_signal) {
    // The beats from the last one before the stretch to the first one after it.
    const auto from = std::lower_bound(peaks.begin(), peaks.end(), s.first) - peaks.begin() - 1;
    const auto to = std::upper_bound(peaks.begin(), peaks.end(), s.last) - peaks.begin();
    for (auto b = std::max<std::int64_t>(from, 0); b <= std::min<std::int64_t>(to, n - 1); ++b)
      out[static_cast<std::size_t>(b)] = 1;
  }
  return out;
}

classification classify_measured(std::span<const std::int64_t> peaks, row_measurements& rows, double sample_rate,
                                 const class_params& p, std::span<const sample_stretch> no_signal,
                                 const other_leads* others, std::span<const double> f_wave_rate) {
  classification out;
  const auto n = peaks.size();
  const bool other_leads_read = others != nullptr && !others->empty();
  out.other_lead_similarity =
      other_leads_read ? others->similarity() : std::vector<float>(n, std::numeric_limits<float>::quiet_NaN());
  out.other_lead_deviation.assign(n, std::numeric_limits<float>::quiet_NaN());
  out.classes.assign(n, 'N');
  out.prematurity.assign(n, 1.0F);
  out.in_af.assign(n, 0);
  out.family.assign(n, 0);
  if (f_wave_rate.empty())
    out.f_wave_rate.assign(n, std::numeric_limits<float>::quiet_NaN());
  else
    out.f_wave_rate.assign(f_wave_rate.begin(), f_wave_rate.end());
  if (n < 3) return out;  // no rhythm to measure against

  out.similarity = rows.similarity();
  out.p_similarity = rows.p_similarity();
  out.clarity = rows.clarity();
  out.unreadable = detail::unreadable_beats(out.clarity, p.quality);
  const auto lead_off = beside_no_signal(peaks, no_signal);
  for (std::size_t b = 0; b < n; ++b) out.unreadable[b] = out.unreadable[b] || lead_off[b];
  std::vector<double> rr_before(n), rr_after(n);
  for (std::size_t b = 1; b < n; ++b) rr_before[b] = static_cast<double>(peaks[b] - peaks[b - 1]) / sample_rate;
  rr_before[0] = rr_before[1];
  for (std::size_t b = 0; b + 1 < n; ++b) rr_after[b] = rr_before[b + 1];
  rr_after[n - 1] = rr_before[n - 1];
  out.fast_rhythm_stretches =
      detail::fast_rhythm_stretches(rows.echo(), rr_after, peaks, lead_off, out.unreadable, p.quality);

  out.dominant_bound = detail::dominant_bound(out.similarity, p);
  std::vector<std::uint8_t> dominant(n), normal_pair(n), unlike(n);
  for (std::size_t b = 0; b < n; ++b) {
    dominant[b] = out.similarity[b] >= out.dominant_bound;
    unlike[b] = !dominant[b];
  }
  for (std::size_t b = 1; b < n; ++b) normal_pair[b] = dominant[b] && dominant[b - 1];
  const auto dominant_rr = detail::local_median(rr_before, dominant, p.timing.local_rhythm_beats);
  const auto normal_rr = detail::local_median(rr_before, normal_pair, p.timing.local_rhythm_beats);

  // An ectopic timing: early, or followed by a pause (one cue alone only for a QRS at least
  // timing.one_cue_min_clarity clear). It is a ventricular timing only where the QRS stands out
  // of the noise (clarity, step 0): noise moves a detected R peak, and with it the intervals on
  // both sides, so the timing of a QRS no clearer than noise is the noise's, and such a beat
  // does not vote for its family's either.
  std::vector<std::uint8_t> ectopic_timing(n), timed_qrs(n), ventricular_timing(n);
  for (std::size_t b = 0; b < n; ++b) {
    const bool early = rr_before[b] < p.timing.ventricular_early_ratio * dominant_rr[b];
    const bool pause = rr_after[b] > p.timing.ventricular_pause_ratio * dominant_rr[b];
    ectopic_timing[b] = (early && pause) || ((early || pause) && out.clarity[b] >= p.timing.one_cue_min_clarity);
    timed_qrs[b] = out.clarity[b] >= p.quality.min_clarity;
    ventricular_timing[b] = timed_qrs[b] && ectopic_timing[b];
  }
  // The unlike beats' shape families: a family mostly of ventricular timing is ventricular.
  std::vector<std::int64_t> unlike_beats;
  for (std::size_t b = 0; b < n; ++b)
    if (unlike[b]) unlike_beats.push_back(static_cast<std::int64_t>(b));
  const qrs_window qrs = rows.qrs();
  const auto unlike_segments = rows.qrs_segments(unlike_beats);
  const auto family = detail::shape_families(unlike_segments, qrs.end - qrs.begin, p.shape.family_min_correlation,
                                             p.shape.max_families);
  for (std::size_t i = 0; i < unlike_beats.size(); ++i)
    out.family[static_cast<std::size_t>(unlike_beats[i])] = family[i] + 1;
  const auto too_small = detail::too_small(rows, unlike_beats, unlike_segments, dominant, p);
  // Families vote by the `timing` of their members that may (`voting`; empty: every one) where the rhythm is
  // regular enough for timing to mean something (outside AF and outside irregular stretches such
  // as an episode's edges), and only when most of the family is there: a family mostly inside AF
  // is judged by shape.
  std::vector<std::uint8_t> irregular_rhythm;
  auto ventricular_of = [&](std::span<const std::uint8_t> in_af, const std::vector<std::uint8_t>& timing,
                            std::span<const std::uint8_t> voting) {
    std::vector<std::int64_t> members(static_cast<std::size_t>(p.shape.max_families), 0), voters(members),
        timed(members);
    const auto timing_counts = [&](std::size_t b) {
      return (voting.empty() || voting[b]) && (in_af.empty() || !(in_af[b] || irregular_rhythm[b]));
    };
    for (std::size_t i = 0; i < unlike_beats.size(); ++i) {
      const auto b = static_cast<std::size_t>(unlike_beats[i]);
      const auto f = static_cast<std::size_t>(family[i]);
      ++members[f];
      if (!timing_counts(b)) continue;
      ++voters[f];
      timed[f] += timing[b];
    }
    // The dominant beats' own timings, counted the same way: timing marks a family ventricular
    // only where its members keep time worse than the dominant beats do. Where those are as often
    // early or followed by a pause (AF the rule has not yet found, a marked sinus arrhythmia), the
    // timing of a family says nothing about its origin. Where no dominant beat's timing counts,
    // there is nothing to weigh the family against, and its share alone decides.
    std::int64_t dominant_voters = 0, dominant_timed = 0;
    for (std::size_t b = 0; b < n; ++b) {
      if (!dominant[b] || !timing_counts(b)) continue;
      ++dominant_voters;
      dominant_timed += timing[b];
    }
    std::vector<std::uint8_t> v(n, 0);
    for (std::size_t i = 0; i < unlike_beats.size(); ++i) {
      const auto b = static_cast<std::size_t>(unlike_beats[i]);
      const auto f = static_cast<std::size_t>(family[i]);
      const bool votes = 2 * voters[f] >= members[f] && voters[f] >= p.shape.family_min_voters;
      const bool family_ventricular =
          votes && static_cast<double>(timed[f]) >= p.shape.family_ventricular_share * static_cast<double>(voters[f]) &&
          (dominant_voters == 0 || timed[f] * dominant_voters > dominant_timed * voters[f]);
      // Inside AF a beat's own timing says nothing, and nor does it at an episode's irregular edges
      // for a family that lives inside AF: there the shape decides.
      const bool by_shape = !in_af.empty() && (in_af[b] || (irregular_rhythm[b] && !votes));
      v[b] = family_ventricular ||
             (by_shape ? out.similarity[b] < p.shape.other_shape_max_similarity : static_cast<bool>(timing[b]));
    }
    return v;
  };
  // AF is judged without the beats whose intervals are not the atria's: unlike beats of an
  // ectopic timing, clear or not (a ventricular beat's, or an R peak the noise moved), and their
  // families. It then decides the beats whose timing says nothing inside it, and the families are
  // voted again without them. Noise neither starts nor ends an episode: unreadable beats, and
  // unlike beats no clearer than noise, are left out of the AF test too.
  auto first_guess = ventricular_of({}, ectopic_timing, {});
  for (std::size_t b = 0; b < n; ++b)
    first_guess[b] = first_guess[b] || out.unreadable[b] || (unlike[b] && !timed_qrs[b]);
  const auto coherence = rows.p_wave_coherence(first_guess, p.af.window_beats);
  out.p_coherence.assign(coherence.begin(), coherence.end());
  const std::vector<double> p_similarity(out.p_similarity.begin(), out.p_similarity.end());
  auto rhythm = detail::af_of(rr_before, peaks, sample_rate, first_guess, {coherence, p_similarity, f_wave_rate}, p.af);
  irregular_rhythm = std::move(rhythm.irregular);
  out.in_af = std::move(rhythm.in_af);
  out.episodes = std::move(rhythm.episodes);
  const auto ventricular = ventricular_of(out.in_af, ventricular_timing, timed_qrs);

  // Supraventricular runs, measured against the rhythm before them; the local normal interval
  // stands in where that rhythm is not recent enough.
  std::vector<std::uint8_t> normal_outside_af(n);
  for (std::size_t b = 0; b < n; ++b) normal_outside_af[b] = normal_pair[b] && !out.in_af[b];
  const auto fallback = detail::local_median(rr_before, normal_outside_af, p.timing.local_rhythm_beats);
  const auto in_run = detail::supraventricular_runs(rr_before, peaks, sample_rate, dominant, out.in_af, fallback, p);

  for (std::size_t b = 0; b < n; ++b) {
    out.prematurity[b] = static_cast<float>(rr_before[b] / normal_rr[b]);
    if (unlike[b]) {
      // What this lead cannot place, the other leads may: a ventricular QRS is another shape in
      // every lead, while an axis shift or a loosening electrode changes one lead only. Noise
      // spoils a beat's shape in each lead its own way: only another shape in this lead too, of
      // a QRS that stands out of the noise here (clarity), is V.
      const float elsewhere = out.other_lead_similarity[b];
      const double another_shape = p.shape.other_shape_max_similarity;
      if (ventricular[b] && !too_small[b])
        out.classes[b] = 'V';
      else if (!std::isnan(elsewhere) && elsewhere >= another_shape)
        out.classes[b] = 'N';
      else if (!std::isnan(elsewhere) && out.similarity[b] < another_shape && out.clarity[b] >= p.quality.min_clarity)
        out.classes[b] = 'V';
      else
        // Unlike but placed by nothing: the rhythm it sits in decides, and that rhythm is N (a
        // second conduction pattern, an axis shift). A QRS no clearer than noise (at a noisy
        // stretch's edge) or a few percent of the dominant one's size (a lead coming loose) is
        // no beat's shape: Q.
        out.classes[b] = too_small[b] || out.clarity[b] < p.quality.min_clarity ? 'Q' : 'N';
    } else if (!out.in_af[b] && (rr_before[b] < p.timing.premature_ratio * normal_rr[b] || in_run[b] ||
                                 (rr_before[b] < p.timing.premature_with_p_ratio * normal_rr[b] &&
                                  out.p_similarity[b] <= p.timing.p_unlike_max_similarity && !irregular_rhythm[b]))) {
      out.classes[b] = 'S';
    }
  }
  // Step 7: a ventricular QRS is another shape in every lead. Where the other leads that read a
  // beat called V see its QRS no further from the normal beats around it (N and S: both are
  // conducted through the His bundle, one QRS) than those lie from each other, what made it
  // unlike here is this lead's noise, which also moved its R peak: N.
  if (other_leads_read && p.shape.other_lead_min_deviation > 0) {
    std::vector<std::int64_t> called_v;
    std::vector<std::uint8_t> normal(n);
    for (std::size_t b = 0; b < n; ++b) {
      if (out.classes[b] == 'V') called_v.push_back(static_cast<std::int64_t>(b));
      normal[b] = (out.classes[b] == 'N' || out.classes[b] == 'S') && !out.unreadable[b];
    }
    const auto deviation =
        others->deviation(called_v, normal, p.timing.local_rhythm_beats, p.shape.smallest_qrs_fraction);
    for (std::size_t i = 0; i < called_v.size(); ++i) {
      const auto b = static_cast<std::size_t>(called_v[i]);
      out.other_lead_deviation[b] = deviation[i];
      if (deviation[i] < p.shape.other_lead_min_deviation) out.classes[b] = 'N';
    }
  }
  // Step 8: a lone beat called V that no other lead reads stands where they are noisy; with a QRS
  // only a little clearer than noise in this lead too, no lead can say what its shape is: Q. In a
  // couplet or a run each QRS crowds its neighbours' rows, so there clarity cannot tell noise. A
  // neighbour in an unreadable stretch is Q below, no V beat.
  if (other_leads_read && p.shape.unconfirmed_v_min_clarity > 0) {
    std::vector<std::uint8_t> called_v(n);
    for (std::size_t b = 0; b < n; ++b) called_v[b] = out.classes[b] == 'V' && !out.unreadable[b];
    for (std::size_t b = 0; b < n; ++b) {
      const bool lone = (b == 0 || !called_v[b - 1]) && (b + 1 == n || !called_v[b + 1]);
      if (called_v[b] && lone && std::isnan(out.other_lead_similarity[b]) &&
          out.clarity[b] < p.shape.unconfirmed_v_min_clarity)
        out.classes[b] = 'Q';
    }
  }
  // The first beat has no interval before it of its own (rr_before[0] is a copy): never S.
  if (out.classes[0] == 'S') out.classes[0] = 'N';
  // Where no QRS stands out of the noise, no shape or timing can be read: Q, and the stretch reported.
  for (std::size_t b = 0; b < n; ++b)
    if (out.unreadable[b]) out.classes[b] = 'Q';
  // An interval measured from a Q beat (noise, an artefact, a detection on the step where a lead
  // comes back) times nothing: the beat after it is not premature by it.
  for (std::size_t b = 1; b < n; ++b)
    if (out.classes[b] == 'S' && out.classes[b - 1] == 'Q') out.classes[b] = 'N';
  for (const auto& [first, last] : detail::runs_of(out.unreadable))
    out.unreadable_stretches.push_back(
        {"noise", static_cast<std::int64_t>(first), static_cast<std::int64_t>(last), peaks[first], peaks[last]});
  // A stretch without signal holds no beat to end it: the unreadable stretch of the beats beside
  // it (beside_no_signal) reaches over all of it, to the recording's end where the lead never
  // came back.
  for (const auto& gap : no_signal) {
    const auto after = std::lower_bound(peaks.begin(), peaks.end(), gap.first) - peaks.begin();
    const auto beside = std::max<std::int64_t>(after - 1, 0);
    for (auto& u : out.unreadable_stretches)
      if (u.first_beat <= beside && beside <= u.last_beat) {
        u.onset = std::min(u.onset, gap.first);
        u.offset = std::max(u.offset, gap.last);
      }
  }
  return out;
}

}  // namespace detail

std::vector<std::int64_t> class_counts(std::span<const char> classes) {
  std::vector<std::int64_t> counts(4, 0);
  for (char c : classes) {
    switch (c) {
      case 'N':
        ++counts[0];
        break;
      case 'S':
        ++counts[1];
        break;
      case 'V':
        ++counts[2];
        break;
      case 'Q':
        ++counts[3];
        break;
      default:
        break;
    }
  }
  return counts;
}

std::vector<float> scores_following_classes(std::span<const float> score, std::span<const char> classes) {
  ZF_EXPECTS(score.size() == classes.size(), "expected a class for each of the ", score.size(), " scores, got ",
             classes.size());
  std::vector<float> out(score.size());
  for (std::size_t b = 0; b < score.size(); ++b) {
    // atan squeezes the evidence into one unit without changing its order, so the class decides first.
    const double evidence = 0.5 + std::atan(static_cast<double>(score[b])) / std::numbers::pi;
    const double tier = classes[b] == 'N' ? 0.0 : classes[b] == 'Q' ? 0.5 : 1.0;
    out[b] = static_cast<float>(evidence + tier);
  }
  return out;
}

}  // namespace zeroflow::classify
