// The class rule with a recording's other leads (beat_classes.hpp, steps 6 and 7): a beat whose
// own lead sees an unlike shape without a ventricular timing is V where the other leads see
// another shape too, and N where they see the dominant one; a beat called V that the other leads
// see as the normal beats around it is N; each other lead measured as a lead of its own.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "classify/features.hpp"
#include "synthetic_rows.hpp"
#include "zeroflow/classify/beat_classes.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zc = zeroflow::classify;
namespace zf = zeroflow;

namespace {

using namespace zeroflow::classify::synthetic;

/// One beat's row: a P wave, a QRS of the given width (s) and height, a T wave, a little noise.
void add_row(std::vector<float>& rows, double qrs_sigma, double qrs_height, std::mt19937& rng) {
  std::normal_distribution<double> noise(0.0, 0.02);
  for (std::int64_t j = 0; j < width; ++j) {
    const double t = static_cast<double>(j - before) / rate;
    const double v = j < before + after ? qrs_height * bump(t, 0.0, qrs_sigma) + 0.6 * bump(t, 0.28, 0.05) +
                                              0.5 * bump(t, -0.16, 0.025) + noise(rng)
                                        : 0.0;
    rows.push_back(static_cast<float>(v));
  }
}

/// A steady sinus rhythm in two leads, every beat on time. Beats 10, 30, 50, ... change their
/// QRS in the first lead only (an axis shift: inverted); beats 5, 25, 45, ... are ventricular,
/// wide and inverted in both leads, at the normal rate (an accelerated idioventricular beat has no
/// early timing).
struct two_leads {
  std::vector<std::int64_t> peaks;
  std::vector<float> own, other;
  std::vector<char> truth;  // 'N', 'A' (the axis shift: N) or 'V'
};

two_leads make_two_leads(std::uint32_t seed = 3) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> jitter(-0.01, 0.01);
  two_leads r;
  double t = 1.0;
  for (int b = 0; b < 500; ++b) {
    t += 0.8 * (1 + jitter(rng));
    r.peaks.push_back(std::llround(t * rate));
    if (b % 20 == 10) {
      add_row(r.own, 0.012, -4.0, rng);
      add_row(r.other, 0.012, 3.0, rng);
      r.truth.push_back('A');
    } else if (b % 20 == 5) {
      add_row(r.own, 0.045, -3.0, rng);
      add_row(r.other, 0.05, -2.5, rng);
      r.truth.push_back('V');
    } else {
      add_row(r.own, 0.012, 4.0, rng);
      add_row(r.other, 0.012, 3.0, rng);
      r.truth.push_back('N');
    }
  }
  return r;
}

/// make_two_leads with beats 15, 35, 55, ... as noise makes them in the beats' own lead: another
/// shape, and the R peak moved 0.15 s early (early, then a pause). The other lead, whose noise is
/// its own, shows the normal beat's QRS (here without its noise). `spoilt` gets those beats.
two_leads make_noise_spoilt_leads(std::vector<std::size_t>& spoilt) {
  auto r = make_two_leads();
  std::mt19937 rng(5);
  for (std::size_t b = 15; b < r.truth.size(); b += 20) {
    r.peaks[b] -= static_cast<std::int64_t>(0.15 * rate);
    std::vector<float> own, other;
    add_row(own, 0.04, -3.5, rng);
    for (std::int64_t j = 0; j < width; ++j) {
      const double t = static_cast<double>(j - before) / rate;
      other.push_back(j < before + after ? static_cast<float>(3.0 * bump(t, 0.0, 0.012) + 0.6 * bump(t, 0.28, 0.05) +
                                                              0.5 * bump(t, -0.16, 0.025))
                                         : 0.0F);
    }
    std::copy(own.begin(), own.end(), r.own.begin() + static_cast<std::ptrdiff_t>(b) * width);
    std::copy(other.begin(), other.end(), r.other.begin() + static_cast<std::ptrdiff_t>(b) * width);
    spoilt.push_back(b);
  }
  return r;
}

