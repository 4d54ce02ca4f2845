"""Beat classes, AF episodes and beats.atr on real records, checked with wfdb-python.

- beats.atr reads back with wfdb.rdann: one annotation per row of beats.csv, at its peak, with its
  class as the MIT symbol and its score as the text; rhythm changes as `+` with "(AFIB"/"(N".
- `zeroflow evaluate` matches beats as wfdb.processing.compare_annotations does (same TP/FP/FN
  over the whole record, 150 ms window), and its EC57 table counts the matrix the bxb way.
- On record 119 (ventricular bigeminy) the V beats are found by class; on 203 (atrial
  fibrillation, ../shared/data/mitdb) the AF episodes overlap the reference's AF time.
"""

import csv
import json
import pathlib
import shutil

import numpy as np
import pytest
from conftest import ROOT, run_cli

wfdb = pytest.importorskip("wfdb")
processing = pytest.importorskip("wfdb.processing")

DATA = ROOT / "tests" / "data" / "mitdb"
SHARED = ROOT.parent / "shared" / "data" / "mitdb"


@pytest.fixture(scope="module")
def run_119(zeroflow_bin, tmp_path_factory):
    out = tmp_path_factory.mktemp("r119") / "out"
    run_cli(zeroflow_bin, "run", DATA / "119.hea", "--out", out, "--device", "cpu", "--labels", DATA / "119.atr")
    return out


