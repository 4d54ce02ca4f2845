"""AF in short single-lead recordings (CinC 2017): which records zeroflow calls AF, out of sample.

Method. `zeroflow run` (default flags, CPU) processes every recording of
../shared/data/cinc2017-dev (4,264 odd-numbered training records of the PhysioNet/CinC Challenge
2017: 300 Hz, one handheld lead, 9-61 s; labels N normal, A AF, O another rhythm, ~ noisy) once, in
one process (`--jobs`), into --work. A record is called AF when its run has an AF episode
(episodes.csv). The figures: the share of A records called AF (Se), and of N and O records called
AF (false AF); ~ records are shown apart (a noisy record has no rhythm to judge).

Thresholds. The AF rule can be re-decided from a run's beats.csv alone (`peak`, `class`,
`p_coherence`: zeroflow.rhythm.find_af_episodes with the V beats left out and the P-wave
coherences; the beats of unreadable stretches, from `clarity`, left out as the run leaves them),
so its P-wave threshold is chosen here by 5-fold cross-validation
over the records (stratified by label, seeded; the challenge gives no patient identifiers, and its
records are mostly one per patient): on four folds the grid point that finds the most A records
while calling at most 1 % of N and 4 % of O records AF (the targets), then the fifth fold is scored
with it. The out-of-sample row
pools the five held-out folds. The offline re-decision leaves out the run's final V beats where
the run leaves out a first guess of them; the script prints how often the two agree at the
defaults.

Usage: python3 bench/af_cinc.py [--bin build/cpu/zeroflow] [--work /tmp/zeroflow-cinc]
       [--data ../shared/data/cinc2017-dev] [--jobs 2] [--limit N]
"""

from __future__ import annotations

import argparse
import csv
import itertools
import pathlib
import subprocess
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
RATE = 300.0
LABELS = ("A", "N", "O", "~")

#: The grid of the cross-validation: the P-wave coherence above which a window has a P wave (1.0:
#: no P-wave test). The rhythm's thresholds keep the defaults that bench/af_rhythm.py chose on long
#: records; `--with-share` also lets this script choose the irregular share (to see what it costs).
COHERENCE = (0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 1.0)
SHARES = (0.30, 0.35, 0.40, 0.45)
#: The targets of false AF (% of N and of O records) that the cross-validation respects.
FALSE_AF_MAX = {"N": 1.0, "O": 4.0}


def run_all(binary: pathlib.Path, data: pathlib.Path, work: pathlib.Path, records: list[str], jobs: int) -> None:
    """One `zeroflow run` over every record (one process, --jobs at a time; 4,264 paths are far
    below the command line's limit). A --work folder that already holds the runs is reused."""
    if (work / "runs.csv").exists():
        return
    proc = subprocess.run(
        [
            str(binary),
            "run",
            *[str(data / f"{r}.hea") for r in records],
            "--jobs",
            str(jobs),
            "--device",
            "cpu",
            "--out",
            str(work),
        ],
        capture_output=True,
        text=True,
    )
    if proc.returncode not in (0, 1):  # 1: some recording failed; those are counted below
        sys.exit(f"zeroflow run failed ({proc.returncode}):\n{proc.stderr[-2000:]}")


