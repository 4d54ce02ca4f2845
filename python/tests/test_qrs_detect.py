"""zeroflow.detect_qrs: against the cardiologists' beat annotations of MIT-BIH (read by wfdb-python,
matched by wfdb's compare_annotations), against the ground truth of synthetic recordings, and the
properties a detector for real recordings needs (units and polarity do not matter)."""

import pathlib

import numpy as np
import pytest

import zeroflow as zf

wfdb = pytest.importorskip("wfdb")  # the independent reference; the GPU machine lacks it
compare_annotations = pytest.importorskip("wfdb.processing").compare_annotations

DS1 = pathlib.Path(__file__).resolve().parents[3] / "shared" / "data" / "mitdb-ds1"
#: MIT-BIH beat annotation symbols; the rest of an .atr file marks rhythm, noise and comments.
BEAT_SYMBOLS = frozenset("NLRBAaJSVrFejnE/fQ?")
TOLERANCE_SECONDS = 0.15


def mitdb(record):
    """(channel-0 samples in mV as float32, sample rate, reference beat samples) of a DS1 record."""
    if not (DS1 / f"{record}.hea").exists():
        pytest.skip(f"MIT-BIH data not found in {DS1}")
    path = str(DS1 / record)
    rec = wfdb.rdrecord(path, channels=[0])
    ann = wfdb.rdann(path, "atr")
    beats = np.array([s for s, sym in zip(ann.sample, ann.symbol) if sym in BEAT_SYMBOLS], dtype=np.int64)
    return rec.p_signal[:, 0].astype(np.float32), float(rec.fs), beats


def se_and_ppv(reference, detected, sample_rate):
    """Se and +P with a one-to-one match within 150 ms (compare_annotations' window is exclusive)."""
    window = int(np.floor(TOLERANCE_SECONDS * sample_rate)) + 1
    c = compare_annotations(np.asarray(reference), np.asarray(detected), window)
    return c.tp / len(reference), c.tp / len(detected)


def synthetic(sample_rate=250.0, heart_rate=70.0, anomaly_rate=0.05, seed=11):
    r = zf.synth.generate_ecg(0.1, sample_rate=sample_rate, heart_rate=heart_rate, anomaly_rate=anomaly_rate, seed=seed)
    return np.asarray(r.signal), np.asarray(r.r_peaks), np.asarray(r.labels)


@pytest.mark.parametrize("record", ["119", "106"])
@pytest.mark.parametrize("polarity", [1, -1], ids=["upright", "inverted"])
def test_mitdb_beats_are_found(record, polarity):
    x, fs, beats = mitdb(record)
    peaks = np.asarray(zf.detect_qrs(polarity * x, fs))
    assert peaks.dtype == np.int64 and np.all(np.diff(peaks) > 0)
    se, ppv = se_and_ppv(beats, peaks, fs)
    assert se >= 0.99 and ppv >= 0.99, (record, polarity, se, ppv)


@pytest.mark.parametrize("source", ["synthetic", "119"])
@pytest.mark.parametrize("gain, offset", [(200.0, 1024.0), (0.01, -3.0), (1000.0, -5.0e4)])
def test_units_do_not_matter(source, gain, offset):
    x, fs = (synthetic()[0], 250.0) if source == "synthetic" else mitdb(source)[:2]
    scaled = (gain * x.astype(np.float64) + offset).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(zf.detect_qrs(scaled, fs)), np.asarray(zf.detect_qrs(x, fs)))


@pytest.mark.parametrize(
    "fs, heart_rate, anomaly_rate", [(250.0, 70.0, 0.05), (360.0, 110.0, 0.1), (500.0, 50.0, 0.05), (128.0, 80.0, 0.03)]
)
def test_synthetic_r_peaks_are_found(fs, heart_rate, anomaly_rate):
    x, truth, labels = synthetic(fs, heart_rate, anomaly_rate)
    assert np.count_nonzero(labels == ord("V")) > 0  # premature beats are part of what must be found
    for polarity in (1, -1):
        peaks = np.asarray(zf.detect_qrs(polarity * x, fs))
        # One detection per beat, each within 30 ms of the true R peak (beats are >= 0.27 s apart,
        # so pairing the sorted lists is the one-to-one match).
        assert len(peaks) == len(truth), (polarity, len(peaks), len(truth))
        assert np.max(np.abs(peaks - truth)) <= 0.03 * fs, polarity


def test_robust_segmentation_uses_the_same_beats():
    x, _, _ = synthetic(360.0, 90.0)
    peaks = np.asarray(zf.detect_qrs(x, 360.0))
    seg = zf.segment_beats(x, sample_rate=360.0, method="robust")
    np.testing.assert_array_equal(np.asarray(seg.peaks), peaks)
    assert seg.gate is None and seg.beats.kept is None
    assert np.asarray(seg.beats.rows).shape[0] == len(peaks)
    intervals = np.diff(peaks) / 360.0
    np.testing.assert_allclose(np.asarray(seg.rhythm.rr_before)[1:], intervals, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(seg.rhythm.rr_after)[:-1], intervals, rtol=1e-6)
    assert zf.segment_beats(x, sample_rate=360.0).rhythm is None  # the seed's method stays the default here


def test_windows_and_center_are_used():
    x, truth, _ = synthetic(250.0, 150.0, 0.0)  # 0.4 s between beats
    assert len(np.asarray(zf.detect_qrs(x, 250.0))) == len(truth)
    slow = np.asarray(zf.detect_qrs(x, 250.0, refractory_seconds=0.5))
    assert len(slow) < len(truth) and np.min(np.diff(slow)) >= 0.5 * 250 - 1
    # center=None is the recording's median (NumPy's, here: short recordings use every sample).
    np.testing.assert_array_equal(
        np.asarray(zf.detect_qrs(x, 250.0, center=float(np.median(x)))), np.asarray(zf.detect_qrs(x, 250.0))
    )


def test_strided_input_gives_the_same_beats():
    x, _, _ = synthetic()
    two_leads = np.stack([x, -x], axis=1)  # column 0 is a strided view
    np.testing.assert_array_equal(
        np.asarray(zf.detect_qrs(two_leads[:, 0], 250.0)), np.asarray(zf.detect_qrs(x, 250.0))
    )


def test_bad_arguments_are_refused():
    x, _, _ = synthetic()
    with pytest.raises(TypeError, match="refractory_second"):
        zf.detect_qrs(x, 250.0, refractory_second=0.2)
    with pytest.raises(TypeError, match="float32"):
        zf.detect_qrs(x.astype(np.float64), 250.0)
    with pytest.raises(ValueError):
        zf.detect_qrs(x, 0.0)
    with pytest.raises(ValueError):
        zf.detect_qrs(x[:10], 250.0)
    with pytest.raises(ValueError, match="robust"):
        zf.segment_beats(x, method="fast")