zf::array host_array(const std::vector<float>& values) {
  zf::array out = zf::empty({static_cast<std::int64_t>(values.size()) / width, width}, zf::float32, zf::cpu_device);
  std::copy(values.begin(), values.end(), out.data_as<float>());
  return out;
}

std::int64_t count(const two_leads& r, const zc::classification& c, char truth, char called) {
  std::int64_t n = 0;
  for (std::size_t b = 0; b < r.truth.size(); ++b) n += r.truth[b] == truth && c.classes[b] == called;
  return n;
}

}  // namespace

TEST(OtherLeads, DecideWhatTheBeatsOwnLeadCannotPlace) {
  const auto r = make_two_leads();
  const zc::beat_rows own{r.own, width, before, after};
  // One lead: an unlike shape on time, which nothing places, is what the rhythm it sits in is
  // (N); readable signal holds no Q beat.
  const auto alone = zc::classify_beats(r.peaks, own, rate);
  EXPECT_EQ(count(r, alone, 'A', 'N'), 25);
  EXPECT_EQ(count(r, alone, 'V', 'N'), 25);
  EXPECT_EQ(std::count(alone.classes.begin(), alone.classes.end(), 'Q'), 0);
  for (float s : alone.other_lead_similarity) EXPECT_TRUE(std::isnan(s));

  const std::vector<zf::array> others{host_array(r.other)};
  const auto both = zc::classify_beats(r.peaks, own, rate, {}, {.other_leads = others});
  EXPECT_EQ(count(r, both, 'A', 'N'), 25);  // the other lead sees the dominant beat
  EXPECT_EQ(count(r, both, 'V', 'V'), 25);  // another shape in every lead
  EXPECT_EQ(count(r, both, 'N', 'N'), 450);
  EXPECT_EQ(
      both.classes,
      zc::classify_beats(r.peaks, host_array(r.own), before, after, rate, {}, {}, {.other_leads = others}).classes);
}

TEST(OtherLeads, ABeatSpoiltInEachLeadItsOwnWayIsNotV) {
  // Noise spoils a beat's shape differently in each lead: here the beats' own lead sees a QRS a
  // little unlike the dominant one (a notch after it) and the other lead another shape. A
  // ventricular QRS is another shape in every lead; this beat is not, so it is not V but, placed
  // by no lead, N as the rhythm it sits in.
  auto r = make_two_leads();
  std::mt19937 rng(21);
  const auto spoil = [&](std::vector<float>& rows, std::size_t b, double qrs_height, double notch) {
    std::vector<float> row;
    add_row(row, 0.012, qrs_height, rng);
    for (std::int64_t j = 0; j < before + after; ++j)
      row[static_cast<std::size_t>(j)] +=
          static_cast<float>(notch * bump(static_cast<double>(j - before) / rate, 0.04, 0.01));
    std::copy(row.begin(), row.end(), rows.begin() + static_cast<std::ptrdiff_t>(b) * width);
  };
  std::vector<std::size_t> spoilt;
  for (std::size_t b = 15; b < r.truth.size(); b += 20) {
    spoil(r.own, b, 4.0, -2.5);
    spoil(r.other, b, -3.0, 0.0);
    spoilt.push_back(b);
  }
  const std::vector<zf::array> others{host_array(r.other)};
  const auto c = zc::classify_beats(r.peaks, {r.own, width, before, after}, rate, {}, {.other_leads = others});
  for (const auto b : spoilt) {
    ASSERT_LT(c.similarity[b], c.dominant_bound) << "beat " << b;  // unlike in its own lead
    ASSERT_GE(c.similarity[b], 0.5) << "beat " << b;               // but not another shape there
    ASSERT_LT(c.other_lead_similarity[b], 0.5) << "beat " << b;    // another shape in the other lead
    EXPECT_EQ(c.classes[b], 'N') << "beat " << b;
  }
  EXPECT_EQ(count(r, c, 'V', 'V'), 25);
}

