"""Hostile cases for a reader's corrections and the Holter layer: `zeroflow correct RESULTS
CORRECTIONS.json` (report/corrections.hpp), zeroflow.holter.analyse and zeroflow.holter.correct, and
the run flags --pause-seconds, --bradycardia-bpm, --tachycardia-bpm, --run-beats.

The promises checked (corrections.hpp, docs/holter.md, docs/cli.md "Exit codes and errors"): a
failure exits 1 with exactly one line `zeroflow: error: ...` on stderr naming the file and what is
wrong (2 for a usage error), never a crash or a hang, and leaves RESULTS exactly as it was, with no
hidden staging folder; a success rewrites every result consistently (beats.csv, beats.atr,
episodes.csv, events.csv, summary.json and report.html's data agree with a fresh Holter analysis of
the corrected beats)."""

import base64
import csv
import fcntl
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest
from conftest import ROOT, run_cli

from zeroflow import holter

RECORD = ROOT / "tests" / "data" / "mitdb" / "119.hea"
DATA_TAG = '<script id="zf-data" type="application/json">'
CLASS_OF_CODE = {1: "N", 2: "S", 3: "V", 4: "Q"}
BEATS_119 = 1987  # beats.csv rows of the run on 119


# ---- fixtures and helpers ---------------------------------------------------------------------


@pytest.fixture
def results(results_119):
    return results_119


@pytest.fixture(scope="module")
def million_beats(tmp_path_factory):
    """A corrections file re-labelling 10^6 beats (beat i % 1987), 40 MB of JSON."""
    path = tmp_path_factory.mktemp("big") / "million.json"
    beats = [{"beat": i % BEATS_119, "class": "NSVQ"[i % 4]} for i in range(10**6)]
    path.write_text(json.dumps({"zeroflow_corrections": 1, "beats": beats}))
    return path


def snapshot(folder):
    """Every entry under `folder` (hidden ones too) with its bytes: a folder left as it was compares equal."""
    folder = pathlib.Path(folder)
    out = {}
    for p in sorted(folder.rglob("*")):
        rel = str(p.relative_to(folder))
        if p.is_symlink():
            out[rel] = "link -> " + os.readlink(p)
        elif p.is_dir():
            out[rel] = "folder"
        else:
            out[rel] = p.read_bytes()
    return out


def hidden(folder):
    return [p.name for p in pathlib.Path(folder).iterdir() if p.name.startswith(".")]


def write_fix(tmp_path, fix, name="corrections.json"):
    path = tmp_path / name
    if isinstance(fix, bytes):
        path.write_bytes(fix)
    elif isinstance(fix, str):
        path.write_text(fix, encoding="utf-8")
    else:
        path.write_text(json.dumps(fix))
    return path


def correct(binary, results, corrections, timeout=60):
    return subprocess.run(
        [str(binary), "correct", str(results), str(corrections)], capture_output=True, text=True, timeout=timeout
    )


def error_line(proc):
    """The one `zeroflow: error:` line (progress lines start with '[')."""
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if not line.startswith("[")]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("zeroflow: error: "), proc.stderr
    return lines[0]


def assert_refused(proc, folder, before, code=1, names=()):
    assert proc.returncode == code, (proc.returncode, proc.stderr)
    line = error_line(proc)
    for name in names:
        assert str(name) in line, line
    assert "json.exception" not in line, line
    assert snapshot(folder) == before
    assert not hidden(folder)
    return line


def read_beats(folder):
    with open(folder / "beats.csv", newline="", encoding="utf-8-sig") as f:
        return list(csv.DictReader(f))


def report_data(folder):
    html = (folder / "report.html").read_text(encoding="utf-8")
    start = html.index(DATA_TAG) + len(DATA_TAG)
    return json.loads(html[start : html.index("<", start)])


def check_consistent(folder):
    """Every result in `folder` agrees with a fresh Holter analysis of its beats.csv."""
    folder = pathlib.Path(folder)
    beats = read_beats(folder)
    summary = json.loads((folder / "summary.json").read_text())
    n = len(beats)
    assert summary["beats_found"] == n, "beats.csv and summary.json disagree on the number of beats"
    peaks = np.asarray([int(b["peak"]) for b in beats], dtype=np.int64)
    classes = "".join(b["class"] for b in beats)
    af = [(e["first_beat"], e["last_beat"]) for e in summary["classes"]["af_episodes"]]
    noise = [(e["first_beat"], e["last_beat"]) for e in summary["classes"]["unreadable"]]
    again = holter.analyse(peaks, classes, summary["sample_rate"], samples=summary["samples"], af_episodes=af,
                           unreadable=noise, family=[int(b["family"]) for b in beats],
                           **summary["holter"]["parameters"])  # fmt: skip
    events = again.pop("event_list")
    assert summary["holter"] == again
    assert summary["classes"]["counts"] == {c: classes.count(c) for c in "NSVQ"}
    inside = set()
    for first, last in af:
        inside.update(range(first, last + 1))
    assert [b["af"] for b in beats] == ["1" if i in inside else "0" for i in range(n)]
    with open(folder / "events.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [(r["kind"], int(r["first_beat"]), int(r["last_beat"])) for r in rows] == [
        (e["kind"], e["first_beat"], e["last_beat"]) for e in events
    ]
    with open(folder / "episodes.csv", newline="") as f:
        assert [(int(e["first_beat"]), int(e["last_beat"])) for e in csv.DictReader(f)] == af
    if (folder / "report.html").exists():
        data = report_data(folder)
        assert data["summary"] == summary
        assert data["candidates"]["n"] == n
        codes = base64.b64decode(data["candidates"]["class"]["b64"])
        assert "".join(CLASS_OF_CODE.get(c, "?") for c in codes) == classes
        assert len(data["holter_events"]) == len(events)
        assert all(0 <= s["event"] < len(events) for s in data.get("strips", []))
    try:
        import wfdb
    except ImportError:
        return beats, summary
    ann = wfdb.rdann(str(folder / "beats"), "atr")
    assert "".join(s for s in ann.symbol if s in "NSVQ") == classes
    return beats, summary


