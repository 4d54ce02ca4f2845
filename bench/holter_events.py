"""Holter events from zeroflow's own beats against the events of the reference annotations, on the
22 DS1 records of MIT-BIH.

Method. Each record of ../shared/data/mitdb runs end to end through the command-line tool
(`zeroflow run NNN.hea --device cpu --epochs 1`: the classes and events do not depend on the model,
one epoch keeps the run short); its events.csv is zeroflow's. The reference events are the same
analysis (`zeroflow.holter.analyse`, the library's own definitions, docs/holter.md) on the
record's reference beats (`.atr`, AAMI classes: N, L, R, e, j → N; A, a, J, S → S; V, E → V; F, /,
f, Q → Q) and its AF episodes ((AFIB and (AFL rhythm annotations up to the next rhythm change), so
that the comparison measures the beats and classes, not two definitions of an event. A reference
event is found when a zeroflow event of the same kind overlaps it in time (first to last R peak,
widened by 150 ms on each side); a zeroflow event is true when it overlaps a reference event of
its kind. Ventricular flutter and fibrillation (the `[` … `]` and `(VFL` stretches of 207, where the
annotations mark flutter waves, not beats) are left out, as EC57 leaves them out of beat-by-beat
comparison: an event of either side that overlaps one counts nowhere. Se = found / reference events, +P = true / zeroflow events, gross over the records, per
kind. Nothing is tuned here: every threshold is the documented convention. The HRV rows compare
zeroflow's SDNN and RMSSD with the reference beats' per record (median and largest absolute
difference). All 22 records are development records (the class rule's remaining in-sample
thresholds were chosen on them), so these figures are in-sample for the classes; the events add
no parameter of their own.

Usage: python3 bench/holter_events.py [--bin build/cpu/zeroflow] [--records 119 203] [--data DIR]
"""

import argparse
import csv
import json
import pathlib
import subprocess
import sys
import tempfile

import numpy as np
import wfdb

ROOT = pathlib.Path(__file__).resolve().parents[1]
from zeroflow import holter  # noqa: E402  (the installed module: scripts/setup, pip install .)

RECORDS = "101 106 108 109 112 114 115 116 118 119 122 124 201 203 205 207 208 209 215 220 223 230".split()
AAMI = {**dict.fromkeys("NLRej", "N"), **dict.fromkeys("AaJS", "S"), **dict.fromkeys("VE", "V"),
        **dict.fromkeys("F/fQ", "Q")}  # fmt: skip
KINDS = ["pause", "ventricular_couplet", "ventricular_run", "ventricular_bigeminy", "ventricular_trigeminy",
         "supraventricular_couplet", "supraventricular_run", "bradycardia", "tachycardia", "atrial_fibrillation"]  # fmt: skip
TOLERANCE = 0.150


def reference_events(path):
    header = wfdb.rdheader(str(path))
    ann = wfdb.rdann(str(path), "atr")
    pairs = [(int(s), AAMI[sym]) for s, sym in zip(ann.sample, ann.symbol) if sym in AAMI]
    peaks = np.asarray([p for p, _ in pairs], dtype=np.int64)
    classes = "".join(c for _, c in pairs)
    changes = [(int(s), n.strip("\x00")) for s, sym, n in zip(ann.sample, ann.symbol, ann.aux_note) if sym == "+"]
    episodes = []
    for i, (onset, note) in enumerate(changes):
        if note in ("(AFIB", "(AFL"):
            end = changes[i + 1][0] if i + 1 < len(changes) else header.sig_len
            inside = np.nonzero((peaks >= onset) & (peaks < end))[0]
            if inside.size >= 2:
                episodes.append((int(inside[0]), int(inside[-1])))
    got = holter.analyse(peaks, classes, header.fs, samples=header.sig_len, af_episodes=episodes)
    # Flutter and fibrillation: from `[` to `]`, and each (VFL rhythm up to the next rhythm change.
    flutter, start = [], None
    for s, sym in zip(ann.sample, ann.symbol):
        if sym == "[":
            start = int(s)
        elif sym == "]" and start is not None:
            flutter.append((start / header.fs, int(s) / header.fs))
            start = None
    for i, (onset, note) in enumerate(changes):
        if note == "(VFL":
            end = changes[i + 1][0] if i + 1 < len(changes) else header.sig_len
            flutter.append((onset / header.fs, end / header.fs))
    return got["event_list"], got["hrv"], float(header.fs), flutter


def zeroflow_events(binary, path, work):
    out = work / path.name
    proc = subprocess.run([str(binary), "run", str(path) + ".hea", "--out", str(out), "--device", "cpu",
                           "--epochs", "1", "--force"], capture_output=True, text=True)  # fmt: skip
    if proc.returncode != 0:
        sys.exit(f"zeroflow run {path}.hea failed:\n{proc.stderr.strip()}")
    with open(out / "events.csv", newline="") as f:
        events = [dict(r, onset_seconds=float(r["onset_seconds"]), offset_seconds=float(r["offset_seconds"]))
                  for r in csv.DictReader(f)]  # fmt: skip
    return events, json.loads((out / "summary.json").read_text())["holter"]["hrv"]


def overlaps(a, b):
    return a[0] - TOLERANCE <= b[1] and b[0] - TOLERANCE <= a[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", type=pathlib.Path, default=ROOT / "build" / "cpu" / "zeroflow")
    parser.add_argument("--records", nargs="*", default=RECORDS)
    parser.add_argument("--data", type=pathlib.Path, default=ROOT.parent / "shared" / "data" / "mitdb")
    args = parser.parse_args()
    counts = {k: [0, 0, 0, 0] for k in KINDS}  # reference, found, zeroflow, true
    sdnn, rmssd = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for record in args.records:
            path = args.data / record
            ref, ref_hrv, rate, flutter = reference_events(path)
            got, got_hrv = zeroflow_events(args.bin, path, pathlib.Path(tmp))

            def judged(span):
                return not any(overlaps(span, f) for f in flutter)

            for kind in KINDS:
                r = [(e["onset_seconds"], e["onset_seconds"] + e["duration_seconds"]) for e in ref if e["kind"] == kind]
                z = [(e["onset_seconds"], e["offset_seconds"]) for e in got if e["kind"] == kind]
                r, z = [s for s in r if judged(s)], [s for s in z if judged(s)]
                c = counts[kind]
                c[0] += len(r)
                c[1] += sum(any(overlaps(a, b) for b in z) for a in r)
                c[2] += len(z)
                c[3] += sum(any(overlaps(a, b) for b in r) for a in z)
            for name, into in (("sdnn_ms", sdnn), ("rmssd_ms", rmssd)):
                if ref_hrv[name] is not None and got_hrv[name] is not None:
                    into.append(abs(got_hrv[name] - ref_hrv[name]))
            print(f"{record}: {len(ref)} reference events, {len(got)} zeroflow events", file=sys.stderr)

    def pct(a, b):
        return f"{100.0 * a / b:.1f}" if b else "-"

    print("| event | reference | zeroflow | Se % | +P % |")
    print("|---|---|---|---|---|")
    for kind, (n_ref, found, n_got, true) in counts.items():
        print(f"| {kind} | {n_ref} | {n_got} | {pct(found, n_ref)} | {pct(true, n_got)} |")
    for name, diffs in (("SDNN", sdnn), ("RMSSD", rmssd)):
        if diffs:
            print(f"\n{name}, zeroflow's beats against the reference beats: median |difference| "
                  f"{np.median(diffs):.1f} ms, largest {np.max(diffs):.1f} ms over {len(diffs)} records")  # fmt: skip


if __name__ == "__main__":
    main()
