"""zeroflow.rhythm.find_af_episodes (the AF rule on beat times, classify/af_rhythm.hpp) against a
NumPy re-computation of the rule as docs/classification.md states it, on seeded rhythms and, where
../shared/data is beside the checkout, on AF Database beat annotations; the strip prior
(classify/af_strip.hpp) against the shipped file read with the safetensors package."""

import pathlib

import numpy as np
import pytest

import zeroflow
from zeroflow.rhythm import AF_DEFAULTS, AF_STRIP_FEATURES, AF_STRIP_PRIOR, find_af_episodes, measure_af_strip

ROOT = pathlib.Path(__file__).resolve().parents[2]
AFDB = ROOT.parent / "shared" / "data" / "afdb-rr"
PRIOR_FILE = ROOT / "data" / "af_strip_prior.safetensors"


def read_prior():
    """The shipped prior, read with the safetensors package (not zeroflow's reader)."""
    from safetensors import safe_open

    with safe_open(str(PRIOR_FILE), framework="numpy") as f:
        return {k: f.get_tensor(k) for k in f.keys()}, f.metadata()


def half_away(v):
    """v rounded to the nearest integer, halves away from zero (C++'s llround)."""
    return int(np.copysign(np.floor(abs(v) + 0.5), v))


def reference_signed_steps(before, out_):
    """ln(RR_b / RR_b-1) where the three beats of the step are measured, NaN elsewhere."""
    signed = np.full(len(before), np.nan)
    for b in range(2, len(before)):
        if not (out_[b] or out_[b - 1] or out_[b - 2]):
            signed[b] = np.log(before[b] / before[b - 1])
    return signed


def reference_pairs(signed, first, last, width):
    """The pairs of consecutive measured signed steps in [first, last), each rounded to a multiple
    of width (NaN: a step not measured)."""
    return [
        (half_away(signed[k - 1] / width), half_away(signed[k] / width))
        for k in range(first + 1, last)
        if not (np.isnan(signed[k - 1]) or np.isnan(signed[k]))
    ]


def reference_strip_measures(before, out_, coherence, similarity, p, f_wave=None):
    """The strip's eight measures as docs/classification.md lists them; None under eight steps."""
    n = len(before)
    signed = reference_signed_steps(before, out_)
    steps = np.abs(signed[np.isfinite(signed)])
    if len(steps) < 8:
        return None
    width = p["irregular_step_log_ratio"]
    pairs = reference_pairs(signed, 0, n, width) if width > 0 else []
    kept = ~out_

    def median_or_nan(values):
        if values is None:
            return np.nan
        v = np.asarray(values, dtype=float)[kept]
        v = v[np.isfinite(v)]
        return float(np.median(v)) if len(v) else np.nan

    # The f-wave rate of the T-Q interval before beat b: b and b - 1 both measured.
    f_kept = np.concatenate([[False], kept[1:] & kept[:-1]])
    f_values = np.asarray(f_wave, dtype=float)[f_kept] if f_wave is not None else np.array([])
    f_values = f_values[np.isfinite(f_values)]
    return np.array(
        [
            np.mean(steps > p["irregular_step_log_ratio"]),
            np.median(steps),
            median_or_nan(coherence),
            median_or_nan(similarity),
            np.log(np.median(before[1:][kept[1:]])),
            np.log(len(steps)),
            len(set(pairs)) / len(pairs) if pairs else np.nan,
            float(np.median(f_values)) if len(f_values) else np.nan,
        ]
    )


def reference_strip_is_af(x):
    prior, _ = read_prior()
    z = (x - prior["mean"]) / prior["scale"]
    logit = prior["bias"][0] + np.sum(np.where(np.isfinite(z), prior["weight"] * z, 0.0))
    vetoed = x[2] >= prior["p_wave_coherence_max"][0]  # a coherent P wave (NaN: unmeasured, no veto)
    return 1 / (1 + np.exp(-logit)) >= prior["threshold"][0] and not vetoed