TEST(OtherLeads, AVBeatTheOtherLeadSeesAsNormalIsThisLeadsNoise) {
  // A ventricular QRS is another shape in every lead: the spoilt beats are N (step 7), and V
  // without the other leads' check; the true V beats stay V either way.
  std::vector<std::size_t> spoilt;
  const auto r = make_noise_spoilt_leads(spoilt);
  const std::vector<zf::array> others{host_array(r.other)};
  const zc::beat_rows own{r.own, width, before, after};
  const auto checked = zc::classify_beats(r.peaks, own, rate, {}, {.other_leads = others});
  zc::class_params unchecked_params;
  unchecked_params.shape.other_lead_min_deviation = 0;
  const auto unchecked = zc::classify_beats(r.peaks, own, rate, unchecked_params, {.other_leads = others});
  for (const auto b : spoilt) {
    EXPECT_EQ(unchecked.classes[b], 'V') << "beat " << b;
    EXPECT_EQ(checked.classes[b], 'N') << "beat " << b;
    EXPECT_LT(checked.other_lead_deviation[b], 1.0F) << "beat " << b;  // the measure it was decided by
  }
  EXPECT_EQ(count(r, checked, 'V', 'V'), 25);
  EXPECT_EQ(count(r, unchecked, 'V', 'V'), 25);
  // Measured for the beats called V before the check only; with the check off, for none.
  for (std::size_t b = 0; b < r.truth.size(); ++b) {
    const bool checked_v = r.truth[b] == 'V' || std::find(spoilt.begin(), spoilt.end(), b) != spoilt.end();
    EXPECT_EQ(std::isnan(checked.other_lead_deviation[b]), !checked_v) << "beat " << b;
    if (r.truth[b] == 'V') EXPECT_GT(checked.other_lead_deviation[b], 10.0F) << "beat " << b;
    EXPECT_TRUE(std::isnan(unchecked.other_lead_deviation[b])) << "beat " << b;
  }
}

TEST(OtherLeads, ANeighbourWhereTheLeadCameLooseIsNoPartOfItsNormalBeat) {
  // The other lead is a flat line (an electrode off) for the four beats before each V beat: those
  // beats are N in the beats' own lead, but in the other lead they are no normal beat to measure
  // the V beat against (they would halve its local normal beat and swell its spread until the V
  // beat looked normal). Their QRS spans nothing: they are left out, as if they were not normal.
  auto r = make_two_leads();
  std::vector<std::int64_t> v_beats;
  std::vector<std::uint8_t> normal(r.truth.size()), normal_there(r.truth.size());
  for (std::size_t b = 0; b < r.truth.size(); ++b) normal[b] = normal_there[b] = r.truth[b] != 'V';
  for (std::size_t b = 5; b < r.truth.size(); b += 20) {
    v_beats.push_back(static_cast<std::int64_t>(b));
    std::fill(r.other.begin() + static_cast<std::ptrdiff_t>(b - 4) * width,
              r.other.begin() + static_cast<std::ptrdiff_t>(b) * width, 0.0F);
    std::fill(normal_there.begin() + static_cast<std::ptrdiff_t>(b - 4),
              normal_there.begin() + static_cast<std::ptrdiff_t>(b), 0);
  }
  const auto beats = static_cast<std::int64_t>(r.truth.size());
  const zc::beat_rows other{r.other, width, before, after};
  const std::vector<zf::array> leads{host_array(r.other)};
  const zc::detail::other_leads others(leads, other, beats, rate, {}, {});
  const auto got = others.deviation(v_beats, normal, 8, 0.125);
  const auto lead = zc::detail::host_measurements(other, beats, rate, 2048);
  const auto want = lead->local_deviation(v_beats, normal_there, 8, 0);
  const auto flat_counted = lead->local_deviation(v_beats, normal, 8, 0);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_GT(want[i], 10.0F) << "beat " << v_beats[i];  // another QRS, far from the normal beats
    EXPECT_EQ(got[i], want[i]) << "beat " << v_beats[i];
    EXPECT_LT(flat_counted[i], 0.9F * want[i]) << "beat " << v_beats[i];
  }
  // And in the rule: every V beat stays V.
  const auto c = zc::classify_beats(r.peaks, {r.own, width, before, after}, rate, {}, {.other_leads = leads});
  EXPECT_EQ(count(r, c, 'V', 'V'), 25);
}

