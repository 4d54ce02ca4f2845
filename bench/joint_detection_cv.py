"""Beats from every lead (classify/joint_detection.hpp): the join's one open choice, checked out of sample.

Method. Each DS1 record (../shared/data/mitdb) gets synthesized electrode motion in both leads,
each its own, on the Noise Stress Test's protocol (bench/noise_stress.py: the first 5 minutes
clean, then 2 minutes noisy and 2 clean; 6 and 0 dB), plus the clean record. `zeroflow run --lead
0` and `--lead 1` find each lead's own beats and clarities (beats.csv). The join is then re-made
here, offline, from those (a NumPy mirror of the rule: a first-lead beat stays when the other lead
has a beat within 150 ms or its clarity is at least 10; a beat only the other lead finds is added
when its clarity is at least C, no beat taken is within 0.36 s, and the interval it falls in is
longer than 1.5 times the local median of ±8 intervals), for C in a grid, with and without the
interval condition. Each record is scored with the C best on the other 21 (leave-one-record-out;
the objective: the sum of QRS Se and +P at no noise, 6 dB and 0 dB, pooled), matching within 150 ms
after the first 5 minutes. The library fixes C at the noise bound (10); the table shows what the
folds choose and the figures out of sample. This scorer counts every reference beat (bxb leaves out
207's flutter), so its figures differ a little from noise_stress.py's.

Usage: python3 bench/joint_detection_cv.py [--bin build/cpu/zeroflow] [--work /tmp/zeroflow-joint]
"""

import argparse
import csv
import pathlib
import subprocess
import sys

import noise_stress as ns
import numpy as np
from mitdb_ds1 import RECORDS, ROOT

GRID = (10, 20, 30, 50, np.inf)
TAGS = ("clean", "em6", "em0")


def run_lead(binary, raw, rate, lead, out):
    if not (out / "beats.csv").exists():
        subprocess.run(
            [str(binary), "run", str(raw), "--sample-rate", str(rate), "--channels", "2", "--lead", str(lead)]
            + ["--epochs", "1", "--device", "cpu", "--out", str(out), "--force"],
            capture_output=True,
            check=True,
        )
    with open(out / "beats.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return np.array([int(r["peak"]) for r in rows]), np.array([float(r["clarity"]) for r in rows])


def near(a, b, tol):
    """For each of a: is a sample of sorted b within tol."""
    if len(b) == 0:
        return np.zeros(len(a), bool)
    i = np.searchsorted(b, a)
    d = np.minimum(np.abs(b[np.clip(i, 0, len(b) - 1)] - a), np.abs(b[np.clip(i - 1, 0, len(b) - 1)] - a))
    return d <= tol


def join(first, other, rate, lone_clarity, interval_rule):
    (p0, c0), (p1, c1) = first, other
    kept = p0[near(p0, p1, int(0.15 * rate)) | (c0 >= 10)]
    intervals = np.diff(kept)
    added = []
    for p in p1[(~near(p1, kept, int(0.36 * rate))) & (c1 >= lone_clarity)]:
        i = np.searchsorted(kept, p)
        if interval_rule and 0 < i < len(kept):
            around = np.sort(intervals[max(0, i - 1 - 8) : i + 8])
            if not intervals[i - 1] > 1.5 * around[len(around) // 2]:
                continue
        added.append(p)
    return np.sort(np.concatenate([kept, np.array(added, dtype=np.int64)]))


def matched(reference, found, tol):
    """Reference beats matched one to one (nearest first) within tol."""
    found, used, m = np.sort(found), set(), 0
    for r in reference:
        lo, hi = np.searchsorted(found, r - tol), np.searchsorted(found, r + tol, "right")
        free = [k for k in range(lo, hi) if k not in used]
        if free:
            used.add(min(free, key=lambda k: abs(found[k] - r)))
            m += 1
    return m


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", type=pathlib.Path, default=ROOT / "build" / "default" / "zeroflow")
    parser.add_argument("--data", type=pathlib.Path, default=ROOT.parent / "shared" / "data" / "mitdb")
    parser.add_argument("--work", type=pathlib.Path, default=pathlib.Path("/tmp/zeroflow-joint"))
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    counts = {}  # (record, tag, C, interval rule) -> (matched, reference, found)
    for i, record in enumerate(RECORDS):
        ecg, rate, beats, _ = ns.read_lead_and_beats(args.data, record, True)
        beats = np.array(beats)
        power = np.array([ns.qrs_power(ecg[:, j], beats, rate) for j in range(2)])
        gate = ns.noisy_periods(len(ecg), rate)
        noise = np.column_stack(
            [
                ns.electrode_motion(len(ecg), rate, np.random.default_rng([2024, i, 0] + ([j] if j else [])))
                for j in range(2)
            ]
        )  # the same noise as noise_stress.py --noise em --leads both
        reference = beats[beats >= 300 * rate]
        for tag, snr in zip(TAGS, (None, 6, 0)):
            noisy = ecg if snr is None else ecg + np.sqrt(power / 10 ** (snr / 10)) * gate[:, None] * noise
            raw = args.work / f"{record}_{tag}.f32"
            outs = [args.work / f"{record}_{tag}_lead{k}" for k in (0, 1)]
            if not all((o / "beats.csv").exists() for o in outs):
                noisy.astype("<f4").tofile(raw)
            leads = [run_lead(args.bin, raw, rate, k, outs[k]) for k in (0, 1)]
            raw.unlink(missing_ok=True)
            for c in GRID:
                for rule in (True, False):
                    found = join(leads[0], leads[1], rate, c, rule)
                    found = found[found >= 300 * rate]
                    counts[(record, tag, c, rule)] = (
                        matched(reference, found, int(0.15 * rate)),
                        len(reference),
                        len(found),
                    )
            counts[(record, tag, "alone", True)] = (
                matched(reference, leads[0][0][leads[0][0] >= 300 * rate], int(0.15 * rate)),
                len(reference),
                int((leads[0][0] >= 300 * rate).sum()),
            )
        print(f"  {record} done", file=sys.stderr, flush=True)

    def figures(records, tag, pick):
        m, r, f = (sum(counts[(rec, tag, *pick(rec))][k] for rec in records) for k in range(3))
        return 100 * m / r, 100 * m / f

    def objective(records, c, rule):
        return sum(sum(figures(records, t, lambda _: (c, rule))) for t in TAGS)

    print("\nQRS Se / +P in %, pooled over DS1 after the first 5 minutes (electrode motion in both leads)\n")
    print("| | " + " | ".join(TAGS) + " |\n|---|---|---|---|")
    show = lambda name, pick: print(  # noqa: E731
        f"| {name} | " + " | ".join("%.2f / %.2f" % figures(RECORDS, t, pick) for t in TAGS) + " |"
    )
    show("first lead alone", lambda _: ("alone", True))
    for rule in (True, False):
        chosen = {r: max(GRID, key=lambda c: objective([q for q in RECORDS if q != r], c, rule)) for r in RECORDS}
        picks = sorted({str(c) for c in chosen.values()})
        show(f"joined, interval rule {'on' if rule else 'off'}, C by leave-one-record-out ({', '.join(picks)})",
             lambda r, chosen=chosen, rule=rule: (chosen[r], rule))  # fmt: skip
        show(
            f"joined, interval rule {'on' if rule else 'off'}, C = 10" + (" (the library's rule)" if rule else ""),
            lambda _, rule=rule: (10, rule),
        )


if __name__ == "__main__":
    main()