def read_run(folder: pathlib.Path):
    with open(folder / "beats.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    peaks = np.array([int(r["peak"]) for r in rows], dtype=np.int64)
    # The run leaves out of the AF test its V beats and the beats of unreadable stretches (the
    # median clarity of +-4 beats under CLASS_DEFAULTS' bound): the same here.
    from zeroflow.classify import CLASS_DEFAULTS

    clarity = np.array([float(r["clarity"]) for r in rows])
    k = int(CLASS_DEFAULTS["quality.stretch_beats"])
    unreadable = np.array(
        [
            np.median(clarity[max(0, b - k) : b + k + 1]) < CLASS_DEFAULTS["quality.min_clarity"]
            for b in range(len(rows))
        ],
        dtype=bool,
    )
    ventricular = np.array([r["class"] == "V" for r in rows], dtype=bool) | unreadable
    coherence = np.array([float(r["p_coherence"]) if r["p_coherence"] else np.nan for r in rows])
    with open(folder / "episodes.csv") as f:
        called = len(f.read().strip().splitlines()) > 1
    return peaks, ventricular, coherence, called


def called_af(run, params) -> bool:
    from zeroflow.rhythm import find_af_episodes

    peaks, ventricular, coherence, _ = run
    return bool(find_af_episodes(peaks, RATE, left_out=ventricular, p_wave_coherence=coherence, **params).episodes)


def rates(labels: dict[str, str], called: dict[str, bool], names) -> dict[str, tuple[int, int]]:
    out = {}
    for label in LABELS:
        group = [n for n in names if labels[n] == label]
        out[label] = (sum(called[n] for n in group), len(group))
    return out


def objective(r: dict[str, tuple[int, int]]) -> tuple[bool, float]:
    """Within the false-AF targets first, then the most A records found (ties: fewer false AF)."""
    within = all(100 * r[k][0] / max(1, r[k][1]) <= v for k, v in FALSE_AF_MAX.items())
    found = r["A"][0] / max(1, r["A"][1])
    false_af = (r["N"][0] + r["O"][0]) / max(1, r["N"][1] + r["O"][1])
    return (within, found - 0.01 * false_af)


def row(label: str, r: dict[str, tuple[int, int]]) -> str:
    cells = [f"{100 * k / n:.1f} % ({k}/{n})" if n else "-" for k, n in (r[x] for x in LABELS)]
    return f"| {label} | " + " | ".join(cells) + " |"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", type=pathlib.Path, default=ROOT / "build" / "default" / "zeroflow")
    parser.add_argument("--data", type=pathlib.Path, default=ROOT.parent / "shared" / "data" / "cinc2017-dev")
    parser.add_argument("--work", type=pathlib.Path, default=pathlib.Path("/tmp/zeroflow-cinc"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--limit", type=int, default=0, help="only the first N records (a quick look)")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--with-share", action="store_true", help="also choose the irregular share")
    args = parser.parse_args()
    if not (args.data / "REFERENCE.csv").exists():
        sys.exit(f"af_cinc: no {args.data}/REFERENCE.csv (../shared/data/cinc2017-dev)")
    with open(args.data / "REFERENCE.csv") as f:
        labels = {r[0]: r[1] for r in csv.reader(f) if r}
    names = sorted(labels)[: args.limit or None]
    grid = [
        dict(p_wave_coherence_max=c, **({"irregular_share": s} if s else {}))
        for c, s in itertools.product(COHERENCE, SHARES if args.with_share else (None,))
    ]
    run_all(args.bin, args.data, args.work, names, args.jobs)
    runs = {n: read_run(args.work / n) for n in names if (args.work / n / "beats.csv").exists()}
    failed = len(names) - len(runs)
    names = sorted(runs)

    print(f"{len(names)} records ({failed} runs failed); deciding {len(grid)} grid points ...", file=sys.stderr)
    decided = {(n, i): called_af(runs[n], g) for n in names for i, g in enumerate(grid)}
    defaults = {n: called_af(runs[n], {}) for n in names}
    agree = sum(defaults[n] == runs[n][3] for n in names)

    rng = np.random.default_rng(2017)
    fold = {}
    for label in LABELS:
        group = [n for n in names if labels[n] == label]
        for k, n in enumerate(rng.permutation(group)):
            fold[n] = k % args.folds
    held_out, chosen = {}, []
    for k in range(args.folds):
        train = [n for n in names if fold[n] != k]
        best = max(range(len(grid)), key=lambda i: objective(rates(labels, {n: decided[(n, i)] for n in train}, train)))
        chosen.append(grid[best])
        for n in names:
            if fold[n] == k:
                held_out[n] = decided[(n, best)]
    in_sample = max(
        range(len(grid)), key=lambda i: objective(rates(labels, {n: decided[(n, i)] for n in names}, names))
    )

    print("Records called AF, by reference label (CinC 2017 odd-numbered training records)\n")
    print("| | A (AF) | N (normal) | O (other rhythm) | ~ (noisy) |")
    print("|---|---|---|---|---|")
    print(row(f"zeroflow, {args.folds}-fold cross-validation (out of sample)", rates(labels, held_out, names)))
    print(row("zeroflow run, defaults (episodes.csv)", rates(labels, {n: runs[n][3] for n in names}, names)))
    print(row("in-sample best (not a result)", rates(labels, {n: decided[(n, in_sample)] for n in names}, names)))
    print(f"\nchosen per fold: {chosen}\nin-sample best: {grid[in_sample]}")
    print(f"offline re-decision at the defaults agrees with the runs on {agree} of {len(names)} records")
    return 0


if __name__ == "__main__":
    sys.exit(main())