TEST(OtherLeads, AVBeatNoLeadConfirmsIsQUnderItsClarityBound) {
  // The other lead is flat at every V beat (not read there): with a bound above the V beats' own
  // clarity they are Q (step 8), below it or with the step off they stay V; a recording of one
  // lead has no lead that could confirm, and is not touched.
  auto r = make_two_leads();
  for (std::size_t b = 5; b < r.truth.size(); b += 20)
    std::fill(r.other.begin() + static_cast<std::ptrdiff_t>(b) * width,
              r.other.begin() + static_cast<std::ptrdiff_t>(b + 1) * width, 0.0F);
  const std::vector<zf::array> others{host_array(r.other)};
  const zc::beat_rows own{r.own, width, before, after};
  // Without the other lead's word the V beats need a timing: make them early, then a pause.
  for (std::size_t b = 5; b < r.truth.size(); b += 20) r.peaks[b] -= static_cast<std::int64_t>(0.25 * rate);
  zc::class_params step_off;
  step_off.shape.unconfirmed_v_min_clarity = 0;
  const auto off = zc::classify_beats(r.peaks, own, rate, step_off, {.other_leads = others});
  ASSERT_EQ(count(r, off, 'V', 'V'), 25);
  float least = 1e30F, most = 0;
  for (std::size_t b = 5; b < r.truth.size(); b += 20) {
    least = std::min(least, off.clarity[b]);
    most = std::max(most, off.clarity[b]);
  }
  zc::class_params strict;
  strict.shape.unconfirmed_v_min_clarity = 2.0 * most;
  const auto q = zc::classify_beats(r.peaks, own, rate, strict, {.other_leads = others});
  EXPECT_EQ(count(r, q, 'V', 'Q'), 25);
  EXPECT_EQ(count(r, q, 'N', 'N'), count(r, off, 'N', 'N'));  // only the unconfirmed V beats change
  zc::class_params lenient;
  lenient.shape.unconfirmed_v_min_clarity = 0.5 * least;
  EXPECT_EQ(count(r, zc::classify_beats(r.peaks, own, rate, lenient, {.other_leads = others}), 'V', 'V'), 25);
  const auto one_lead = zc::classify_beats(r.peaks, own, rate, strict);
  EXPECT_EQ(count(r, one_lead, 'V', 'V'), 25);
}

TEST(OtherLeads, AVBeatBesideAnotherIsNotTakenForUnconfirmed) {
  // Every other V beat becomes a couplet: the beat after it is a V beat too. In a couplet each QRS
  // crowds its neighbour's row, so clarity cannot tell noise there: step 8 leaves both V, and
  // takes only the lone ones, the first and the last beat among them (V by their family's vote).
  auto r = make_two_leads();
  const std::size_t last = r.truth.size() - 1;
  for (const std::size_t k : {std::size_t{0}, last}) {
    const auto row = static_cast<std::ptrdiff_t>(k) * width;
    std::copy(r.own.begin() + 5 * width, r.own.begin() + 6 * width, r.own.begin() + row);
    std::fill(r.other.begin() + row, r.other.begin() + row + width, 0.0F);
    r.truth[k] = 'V';
  }
  for (std::size_t b = 5; b < r.truth.size(); b += 20) {
    r.peaks[b] -= static_cast<std::int64_t>(0.25 * rate);
    const bool couplet = b % 40 == 5;
    for (const std::size_t k : couplet ? std::vector<std::size_t>{b, b + 1} : std::vector<std::size_t>{b}) {
      const auto row = static_cast<std::ptrdiff_t>(k) * width;
      std::copy(r.own.begin() + static_cast<std::ptrdiff_t>(b) * width,
                r.own.begin() + static_cast<std::ptrdiff_t>(b + 1) * width, r.own.begin() + row);
      std::fill(r.other.begin() + row, r.other.begin() + row + width, 0.0F);
      r.truth[k] = 'V';
    }
    if (couplet) r.peaks[b + 1] -= static_cast<std::int64_t>(0.25 * rate);
  }
  const std::vector<zf::array> others{host_array(r.other)};
  const zc::beat_rows own{r.own, width, before, after};
  zc::class_params step_off;
  step_off.shape.unconfirmed_v_min_clarity = 0;
  const auto off = zc::classify_beats(r.peaks, own, rate, step_off, {.other_leads = others});
  ASSERT_EQ(count(r, off, 'V', 'V'), 40);
  zc::class_params strict;
  strict.shape.unconfirmed_v_min_clarity = 1e6;
  const auto q = zc::classify_beats(r.peaks, own, rate, strict, {.other_leads = others});
  EXPECT_EQ(q.classes[0], 'Q');
  EXPECT_EQ(q.classes[last], 'Q');
  std::int64_t lone_q = 0, couplet_v = 0;
  for (std::size_t b = 5; b < r.truth.size(); b += 20) {
    if (b % 40 == 5)
      couplet_v += (q.classes[b] == 'V') + (q.classes[b + 1] == 'V');
    else
      lone_q += q.classes[b] == 'Q';
  }
  EXPECT_EQ(lone_q, 12);
  EXPECT_EQ(couplet_v, 26);
}