def reference_unmeasured(peaks, rate, left_out, p):
    """Each beat's R-R before it (the first a copy of the second) and the beats whose intervals
    are not the atria's: left out, or early and followed by a pause against the local median."""
    n = len(peaks)
    rr = np.diff(peaks) / rate
    before = np.concatenate([[rr[0]], rr])
    after = np.concatenate([rr, [rr[-1]]])
    k = int(p["local_rhythm_beats"])
    # The local median: the upper middle value of the window of +-k beats (cut at the ends).
    local = np.array(
        [np.sort(before[max(0, b - k) : b + k + 1])[(min(n, b + k + 1) - max(0, b - k)) // 2] for b in range(n)]
    )
    out_ = (before < p["ectopic_early_ratio"] * local) & (after > p["ectopic_pause_ratio"] * local)
    if left_out is not None:
        out_ |= np.asarray(left_out, bool)
    return before, out_


def reference_rule(
    peaks, rate, left_out=None, p_wave_coherence=None, p_wave_similarity=None, f_wave_rate=None, **overrides
):
    """The documented rule, step by step, written from the docs (not from the C++)."""
    p = {**AF_DEFAULTS, **overrides}
    peaks = np.asarray(peaks, dtype=np.int64)
    n = len(peaks)
    if n < 3:
        return np.zeros(n, bool), np.zeros(n, bool), []
    before, out_ = reference_unmeasured(peaks, rate, left_out, p)
    strip = p_wave_coherence is not None and (peaks[-1] - peaks[0]) / rate <= p["strip_max_seconds"]
    if strip:
        # A strip with its P waves measured is read whole by the prior; its irregular windows are
        # still reported below.
        x = reference_strip_measures(before, out_, p_wave_coherence, p_wave_similarity, p, f_wave_rate)
        strip_af = x is not None and reference_strip_is_af(x)
    signed = reference_signed_steps(before, out_)
    step = np.abs(signed)
    w = int(p["window_beats"])
    irregular, measurable = np.zeros(n, bool), np.zeros(n, bool)
    for b in range(n):
        s = step[max(0, b - w) : b + w + 1]
        s = s[~np.isnan(s)]
        measurable[b] = len(s) >= 8
        if measurable[b]:
            irregular[b] = np.mean(s > p["irregular_step_log_ratio"]) > p["irregular_share"]
    if strip:
        if strip_af:
            return irregular, np.ones(n, bool), [(0, n - 1, int(peaks[0]), int(peaks[-1]))]
        return irregular, np.zeros(n, bool), []
    # A window whose pairs of consecutive steps (each rounded to the irregular step) mostly repeat
    # is regularly irregular, not AF; a window without pairs has no say.
    window_af = irregular.copy()
    width = p["irregular_step_log_ratio"]
    for b in np.flatnonzero(irregular) if width > 0 else []:
        lo, hi = max(0, b - w), min(n, b + w + 1)
        pairs = reference_pairs(signed, lo, hi, width)
        if (
            width > 0
            and p["distinct_pair_share_min"] > 0
            and pairs
            and len(set(pairs)) / len(pairs) < p["distinct_pair_share_min"]
        ):
            window_af[b] = False
    # A window with a consistent P wave is not AF; NaN (unmeasured) lets the rhythm decide.
    if p_wave_coherence is not None:
        window_af &= ~(np.asarray(p_wave_coherence, dtype=float) > p["p_wave_coherence_max"])
    stretches = []
    b = 0
    while b < n:
        if not window_af[b]:
            b += 1
            continue
        e = b
        while e + 1 < n and window_af[e + 1]:
            e += 1
        if stretches and (peaks[b] - peaks[stretches[-1][1]]) / rate <= p["bridge_gap_seconds"]:
            stretches[-1][1] = e
        else:
            stretches.append([b, e])
        b = e + 1
    in_af = np.zeros(n, bool)
    episodes = []
    for b, e in stretches:
        outside = np.ones(n, bool)
        outside[b : e + 1] = False
        # Shorter than an episode, but the whole of a short recording's measurable rhythm.
        if e - b + 1 >= p["min_episode_beats"] or not measurable[outside].any():
            in_af[b : e + 1] = True
            episodes.append((b, e, int(peaks[b]), int(peaks[e])))
    return irregular, in_af, episodes


def rhythm(seed):
    """Sinus rhythm, AF, trigeminy, a brief regular stretch inside AF, and AF again (R-R in s)."""
    rng = np.random.default_rng(seed)
    parts = [
        rng.normal(0.8, 0.015, 150),
        rng.uniform(0.4, 1.1, 250),
        np.tile([0.8, 0.5, 1.1], 60) + rng.normal(0, 0.01, 180),
        rng.uniform(0.45, 1.0, 120),
        rng.normal(0.7, 0.01, 15),
        rng.uniform(0.45, 1.0, 120),
        rng.normal(0.8, 0.015, 100),
    ]
    return np.concatenate([[50], 50 + np.cumsum(np.round(np.concatenate(parts) * 250))]).astype(np.int64)


def check_same(peaks, rate, **kw):
    got = find_af_episodes(peaks, rate, **kw)
    irregular, in_af, episodes = reference_rule(peaks, rate, **kw)
    np.testing.assert_array_equal(got.irregular, irregular)
    np.testing.assert_array_equal(got.in_af, in_af)
    assert [(e["first_beat"], e["last_beat"], e["onset"], e["offset"]) for e in got.episodes] == episodes
    assert all(e["rhythm"] == "AFIB" for e in got.episodes)
    return got


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_matches_the_documented_rule(seed):
    peaks = rhythm(seed)
    got = check_same(peaks, 250.0)
    # Two AF stretches with 15 regular beats between them are one episode; the trigeminy is not AF.
    assert len(got.episodes) == 2
    trigeminy = slice(150 + 250 + 20, 150 + 250 + 160)
    assert not got.in_af[trigeminy].any()


@pytest.mark.parametrize(
    "overrides",
    [
        dict(bridge_gap_seconds=0),
        dict(ectopic_early_ratio=1e-9),
        dict(irregular_share=0.6, window_beats=8),
        dict(min_episode_beats=200, local_rhythm_beats=3),
        dict(distinct_pair_share_min=0),
        dict(distinct_pair_share_min=0.9),
        dict(irregular_step_log_ratio=0),
    ],
)
def test_parameters_are_the_rules(overrides):
    check_same(rhythm(4), 250.0, **overrides)


def test_beats_left_out():
    peaks = rhythm(5)
    left = np.zeros(len(peaks), bool)
    left[::7] = True
    check_same(peaks, 250.0, left_out=left)


def test_p_wave_coherence():
    rng = np.random.default_rng(8)
    peaks = rhythm(8)
    coherence = rng.uniform(0.0, 0.5, len(peaks))
    coherence[rng.random(len(peaks)) < 0.1] = np.nan
    check_same(peaks, 250.0, p_wave_coherence=coherence)
    check_same(peaks, 250.0, p_wave_coherence=coherence, p_wave_coherence_max=0.3)


def test_strips_are_read_whole_by_the_prior():
    rng = np.random.default_rng(9)
    called = {"af": 0, "regular": 0, "af with sinus P waves": 0}
    for beats in (12, 18, 25, 40, 60):
        af = np.concatenate([[0], np.cumsum(np.round(rng.uniform(0.4, 1.1, beats) * 300))]).astype(np.int64)
        regular = np.concatenate([[0], np.cumsum(np.round(rng.normal(0.8, 0.01, beats) * 300))]).astype(np.int64)
        n = beats + 1
        no_p = dict(
            p_wave_coherence=rng.uniform(0.0, 0.1, n),
            p_wave_similarity=rng.uniform(-0.2, 0.3, n),
            f_wave_rate=rng.uniform(6, 10, n),
        )
        sinus_p = dict(
            p_wave_coherence=rng.uniform(0.7, 0.9, n),
            p_wave_similarity=rng.uniform(0.9, 1.0, n),
            f_wave_rate=rng.uniform(10, 13, n),
        )
        called["af"] += bool(check_same(af, 300.0, **no_p).episodes)
        called["regular"] += bool(check_same(regular, 300.0, **no_p).episodes)
        called["af with sinus P waves"] += bool(check_same(af, 300.0, **sinus_p).episodes)
        check_same(np.concatenate([regular, regular[-1] + af[1:]]), 300.0)
        check_same(af, 300.0, left_out=rng.random(n) < 0.2, **no_p)
        # From beat times alone the windows decide: AF when the strip's whole rhythm is.
        found = check_same(af, 300.0).episodes
        assert found or beats < 20  # under about 20 beats ectopic timings can leave no window its eight steps
        assert not check_same(regular, 300.0).episodes
    # Irregular strips without P waves are AF (those with too few steps measured aside), regular
    # ones are not, and the dominant P wave in every beat is evidence against AF.
    assert called["af"] >= 4 and called["regular"] == 0 and called["af with sinus P waves"] < called["af"]


def test_strip_measures_and_prior():
    rng = np.random.default_rng(10)
    p = {**AF_DEFAULTS}
    for _ in range(5):
        peaks = np.concatenate([[0], np.cumsum(np.round(rng.uniform(0.4, 1.1, 50) * 250))]).astype(np.int64)
        n = len(peaks)
        coherence, similarity, f_wave = rng.uniform(0, 1, n), rng.uniform(-1, 1, n), rng.uniform(5, 13, n)
        similarity[rng.random(n) < 0.2] = np.nan
        f_wave[rng.random(n) < 0.2] = np.nan
        left = rng.random(n) < 0.1
        got = measure_af_strip(
            peaks, 250.0, left_out=left, p_wave_coherence=coherence, p_wave_similarity=similarity, f_wave_rate=f_wave
        )
        before, out_ = reference_unmeasured(peaks, 250.0, left, p)
        want = reference_strip_measures(before, out_, coherence, similarity, p, f_wave)
        np.testing.assert_allclose(got, want, rtol=1e-12)
    assert measure_af_strip(np.arange(5, dtype=np.int64) * 200, 250.0) is None
    prior, metadata = read_prior()
    assert tuple(metadata["features"].split(",")) == AF_STRIP_FEATURES
    for key in ("mean", "scale", "weight"):
        np.testing.assert_array_equal(AF_STRIP_PRIOR[key], prior[key])
    assert AF_STRIP_PRIOR["threshold"] == prior["threshold"][0] and AF_STRIP_PRIOR["bias"] == prior["bias"][0]
    assert AF_STRIP_PRIOR["p_wave_coherence_max"] == prior["p_wave_coherence_max"][0]
    assert AF_STRIP_PRIOR["provenance"]["license"].startswith("ODC-By")


def test_refusals():
    with pytest.raises(ValueError, match="R peaks must increase"):
        find_af_episodes([10, 20, 20, 30], 250.0)
    with pytest.raises(ValueError, match="sample rate"):
        find_af_episodes([10, 20, 30], 0.0)
    with pytest.raises(ValueError, match="P-wave coherences"):
        find_af_episodes([10, 20, 30], 250.0, p_wave_coherence=[0.1])
    with pytest.raises(ValueError, match="P-wave similarities"):
        find_af_episodes([10, 20, 30], 250.0, p_wave_similarity=[0.1, 0.2])
    with pytest.raises(ValueError, match="P-wave similarities"):
        measure_af_strip([10, 20, 30], 250.0, p_wave_similarity=[0.1, 0.2])
    with pytest.raises(ValueError, match="f-wave rates"):
        measure_af_strip([10, 20, 30], 250.0, f_wave_rate=[9.0])
    with pytest.raises(ValueError, match="strip_max_seconds"):
        find_af_episodes([10, 20, 30], 250.0, strip_max_seconds=-1)
    with pytest.raises(ValueError, match="left-out marks"):
        find_af_episodes([10, 20, 30], 250.0, left_out=[0, 1])
    with pytest.raises(ValueError, match="irregular_share"):
        find_af_episodes([10, 20, 30], 250.0, irregular_share=1.5)
    with pytest.raises(TypeError, match="unexpected parameter 'share'"):
        find_af_episodes([10, 20, 30], 250.0, share=0.4)
    with pytest.raises(TypeError, match="integer sample indices"):
        find_af_episodes([1.5, 2.5, 3.5], 250.0)
    assert not find_af_episodes([], 250.0).episodes
    assert zeroflow.rhythm.find_af_episodes is find_af_episodes


@pytest.mark.skipif(not AFDB.is_dir(), reason="../shared/data/afdb-rr is not beside this checkout")
def test_af_database_beats():
    """A real record's beats (the AF Database's 04048, paroxysms among sinus rhythm and ectopy)."""
    peaks = np.loadtxt(AFDB / "04048.qrs.csv", skiprows=1, dtype=np.int64)[:12000]
    got = check_same(peaks, 250.0)
    assert got.episodes


def reference_f_wave_rates(x, peaks, rate):
    """f_wave_rates as its docstring states it, with SciPy's Butterworth design and filtering."""
    from scipy.signal import butter, sosfilt

    sos = butter(2, [3.0, 12.0], "bandpass", fs=rate, output="sos")
    x = np.asarray(x, dtype=np.float64)
    missing = ~np.isfinite(x)
    band = np.where(missing, 0.0, x - x[~missing][0])  # a missing sample reads as the baseline
    band = sosfilt(sos, band)
    band = sosfilt(sos, band[::-1])[::-1]
    reach = int(np.ceil(rate / 3.0))  # a period of the lower edge: the filter's start from rest
    out = np.full(len(peaks), np.nan)
    for b in range(1, len(peaks)):
        rr = (peaks[b] - peaks[b - 1]) / rate
        first = peaks[b - 1] + int(np.floor((0.1 + 0.45 * np.sqrt(rr)) * rate))
        end = peaks[b] - half_away(0.07 * rate)
        near_gap = first - reach < 0 or end + reach > len(x) or missing[first - reach : end + reach].any()
        if end - first >= half_away(0.1 * rate) and not near_gap:
            segment = band[first:end] > 0
            out[b] = np.count_nonzero(segment[1:] != segment[:-1]) * rate / (end - first)
    return out


def test_f_wave_rates():
    from zeroflow.rhythm import f_wave_rates

    rate = 300.0
    rng = np.random.default_rng(11)
    beats = np.concatenate([[150], 150 + np.cumsum(np.round(rng.uniform(0.45, 1.3, 40) * rate))]).astype(np.int64)
    t = np.arange(beats[-1] + 200) / rate
    spikes = np.zeros_like(t)
    spikes[beats] = 8.0
    wander = 2.0 * np.sin(2 * np.pi * 0.3 * t)
    for f_hz, noise in ((5.0, 0.02), (8.0, 0.02), (30.0, 0.02)):
        x = (wander + spikes + 0.3 * np.sin(2 * np.pi * f_hz * t) + rng.normal(0, noise, len(t))).astype(np.float32)
        got = f_wave_rates(x, beats, rate)
        np.testing.assert_allclose(got, reference_f_wave_rates(x, beats, rate), rtol=1e-12, atol=0)
        assert np.isnan(got[0]) and np.isfinite(got).sum() >= 20
        if f_hz < 12:  # an oscillation in the band crosses zero twice a cycle; the wander is gone
            assert abs(np.nanmedian(got) - 2 * f_hz) < 1.5
        else:  # above the band, the oscillation is filtered out: what crosses is the residue
            assert abs(np.nanmedian(got) - 2 * f_hz) > 10
    # A missing sample costs the intervals the filter carries it into, not the strip.
    inside = next(b for b in range(len(beats) // 2, len(beats)) if np.isfinite(got[b]))
    x[beats[inside] - 30] = np.nan  # inside the T-Q interval before that beat
    gapped = f_wave_rates(x, beats, rate)
    np.testing.assert_allclose(gapped, reference_f_wave_rates(x, beats, rate), rtol=1e-12, atol=0)
    lost = np.isfinite(got) & np.isnan(gapped)
    assert lost[inside] and lost.sum() <= 3 and np.isfinite(gapped).sum() >= 18
    assert np.isnan(f_wave_rates(np.full(len(x), np.nan, np.float32), beats, rate)).all()
    with pytest.raises(TypeError, match="float32"):
        f_wave_rates(x.astype(np.float64), beats, rate)
    with pytest.raises(ValueError, match="outside the signal"):
        f_wave_rates(np.zeros(100, np.float32), [10, 150], rate)
    with pytest.raises(ValueError, match="must increase"):
        f_wave_rates(np.zeros(100, np.float32), [50, 40], rate)
    assert np.isnan(f_wave_rates(np.zeros(100, np.float32), [10, 90], 20.0)).all()  # the band is above Nyquist
