"""Recordings per GPU-hour: many 22-hour recordings in one `zeroflow run`, one at a time and with
--jobs J (several at once on the one GPU, each on a stream of its own).

Method: one synthetic 22 h recording at 250 Hz (19.8 M samples, `zeroflow generate --hours 22`) is
copied N times, so every run does the same work and the page cache holds the files (the load stage
measures parsing, not the disk). For each J, `zeroflow run` trains and scores all N copies in one
process; the process's wall time includes the GPU's and LibTorch's start-up, which one extra run of
a single copy measures. The steady cost per recording is (wall(N) - wall(1)) / (N - 1), and
recordings per GPU-hour are 3600 divided by it. Each run's summary.json gives its stages; the
results of every J are checked to be the same beats and scores as J = 1.

Usage: python3 bench/jobs_run.py --zeroflow build/gpu/zeroflow [--copies 8] [--jobs 1,2,3,4]
                                 [--hours 22] [--dir /tmp/zeroflow-jobs] [--json FILE]
"""

import argparse
import csv
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path


def run(zeroflow, inputs, out, jobs):
    shutil.rmtree(out, ignore_errors=True)
    start = time.perf_counter()
    proc = subprocess.run(
        [zeroflow, "run", *map(str, inputs), "--out", str(out), "--jobs", str(jobs), "--force"],
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"zeroflow run --jobs {jobs} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return wall


def beats(folder):
    with open(folder / "beats.csv", newline="") as f:
        return [(r["peak"], r["split"], float(r["score"])) for r in csv.DictReader(f)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--zeroflow", required=True)
    ap.add_argument("--copies", type=int, default=8)
    ap.add_argument("--jobs", default="1,2,3,4")
    ap.add_argument("--hours", type=float, default=22)
    ap.add_argument("--dir", default="/tmp/zeroflow-jobs")
    ap.add_argument("--json")
    a = ap.parse_args()
    work = Path(a.dir)
    work.mkdir(parents=True, exist_ok=True)
    first = work / "rec0.csv"
    if not first.exists():
        subprocess.run([a.zeroflow, "generate", "--hours", str(a.hours), "--out", str(first)], check=True)
    inputs = [first]
    for i in range(1, a.copies):
        copy = work / f"rec{i}.csv"
        if not copy.exists():
            shutil.copyfile(first, copy)
        inputs.append(copy)
    single = run(a.zeroflow, inputs[:1], work / "out-single", 1)
    print(f"one recording, whole process: {single:.2f} s (start-up included)")
    results = {"copies": a.copies, "hours": a.hours, "single_s": single, "jobs": {}}
    reference = None
    print(f"{'jobs':>4} {'wall s':>8} {'s/recording':>12} {'rec/GPU-h':>10} {'train ms (median)':>18}")
    for jobs in [int(j) for j in a.jobs.split(",")]:
        out = work / f"out-j{jobs}"
        wall = run(a.zeroflow, inputs, out, jobs)
        steady = (wall - single) / (a.copies - 1)
        trains = sorted(
            json.loads((out / f"rec{i}" / "summary.json").read_text())["stages_ms"]["train"] for i in range(a.copies)
        )
        got = [beats(out / f"rec{i}") for i in range(a.copies)]
        if reference is None:
            reference = got
        same = all(
            len(g) == len(r)
            and all(x[:2] == y[:2] and abs(x[2] - y[2]) <= 1e-4 * max(1.0, abs(y[2])) for x, y in zip(g, r))
            for g, r in zip(got, reference)
        )
        print(
            f"{jobs:>4} {wall:>8.2f} {steady:>12.3f} {3600 / steady:>10.0f} {trains[len(trains) // 2]:>18.0f}"
            f"{'' if same else '  RESULTS DIFFER from jobs=1'}"
        )
        results["jobs"][jobs] = {
            "wall_s": wall,
            "steady_s": steady,
            "per_gpu_hour": 3600 / steady,
            "train_ms": trains,
            "same_as_one_at_a_time": same,
        }
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