TEST(OtherLeads, EachLeadIsMeasuredAsALeadOfItsOwn) {
  // The other lead's similarity is the one that lead gives when classified alone; over three
  // leads, their median.
  const auto r = make_two_leads();
  const auto b = make_two_leads(5), c = make_two_leads(9);  // the same beats, other noise
  const zc::beat_rows own{r.own, width, before, after};
  const auto as_own = [&](const two_leads& x) {
    return zc::classify_beats(r.peaks, {x.other, width, before, after}, rate);
  };
  const auto lead_a = as_own(r), lead_b = as_own(b), lead_c = as_own(c);

  const std::vector<zf::array> one{host_array(r.other)};
  const auto with_one = zc::classify_beats(r.peaks, own, rate, {}, {.other_leads = one});
  ASSERT_EQ(with_one.other_lead_similarity.size(), r.peaks.size());
  for (std::size_t k = 0; k < r.peaks.size(); ++k) EXPECT_EQ(with_one.other_lead_similarity[k], lead_a.similarity[k]);

  const std::vector<zf::array> three{host_array(r.other), host_array(b.other), host_array(c.other)};
  const auto with_three = zc::classify_beats(r.peaks, own, rate, {}, {.other_leads = three});
  for (std::size_t k = 0; k < r.peaks.size(); ++k) {
    std::vector<float> s{lead_a.similarity[k], lead_b.similarity[k], lead_c.similarity[k]};
    std::sort(s.begin(), s.end());
    EXPECT_EQ(with_three.other_lead_similarity[k], s[1]) << "beat " << k;
  }
}

TEST(OtherLeads, AnUnreadableLeadIsNotAsked) {
  // A detached electrode in the other lead: noise alone, no QRS stands out. It reads no beat, so
  // the beats its own lead cannot place are N, as with one lead, rather than V on noise's shapes.
  const auto r = make_two_leads();
  std::mt19937 rng(1);
  std::normal_distribution<double> noise(0.0, 0.01);
  std::vector<float> detached(r.other.size());
  for (auto& v : detached) v = static_cast<float>(noise(rng));
  const std::vector<zf::array> others{host_array(detached)};
  const auto c = zc::classify_beats(r.peaks, {r.own, width, before, after}, rate, {}, {.other_leads = others});
  for (float s : c.other_lead_similarity) EXPECT_TRUE(std::isnan(s));
  EXPECT_EQ(count(r, c, 'A', 'N'), 25);
  EXPECT_EQ(count(r, c, 'V', 'N'), 25);
}

