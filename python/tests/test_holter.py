"""zeroflow.holter (holter/holter.hpp) against independent references, on MIT-BIH records' reference
annotations: heart-rate variability against NeuroKit2's ``hrv_time`` and NumPy by the Task Force's
definitions on the same N-N intervals; pauses, ventricular runs and AF episodes against the ones the
annotations themselves give; and a run's summary.json and events.csv against the analysis of the
run's own beats.csv. 119 is in tests/data; the other DS1 records are used where ../shared is beside
the checkout."""

import csv
import json
import math

import numpy as np
import pytest
from conftest import ROOT, missing_test_dependency, run_cli

import zeroflow
from zeroflow import holter

try:
    import wfdb
except ImportError:  # pragma: no cover - scripts/setup installs it
    wfdb = None

TEST_DATA = ROOT / "tests" / "data" / "mitdb"
SHARED = ROOT.parent / "shared" / "data" / "mitdb"
DS1 = ["101", "106", "108", "109", "112", "114", "115", "116", "118", "119", "122", "124",
       "201", "203", "205", "207", "208", "209", "215", "220", "223", "230"]  # fmt: skip
AAMI = {**dict.fromkeys("NLRej", "N"), **dict.fromkeys("AaJS", "S"), **dict.fromkeys("VE", "V"),
        **dict.fromkeys("F/fQ", "Q")}  # fmt: skip


def record_path(name):
    for folder in (TEST_DATA, SHARED):
        if (folder / f"{name}.hea").exists():
            return folder / name
    pytest.skip(f"MIT-BIH {name} is neither in tests/data nor in ../shared/data/mitdb")


def reference(name):
    """The record's reference beats (samples, AAMI classes), its AF episodes as (first, last) beat
    pairs from the rhythm annotations ((AFIB and (AFL up to the next rhythm change), its length and
    rate."""
    if wfdb is None:
        missing_test_dependency("wfdb-python is not installed (scripts/setup installs it)")
    path = record_path(name)
    header = wfdb.rdheader(str(path))
    ann = wfdb.rdann(str(path), "atr")
    peaks, classes = [], []
    for sample, symbol in zip(ann.sample, ann.symbol):
        if symbol in AAMI:
            peaks.append(int(sample))
            classes.append(AAMI[symbol])
    peaks = np.asarray(peaks, dtype=np.int64)
    changes = [(int(s), note.strip("\x00")) for s, sym, note in zip(ann.sample, ann.symbol, ann.aux_note) if sym == "+"]
    episodes = []
    for i, (onset, note) in enumerate(changes):
        if note not in ("(AFIB", "(AFL"):
            continue
        end = changes[i + 1][0] if i + 1 < len(changes) else header.sig_len
        inside = np.nonzero((peaks >= onset) & (peaks < end))[0]
        if inside.size >= 2:
            if episodes and episodes[-1][1] + 1 >= inside[0]:
                episodes[-1] = (episodes[-1][0], int(inside[-1]))
            else:
                episodes.append((int(inside[0]), int(inside[-1])))
    return peaks, "".join(classes), episodes, int(header.sig_len), float(header.fs)


def nn_by_definition(peaks, classes, episodes, rate):
    """N-N intervals (ms), their end samples and whether each follows the one before."""
    sinus = np.asarray([c == "N" for c in classes])
    for first, last in episodes:
        sinus[first : last + 1] = False
    ends = np.nonzero(sinus[1:] & sinus[:-1])[0] + 1
    ms = 1000.0 * (peaks[ends] - peaks[ends - 1]) / rate
    follows = np.r_[False, ends[1:] - 1 == ends[:-1]]
    return ms, ends, follows


