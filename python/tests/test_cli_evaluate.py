"""`zeroflow evaluate` against independent references: scikit-learn's roc_auc_score and
average_precision_score on synthetic runs, computed here with the documented rule (every labelled
beat ranked; one without a matched, scored detection ranks below every scored beat), and
wfdb-python for the labels of a real WFDB record."""

import csv
import json
import pathlib

import numpy as np
import pytest
from conftest import run_cli
from sklearn.metrics import average_precision_score, roc_auc_score

DS1 = pathlib.Path("/work/shared/data/mitdb-ds1")
# AAMI EC57 classes of the MIT-BIH beat symbols, written out here from the standard's table.
AAMI = {
    **dict.fromkeys("NLRej", "N"),
    **dict.fromkeys("AaJS", "S"),
    **dict.fromkeys("VE", "V"),
    "F": "F",
    **dict.fromkeys("/fQ", "Q"),
}
BEAT_SYMBOLS = list("NNNNNNNLRejVVEAaJSF/fQ")
OTHER_SYMBOLS = list("+~|!x")  # rhythm, noise, comment-like: no beats


def synthetic_run(folder, rng, *, beats=400, rate=360.0, tolerance_s=0.15, drop=0.05, unscored=0.08):
    """Writes OUT_DIR (beats.csv with extra columns in a shuffled order, summary.json) and returns
    the labels and what an evaluation must find. Labelled beats are far apart and detections
    either within the tolerance of one beat or far from every beat, so the matching is plain."""
    tol = int(np.floor(tolerance_s * rate + 1e-9))
    gaps = rng.integers(4 * tol, 10 * tol, size=beats)
    samples = np.cumsum(gaps) + 1000
    symbols = rng.choice(BEAT_SYMBOLS, size=beats)
    peaks, scores, matched_score = [], [], {}
    for i, s in enumerate(samples):
        if rng.random() < drop:
            continue  # a missed beat
        offset = int(rng.integers(-tol, tol + 1))  # up to the tolerance itself, both sides
        score = "" if rng.random() < unscored else float(rng.normal())
        peaks.append(int(s) + offset)
        scores.append(score)
        matched_score[i] = score
        if rng.random() < 0.05:  # a false detection half way to the next beat
            peaks.append(int(s) + int(gaps[(i + 1) % beats]) // 2)
            scores.append(float(rng.normal()))
    order = np.argsort(peaks, kind="stable")
    columns = ["beat", "flags", "start", "score", "peak", "length", "kept"]  # found by name, not place
    with open(folder / "beats.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(columns)
        for n, k in enumerate(order):
            row = {
                "beat": n,
                "flags": "early;pause, shape",
                "start": peaks[k] - 20,
                "score": scores[k],
                "peak": peaks[k],
                "length": 300,
                "kept": 1,
            }
            w.writerow([row[c] if c != "score" or row[c] == "" else repr(row[c]) for c in columns])
    (folder / "summary.json").write_text(json.dumps({"sample_rate": rate, "samples": int(samples[-1]) + 5000}))
    return samples, symbols, peaks, matched_score


def expected(samples, symbols, peaks, matched_score):
    """What the documented rule gives, computed with scikit-learn."""
    classes = np.array([AAMI[s] for s in symbols])
    scored = {i: v for i, v in matched_score.items() if v != ""}
    floor = min(scored.values()) - 1.0  # below every scored beat; all unmatched/unscored beats tie here
    ranked = np.array([scored.get(i, floor) for i in range(len(samples))])
    out = {
        "labelled_beats": len(samples),
        "detections": len(peaks),
        "true_positives": len(matched_score),
        "scored_beats": len(scored),
        "classes": {},
    }
    for name, positive in (("V", classes == "V"), ("S", classes == "S"), ("abnormal", classes != "N")):
        out["classes"][name] = {
            "beats": int(positive.sum()),
            "other_beats": int((~positive).sum()),
            "unscored_beats": int(sum(1 for i in np.flatnonzero(positive) if i not in scored)),
            "auroc": roc_auc_score(positive, ranked),
            "average_precision": average_precision_score(positive, ranked),
        }
    # V and S against the N beats alone: the other classes left out of the ranking.
    out["classes_against_normal"] = {}
    for name in ("V", "S"):
        taking_part = (classes == name) | (classes == "N")
        positive = classes[taking_part] == name
        out["classes_against_normal"][name] = {
            "beats": int(positive.sum()),
            "other_beats": int((~positive).sum()),
            "unscored_beats": int(sum(1 for i in np.flatnonzero(taking_part & (classes == name)) if i not in scored)),
            "auroc": roc_auc_score(positive, ranked[taking_part]),
            "average_precision": average_precision_score(positive, ranked[taking_part]),
        }
    return out


def write_labels(path, header, samples, symbols, rng, with_noise=True):
    """A labels CSV with `header`, non-beat annotations mixed in (they must be skipped)."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\r\n")
        w.writerow(header.split(","))
        for s, sym in zip(samples, symbols):
            if with_noise and rng.random() < 0.05:
                w.writerow([int(s) - 3, rng.choice(OTHER_SYMBOLS)] + ([""] if "aami" in header else []))
            w.writerow([int(s), sym] + ([AAMI[sym]] if "aami" in header else []))


def evaluate(zeroflow_bin, out, *args):
    run_cli(zeroflow_bin, "evaluate", out, *args)
    return json.loads((out / "evaluation.json").read_text())


def check(got, want):
    e = got["evaluation"]
    for key in ("labelled_beats", "detections", "true_positives", "scored_beats"):
        assert e[key] == want[key], key
    assert e["false_negatives"] == want["labelled_beats"] - want["true_positives"]
    assert e["false_positives"] == want["detections"] - want["true_positives"]
    assert e["sensitivity"] == pytest.approx(want["true_positives"] / want["labelled_beats"], abs=1e-12)
    assert e["positive_predictivity"] == pytest.approx(want["true_positives"] / want["detections"], abs=1e-12)
    wanted = [("classes", name, w) for name, w in want["classes"].items()]
    wanted += [("classes_against_normal", name, w) for name, w in want.get("classes_against_normal", {}).items()]
    for group, name, w in wanted:
        g = e[group][name]
        for key in ("beats", "other_beats", "unscored_beats"):
            assert g[key] == w[key], (name, key)
        assert g["auroc"] == pytest.approx(w["auroc"], abs=1e-12), name
        assert g["average_precision"] == pytest.approx(w["average_precision"], abs=1e-12), name


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_numbers_match_scikit_learn(zeroflow_bin, tmp_path, seed):
    rng = np.random.default_rng(seed)
    samples, symbols, peaks, matched = synthetic_run(tmp_path, rng)
    labels = tmp_path / "rec.labels.csv"
    write_labels(labels, "sample,symbol", samples, symbols, rng)
    check(evaluate(zeroflow_bin, tmp_path, "--labels", labels), expected(samples, symbols, peaks, matched))


def test_ties_in_scores_match_scikit_learn(zeroflow_bin, tmp_path):
    rng = np.random.default_rng(11)
    samples, symbols, peaks, matched = synthetic_run(tmp_path, rng, unscored=0.3)
    # Round the scores to a few values so that many beats tie, scored and unscored alike.
    rows = list(csv.DictReader(open(tmp_path / "beats.csv", newline="")))
    for r in rows:
        if r["score"] != "":
            r["score"] = repr(round(float(r["score"])))
    with open(tmp_path / "beats.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    matched = {i: (v if v == "" else float(round(v))) for i, v in matched.items()}
    labels = tmp_path / "rec.labels.csv"
    write_labels(labels, "sample,symbol", samples, symbols, rng)
    check(evaluate(zeroflow_bin, tmp_path, "--labels", labels), expected(samples, symbols, peaks, matched))


def test_every_labels_layout_gives_the_same_result(zeroflow_bin, tmp_path):
    wfdb = pytest.importorskip("wfdb")
    rng = np.random.default_rng(5)
    samples, symbols, peaks, matched = synthetic_run(tmp_path, rng, rate=250.0)
    want = expected(samples, symbols, peaks, matched)
    for header in ("sample,symbol", "sample,symbol,aami"):
        path = tmp_path / f"{header.replace(',', '_')}.csv"
        write_labels(path, header, samples, symbols, rng)
        check(evaluate(zeroflow_bin, tmp_path, "--labels", path), want)
    # sample,label with the class letters themselves (as `zeroflow generate` writes them).
    path = tmp_path / "classes.labels.csv"
    write_labels(path, "sample,label", samples, [AAMI[s] for s in symbols], rng)
    check(evaluate(zeroflow_bin, tmp_path, "--labels", path), want)
    # A WFDB annotation file written by wfdb-python, noise annotations included.
    noise = np.sort(rng.choice(samples, size=10, replace=False) + 7)
    all_samples = np.concatenate([samples, noise])
    all_symbols = np.concatenate([symbols, ["~"] * len(noise)])
    order = np.argsort(all_samples, kind="stable")
    wfdb.wrann("rec", "atr", all_samples[order], symbol=list(all_symbols[order]), fs=250, write_dir=str(tmp_path))
    check(evaluate(zeroflow_bin, tmp_path, "--labels", tmp_path / "rec.atr"), want)


def test_the_aami_column_overrides_the_symbol(zeroflow_bin, tmp_path):
    rng = np.random.default_rng(8)
    samples, symbols, peaks, matched = synthetic_run(tmp_path, rng)
    # Every 'N' written with aami class S: the S ranking now sees them as positives.
    path = tmp_path / "override.csv"
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["sample", "symbol", "aami"])
        for s, sym in zip(samples, symbols):
            w.writerow([int(s), sym, "S" if sym == "N" else ""])
    overridden = ["A" if s == "N" else s for s in symbols]  # 'A' is S in the table
    check(evaluate(zeroflow_bin, tmp_path, "--labels", path), expected(samples, overridden, peaks, matched))


def test_tolerance_is_inclusive_and_in_seconds(zeroflow_bin, tmp_path):
    (tmp_path / "summary.json").write_text(json.dumps({"sample_rate": 360}))
    # 150 ms at 360 Hz is 54 samples: 54 away matches, 55 away does not.
    (tmp_path / "beats.csv").write_text("beat,peak,score\n0,1054,1.0\n1,2055,2.0\n")
    labels = tmp_path / "l.csv"
    labels.write_text("sample,symbol\n1000,N\n2000,V\n")
    e = evaluate(zeroflow_bin, tmp_path, "--labels", labels)["evaluation"]
    assert (e["true_positives"], e["false_positives"], e["false_negatives"]) == (1, 1, 1)
    assert e["tolerance_samples"] == 54
    e = evaluate(zeroflow_bin, tmp_path, "--labels", labels, "--tolerance", 0.2)["evaluation"]
    assert e["true_positives"] == 2


def test_undefined_classes_are_null_with_a_reason(zeroflow_bin, tmp_path):
    rng = np.random.default_rng(3)
    samples, _, _, _ = synthetic_run(tmp_path, rng, beats=50)
    labels = tmp_path / "normal.csv"
    write_labels(labels, "sample,symbol", samples, ["N"] * len(samples), rng)
    proc = run_cli(zeroflow_bin, "evaluate", tmp_path, "--labels", labels)
    classes = json.loads((tmp_path / "evaluation.json").read_text())["evaluation"]["classes"]
    for name in ("V", "S", "abnormal"):
        assert classes[name]["auroc"] is None and classes[name]["average_precision"] is None
        assert f"no {name} beat" in classes[name]["undefined"]
    assert "undefined" in proc.stdout


def record_labels(folder, labels, fingerprint=True):
    """Records `labels` in folder/summary.json as a run does (with its FNV-1a fingerprint)."""
    summary = json.loads((folder / "summary.json").read_text())
    summary["labels"] = str(labels)
    if fingerprint:
        data = labels.read_bytes()
        fnv = 0xCBF29CE484222325
        for byte in data:
            fnv = ((fnv ^ byte) * 0x100000001B3) % 2**64
        summary["labels_fingerprint"] = f"{len(data)}:{fnv:016x}"
    (folder / "summary.json").write_text(json.dumps(summary))


def test_labels_default_to_those_recorded_in_the_summary(zeroflow_bin, tmp_path):
    rng = np.random.default_rng(4)
    samples, symbols, peaks, matched = synthetic_run(tmp_path, rng)
    labels = tmp_path / "rec.labels.csv"
    write_labels(labels, "sample,symbol", samples, symbols, rng)
    record_labels(tmp_path, labels, fingerprint=False)
    out_json = tmp_path / "elsewhere.json"
    # A path alone is not followed: the run records which file it read (io::file_fingerprint).
    proc = run_cli(zeroflow_bin, "evaluate", tmp_path, "--json", out_json, check=False)
    assert proc.returncode == 1 and "pass --labels FILE" in proc.stderr
    record_labels(tmp_path, labels)
    run_cli(zeroflow_bin, "evaluate", tmp_path, "--json", out_json)
    check(json.loads(out_json.read_text()), expected(samples, symbols, peaks, matched))
    assert not (tmp_path / "evaluation.json").exists()


def test_failures_are_one_line_and_exit_1(zeroflow_bin, tmp_path):
    rng = np.random.default_rng(6)
    synthetic_run(tmp_path, rng, beats=20)
    proc = run_cli(zeroflow_bin, "evaluate", tmp_path, check=False)  # no --labels, none recorded
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1 and "--labels" in proc.stderr
    bad = tmp_path / "bad.csv"
    bad.write_text("sample,symbol\n100,N\n\n90,V\n")
    proc = run_cli(zeroflow_bin, "evaluate", tmp_path, "--labels", bad, check=False)
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1
    assert f"{bad}:4:" in proc.stderr and ".cpp" not in proc.stderr
    (tmp_path / "beats.csv").write_text("beat,peak,score\n0,12x,1\n")
    proc = run_cli(zeroflow_bin, "evaluate", tmp_path, "--labels", bad, check=False)
    assert proc.returncode == 1 and "beats.csv:2:" in proc.stderr


@pytest.mark.skipif(not (DS1 / "106.atr").exists(), reason="MIT-BIH DS1 records not present")
def test_real_annotations_read_as_wfdb_python_reads_them(zeroflow_bin, tmp_path):
    wfdb = pytest.importorskip("wfdb")
    ann = wfdb.rdann(str(DS1 / "106"), "atr")
    beats = [(int(s), sym) for s, sym in zip(ann.sample, ann.symbol) if sym in AAMI]
    # A run that detected every other labelled beat, scored by position: per-beat output shows what
    # was read and ranked.
    (tmp_path / "summary.json").write_text(json.dumps({"sample_rate": float(ann.fs)}))
    with open(tmp_path / "beats.csv", "w") as f:
        f.write("peak,score\n")
        for k, (s, _) in enumerate(beats[::2]):
            f.write(f"{s},{k}\n")
    per_beat = tmp_path / "per_beat.csv"
    for labels in (DS1 / "106.atr", DS1 / "106.labels.csv"):
        run_cli(zeroflow_bin, "evaluate", tmp_path, "--labels", labels, "--per-beat", per_beat)
        rows = list(csv.DictReader(open(per_beat, newline="")))
        assert [int(r["sample"]) for r in rows] == [s for s, _ in beats]
        assert [r["class"] for r in rows] == [AAMI[sym] for _, sym in beats]
        assert all((r["score"] != "") == (i % 2 == 0) for i, r in enumerate(rows))


def test_the_runs_own_evaluation_is_the_same_as_evaluate(zeroflow_bin, short_run, tmp_path):
    out, _ = short_run
    summary = json.loads((out / "summary.json").read_text())
    assert pathlib.Path(summary["labels"]).is_file()  # recorded by the run, found again below
    out_json = tmp_path / "evaluation.json"
    run_cli(zeroflow_bin, "evaluate", out, "--json", out_json)
    assert json.loads(out_json.read_text())["evaluation"] == summary["evaluation"]


def test_several_folders_evaluate_every_one_that_can_be(zeroflow_bin, tmp_path):
    rng = np.random.default_rng(9)
    folders = []
    for name in ("a", "bad", "b"):
        folder = tmp_path / name
        folder.mkdir()
        samples, symbols, _, _ = synthetic_run(folder, rng, beats=60)
        write_labels(folder / "rec.labels.csv", "sample,symbol", samples, symbols, rng)
        record_labels(folder, folder / "rec.labels.csv")
        folders.append(folder)
    summary = json.loads((tmp_path / "bad" / "summary.json").read_text())
    (tmp_path / "bad" / "summary.json").write_text(json.dumps({**summary, "sample_rate": 1e-300}))
    proc = run_cli(zeroflow_bin, "evaluate", *folders, check=False)
    assert proc.returncode == 1
    errors = [line for line in proc.stderr.splitlines() if line.startswith("zeroflow: error:")]
    assert len(errors) == 2, proc.stderr
    assert str(tmp_path / "bad" / "summary.json") in errors[0] and "sample_rate must be a number from 50" in errors[0]
    assert errors[1].endswith("1 of 3 folders could not be evaluated (each is named above)")
    # The others are evaluated and tabled; the bad one is not.
    records = [line.split()[0] for line in proc.stdout.splitlines() if line.split()[:1] in (["a"], ["b"], ["bad"])]
    assert records == ["a", "b"]
    assert (tmp_path / "a" / "evaluation.json").exists() and not (tmp_path / "bad" / "evaluation.json").exists()


@pytest.mark.parametrize(
    "change, reason",
    [
        ({"sample_rate": 1e-300}, "sample_rate must be a number from 50 to 100000 Hz"),
        ({"sample_rate": 1e9}, "sample_rate must be a number from 50 to 100000 Hz"),
        ({"sample_rate": "360"}, "sample_rate must be a number"),
        ({"samples": -5}, "samples must be a positive whole number"),
        ({"samples": 2.5}, "samples must be a positive whole number"),
    ],
)
def test_summary_fields_are_checked(zeroflow_bin, tmp_path, change, reason):
    rng = np.random.default_rng(10)
    samples, symbols, _, _ = synthetic_run(tmp_path, rng, beats=30)
    labels = tmp_path / "rec.labels.csv"
    write_labels(labels, "sample,symbol", samples, symbols, rng)
    summary = json.loads((tmp_path / "summary.json").read_text())
    (tmp_path / "summary.json").write_text(json.dumps({**summary, **change}))
    proc = run_cli(zeroflow_bin, "evaluate", tmp_path, "--labels", labels, check=False)
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1 and reason in proc.stderr


@pytest.mark.parametrize("score", ["nan", "NaN", "inf", "-inf"])
def test_a_score_that_is_no_number_is_refused(zeroflow_bin, tmp_path, score):
    rng = np.random.default_rng(11)
    samples, symbols, _, _ = synthetic_run(tmp_path, rng, beats=30)
    labels = tmp_path / "rec.labels.csv"
    write_labels(labels, "sample,symbol", samples, symbols, rng)
    (tmp_path / "beats.csv").write_text(f"peak,score\n{samples[0]},0.5\n{samples[1]},{score}\n")
    proc = run_cli(zeroflow_bin, "evaluate", tmp_path, "--labels", labels, check=False)
    assert proc.returncode == 1 and "beats.csv:3:" in proc.stderr and "leave it empty" in proc.stderr


def test_labels_are_read_by_content_and_must_fit_the_recording(zeroflow_bin, tmp_path):
    rng = np.random.default_rng(12)
    samples, symbols, _, _ = synthetic_run(tmp_path, rng, beats=40)
    # rdann's printout under the annotation file's name: text, so read as a CSV and refused.
    printout = tmp_path / "100.atr"
    printout.write_text("".join(f"  0:00.000 {s:8d}     {sym}    0    0    0\n" for s, sym in zip(samples, symbols)))
    proc = run_cli(zeroflow_bin, "evaluate", tmp_path, "--labels", printout, check=False)
    assert proc.returncode == 1 and f"{printout}:1: expected the header" in proc.stderr
    # A labels CSV under another name is read as what it is.
    copy = tmp_path / "labels.txt"
    write_labels(copy, "sample,symbol", samples, symbols, rng)
    run_cli(zeroflow_bin, "evaluate", tmp_path, "--labels", copy)
    # Beats past the recording's end (summary.json's samples) are another recording's.
    summary = json.loads((tmp_path / "summary.json").read_text())
    (tmp_path / "summary.json").write_text(json.dumps({**summary, "samples": int(samples[-3])}))
    proc = run_cli(zeroflow_bin, "evaluate", tmp_path, "--labels", copy, check=False)
    assert proc.returncode == 1 and "3 of 40 beats lie past the end of the recording" in proc.stderr


def test_a_run_warns_of_labels_past_its_end(zeroflow_bin, short_recording, tmp_path):
    labels = tmp_path / "far.labels.csv"
    labels.write_text("sample,symbol\n100,N\n999999999,N\n")
    out = tmp_path / "run"
    proc = run_cli(
        zeroflow_bin, "run", short_recording, "--labels", labels, "--out", out, "--device", "cpu", "--epochs", 1
    )
    assert "1 of 2 beats lie past the end of the recording" in proc.stderr and "not evaluated" in proc.stderr
    assert (out / "beats.csv").exists()