def beats_csv(out):
    with open(out / "beats.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_beats_atr_reads_back_with_wfdb(run_119):
    rows = beats_csv(run_119)
    ann = wfdb.rdann(str(run_119 / "beats"), "atr")
    beats = [i for i, s in enumerate(ann.symbol) if s not in ("+", "~")]
    assert [int(ann.sample[i]) for i in beats] == [int(r["peak"]) for r in rows]
    assert [ann.symbol[i] for i in beats] == [r["class"] for r in rows]
    scores = np.array([float(ann.aux_note[i]) for i in beats])
    np.testing.assert_allclose(scores, [float(r["score"]) for r in rows], rtol=1e-3, atol=1e-3)
    rhythm = [(int(ann.sample[i]), ann.aux_note[i]) for i, s in enumerate(ann.symbol) if s == "+"]
    assert rhythm[0] == (int(rows[0]["peak"]), "(N")
    assert all(note in ("(N", "(AFIB") for _, note in rhythm)
    # The file states its time unit as WFDB does: wfdb-python reads it as the annotations' fs.
    assert ann.fs == 360


def test_scores_follow_the_classes(run_119):
    # Every beat the rule calls S or V ranks above every Q beat, and those above every N beat;
    # within each, shape, rhythm and the P wave order them: score = tier + 0.5 + atan(e) / pi,
    # tier 0 (N), 0.5 (Q), 1 (S, V), e = max(0, morphology) + max(0, rhythm) + max(0, z(1 -
    # similarity)) + max(0, z(1 - p_similarity)), z robust (spread 1.4826 MAD): over every beat with
    # a spread of at least 0.005 for the QRS; over the beats outside AF, at least 0.05, and 0 inside
    # AF for the P wave.
    rows = beats_csv(run_119)
    score = np.array([float(r["score"]) for r in rows])
    upper_median = lambda v: np.sort(v)[len(v) // 2]  # the library's median of an even count: the upper one

    def unlikeness(similarity, counts, floor):
        unlike = 1.0 - similarity
        centre = upper_median(unlike[counts])
        spread = max(1.4826 * upper_median(np.abs(unlike[counts] - centre)), floor)
        return np.where(counts, np.maximum(0.0, (unlike - centre) / spread), 0.0)

    outside_af = np.array([r["af"] == "0" for r in rows])
    atrial = unlikeness(np.array([float(r["p_similarity"]) for r in rows]), outside_af, 0.05)
    qrs = np.array([float(r["similarity"]) for r in rows])
    shape = unlikeness(qrs, np.ones(len(rows), bool), 0.005)
    evidence = np.array([max(0.0, float(r["morphology"])) + max(0.0, float(r["rhythm"])) for r in rows])
    evidence += atrial + shape
    assert atrial.max() > 0 and shape.max() > 0  # the parts are there to test
    classes = np.array([r["class"] for r in rows])
    tier = np.select([classes == "N", classes == "Q"], [0.0, 0.5], 1.0)
    np.testing.assert_allclose(score, tier + 0.5 + np.arctan(evidence) / np.pi, rtol=1e-5, atol=1e-6)
    ectopic, normal = np.isin(classes, ["S", "V"]), classes == "N"
    assert ectopic.any() and normal.any()
    assert score[ectopic].min() > score[normal].max()
    if (classes == "Q").any():
        noisy = score[classes == "Q"]
        assert score[ectopic].min() > noisy.max() and noisy.min() > score[normal].max()


def test_classes_find_the_bigeminy(run_119):
    rows = beats_csv(run_119)
    summary = json.loads((run_119 / "summary.json").read_text())
    counts = summary["classes"]["counts"]
    assert sum(counts.values()) == len(rows)
    ref = wfdb.rdann(str(DATA / "119"), "atr")
    v_ref = ref.sample[np.isin(ref.symbol, ["V"])]
    peaks = np.array([int(r["peak"]) for r in rows])
    classes = np.array([r["class"] for r in rows])
    window = int(0.15 * 360)
    # Each labelled V beat has a detection within 150 ms classed V (the record is a textbook case).
    nearest = np.searchsorted(peaks, v_ref)
    found = 0
    for v, k in zip(v_ref, nearest):
        near = [j for j in (k - 1, k) if 0 <= j < len(peaks) and abs(peaks[j] - v) <= window]
        found += any(classes[j] == "V" for j in near)
    assert found >= 0.98 * len(v_ref), (found, len(v_ref))
    assert counts["V"] <= 1.05 * len(v_ref)
    assert not summary["classes"]["af_episodes"]


def test_evaluate_matches_wfdb_compare_annotations(zeroflow_bin, run_119, tmp_path):
    json_file = tmp_path / "e.json"
    run_cli(zeroflow_bin, "evaluate", run_119, "--labels", DATA / "119.atr", "--json", json_file, "--start", 0)
    e = json.loads(json_file.read_text())
    ref = wfdb.rdann(str(DATA / "119"), "atr")
    ref_beats = ref.sample[np.isin(ref.symbol, list("NLRejAaJSVEF/fQ"))]
    test = np.array([int(r["peak"]) for r in beats_csv(run_119)])
    cmp = processing.compare_annotations(ref_beats, test, int(0.15 * 360))
    assert e["evaluation"]["true_positives"] == cmp.tp
    assert e["evaluation"]["false_positives"] == cmp.fp
    assert e["evaluation"]["false_negatives"] == cmp.fn
    ec57 = e["ec57"]
    assert ec57["qrs_sensitivity"]["numerator"] == cmp.tp
    assert ec57["qrs_sensitivity"]["denominator"] == cmp.tp + cmp.fn
    # The VEB counts, recomputed from the matched pairs (Fv and Qv are no false positives).
    symbols = dict(zip(ref.sample, ref.symbol))
    classes = [r["class"] for r in beats_csv(run_119)]
    matched_v = 0
    for ref_index, test_index in enumerate(cmp.matching_sample_nums):
        if test_index >= 0 and symbols[ref_beats[ref_index]] == "V" and classes[test_index] == "V":
            matched_v += 1
    assert ec57["matrix"]["Vv"] == matched_v


def test_evaluate_leaves_out_the_first_five_minutes_by_default(zeroflow_bin, run_119, tmp_path):
    run_cli(zeroflow_bin, "evaluate", run_119, "--labels", DATA / "119.atr", "--json", tmp_path / "a.json")
    ec57 = json.loads((tmp_path / "a.json").read_text())["ec57"]
    ref = wfdb.rdann(str(DATA / "119"), "atr")
    beats = np.isin(ref.symbol, list("NLRejAaJSVEF/fQ"))
    after = int(np.sum(ref.sample[beats] >= 300 * 360))
    assert ec57["start_seconds"] == 300
    assert ec57["qrs_sensitivity"]["denominator"] == after


@pytest.mark.skipif(not (SHARED / "203.hea").exists(), reason="../shared/data/mitdb/203 not beside the checkout")
def test_af_episodes_on_record_203(zeroflow_bin, tmp_path):
    out = tmp_path / "203"
    run_cli(zeroflow_bin, "run", SHARED / "203.hea", "--out", out, "--device", "cpu", "--labels", SHARED / "203.atr")
    proc = run_cli(zeroflow_bin, "evaluate", out)
    assert "EC57" in proc.stdout and "AF" in proc.stdout
    ec57 = json.loads((out / "evaluation.json").read_text())["ec57"]
    assert ec57["af_duration_sensitivity"]["value"] >= 0.85
    assert ec57["af_duration_positive_predictivity"]["value"] >= 0.85
    with open(out / "episodes.csv", newline="") as f:
        episodes = list(csv.DictReader(f))
    assert episodes and all(row["rhythm"] == "AFIB" for row in episodes)
    # No S beat is called inside AF.
    rows = beats_csv(out)
    assert not any(r["class"] == "S" and r["af"] == "1" for r in rows)


def test_evaluate_several_runs_prints_gross_and_average(zeroflow_bin, run_119, tmp_path):
    other = tmp_path / "copy"
    shutil.copytree(run_119, other)
    # The copy's scores changed (every third beat ranked at the bottom), so its AUROC differs.
    rows = beats_csv(other)
    for i, r in enumerate(rows):
        if i % 3 == 0:
            r["score"] = "0.5"
    with open(other / "beats.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    proc = run_cli(zeroflow_bin, "evaluate", run_119, other)
    assert "gross" in proc.stdout and "average" in proc.stdout
    # AUROC against N, beat-weighted over the records: each record's (checked against
    # scikit-learn in test_cli_evaluate.py) weighted by its V beats.
    per_record = [json.loads((d / "evaluation.json").read_text())["evaluation"] for d in (run_119, other)]
    v = [r["classes_against_normal"]["V"] for r in per_record]
    assert v[0]["auroc"] != v[1]["auroc"]
    weighted = sum(r["auroc"] * r["beats"] for r in v) / sum(r["beats"] for r in v)
    line = next(x for x in proc.stdout.splitlines() if x.startswith("weighted"))
    assert float(line.split()[1]) == pytest.approx(weighted, abs=1e-4)
    assert int(line.split()[2]) == sum(r["beats"] for r in v)
    proc = run_cli(zeroflow_bin, "evaluate", run_119, other, "--json", tmp_path / "x.json", check=False)
    assert proc.returncode != 0 and "--json" in proc.stderr


def test_seed_segmentation_writes_no_classes(zeroflow_bin, tmp_path):
    out = tmp_path / "seed"
    run_cli(
        zeroflow_bin,
        "run",
        DATA / "119.hea",
        "--out",
        out,
        "--device",
        "cpu",
        "--segmentation",
        "gate-to-gate",
        "--epochs",
        2,
    )
    assert not (out / "beats.atr").exists()
    assert "classes" not in json.loads((out / "summary.json").read_text())
    assert (
        pathlib.Path(out / "beats.csv")
        .read_text()
        .splitlines()[0]
        .endswith(
            "class,similarity,prematurity,af,p_similarity,p_coherence,clarity,family,other_lead_similarity,"
            "other_lead_deviation,f_wave_rate"
        )
    )


@pytest.mark.skipif(not (SHARED / "119.hea").exists(), reason="../shared/data/mitdb/119 not beside the checkout")
def test_every_ecg_lead_informs_the_shapes(zeroflow_bin, tmp_path):
    # The run finds the beats in MLII and reads their shapes in V1 too: the summary says so, and
    # each beat's other-lead similarity and class are what the library's rule gives on V1's rows
    # embedded here, at the run's R peaks, from wfdb-python's reading of the record.
    import zeroflow
    from zeroflow.classify import classify_beats

    both = tmp_path / "both"
    run_cli(zeroflow_bin, "run", SHARED / "119.hea", "--out", both, "--device", "cpu", "--epochs", "2")
    summary = json.loads((both / "summary.json").read_text())
    # V1's own detections joined MLII's; on this clean record they change no beat.
    assert summary["leads"] == {
        "beats": "MLII", "shapes": ["MLII", "V1"], "joined": ["V1"], "joined_dropped": 0, "joined_added": 0
    }  # fmt: skip
    rows = beats_csv(both)
    peaks = np.array([int(r["peak"]) for r in rows], dtype=np.int64)
    rec = wfdb.rdrecord(str(SHARED / "119"))
    rate = float(rec.fs)
    before, after = round(0.25 * rate), round(0.45 * rate)
    mlii = np.ascontiguousarray(rec.p_signal[:, rec.sig_name.index("MLII")], dtype=np.float32)
    seg = zeroflow.segment_beats(mlii, sample_rate=rate, method="robust")
    np.testing.assert_array_equal(np.asarray(seg.peaks), peaks)
    own = np.asarray(seg.beats.rows)
    v1 = np.concatenate([np.zeros(before), rec.p_signal[:, rec.sig_name.index("V1")], np.zeros(after)])
    other = np.zeros_like(own)
    other[:, : before + after] = v1[peaks[:, None] + np.arange(before + after)[None, :]]
    c = classify_beats(peaks, own, window_before=before, window_after=after, sample_rate=rate, other_leads=[other])
    written = [float(r["other_lead_similarity"] or "nan") for r in rows]  # an empty cell: no lead read the beat
    assert np.isfinite(written).mean() > 0.9
    np.testing.assert_allclose(c.other_lead_similarity, written, atol=0.02)
    np.testing.assert_array_equal(c.classes, [r["class"] for r in rows])
    # The other leads' check of V: measured for the beats called V before it, and the run wrote it.
    deviation = np.array([float(r["other_lead_deviation"] or "nan") for r in rows])
    measured = np.isfinite(deviation)
    assert measured.sum() > 100 and set(c.classes[measured]) <= {"N", "V"}
    np.testing.assert_allclose(c.other_lead_deviation, deviation, rtol=1e-3, atol=0.02)
    bound = zeroflow.classify.CLASS_DEFAULTS["shape.other_lead_min_deviation"]
    np.testing.assert_array_equal(c.classes[measured] == "N", deviation[measured] < bound)
    # Without V1 the same beats' other-lead similarity is NaN, as it is in a run told to use MLII alone.
    assert np.isnan(
        classify_beats(peaks, own, window_before=before, window_after=after, sample_rate=rate).other_lead_similarity
    ).all()
    out = tmp_path / "mlii"
    run_cli(zeroflow_bin, "run", SHARED / "119.hea", "--out", out, "--device", "cpu", "--lead", "MLII", "--epochs", "2")
    assert json.loads((out / "summary.json").read_text())["leads"] == {
        "beats": "MLII", "shapes": ["MLII"], "joined": [], "joined_dropped": 0, "joined_added": 0
    }  # fmt: skip
    assert all(r["other_lead_similarity"] == "" for r in beats_csv(out))


def test_a_twelve_lead_record_reads_every_ecg_lead(zeroflow_bin, tmp_path):
    # Twelve leads made from 119's MLII (each its own gain, sign and noise) and a respiration
    # signal, written with wfdb-python: the beats are found in II, the shapes read in all twelve
    # ECG leads (not the respiration), and the classes are the library's rule given the other
    # eleven leads' rows embedded here.
    import zeroflow
    from zeroflow.classify import classify_beats

    rate = 360
    x = wfdb.rdrecord(str(DATA / "119"), sampto=rate * 120).p_signal[:, 0]
    rng = np.random.default_rng(0)
    names = ["I", "II", "III", "aVR", "aVL", "aVF", "V1", "V2", "V3", "V4", "V5", "V6", "RESP"]
    gains = (0.6, 1.0, 0.4, -0.8, 0.3, 0.7, -0.5, 0.2, 0.9, 1.2, 1.0, 0.8)
    signals = [g * x + rng.normal(0, 0.02, x.size) for g in gains]
    signals.append(np.sin(2 * np.pi * 0.25 * np.arange(x.size) / rate))
    wfdb.wrsamp(
        "r12",
        fs=rate,
        units=["mV"] * 12 + ["l"],
        sig_name=names,
        p_signal=np.column_stack(signals),
        fmt=["16"] * 13,
        write_dir=str(tmp_path),
    )
    out = tmp_path / "out"
    run_cli(zeroflow_bin, "run", tmp_path / "r12.hea", "--out", out, "--device", "cpu", "--epochs", "2")
    summary = json.loads((out / "summary.json").read_text())
    others = [n for n in names[:12] if n != "II"]
    assert summary["leads"] == {
        "beats": "II", "shapes": ["II"] + others, "joined": others, "joined_dropped": 0, "joined_added": 0
    }  # fmt: skip

    read = wfdb.rdrecord(str(tmp_path / "r12"))
    leads = {n: np.ascontiguousarray(read.p_signal[:, k], dtype=np.float32) for k, n in enumerate(read.sig_name)}
    before, after = round(0.25 * rate), round(0.45 * rate)
    seg = zeroflow.segment_beats(leads["II"], sample_rate=rate, method="robust")
    rows = beats_csv(out)
    peaks = np.asarray(seg.peaks)
    np.testing.assert_array_equal(peaks, [int(r["peak"]) for r in rows])
    own = np.asarray(seg.beats.rows)
    others = []
    for name in summary["leads"]["shapes"][1:]:
        padded = np.concatenate([np.zeros(before), leads[name], np.zeros(after)])
        other = np.zeros_like(own)
        other[:, : before + after] = padded[peaks[:, None] + np.arange(before + after)[None, :]]
        others.append(other)
    c = classify_beats(peaks, own, window_before=before, window_after=after, sample_rate=rate, other_leads=others)
    np.testing.assert_array_equal(c.classes, [r["class"] for r in rows])
    written = [float(r["other_lead_similarity"] or "nan") for r in rows]
    np.testing.assert_allclose(c.other_lead_similarity, written, atol=0.02)
    assert (c.classes == "V").sum() > 10  # 119's bigeminy


def test_a_lead_that_cannot_be_read_is_left_out_with_a_warning(zeroflow_bin, tmp_path):
    # A record of two leads in two files, the second cut short: the run analyses MLII, says which
    # lead it left out and why, and its outputs name the leads it used.
    rate, n = 360, 360 * 60
    digital = np.round(wfdb.rdrecord(str(DATA / "119"), sampto=n).p_signal[:, 0] * 200).astype("<i2")
    digital.tofile(tmp_path / "a.dat")
    digital[::-1].tofile(tmp_path / "b.dat")
    (tmp_path / "two.hea").write_text(f"two 2 {rate} {n}\na.dat 16 200 11 0 0 0 0 MLII\nb.dat 16 200 11 0 0 0 0 V1\n")
    with open(tmp_path / "b.dat", "r+b") as f:
        f.truncate(1000)
    out = tmp_path / "out"
    proc = run_cli(zeroflow_bin, "run", tmp_path / "two.hea", "--out", out, "--device", "cpu", "--epochs", "1")
    assert 'warning: lead "V1" not read (' in proc.stderr and "the file is truncated" in proc.stderr
    assert json.loads((out / "summary.json").read_text())["leads"] == {
        "beats": "MLII", "shapes": ["MLII"], "joined": [], "joined_dropped": 0, "joined_added": 0
    }  # fmt: skip
    assert all(r["other_lead_similarity"] == "" for r in beats_csv(out))


def test_beats_are_located_in_every_lead(zeroflow_bin, tmp_path):
    # Ten minutes of synthetic ECG in two leads (the second the same heart at another gain), the
    # first with two minutes of electrode-motion-like noise (1-15 Hz, bursts as large as the QRS).
    # Read alone, the first lead's detector finds beats in the noise and loses some; with both,
    # the beats found in the noise that the clean lead does not confirm are dropped and those the
    # first lost are taken from the second. Scored here against the generator's labels (150 ms).
    from scipy import signal as sps

    rate = 250
    csv_path = tmp_path / "ecg.csv"
    run_cli(zeroflow_bin, "generate", "--hours", 10 / 60, "--seed", 7, "--out", csv_path)
    x = np.loadtxt(csv_path, skiprows=1)
    truth = np.array([int(r["sample"]) for r in csv.DictReader(open(tmp_path / "ecg.labels.csv"))])
    rng = np.random.default_rng(3)
    noise = sps.sosfiltfilt(sps.butter(2, [1, 15], btype="band", fs=rate, output="sos"), rng.standard_normal(x.size))
    bursts = (rng.random(x.size // rate) < 0.5).repeat(rate)[: x.size].astype(float)
    gate = np.zeros(x.size)
    gate[120 * rate : 240 * rate] = 1
    first = x + gate * np.pad(bursts, (0, x.size - bursts.size)) * noise / noise.std() * np.ptp(x) / 4
    raw = tmp_path / "two.f32"
    np.column_stack([first, 0.7 * x]).astype("<f4").tofile(raw)

    def scored(out):
        peaks = np.array([int(r["peak"]) for r in beats_csv(out)])
        inside = lambda p: p[(p >= 120 * rate) & (p < 240 * rate)]  # noqa: E731
        found, reference = inside(peaks), inside(truth)
        near = lambda a, b: np.array([np.abs(b - v).min() <= 0.15 * rate for v in a])  # noqa: E731
        return near(reference, found).mean(), near(found, reference).mean()

    common = ("--channels", 2, "--sample-rate", rate, "--device", "cpu", "--epochs", 2)
    run_cli(zeroflow_bin, "run", raw, "--out", tmp_path / "alone", "--lead", 0, *common)
    run_cli(zeroflow_bin, "run", raw, "--out", tmp_path / "both", *common)
    alone_se, alone_pp = scored(tmp_path / "alone")
    both_se, both_pp = scored(tmp_path / "both")
    assert alone_pp < 0.95 and alone_se < 0.95  # the first lead alone makes beats of the noise and loses some
    assert both_pp > alone_pp + 0.04 and both_se > alone_se + 0.04, (alone_se, alone_pp, both_se, both_pp)
    leads = json.loads((tmp_path / "both" / "summary.json").read_text())["leads"]
    assert leads["joined"] == ["channel 1"] and leads["joined_dropped"] > 0
    # Outside the noise the two runs found the same beats.
    peaks = {k: np.array([int(r["peak"]) for r in beats_csv(tmp_path / k)]) for k in ("alone", "both")}
    clean = {k: p[(p < 115 * rate) | (p > 245 * rate)] for k, p in peaks.items()}
    np.testing.assert_array_equal(clean["alone"], clean["both"])


def test_a_csvs_ecg_columns_are_its_leads(zeroflow_bin, tmp_path):
    # A CSV export with a time column, two ECG leads and a note: the beats are found in II (as in
    # a WFDB record), I joins them and informs the shapes, and the time and note columns are no
    # leads (never parsed as signals, no warning). `--lead` still reads one column alone.
    csv_path = tmp_path / "ecg.csv"
    run_cli(zeroflow_bin, "generate", "--hours", 2 / 60, "--seed", 3, "--out", csv_path)
    x = np.loadtxt(csv_path, skiprows=1)
    export = tmp_path / "export.csv"
    with open(export, "w") as f:
        f.write("time,I,II,note\n")
        for k, v in enumerate(x):
            f.write(f"{k / 250:.3f},{0.6 * v:.4f},{v:.4f},ok\n")
    out = tmp_path / "out"
    proc = run_cli(zeroflow_bin, "run", export, "--sample-rate", 250, "--out", out, "--device", "cpu", "--epochs", 2)
    assert "warning" not in proc.stderr
    leads = json.loads((out / "summary.json").read_text())["leads"]
    assert leads == {"beats": "II", "shapes": ["II", "I"], "joined": ["I"], "joined_dropped": 0, "joined_added": 0}
    alone = tmp_path / "alone"
    run_cli(zeroflow_bin, "run", export, "--sample-rate", 250, "--out", alone, "--device", "cpu", "--epochs", 2,
            "--lead", "II")  # fmt: skip
    assert json.loads((alone / "summary.json").read_text())["leads"]["shapes"] == ["II"]
    assert [r["peak"] for r in beats_csv(out)] == [r["peak"] for r in beats_csv(alone)]


def test_a_strip_measures_its_f_waves(zeroflow_bin, run_119, tmp_path):
    # A 40 s strip (the start of 119, MLII, as a one-column CSV): beats.csv's f-wave rates are
    # zeroflow.rhythm.f_wave_rates of the lead from a second before the first beat to a second
    # after the last, and the strip prior's measures include their median. A 30-minute record is
    # no strip: its column is empty.
    from zeroflow.rhythm import AF_STRIP_FEATURES, f_wave_rates, measure_af_strip

    rate = 360.0
    signal = wfdb.rdrecord(str(DATA / "119"), channel_names=["MLII"], sampto=int(40 * rate)).p_signal[:, 0]
    strip = tmp_path / "strip.csv"
    strip.write_text("MLII\n" + "".join(f"{v:.3f}\n" for v in signal))
    out = tmp_path / "out"
    run_cli(zeroflow_bin, "run", strip, "--sample-rate", rate, "--out", out, "--device", "cpu", "--epochs", 2)
    rows = beats_csv(out)
    peaks = np.array([int(r["peak"]) for r in rows], dtype=np.int64)
    got = np.array([float(r["f_wave_rate"]) if r["f_wave_rate"] else np.nan for r in rows])
    x = np.loadtxt(strip, skiprows=1, dtype=np.float32)
    first, end = max(0, peaks[0] - 360), min(len(x), peaks[-1] + 361)
    want = f_wave_rates(x[first:end], peaks - first, rate)
    np.testing.assert_allclose(got, want.astype(np.float32), rtol=1e-6, equal_nan=True)
    assert np.isfinite(got).sum() >= 10  # the bigeminy's short intervals hold no T-Q interval
    measured = measure_af_strip(peaks, rate, f_wave_rate=got, left_out=[r["class"] in "VQ" for r in rows])
    assert measured is not None and np.isfinite(measured[AF_STRIP_FEATURES.index("f_wave_rate")])
    assert all(r["f_wave_rate"] == "" for r in beats_csv(run_119))
    # The library's rule given the lead measures the same rates and decides the same classes.
    import zeroflow
    from zeroflow.classify import classify_beats

    seg = zeroflow.segment_beats(x, sample_rate=rate, method="robust")
    np.testing.assert_array_equal(np.asarray(seg.peaks), peaks)
    kw = dict(window_before=round(0.25 * rate), window_after=round(0.45 * rate), sample_rate=rate)
    c = classify_beats(peaks, np.asarray(seg.beats.rows), signal=x, **kw)
    np.testing.assert_array_equal(c.f_wave_rate, got.astype(np.float32))
    np.testing.assert_array_equal(c.classes, [r["class"] for r in rows])
    assert np.isnan(classify_beats(peaks, np.asarray(seg.beats.rows), **kw).f_wave_rate).all()
    # Inside a longer lead, the strip's second on either side is cut out of it.
    pad = np.full(int(5 * rate), x[0], dtype=np.float32)
    longer = np.concatenate([pad, x, pad])
    inside = classify_beats(peaks + len(pad), np.asarray(seg.beats.rows), signal=longer, **kw)
    first, end = peaks[0] + len(pad) - 360, peaks[-1] + len(pad) + 361
    want = f_wave_rates(longer[first:end], peaks + len(pad) - first, rate).astype(np.float32)
    np.testing.assert_array_equal(inside.f_wave_rate, want)


def test_class_params_reach_the_rule(zeroflow_bin, run_119, tmp_path):
    # --class-params sets the rule's parameters by the names zeroflow.classify takes, and
    # summary.json records the ones that differ from the defaults: a readable-ECG bound no QRS
    # clears makes every beat Q; V is found again with the defaults' bound.
    out = tmp_path / "out"
    run_cli(zeroflow_bin, "run", DATA / "119.hea", "--out", out, "--device", "cpu",
            "--class-params", "quality.min_clarity=1e12,timing.one_cue_min_clarity=35")  # fmt: skip
    assert {r["class"] for r in beats_csv(out)} == {"Q"}
    options = json.loads((out / "summary.json").read_text())["options"]
    assert options["class_params"] == "timing.one_cue_min_clarity=35,quality.min_clarity=1000000000000"
    assert {r["class"] for r in beats_csv(run_119)} >= {"N", "V"}
    assert json.loads((run_119 / "summary.json").read_text())["options"]["class_params"] == ""


@pytest.mark.parametrize(
    "pairs, says",
    [
        ("timing.early=1", "no class parameter is named 'timing.early'"),
        ("af.window_beats=16.5", "is not a whole number"),
        ("timing.premature_ratio=2", "timing.premature_ratio must be in"),
        ("quality.min_clarity", "is not NAME=VALUE"),
    ],
)
def test_class_params_refused_in_one_line(zeroflow_bin, tmp_path, pairs, says):
    out = tmp_path / "out"
    proc = run_cli(zeroflow_bin, "run", DATA / "119.hea", "--out", out, "--class-params", pairs, check=False)
    assert proc.returncode == 2, proc.stderr
    [line] = [x for x in proc.stderr.splitlines() if x.startswith("zeroflow: error:")]
    assert says in line and "--class-params" in line
    assert not out.exists()