TEST(OtherLeads, RowsOfAnotherShapeAreRefused) {
  const auto r = make_two_leads();
  std::vector<float> fewer(r.other.begin(), r.other.end() - width);
  const std::vector<zf::array> others{host_array(r.other), host_array(fewer)};
  try {
    (void)zc::classify_beats(r.peaks, {r.own, width, before, after}, rate, {}, {.other_leads = others});
    FAIL() << "expected invalid_argument";
  } catch (const zf::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("other lead 1: expected 500 rows of 256 samples"), std::string::npos)
        << e.what();
  }
  const std::vector<zf::array> wide{zf::empty({500, width + 1}, zf::float32, zf::cpu_device)};
  EXPECT_THROW((void)zc::classify_beats(r.peaks, {r.own, width, before, after}, rate, {}, {.other_leads = wide}),
               zf::invalid_argument);
}

TEST(OtherLeads, GpuRowsGiveTheHostsAnswer) {
  if (!zf::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto r = make_two_leads();
  const std::vector<zf::array> host_others{host_array(r.other)};
  const auto host =
      zc::classify_beats(r.peaks, host_array(r.own), before, after, rate, {}, {}, {.other_leads = host_others});
  const zf::array own = host_array(r.own);
  const std::vector<zf::array> gpu_others{zf::copy_to(host_others[0], zf::cuda_device(0))};
  const auto gpu = zc::classify_beats(r.peaks, zf::copy_to(own, zf::cuda_device(0)), before, after, rate, {}, {},
                                      {.other_leads = gpu_others});
  EXPECT_EQ(gpu.classes, host.classes);
  for (std::size_t k = 0; k < r.peaks.size(); ++k)
    EXPECT_NEAR(gpu.other_lead_similarity[k], host.other_lead_similarity[k], 1e-5) << "beat " << k;

  // The other leads' check of V (step 7) on the device: the same N beats.
  std::vector<std::size_t> spoilt;
  const auto s = make_noise_spoilt_leads(spoilt);
  const std::vector<zf::array> spoilt_host{host_array(s.other)};
  const auto on_host =
      zc::classify_beats(s.peaks, host_array(s.own), before, after, rate, {}, {}, {.other_leads = spoilt_host});
  const std::vector<zf::array> spoilt_gpu{zf::copy_to(spoilt_host[0], zf::cuda_device(0))};
  const auto on_gpu = zc::classify_beats(s.peaks, zf::copy_to(host_array(s.own), zf::cuda_device(0)), before, after,
                                         rate, {}, {}, {.other_leads = spoilt_gpu});
  EXPECT_EQ(on_gpu.classes, on_host.classes);
  for (const auto b : spoilt) EXPECT_EQ(on_gpu.classes[b], 'N') << "beat " << b;

  // The deviation itself, to the bit (one function, no FMA contraction on the device), with gaps
  // (NaN) in some rows and every beat measured.
  std::vector<float> gapped = s.other;
  for (std::size_t b = 3; b < s.truth.size(); b += 17) gapped[b * width + static_cast<std::size_t>(before)] = NAN;
  const auto beats = static_cast<std::int64_t>(s.truth.size());
  std::vector<std::int64_t> every(s.truth.size());
  std::vector<std::uint8_t> normal(s.truth.size());
  for (std::size_t b = 0; b < s.truth.size(); ++b) {
    every[b] = static_cast<std::int64_t>(b);
    normal[b] = s.truth[b] == 'N';
  }
  const zc::beat_rows shape{gapped, width, before, after};
  const auto want = zc::detail::host_measurements(shape, beats, rate, 2048)->local_deviation(every, normal, 8, 0.125);
  const auto got =
      zc::detail::cuda_measurements(zf::copy_to(host_array(gapped), zf::cuda_device(0)), shape, rate, 2048, {})
          ->local_deviation(every, normal, 8, 0.125);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t b = 0; b < got.size(); ++b) {
    if (std::isnan(want[b]))
      EXPECT_TRUE(std::isnan(got[b])) << "beat " << b;
    else
      EXPECT_EQ(got[b], want[b]) << "beat " << b;
  }
}
