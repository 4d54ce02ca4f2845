"""A reader's corrections applied to a run's results (`zeroflow correct`, zeroflow.holter.correct;
report/corrections.hpp): the re-labelled beats and families and the changed AF episodes reach every
result — beats.csv, beats.atr (read back with wfdb-python), episodes.csv, events.csv, summary.json
and report.html's data — consistently with a fresh Holter analysis of the corrected beats; the
scores and the model are untouched; a correction that does not fit leaves the folder as it was."""

import csv
import filecmp
import json
import shutil

import numpy as np
import pytest
from conftest import ROOT, missing_test_dependency, run_cli

from zeroflow import holter

RECORD = ROOT / "tests" / "data" / "mitdb" / "119.hea"


@pytest.fixture
def results(results_119):
    return results_119


def read_beats(folder):
    with open(folder / "beats.csv", newline="") as f:
        return list(csv.DictReader(f))


def report_data(folder):
    html = (folder / "report.html").read_text(encoding="utf-8")
    start = html.index('<script id="zf-data" type="application/json">') + len(
        '<script id="zf-data" type="application/json">'
    )
    return json.loads(html[start : html.index("<", start)])


def corrections_for(folder):
    """Re-label the second-largest family N, beat 5 S, and add an AF episode over beats 100..200."""
    summary = json.loads((folder / "summary.json").read_text())
    families = sorted(summary["holter"]["families"], key=lambda f: -f["beats"])
    return {
        "zeroflow_corrections": 1,
        "samples": summary["samples"],
        "families": [{"family": families[1]["id"], "class": "N"}],
        "beats": [{"beat": 5, "class": "S"}],
        "af_episodes": {"add": [{"first_beat": 100, "last_beat": 200}]},
    }


def check_consistent(folder, before, fix):
    beats = read_beats(folder)
    family = fix["families"][0]["family"]
    for b, (old, new) in enumerate(zip(before, beats)):
        expected = old["class"]
        if int(old["family"]) == family:
            expected = "N"
        if b == 5:
            expected = "S"
        assert new["class"] == expected, b
        assert new["af"] == ("1" if 100 <= b <= 200 else "0"), b
        for column in ("peak", "score", "similarity", "family", "mu0"):
            assert new[column] == old[column], (b, column)
    summary = json.loads((folder / "summary.json").read_text())
    peaks = np.asarray([int(b["peak"]) for b in beats], dtype=np.int64)
    classes = "".join(b["class"] for b in beats)
    again = holter.analyse(peaks, classes, summary["sample_rate"], samples=summary["samples"],
                           af_episodes=[(100, 200)], family=[int(b["family"]) for b in beats])  # fmt: skip
    events = again.pop("event_list")
    assert summary["holter"] == again
    assert summary["classes"]["counts"] == {c: classes.count(c) for c in "NSVQ"}
    assert [(e["first_beat"], e["last_beat"]) for e in summary["classes"]["af_episodes"]] == [(100, 200)]
    assert summary["corrections"][-1]["families"] == fix["families"]
    with open(folder / "events.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [(r["kind"], int(r["first_beat"])) for r in rows] == [(e["kind"], e["first_beat"]) for e in events]
    assert ("atrial_fibrillation", 100) in {(r["kind"], int(r["first_beat"])) for r in rows}
    with open(folder / "episodes.csv", newline="") as f:
        episodes = list(csv.DictReader(f))
    assert [(int(e["first_beat"]), int(e["last_beat"])) for e in episodes] == [(100, 200)]
    data = report_data(folder)
    assert data["summary"] == summary
    assert len(data["holter_events"]) == len(events)
    try:
        import wfdb
    except ImportError:
        missing_test_dependency("wfdb-python is not installed (scripts/setup installs it)")
    ann = wfdb.rdann(str(folder / "beats"), "atr")
    symbols = [s for s in ann.symbol if s in "NSVQ"]
    assert "".join(symbols) == classes
    rhythm = [(int(s), n.strip("\x00")) for s, sym, n in zip(ann.sample, ann.symbol, ann.aux_note) if sym == "+"]
    assert (int(peaks[100]), "(AFIB") in rhythm and (int(peaks[201]), "(N") in rhythm


def test_the_command_rewrites_every_result_consistently(zeroflow_bin, results, tmp_path):
    before = read_beats(results)
    model = (results / "model.safetensors").read_bytes()
    fix = corrections_for(results)
    path = tmp_path / "corrections.json"
    path.write_text(json.dumps(fix))
    proc = run_cli(zeroflow_bin, "correct", results, path)
    assert "beats re-labelled" in proc.stderr
    check_consistent(results, before, fix)
    assert (results / "model.safetensors").read_bytes() == model
    assert not [p for p in results.iterdir() if p.name.startswith(".")]  # no staging folder left


def test_python_applies_the_same(results):
    before = read_beats(results)
    fix = corrections_for(results)
    done = holter.correct(results, fix)
    assert done["episodes_before"] == 0 and done["episodes_after"] == 1
    assert done["beats_relabelled"] >= 1
    check_consistent(results, before, fix)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"samples": 1}, "samples"),
        ({"beats": [{"beat": 10**7, "class": "V"}]}, "does not exist"),
        ({"beats": [{"beat": 3, "class": "X"}]}, '"class"'),
        ({"families": [{"family": 999, "class": "N"}]}, "no shape family 999"),
        ({"families": [{"family": 2**32 + 1, "class": "N"}]}, "no family number"),
        ({"af_episodes": {"remove": [{"first_beat": 1, "last_beat": 2}]}}, "no AF episode"),
        ({"colour": "red"}, 'unknown key "colour"'),
        ({"zeroflow_corrections": 2}, "not a zeroflow corrections file"),
    ],
)
def test_corrections_that_do_not_fit_change_nothing(zeroflow_bin, results, tmp_path, change, message):
    pristine = tmp_path / "pristine"
    shutil.copytree(results, pristine)
    fix = {"zeroflow_corrections": 1, **change}
    path = tmp_path / "corrections.json"
    path.write_text(json.dumps(fix))
    proc = run_cli(zeroflow_bin, "correct", results, path, check=False)
    assert proc.returncode == 1, proc.stderr
    assert message in proc.stderr
    assert len(proc.stderr.strip().splitlines()[-1]) > 0 and "zeroflow: error:" in proc.stderr
    same = filecmp.dircmp(results, pristine)
    assert not same.diff_files and not same.left_only and not same.right_only


def test_not_json_is_named(zeroflow_bin, results, tmp_path):
    path = tmp_path / "corrections.json"
    path.write_text("family 2 is N\n")
    proc = run_cli(zeroflow_bin, "correct", results, path, check=False)
    assert proc.returncode == 1
    assert str(path) in proc.stderr and "not JSON" in proc.stderr