@pytest.mark.parametrize("name", DS1)
def test_hrv_matches_neurokit2_and_the_task_force_definitions(name):
    try:
        import neurokit2 as nk
    except ImportError:
        missing_test_dependency("NeuroKit2 is not installed (scripts/setup installs it)")
    peaks, classes, episodes, samples, rate = reference(name)
    got = holter.analyse(peaks, classes, rate, samples=samples, af_episodes=episodes)["hrv"]
    ms, ends, follows = nn_by_definition(peaks, classes, episodes, rate)
    assert got["nn_intervals"] == ms.size
    assert got["successive_pairs"] == int(follows.sum())

    ref = nk.hrv_time({"RRI": ms, "RRI_Time": peaks[ends] / rate})
    assert got["mean_nn_ms"] == pytest.approx(float(ref["HRV_MeanNN"].iloc[0]), abs=0.1)
    assert got["sdnn_ms"] == pytest.approx(float(ref["HRV_SDNN"].iloc[0]), abs=0.1)
    if got["successive_pairs"] == 0:  # 203's N beats inside its AF-free stretches never follow each other
        assert got["rmssd_ms"] is None and got["nn50"] == 0
    else:
        assert got["rmssd_ms"] == pytest.approx(float(ref["HRV_RMSSD"].iloc[0]), abs=0.1)
        # NeuroKit2 divides NN50 by the successive pairs + 1; the Task Force by the N-N intervals.
        nk_nn50 = float(ref["HRV_pNN50"].iloc[0]) * (got["successive_pairs"] + 1) / 100
        assert got["nn50"] == round(nk_nn50)
    assert got["pnn50_percent"] == pytest.approx(100.0 * got["nn50"] / ms.size, rel=1e-12)

    # SDANN and the SDNN index over the recording's 5-minute segments, those half covered or more.
    segment = (peaks[ends] // (300 * rate)).astype(np.int64)
    means, sds = [], []
    for k in np.unique(segment):
        values = ms[segment == k]
        if values.size >= 2 and values.sum() >= 0.5 * 300_000:
            means.append(values.mean())
            sds.append(values.std(ddof=1))
    assert got["segments"] == len(means)
    if means:
        assert got["sdnn_index_ms"] == pytest.approx(np.mean(sds), abs=1e-9)
    else:
        assert got["sdnn_index_ms"] is None
    if len(means) >= 2:
        assert got["sdann_ms"] == pytest.approx(np.std(means, ddof=1), abs=1e-9)
    else:  # unmeasured: null in summary.json
        assert got["sdann_ms"] is None


def runs_of(classes, beat_class):
    out, b = [], 0
    while b < len(classes):
        if classes[b] != beat_class:
            b += 1
            continue
        e = b
        while e + 1 < len(classes) and classes[e + 1] == beat_class:
            e += 1
        out.append((b, e))
        b = e + 1
    return out


@pytest.mark.parametrize("name", DS1)
def test_events_are_the_reference_annotations_own(name):
    peaks, classes, episodes, samples, rate = reference(name)
    events = holter.analyse(peaks, classes, rate, samples=samples, af_episodes=episodes)["event_list"]
    found = {}
    for e in events:
        found.setdefault(e["kind"], set()).add((e["first_beat"], e["last_beat"]))
    rr = np.diff(peaks) / rate
    readable = np.asarray([c != "Q" for c in classes])
    pauses = {(b, b + 1) for b in np.nonzero((rr >= 2.0) & readable[1:] & readable[:-1])[0].tolist()}
    assert found.get("pause", set()) == pauses
    runs = {(b, e) for b, e in runs_of(classes, "V") if e - b + 1 >= 3}
    couplets = {(b, e) for b, e in runs_of(classes, "V") if e - b + 1 == 2}
    assert found.get("ventricular_run", set()) == runs
    assert found.get("ventricular_couplet", set()) == couplets
    assert found.get("atrial_fibrillation", set()) == set(episodes)
    if name == "119":  # ventricular bigeminy and trigeminy through the record (its annotations' rhythms)
        assert len(found.get("ventricular_bigeminy", ())) >= 10
        assert len(found.get("ventricular_trigeminy", ())) >= 10


def test_counts_and_rates_by_definition():
    peaks, classes, episodes, samples, rate = reference("119")
    got = holter.analyse(peaks, classes, rate, samples=samples, af_episodes=episodes)
    cls = np.asarray(list(classes))
    assert got["counts"]["beats"] == peaks.size
    for c in "NSVQ":
        assert got["counts"][c] == int((cls == c).sum())
    assert sum(h["V"] for h in got["per_hour"]) == got["counts"]["V"]
    assert len(got["per_hour"]) == math.ceil(samples / (3600 * rate))
    # Rates over 8 measurable intervals: NumPy's rolling sum.
    rr = np.diff(peaks).astype(np.float64)
    measurable = (cls[1:] != "Q") & (cls[:-1] != "Q")
    sums = np.convolve(rr, np.ones(8), mode="valid")
    ok = np.convolve(measurable.astype(int), np.ones(8, dtype=int), mode="valid") == 8
    bpm = 60.0 * 8 * rate / sums[ok]
    assert got["heart_rate"]["lowest"]["bpm"] == pytest.approx(bpm.min(), rel=1e-12)
    assert got["heart_rate"]["highest"]["bpm"] == pytest.approx(bpm.max(), rel=1e-12)
    assert got["heart_rate"]["mean_bpm"] == pytest.approx(60.0 * measurable.sum() * rate / rr[measurable].sum())
    minutes = got["heart_rate"]["per_minute"]["mean_bpm"]
    assert len(minutes) == math.ceil(samples / (60 * rate))


def test_refusals_name_the_problem():
    with pytest.raises(ValueError, match="class 'X'"):
        holter.analyse(np.array([10, 300, 600]), "NXN", 360.0)
    with pytest.raises(ValueError, match="increase"):
        holter.analyse(np.array([10, 300, 200]), "NNN", 360.0, samples=1000)
    with pytest.raises(ValueError, match="bradycardia"):
        holter.analyse(np.array([10, 300, 600]), "NNN", 360.0, bradycardia_bpm=150)
    with pytest.raises(TypeError, match="pause_second"):
        holter.analyse(np.array([10, 300, 600]), "NNN", 360.0, pause_second=3)
    assert holter.HOLTER_DEFAULTS["pause_seconds"] == 2.0
    assert holter.HOLTER_DEFAULTS["run_beats"] == 3


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_a_run_writes_the_analysis_of_its_own_beats(zeroflow_bin, tmp_path):
    out = tmp_path / "run"
    run_cli(zeroflow_bin, "run", TEST_DATA / "119.hea", "--out", out, "--epochs", "2", "--device", "cpu",
            "--pause-seconds", "1.5")  # fmt: skip
    summary = json.loads((out / "summary.json").read_text())
    beats = read_csv(out / "beats.csv")
    peaks = np.asarray([int(b["peak"]) for b in beats], dtype=np.int64)
    classes = "".join(b["class"] for b in beats)
    af = [(e["first_beat"], e["last_beat"]) for e in summary["classes"]["af_episodes"]]
    noise = [(e["first_beat"], e["last_beat"]) for e in summary["classes"]["unreadable"]]
    family = [int(b["family"]) for b in beats]
    again = holter.analyse(peaks, classes, summary["sample_rate"], samples=summary["samples"], af_episodes=af,
                           unreadable=noise, family=family, pause_seconds=1.5)  # fmt: skip
    written = summary["holter"]
    assert written["parameters"]["pause_seconds"] == 1.5
    assert summary["options"]["pause_seconds"] == "1.5"
    event_list = again.pop("event_list")
    assert written == again
    rows = read_csv(out / "events.csv")
    assert [(r["kind"], int(r["first_beat"]), int(r["last_beat"])) for r in rows] == [
        (e["kind"], e["first_beat"], e["last_beat"]) for e in event_list
    ]
    for r, e in zip(rows, event_list):
        assert float(r["onset_seconds"]) == pytest.approx(e["onset_seconds"], abs=5e-4)
        assert int(r["beats"]) == e["beats"]
    assert sum(written["events"]["counts"].values()) == len(rows)
    # 119's ventricular beats are one family of their own, apart from the dominant shape.
    families = {f["id"]: f for f in written["families"]}
    assert families[0]["class"] == "N" and families[0]["beats"] == family.count(0)
    assert any(f["class"] == "V" and f["counts"]["V"] >= 400 for f in written["families"])
    assert sum(f["beats"] for f in written["families"]) == len(beats)


def test_contradicting_thresholds_are_refused(zeroflow_bin, tmp_path):
    proc = run_cli(zeroflow_bin, "run", TEST_DATA / "119.hea", "--out", tmp_path / "x", "--bradycardia-bpm", "130",
                   check=False)  # fmt: skip
    assert proc.returncode != 0
    assert "--bradycardia-bpm" in proc.stderr and "--tachycardia-bpm" in proc.stderr
    assert not (tmp_path / "x").exists()


def test_module_is_exported():
    assert zeroflow.holter is holter
    assert "holter" in zeroflow.__all__


def test_a_rhythm_faster_than_the_detector_follows_is_said(zeroflow_bin, tmp_path):
    """144 bpm declared at twice its sample rate is 288 bpm: the detector finds about every other
    beat, and the run says so (stderr and summary.json) instead of reading half the rate silently."""
    csv_path = tmp_path / "fast.csv"
    run_cli(zeroflow_bin, "generate", "--hours", "0.05", "--heart-rate", "144", "--anomaly-rate", "0",
            "--apb-rate", "0", "--out", csv_path)  # fmt: skip
    for rate, faster in (("500", True), ("250", False)):
        out = tmp_path / f"run{rate}"
        proc = run_cli(zeroflow_bin, "run", csv_path, "--sample-rate", rate, "--out", out, "--epochs", "1",
                       "--device", "cpu")  # fmt: skip
        summary = json.loads((out / "summary.json").read_text())
        classes = summary["classes"]
        assert ("second QRS-like complex" in proc.stderr) == faster, proc.stderr
        assert bool(classes["possibly_faster"]) == faster
        if faster:
            assert classes["possibly_faster_seconds"] > 0.5 * summary["duration_seconds"]
