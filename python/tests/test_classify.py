"""zeroflow.classify.classify_beats: the class rule from Python gives the run's classes, and its
parameters are the rule's (each moves the classes the way the docs say)."""

import csv

import numpy as np
import pytest

import zeroflow
from zeroflow.classify import CLASS_DEFAULTS, classify_beats

RATE = 250.0


@pytest.fixture(scope="module")
def segmented(short_recording):
    """The short recording read as the CLI reads it, segmented as `zeroflow run` segments it."""
    x = np.asarray(zeroflow.read_csv(short_recording)["heartbeats"])
    seg = zeroflow.segment_beats(x, sample_rate=RATE, method="robust")
    return np.asarray(seg.peaks), np.asarray(seg.beats.rows)


def classes_of(segmented, **params):
    peaks, rows = segmented
    return classify_beats(
        peaks, rows, window_before=round(0.25 * RATE), window_after=round(0.45 * RATE), sample_rate=RATE, **params
    )


def test_the_runs_classes(segmented, short_run):
    out, _ = short_run
    with open(out / "beats.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    np.testing.assert_array_equal(segmented[0], [int(r["peak"]) for r in rows])
    c = classes_of(segmented)
    np.testing.assert_array_equal(c.classes, [r["class"] for r in rows])
    # The run's rows come from the same detector and window but its own reading of the recording:
    # the classes agree beat for beat, the similarities to within a hundredth.
    np.testing.assert_allclose(c.similarity, [float(r["similarity"]) for r in rows], atol=0.02)
    assert (c.classes == "V").sum() > 20  # the fixture has 5 % PVCs
    ratio = c.clarity / np.array([float(r["clarity"]) for r in rows])
    assert np.median(np.abs(ratio - 1)) < 0.02 and (c.clarity > 10).all()
    assert not c.unreadable.any()


def test_parameters_move_the_classes(segmented):
    base = classes_of(segmented)
    # A stricter earliness for V keeps a subset of the V beats called by timing alone.
    stricter = classes_of(segmented, **{"timing.ventricular_early_ratio": 0.5, "timing.ventricular_pause_ratio": 3.0})
    assert (stricter.classes == "V").sum() < (base.classes == "V").sum()
    # The parameters change timing, not shape: the V beats it keeps are among the old ones, and
    # the ones it drops are unlike beats nothing else places, so N (readable signal holds no Q).
    assert set(np.flatnonzero(stricter.classes == "V")) < set(np.flatnonzero(base.classes == "V"))
    dropped = (base.classes == "V") & (stricter.classes != "V")
    assert (stricter.classes[dropped] == "N").all() and (stricter.similarity[dropped] < stricter.dominant_bound).all()
    assert not (stricter.classes == "Q").any()
    # A dominant bound of 1 makes every beat unlike: none is S (an S beat has the dominant shape).
    none_alike = classes_of(segmented, **{"shape.dominant_min_correlation": 1.0, "shape.dominant_max_correlation": 1.0})
    assert none_alike.dominant_bound == 1.0 and not (none_alike.classes == "S").any()
    assert (none_alike.classes == "V").sum() >= (base.classes == "V").sum()


def test_parameters_by_name():
    assert CLASS_DEFAULTS["timing.premature_ratio"] == pytest.approx(0.87)
    assert CLASS_DEFAULTS["af.irregular_share"] == pytest.approx(0.40)
    assert CLASS_DEFAULTS["shape.template_rows"] == 2048
    assert CLASS_DEFAULTS["quality.min_clarity"] == pytest.approx(10.0)
    assert CLASS_DEFAULTS["quality.missed_beat_ratio"] == pytest.approx(1.5)
    assert CLASS_DEFAULTS["quality.quiet_slope_ratio"] == pytest.approx(0.25)
    assert CLASS_DEFAULTS["quality.beatless_seconds"] == pytest.approx(30.0)
    assert CLASS_DEFAULTS["timing.one_cue_min_clarity"] == 0.0
    assert CLASS_DEFAULTS["shape.family_min_voters"] == 1
    assert CLASS_DEFAULTS["shape.other_lead_min_deviation"] == 1.0
    assert CLASS_DEFAULTS["shape.unconfirmed_v_min_clarity"] == 15.0
    assert len(CLASS_DEFAULTS) == 32 + len(zeroflow.rhythm.AF_DEFAULTS)
    peaks = np.arange(10, dtype=np.int64) * 200 + 100
    rows = np.zeros((10, 256), np.float32)
    kw = dict(window_before=62, window_after=112, sample_rate=RATE)
    with pytest.raises(TypeError, match="unexpected parameter 'premature_ratio'"):
        classify_beats(peaks, rows, premature_ratio=0.8, **kw)
    with pytest.raises(ValueError, match="timing.premature_with_p_ratio"):
        classify_beats(peaks, rows, **{"timing.premature_with_p_ratio": 0.5}, **kw)
    # A count takes a whole number only, NumPy's too; a real any number.
    with pytest.raises(TypeError, match="shape.max_families must be a whole number, got float"):
        classify_beats(peaks, rows, **{"shape.max_families": 3.5}, **kw)
    with pytest.raises(TypeError, match="timing.premature_ratio must be a number, got str"):
        classify_beats(peaks, rows, **{"timing.premature_ratio": "0.8"}, **kw)
    numpy_kinds = classify_beats(
        peaks, rows, **{"shape.max_families": np.int64(3), "timing.premature_ratio": np.float32(0.8)}, **kw
    )
    assert len(numpy_kinds.classes) == 10
    with pytest.raises(ValueError, match="expected 10 rows"):
        classify_beats(peaks, rows[:5], **kw)
    with pytest.raises(TypeError, match="float32"):
        classify_beats(peaks, rows.astype(np.float64), **kw)


def test_embed_windows_gives_another_leads_rows(segmented):
    # The same beats in another lead, as `zeroflow run` embeds them: the windows around the peaks,
    # zero outside the recording and up to the row's width, checked against NumPy; classified
    # with the first lead's rows, they decide its unlike beats (the run's own rule).
    from zeroflow.signal import embed_windows

    peaks, rows = segmented
    before, after = round(0.25 * RATE), round(0.45 * RATE)
    rng = np.random.default_rng(4)
    lead = rng.standard_normal(int(peaks[-1]) + 50).astype(np.float32)
    got = np.asarray(embed_windows(lead, peaks, window_before=before, window_after=after, row_width=rows.shape[1]))
    padded = np.concatenate([np.zeros(before, np.float32), lead, np.zeros(after, np.float32)])
    expected = np.zeros_like(rows)
    expected[:, : before + after] = padded[peaks[:, None] + np.arange(before + after)[None, :]]
    np.testing.assert_array_equal(got, expected)
    # Without a normalisation the rows stay raw, here as in embed_beats.
    from zeroflow.signal import embed_beats

    spans = np.diff(peaks)
    raw = embed_beats(lead, peaks[:-1], spans, int(spans.min()), int(spans.max()), int(spans.max()))
    np.testing.assert_array_equal(np.asarray(raw.rows)[0, : spans[0]], lead[peaks[0] : peaks[1]])
    assert np.asarray(embed_windows(lead, peaks, window_before=before, window_after=after)).shape == (
        len(peaks),
        before + after,
    )
    # Noise as the other lead reads no beat: the classes are the first lead's alone (step 8 takes
    # only V beats under a clarity of 15, and this record's are far clearer).
    c = classes_of(segmented)
    assert (c.clarity[c.classes == "V"] >= CLASS_DEFAULTS["shape.unconfirmed_v_min_clarity"]).all()
    with_noise = classify_beats(
        peaks, rows, window_before=before, window_after=after, sample_rate=RATE, other_leads=[got]
    )
    np.testing.assert_array_equal(with_noise.classes, c.classes)
    assert np.isnan(with_noise.other_lead_similarity).all()
    with pytest.raises(ValueError, match="other lead 0: expected"):
        classify_beats(peaks, rows, window_before=before, window_after=after, sample_rate=RATE, other_leads=[got[1:]])