def summary_of(folder):
    return json.loads((folder / "summary.json").read_text())


def edit_summary(folder, change):
    s = summary_of(folder)
    change(s)
    (folder / "summary.json").write_text(json.dumps(s))


def edit_beats(folder, change):
    with open(folder / "beats.csv", newline="") as f:
        rows = list(csv.reader(f))
    rows = change(rows)
    with open(folder / "beats.csv", "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)


def edit_report(folder, change):
    html = (folder / "report.html").read_text(encoding="utf-8")
    start = html.index(DATA_TAG) + len(DATA_TAG)
    end = html.index("<", start)
    (folder / "report.html").write_text(html[:start] + change(html[start:end]) + html[end:], encoding="utf-8")


def ok(change=None):
    """A valid corrections file (beat 5 -> S) with `change` merged in."""
    return {"zeroflow_corrections": 1, "beats": [{"beat": 5, "class": "S"}], **(change or {})}


def deep(n, open_="[", close="]"):
    return open_ * n + close * n


# ---- corrections files that are not ones: exit 1, one line naming the file, nothing changed ----


BAD_CORRECTIONS = {
    "empty": b"",
    "whitespace": b"  \n\t ",
    "invalid_utf8": b'{"zeroflow_corrections":1,"beats":[{"beat":1,"class":"\xff"}]}',
    "utf16": '{"zeroflow_corrections":1}'.encode("utf-16"),
    "nan": b'{"zeroflow_corrections":1,"samples":NaN}',
    "infinity": b'{"zeroflow_corrections":1,"samples":Infinity}',
    "trailing_comma": b'{"zeroflow_corrections":1,}',
    "top_level_list": [ok()],
    "top_level_string": "corrections",
    "version_missing": {"beats": [{"beat": 5, "class": "S"}]},
    "version_2": ok({"zeroflow_corrections": 2}),
    "version_string": ok({"zeroflow_corrections": "1"}),
    "version_true": ok({"zeroflow_corrections": True}),
    "beat_float": ok({"beats": [{"beat": 1.0, "class": "N"}]}),
    "beat_exponent": b'{"zeroflow_corrections":1,"beats":[{"beat":1e3,"class":"N"}]}',
    "beat_negative": ok({"beats": [{"beat": -1, "class": "N"}]}),
    "beat_2_64_minus_1": ok({"beats": [{"beat": 2**64 - 1, "class": "N"}]}),
    "beat_huge_bignum": b'{"zeroflow_corrections":1,"beats":[{"beat":123456789012345678901234567890,"class":"N"}]}',
    "beat_string": ok({"beats": [{"beat": "5", "class": "N"}]}),
    "beat_missing": ok({"beats": [{"class": "N"}]}),
    "class_lower_case": ok({"beats": [{"beat": 3, "class": "n"}]}),
    "class_empty": ok({"beats": [{"beat": 3, "class": ""}]}),
    "class_two_letters": ok({"beats": [{"beat": 3, "class": "NV"}]}),
    "class_null": ok({"beats": [{"beat": 3, "class": None}]}),
    "class_fullwidth": ok({"beats": [{"beat": 3, "class": "\uff2e"}]}),
    "class_x": ok({"beats": [{"beat": 3, "class": "X"}]}),
    "beats_not_list": ok({"beats": {"beat": 3, "class": "N"}}),
    "beat_entry_not_object": ok({"beats": [5]}),
    "beat_unknown_key": ok({"beats": [{"beat": 3, "class": "N", "why": "looks normal"}]}),
    "family_negative": ok({"families": [{"family": -1, "class": "N"}]}),
    "family_int32_overflow": ok({"families": [{"family": 2**31, "class": "N"}]}),
    "family_float": ok({"families": [{"family": 1.5, "class": "N"}]}),
    "af_not_object": ok({"af_episodes": [{"first_beat": 1, "last_beat": 2}]}),
    "af_add_not_list": ok({"af_episodes": {"add": {"first_beat": 1, "last_beat": 2}}}),
    "af_first_after_last": ok({"af_episodes": {"add": [{"first_beat": 9, "last_beat": 3}]}}),
    "af_unknown_key": ok({"af_episodes": {"merge": []}}),
    "af_missing_last": ok({"af_episodes": {"add": [{"first_beat": 9}]}}),
    "unknown_top_key": ok({"colour": "red"}),
    "samples_float": ok({"samples": 650000.0}),
    "samples_string": ok({"samples": "650000"}),
    "samples_negative": ok({"samples": -650000}),
    "duplicate_key_last_wrong": b'{"zeroflow_corrections":1,"zeroflow_corrections":2}',
}


@pytest.mark.parametrize("name", sorted(BAD_CORRECTIONS))
def test_a_corrections_file_that_is_not_one_is_named_and_changes_nothing(zeroflow_bin, results, tmp_path, name):
    before = snapshot(results)
    path = write_fix(tmp_path, BAD_CORRECTIONS[name])
    proc = correct(zeroflow_bin, results, path)
    assert_refused(proc, results, before, names=[path])


MISFITS = {
    "beat_past_the_end": ok({"beats": [{"beat": BEATS_119, "class": "V"}]}),
    "beat_int64_max": ok({"beats": [{"beat": 2**63 - 1, "class": "V"}]}),
    "family_absent": ok({"families": [{"family": 999, "class": "N"}]}),
    "remove_absent_episode": ok({"af_episodes": {"remove": [{"first_beat": 1, "last_beat": 2}]}}),
    "add_past_the_end": ok({"af_episodes": {"add": [{"first_beat": 10, "last_beat": BEATS_119}]}}),
    "other_recording": ok({"samples": 650001}),
}


@pytest.mark.parametrize("name", sorted(MISFITS))
def test_corrections_that_do_not_fit_the_run_change_nothing(zeroflow_bin, results, tmp_path, name):
    before = snapshot(results)
    proc = correct(zeroflow_bin, results, write_fix(tmp_path, MISFITS[name]))
    assert_refused(proc, results, before)


def test_a_misfit_names_the_corrections_file_or_the_results(zeroflow_bin, results, tmp_path):
    before = snapshot(results)
    path = write_fix(tmp_path, MISFITS["beat_past_the_end"])
    line = assert_refused(correct(zeroflow_bin, results, path), results, before)
    assert str(path) in line or str(results) in line, line


def test_100_mb_of_whitespace_is_not_json(zeroflow_bin, results, tmp_path):
    before = snapshot(results)
    path = tmp_path / "spaces.json"
    path.write_bytes(b" " * (100 * 2**20))
    assert_refused(correct(zeroflow_bin, results, path), results, before, names=[path, "not JSON"])


@pytest.mark.parametrize(
    "where",
    [
        pytest.param(
            "top_level",
        ),
        pytest.param(
            "in_beats",
        ),
        pytest.param(
            "in_af_add",
        ),
        "under_unknown_key",  # refused by its key before anything dumps it
    ],
)
def test_json_nested_100000_deep_is_refused_without_a_crash(zeroflow_bin, results, tmp_path, where):
    nest = deep(10**5)
    text = {
        "top_level": nest,
        "in_beats": '{"zeroflow_corrections":1,"beats":[' + nest + "]}",
        "in_af_add": '{"zeroflow_corrections":1,"af_episodes":{"add":[' + nest + "]}}",
        "under_unknown_key": '{"zeroflow_corrections":1,"colour":' + nest + "}",
    }[where]
    before = snapshot(results)
    path = write_fix(tmp_path, text)
    proc = correct(zeroflow_bin, results, path)
    assert proc.returncode == 1, f"exit {proc.returncode}"
    assert_refused(proc, results, before, names=[path])


def test_a_fifo_as_corrections_is_refused_at_once(zeroflow_bin, results, tmp_path):
    fifo = tmp_path / "corrections.json"
    os.mkfifo(fifo)
    before = snapshot(results)
    proc = correct(zeroflow_bin, results, fifo, timeout=5)
    assert proc.returncode in (1, 2)
    assert_refused(proc, results, before, code=proc.returncode, names=[fifo])


def test_a_folder_as_corrections_is_a_usage_error(zeroflow_bin, results, tmp_path):
    before = snapshot(results)
    assert_refused(correct(zeroflow_bin, results, tmp_path), results, before, code=2)


def test_missing_corrections_is_a_usage_error(zeroflow_bin, results, tmp_path):
    before = snapshot(results)
    assert_refused(correct(zeroflow_bin, results, tmp_path / "nope.json"), results, before, code=2)


def test_a_link_to_the_results_summary_is_no_corrections_file(zeroflow_bin, results, tmp_path):
    link = tmp_path / "link.json"
    link.symlink_to(results / "summary.json")
    before = snapshot(results)
    assert_refused(correct(zeroflow_bin, results, link), results, before, names=[link])


def test_corrections_named_like_a_result_inside_the_results_are_refused(zeroflow_bin, results):
    (results / "events.csv").write_text(json.dumps(ok()))
    before = snapshot(results)
    assert_refused(correct(zeroflow_bin, results, results / "events.csv"), results, before)


# ---- corrections that fit: success, every file consistent --------------------------------------


def apply(binary, results, tmp_path, fix):
    proc = correct(binary, results, write_fix(tmp_path, fix))
    assert proc.returncode == 0, proc.stderr
    assert not hidden(results)
    return check_consistent(results)


def test_no_corrections_record_an_empty_set(zeroflow_bin, results, tmp_path):
    before = read_beats(results)
    beats, summary = apply(zeroflow_bin, results, tmp_path, {"zeroflow_corrections": 1})
    assert beats == before
    assert summary["corrections"] == [
        {"families": [], "beats": [], "af_episodes": {"remove": [], "add": []}, "beats_relabelled": 0,
         "episodes_before": 0, "episodes_after": 0}
    ]  # fmt: skip


def test_escaped_class_and_a_bom_and_the_recording_s_samples(zeroflow_bin, results, tmp_path):
    text = "\ufeff" + json.dumps({"zeroflow_corrections": 1, "samples": 650000, "beats": [{"beat": 5, "class": "S"}]})
    text = text.replace('"S"', '"\\u0053"')
    proc = correct(zeroflow_bin, results, write_fix(tmp_path, text.encode("utf-8")))
    if proc.returncode == 0:  # a BOM may be read or refused; never half of either
        beats, _ = check_consistent(results)
        assert beats[5]["class"] == "S"
    else:
        error_line(proc)


def test_a_beat_s_own_class_wins_over_its_family(zeroflow_bin, results, tmp_path):
    beats = read_beats(results)
    family = int(beats[1]["family"])
    assert family != 0
    members = [i for i, b in enumerate(beats) if int(b["family"]) == family]
    fix = {"zeroflow_corrections": 1, "beats": [{"beat": 1, "class": "S"}],
           "families": [{"family": family, "class": "Q"}]}  # fmt: skip
    after, _ = apply(zeroflow_bin, results, tmp_path, fix)
    assert after[1]["class"] == "S"
    assert all(after[i]["class"] == "Q" for i in members if i != 1)


def test_a_beat_corrected_twice_takes_the_last(zeroflow_bin, results, tmp_path):
    fix = {"zeroflow_corrections": 1, "beats": [{"beat": 7, "class": "V"}, {"beat": 7, "class": "Q"}]}
    after, _ = apply(zeroflow_bin, results, tmp_path, fix)
    assert after[7]["class"] == "Q"


def af_spans(summary):
    return [(e["first_beat"], e["last_beat"]) for e in summary["classes"]["af_episodes"]]


def add(*spans, remove=()):
    return {"zeroflow_corrections": 1,
            "af_episodes": {"add": [{"first_beat": f, "last_beat": l} for f, l in spans],
                            "remove": [{"first_beat": f, "last_beat": l} for f, l in remove]}}  # fmt: skip


def test_overlapping_and_touching_episodes_merge(zeroflow_bin, results, tmp_path):
    _, summary = apply(zeroflow_bin, results, tmp_path, add((100, 200), (150, 300), (301, 310), (400, 410)))
    assert af_spans(summary) == [(100, 310), (400, 410)]


def test_remove_and_add_the_same_episode_keeps_it(zeroflow_bin, results, tmp_path):
    apply(zeroflow_bin, results, tmp_path, add((100, 200)))
    _, summary = apply(zeroflow_bin, results, tmp_path, add((100, 200), remove=[(100, 200)]))
    assert af_spans(summary) == [(100, 200)]
    assert len(summary["corrections"]) == 2


def test_an_episode_over_every_beat_then_none(zeroflow_bin, results, tmp_path):
    _, summary = apply(zeroflow_bin, results, tmp_path, add((0, BEATS_119 - 1)))
    assert af_spans(summary) == [(0, BEATS_119 - 1)]
    assert summary["holter"]["af_burden"]["episodes"] == 1
    _, summary = apply(zeroflow_bin, results, tmp_path, add(remove=[(0, BEATS_119 - 1)]))
    assert af_spans(summary) == []
    assert summary["holter"]["af_burden"]["episodes"] == 0


def test_remove_every_episode_of_several(zeroflow_bin, results, tmp_path):
    apply(zeroflow_bin, results, tmp_path, add((10, 20), (40, 50), (1900, 1986)))
    _, summary = apply(zeroflow_bin, results, tmp_path, add(remove=[(10, 20), (40, 50), (1900, 1986)]))
    assert af_spans(summary) == []


def test_the_same_corrections_twice_change_nothing_more_but_are_recorded(zeroflow_bin, results, tmp_path):
    fix = {**add((100, 200)), "beats": [{"beat": 5, "class": "S"}]}
    apply(zeroflow_bin, results, tmp_path, fix)
    csv_once = (results / "beats.csv").read_bytes()
    _, summary = apply(zeroflow_bin, results, tmp_path, fix)
    assert (results / "beats.csv").read_bytes() == csv_once
    assert [c["beats_relabelled"] for c in summary["corrections"]] == [1, 0]


def test_a_million_beat_corrections(zeroflow_bin, results, million_beats):
    proc = correct(zeroflow_bin, results, million_beats)
    assert proc.returncode == 0, proc.stderr
    beats, _ = check_consistent(results)
    # beat b's last correction is entry i = b + 1987 k with the largest k below 10^6
    last = {i % BEATS_119: "NSVQ"[i % 4] for i in range(10**6 - BEATS_119, 10**6)}
    assert "".join(b["class"] for b in beats) == "".join(last[b] for b in range(BEATS_119))


def test_corrections_inside_the_results_folder_are_kept(zeroflow_bin, results):
    path = write_fix(results, ok())
    proc = correct(zeroflow_bin, results, path)
    assert proc.returncode == 0, proc.stderr
    check_consistent(results)
    assert json.loads(path.read_text()) == ok()


def test_a_results_folder_that_is_a_link(zeroflow_bin, results, tmp_path):
    link = tmp_path / "link"
    link.symlink_to(results)
    proc = correct(zeroflow_bin, link, write_fix(tmp_path, ok()))
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink()
    beats, _ = check_consistent(results)
    assert beats[5]["class"] == "S"


def test_read_only_result_files_in_a_writable_folder(zeroflow_bin, results, tmp_path):
    for p in results.iterdir():
        p.chmod(0o444)
    apply(zeroflow_bin, results, tmp_path, ok())


# ---- RESULTS that are not a run's, or were edited ----------------------------------------------


def test_results_that_are_no_run(zeroflow_bin, tmp_path):
    folder = tmp_path / "empty"
    folder.mkdir()
    proc = correct(zeroflow_bin, folder, write_fix(tmp_path, ok()))
    assert_refused(proc, folder, {}, names=[folder / "summary.json"])


def test_results_that_are_a_file_or_missing_are_usage_errors(zeroflow_bin, tmp_path):
    fix = write_fix(tmp_path, ok())
    assert correct(zeroflow_bin, fix, fix).returncode == 2
    proc = correct(zeroflow_bin, tmp_path / "missing", fix)
    assert proc.returncode == 2 and not (tmp_path / "missing").exists()
    error_line(proc)


def test_a_seed_segmentation_run_is_refused(zeroflow_bin, tmp_path):
    out = tmp_path / "seed"
    run_cli(zeroflow_bin, "run", RECORD, "--out", out, "--epochs", 1, "--device", "cpu", "--segmentation", "seed")
    before = snapshot(out)
    assert_refused(correct(zeroflow_bin, out, write_fix(tmp_path, ok())), out, before, names=["summary.json"])


def drop_rows(keep):
    return lambda rows: rows[: keep + 1]


def column_edit(column, row, value):
    def change(rows):
        rows[row + 1][rows[0].index(column)] = value
        return rows

    return change


def shuffled_columns(rows):
    order = list(range(len(rows[0])))[::-1]
    return [[r[i] for i in order] for r in rows]


def with_extra_column(rows):
    return [r + (["extra"] if i == 0 else [str(i)]) for i, r in enumerate(rows)]


def swapped_rows(rows):
    rows[1], rows[2] = rows[2], rows[1]
    return rows


@pytest.mark.parametrize(
    "name, change",
    [
        ("class_x", column_edit("class", 3, "X")),
        ("class_lower_case", column_edit("class", 3, "n")),
        ("peak_empty", column_edit("peak", 3, "")),
        ("peak_negative", column_edit("peak", 3, "-4")),
        ("family_text", column_edit("family", 3, "two")),
        ("score_nan", column_edit("score", 3, "nan")),
        ("no_class_column", lambda rows: [[c for i, c in enumerate(r) if i != rows[0].index("class")] for r in rows]),
        ("short_row", lambda rows: rows[:10] + [rows[10][:5]] + rows[11:]),
    ],
)
def test_a_damaged_beats_csv_is_named(zeroflow_bin, results, tmp_path, name, change):
    edit_beats(results, change)
    before = snapshot(results)
    proc = correct(zeroflow_bin, results, write_fix(tmp_path, ok()))
    assert_refused(proc, results, before, names=[results / "beats.csv"])


def test_beats_csv_rows_out_of_order_are_named(zeroflow_bin, results, tmp_path):
    edit_beats(results, swapped_rows)
    before = snapshot(results)
    assert_refused(correct(zeroflow_bin, results, write_fix(tmp_path, ok())), results, before, names=["beats.csv"])


@pytest.mark.parametrize(
    "keep",
    [
        pytest.param(
            1000,
        ),
        pytest.param(
            0,
        ),
    ],
)
def test_beats_csv_with_rows_removed(zeroflow_bin, results, tmp_path, keep):
    edit_beats(results, drop_rows(keep))
    before = snapshot(results)
    proc = correct(zeroflow_bin, results, write_fix(tmp_path, {"zeroflow_corrections": 1}))
    if proc.returncode == 0:
        check_consistent(results)
    else:
        assert_refused(proc, results, before, names=["beats.csv"])


def test_a_family_past_int32_in_beats_csv(zeroflow_bin, results, tmp_path):
    edit_beats(results, column_edit("family", 3, str(2**32 + 1)))
    before = snapshot(results)
    proc = correct(zeroflow_bin, results, write_fix(tmp_path, {"zeroflow_corrections": 1,
                                                              "families": [{"family": 1, "class": "Q"}]}))  # fmt: skip
    assert_refused(proc, results, before, names=["beats.csv"])


@pytest.mark.parametrize(
    "name, rewrite",
    [
        ("crlf", lambda t: t.replace(b"\n", b"\r\n")),
        ("bom", lambda t: b"\xef\xbb\xbf" + t),
        ("no_final_newline", lambda t: t.rstrip(b"\n")),
        ("blank_lines", lambda t: t.replace(b"\n", b"\n\n", 20)),
    ],
)
def test_beats_csv_line_ends_and_bom_are_read(zeroflow_bin, results, tmp_path, name, rewrite):
    (results / "beats.csv").write_bytes(rewrite((results / "beats.csv").read_bytes()))
    beats, _ = apply(zeroflow_bin, results, tmp_path, ok())
    assert beats[5]["class"] == "S" and len(beats) == BEATS_119


@pytest.mark.parametrize("name", ["shuffled_columns", "extra_column", "quoted_comma"])
def test_beats_csv_columns_by_name_and_cells_kept(zeroflow_bin, results, tmp_path, name):
    change = {
        "shuffled_columns": shuffled_columns,
        "extra_column": with_extra_column,
        "quoted_comma": column_edit("flags", 0, 'early, "odd"'),
    }[name]
    edit_beats(results, change)
    beats, _ = apply(zeroflow_bin, results, tmp_path, ok())
    assert beats[5]["class"] == "S"
    if name == "extra_column":
        assert [b["extra"] for b in beats[:3]] == ["1", "2", "3"]
    if name == "quoted_comma":
        assert beats[0]["flags"] == 'early, "odd"'


SUMMARY_EDITS = {
    "holter_missing": lambda s: s.pop("holter"),
    "classes_missing": lambda s: s.pop("classes"),
    "af_past_the_end": lambda s: s["classes"].update(af_episodes=[{"first_beat": 10, "last_beat": 5000}]),
    "af_first_after_last": lambda s: s["classes"].update(af_episodes=[{"first_beat": 50, "last_beat": 10}]),
    "not_an_object": None,
}


@pytest.mark.parametrize("name", sorted(SUMMARY_EDITS))
def test_an_edited_summary_is_named(zeroflow_bin, results, tmp_path, name):
    if SUMMARY_EDITS[name] is None:
        (results / "summary.json").write_text("[1, 2]")
    else:
        edit_summary(results, SUMMARY_EDITS[name])
    before = snapshot(results)
    assert_refused(correct(zeroflow_bin, results, write_fix(tmp_path, ok())), results, before,
                   names=[results / "summary.json"])  # fmt: skip


@pytest.mark.parametrize(
    "name, change",
    [
        pytest.param("sample_rate_missing", lambda s: s.pop("sample_rate")),
        pytest.param("samples_string", lambda s: s.update(samples="650000")),
        pytest.param("parameter_string", lambda s: s["holter"]["parameters"].update(pause_seconds="2")),
        pytest.param("parameters_not_object", lambda s: s["holter"].update(parameters=5)),
        pytest.param("holter_null", lambda s: s.update(holter=None)),
        pytest.param("classes_list", lambda s: s.update(classes=[])),
        pytest.param("af_episode_number", lambda s: s["classes"].update(af_episodes=[5])),
        pytest.param("parameter_negative", lambda s: s["holter"]["parameters"].update(pause_seconds=-1)),
        pytest.param("run_beats_fraction", lambda s: s["holter"]["parameters"].update(run_beats=2.5)),
        pytest.param("samples_below_last_peak", lambda s: s.update(samples=1000)),
        pytest.param("sample_rate_zero", lambda s: s.update(sample_rate=0)),
    ],
)  # fmt: skip
def test_an_edited_summary_names_summary_json(zeroflow_bin, results, tmp_path, name, change):
    edit_summary(results, change)
    before = snapshot(results)
    assert_refused(correct(zeroflow_bin, results, write_fix(tmp_path, ok())), results, before,
                   names=[results / "summary.json"])  # fmt: skip


@pytest.mark.parametrize("rate", [1e308, 1e-300])
def test_an_absurd_sample_rate_in_summary_is_refused(zeroflow_bin, results, tmp_path, rate):
    edit_summary(results, lambda s: s.update(sample_rate=rate))
    before = snapshot(results)
    proc = correct(zeroflow_bin, results, write_fix(tmp_path, ok()))
    assert proc.returncode == 1, f"exit {proc.returncode}, hidden: {hidden(results)}"
    assert_refused(proc, results, before)


def test_a_missing_report_is_not_made(zeroflow_bin, results, tmp_path):
    (results / "report.html").unlink()
    apply(zeroflow_bin, results, tmp_path, ok())
    assert not (results / "report.html").exists()


@pytest.mark.parametrize(
    "name",
    ["no_data_element", "truncated", "empty", "data_not_json", "data_a_list", "a_folder"],
)
def test_a_damaged_report_is_named(zeroflow_bin, results, tmp_path, name):
    report = results / "report.html"
    if name == "no_data_element":
        report.write_text(report.read_text(encoding="utf-8").replace('id="zf-data"', 'id="zf-x"'), encoding="utf-8")
    elif name == "truncated":
        report.write_bytes(report.read_bytes()[:2000])
    elif name == "empty":
        report.write_bytes(b"")
    elif name == "data_not_json":
        edit_report(results, lambda data: data[: len(data) // 2])
    elif name == "data_a_list":
        edit_report(results, lambda data: "[1, 2]")
    else:
        report.unlink()
        report.mkdir()
    before = snapshot(results)
    assert_refused(correct(zeroflow_bin, results, write_fix(tmp_path, ok())), results, before, names=[report])


@pytest.mark.parametrize(
    "data",
    [
        pytest.param('{"candidates": 5}', id="candidates_a_number"),
        pytest.param('{"candidates": {}, "strips": [{"event": 999}], "holter_events": []}', id="strip_of_no_event"),
    ],
)
def test_a_report_with_data_of_the_wrong_shape_is_named(zeroflow_bin, results, tmp_path, data):
    edit_report(results, lambda _: data)
    before = snapshot(results)
    assert_refused(correct(zeroflow_bin, results, write_fix(tmp_path, ok())), results, before,
                   names=[results / "report.html"])  # fmt: skip


# ---- the folder lock, interrupts, permissions --------------------------------------------------


def hold_lock(folder):
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return fd


def test_a_folder_another_zeroflow_writes_is_refused(zeroflow_bin, results, tmp_path):
    before = snapshot(results)
    fd = hold_lock(results)
    try:
        proc = correct(zeroflow_bin, results, write_fix(tmp_path, ok()))
    finally:
        os.close(fd)
    line = assert_refused(proc, results, before)
    assert "another zeroflow" in line


def test_python_correct_respects_the_folder_lock(results):
    before = snapshot(results)
    fd = hold_lock(results)
    try:
        with pytest.raises(Exception):
            holter.correct(results, ok())
    finally:
        os.close(fd)
    assert snapshot(results) == before


@pytest.mark.parametrize("sig, delay", [(signal.SIGINT, 0.3), (signal.SIGTERM, 0.9), (signal.SIGINT, 1.3)])
def test_an_interrupt_leaves_the_results_whole(zeroflow_bin, results, million_beats, sig, delay):
    before = snapshot(results)
    proc = subprocess.Popen([str(zeroflow_bin), "correct", str(results), str(million_beats)],
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    time.sleep(delay)
    proc.send_signal(sig)
    _, stderr = proc.communicate(timeout=60)
    assert not hidden(results)
    assert "Traceback" not in stderr
    if proc.returncode == 0:  # it had finished
        check_consistent(results)
    else:
        assert proc.returncode == 128 + sig, (proc.returncode, stderr)
        assert snapshot(results) == before


def as_nobody():
    """A prefix that runs a command without root's power over permissions (nothing when not root)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: permissions cannot be tested")
    return [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]


@pytest.fixture
def read_only_results(run_119):
    base = pathlib.Path(tempfile.mkdtemp(prefix="zf-ro-", dir="/tmp"))
    base.chmod(0o755)
    folder = base / "results"
    shutil.copytree(run_119, folder)
    write_fix(base, ok())
    folder.chmod(0o555)
    yield folder, base / "corrections.json"
    folder.chmod(0o755)
    shutil.rmtree(base)


def test_a_read_only_results_folder_is_refused(zeroflow_bin, read_only_results):
    folder, fix = read_only_results
    before = snapshot(folder)
    proc = subprocess.run([*as_nobody(), str(zeroflow_bin), "correct", str(folder), str(fix)],
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert_refused(proc, folder, before, names=[folder])


def test_python_correct_in_a_read_only_folder_changes_nothing(read_only_results):
    folder, fix = read_only_results
    before = snapshot(folder)
    code = (
        "import sys\nfrom zeroflow import holter\n"
        f"try:\n    holter.correct({str(folder)!r}, {str(fix)!r})\n"
        "except OSError as e:\n    print('refused', type(e).__name__); sys.exit(0)\nsys.exit(3)\n"
    )
    proc = subprocess.run([*as_nobody(), sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "refused" in proc.stdout, proc.stdout + proc.stderr
    assert snapshot(folder) == before


# ---- zeroflow.holter.correct -------------------------------------------------------------------


@pytest.mark.parametrize(
    "fix, error",
    [
        ({"beats": [{"beat": 5, "class": "S"}]}, ValueError),
        ({"zeroflow_corrections": 1, "beats": [{"beat": 5, "class": "s"}]}, ValueError),
        ({"zeroflow_corrections": 1, "samples": float("nan")}, ValueError),
        ({"zeroflow_corrections": 1, "beats": [{"beat": 10**7, "class": "S"}]}, RuntimeError),
        ({"zeroflow_corrections": 1, "af_episodes": {"remove": [{"first_beat": 1, "last_beat": 2}]}}, RuntimeError),
    ],
)
def test_python_correct_refusals_leave_no_trace(results, fix, error):
    before = snapshot(results)
    with pytest.raises(error):
        holter.correct(results, fix)
    assert snapshot(results) == before


def test_python_correct_with_paths_that_do_not_exist(results, tmp_path):
    before = snapshot(results)
    with pytest.raises(OSError):
        holter.correct(results, tmp_path / "nope.json")
    assert snapshot(results) == before
    with pytest.raises(OSError):
        holter.correct(tmp_path / "no-results", ok())
    assert not (tmp_path / "no-results").exists()


def test_python_correct_with_a_file_path_applies(results, tmp_path):
    done = holter.correct(results, write_fix(tmp_path, ok()))
    assert done == {"beats_relabelled": 1, "episodes_before": 0, "episodes_after": 0}
    assert not hidden(results)
    check_consistent(results)


def test_python_correct_failing_mid_move_leaves_the_results_as_they_were(results, monkeypatch):
    before = snapshot(results)
    real, calls = os.replace, []

    def failing_third_move(src, dst):
        calls.append(dst)
        if len(calls) == 3:
            raise OSError("disk gone")
        return real(src, dst)

    monkeypatch.setattr(os, "replace", failing_third_move)
    with pytest.raises(OSError, match="disk gone"):
        holter.correct(results, ok())
    monkeypatch.setattr(os, "replace", real)
    assert snapshot(results) == before
    assert not hidden(results)


def test_python_correct_on_deep_json_raises(results, tmp_path):
    path = write_fix(tmp_path, deep(10**5))
    code = (
        f"from zeroflow import holter\ntry:\n    holter.correct({str(results)!r}, {str(path)!r})\n"
        "except ValueError:\n    print('refused')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "refused" in proc.stdout, f"exit {proc.returncode}"
    assert not hidden(results)


# ---- zeroflow.holter.analyse -------------------------------------------------------------------


PEAKS = np.array([100, 400, 700, 1000, 1300], dtype=np.int64)


@pytest.mark.parametrize(
    "args, kwargs, error, match",
    [
        ((PEAKS.astype(float), "NNNNN", 360.0), {}, TypeError, "integer"),
        ((PEAKS.reshape(1, -1), "NNNNN", 360.0), {}, TypeError, "1-D"),
        ((np.int64(5), "N", 360.0), {}, TypeError, "1-D"),
        ((np.array([True, False]), "NN", 360.0), {}, TypeError, "integer"),
        ((PEAKS, "NNNN", 360.0), {}, ValueError, "5 beat classes"),
        ((PEAKS, "NNNNNN", 360.0), {}, ValueError, "5 beat classes"),
        ((PEAKS, "nnnnn", 360.0), {}, ValueError, "class 'n'"),
        ((PEAKS, "NNNNÑ", 360.0), {}, ValueError, "beat classes"),
        ((PEAKS, None, 360.0), {}, TypeError, None),
        ((PEAKS, "NNNNN", 360.0), {"samples": 500}, ValueError, "outside"),
        ((PEAKS, "NNNNN", 360.0), {"samples": -1}, ValueError, "samples"),
        ((PEAKS, "NNNNN", 360.0), {"af_episodes": [(3, 1)]}, ValueError, "AF episode 0"),
        ((PEAKS, "NNNNN", 360.0), {"af_episodes": [(1, 9)]}, ValueError, "AF episode 0"),
        ((PEAKS, "NNNNN", 360.0), {"af_episodes": [(-1, 2)]}, ValueError, "AF episode 0"),
        ((PEAKS, "NNNNN", 360.0), {"af_episodes": [(0, 2), (1, 3)]}, ValueError, "AF episode 1"),
        ((PEAKS, "NNNNN", 360.0), {"unreadable": [(4, 4), (0, 1)]}, ValueError, "unreadable stretch 1"),
        ((PEAKS, "NNNNN", 360.0), {"colour": 1}, TypeError, "colour"),
        ((PEAKS, "NNNNN", "abc"), {}, ValueError, None),
        ((PEAKS, "NNNNN", float("nan")), {}, ValueError, "sample rate"),
        ((PEAKS, "NNNNN", 0), {}, ValueError, "sample rate"),
        ((PEAKS, "NNNNN", 360.0), {"run_beats": 2}, ValueError, "run_beats"),
        ((PEAKS, "NNNNN", 360.0), {"bradycardia_bpm": 120, "tachycardia_bpm": 120}, ValueError, "bradycardia"),
        ((PEAKS, "NNNNN", 360.0), {"pause_seconds": float("nan")}, ValueError, "pause_seconds"),
        ((PEAKS, "NNNNN", 360.0), {"pause_seconds": float("inf")}, ValueError, "pause_seconds"),
        ((PEAKS, "NNNNN", 360.0), {"min_segment_coverage": 2}, ValueError, "min_segment_coverage"),
        ((PEAKS, "NNNNN", 360.0), {"family": [0, 1]}, ValueError, "shape families"),
        ((PEAKS, "NNNNN", 360.0), {"family": [0, -1, 0, 0, 0]}, ValueError, "family numbers"),
        ((np.array([1, 1, 2]), "NNN", 360.0), {}, ValueError, "increase"),
        pytest.param((PEAKS[::-1], "NNNNN", 360.0), {}, ValueError, "increase"),
        pytest.param((PEAKS, "NNNNN", 360.0), {"run_beats": "3"}, TypeError, "run_beats"),
        pytest.param((PEAKS, "NNNNN", 360.0), {"run_beats": 3.7}, (TypeError, ValueError), "run_beats"),
        pytest.param((PEAKS, "NNNNN", 360.0), {"pause_seconds": "2"}, TypeError, "pause_seconds"),
        pytest.param((PEAKS, "NNNNN", 360.0), {"run_beats": 2**70}, ValueError, "run_beats"),
        pytest.param((PEAKS, "NNNNN", 360.0), {"samples": 10**30}, ValueError, "samples"),
        pytest.param((PEAKS, "NNNNN", 360.0), {"family": [0, 2**32 + 1, 0, 0, 0]}, ValueError, "family"),
    ],
)  # fmt: skip
def test_analyse_refuses_with_a_clear_error(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        holter.analyse(*args, **kwargs)


@pytest.mark.parametrize(
    "args, beats",
    [
        (([], "", 360.0), 0),
        (([5], "V", 360.0), 1),
        (([1, 5, 9], "NSV", 360.0), 3),
        ((PEAKS.astype(np.int32), "NNNNN", 360.0), 5),
    ],
)
def test_analyse_takes_small_and_plain_inputs(args, beats):
    assert holter.analyse(*args)["beats"] == beats


@pytest.mark.parametrize(
    "rate",
    [
        pytest.param(1e308),
        pytest.param(1e-300),
    ],
)
def test_analyse_with_an_absurd_sample_rate_raises(rate):
    code = (
        "import numpy as np\nfrom zeroflow import holter\ntry:\n"
        f"    holter.analyse(np.array([100, 400, 700]), 'NNN', {rate!r})\n"
        "except (ValueError, MemoryError):\n    print('refused')\nelse:\n    print('ran')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"exit {proc.returncode}"


# ---- the run flags -----------------------------------------------------------------------------


BAD_FLAGS = [
    ["--pause-seconds", "nan"],
    ["--pause-seconds", "inf"],
    ["--pause-seconds", "1e400"],
    ["--pause-seconds", "-1"],
    ["--pause-seconds", "0"],
    ["--pause-seconds", "-0"],
    ["--pause-seconds", "60.0001"],
    ["--pause-seconds", "2s"],
    ["--pause-seconds", ""],
    ["--bradycardia-bpm", "nan"],
    ["--bradycardia-bpm", "1e400"],
    ["--bradycardia-bpm", "0"],
    ["--bradycardia-bpm", "300.5"],
    ["--tachycardia-bpm", "inf"],
    ["--tachycardia-bpm", "-120"],
    ["--tachycardia-bpm", "400.1"],
    ["--run-beats", "2"],
    ["--run-beats", "3.5"],
    ["--run-beats", "1e3"],
    ["--run-beats", "1001"],
    ["--run-beats", "99999999999999999999"],
    ["--bradycardia-bpm", "120", "--tachycardia-bpm", "120"],
    ["--bradycardia-bpm", "130"],
    ["--tachycardia-bpm", "30"],
]


@pytest.mark.parametrize("flags", BAD_FLAGS, ids=lambda f: " ".join(f) or "empty")
def test_holter_flags_out_of_range_are_usage_errors(zeroflow_bin, tmp_path, flags):
    out = tmp_path / "out"
    proc = subprocess.run([str(zeroflow_bin), "run", str(RECORD), "--out", str(out), "--epochs", "1",
                           "--device", "cpu", *flags], capture_output=True, text=True, timeout=60)  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert flags[0] in error_line(proc)
    assert not out.exists()


@pytest.mark.parametrize(
    "flags, parameters",
    [
        (["--pause-seconds", "60", "--bradycardia-bpm", "300", "--tachycardia-bpm", "400", "--run-beats", "1000"],
         {"pause_seconds": 60.0, "bradycardia_bpm": 300.0, "tachycardia_bpm": 400.0, "run_beats": 1000}),
        (["--pause-seconds", "0.3", "--bradycardia-bpm", "0.001", "--tachycardia-bpm", "0.002", "--run-beats", "3"],
         {"pause_seconds": 0.3, "bradycardia_bpm": 0.001, "tachycardia_bpm": 0.002, "run_beats": 3}),
    ],
)  # fmt: skip
def test_holter_flags_at_their_bounds_reach_every_result_and_survive_correct(zeroflow_bin, tmp_path, flags, parameters):
    out = tmp_path / "out"
    run_cli(zeroflow_bin, "run", RECORD, "--out", out, "--epochs", 1, "--device", "cpu", *flags)
    _, summary = check_consistent(out)
    assert {k: summary["holter"]["parameters"][k] for k in parameters} == parameters
    _, summary = apply(zeroflow_bin, out, tmp_path, {**ok(), **add((100, 120))})
    assert {k: summary["holter"]["parameters"][k] for k in parameters} == parameters
