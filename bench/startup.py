"""Start-up benchmark: process start to first output, and resident memory, of the commands a user
runs most (`--help`, `info`, `run`), and where a run's time goes before its first stage.

Method: each command runs REPEAT times in a fresh process (the binary and LibTorch's libraries are
in the page cache after the first, which is not counted); wall time is measured from fork to the
first byte on stdout or stderr (what a person waits for) and to exit, and peak resident memory
from the child's rusage (ru_maxrss). `run` is also split: its wall time against summary.json's
stages_ms.total (the stages zeroflow times itself), the difference being start-up, LibTorch's
loading and writing the outputs. Which shared libraries a command maps is read from
/proc/PID/maps while it runs (`run` only: the others end too soon), to show whether LibTorch is
loaded. Medians are reported, with min and max.

Usage: python3 bench/startup.py ZEROFLOW_BIN [--device cuda|cpu] [--repeat 5] [--hours 0.5]
"""

import argparse
import json
import os
import pathlib
import resource
import statistics
import subprocess
import tempfile
import time


def timed(cmd, env=None):
    """(seconds to first output, seconds to exit, peak RSS in MB, libraries seen mapped)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    first = os.read(proc.stdout.fileno(), 1)
    t_first = time.perf_counter() - t0
    libs = set()
    try:
        with open(f"/proc/{proc.pid}/maps") as f:
            for line in f:
                name = line.split()[-1] if len(line.split()) >= 6 else ""
                if ".so" in name:
                    libs.add(os.path.basename(name))
    except OSError:
        pass
    rest = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    t_exit = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(map(str, cmd))} failed:\n{(first + rest).decode(errors='replace')[-2000:]}")
    return t_first, t_exit, usage.ru_maxrss / 1024, libs


def summary(values):
    return f"{statistics.median(values):8.3f} ({min(values):.3f}–{max(values):.3f})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("zeroflow")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--hours", type=float, default=0.5, help="length of the recording `run` reads")
    args = ap.parse_args()
    work = pathlib.Path(tempfile.mkdtemp(prefix="zeroflow-startup-"))
    csv = work / "ecg.csv"
    subprocess.run([args.zeroflow, "generate", "--hours", str(args.hours), "--out", str(csv)], check=True)

    commands = {
        "--help": [args.zeroflow, "--help"],
        "info": [args.zeroflow, "info"],
    }
    rows = []
    for name, cmd in commands.items():
        timed(cmd)  # page cache
        runs = [timed(cmd) for _ in range(args.repeat)]
        rows.append((name, [r[0] for r in runs], [r[1] for r in runs], [r[2] for r in runs]))

    run_cmd = [args.zeroflow, "run", str(csv), "--device", args.device, "--epochs", "30", "--force"]
    timed(run_cmd + ["--out", str(work / "warm")])
    runs, stages, libs = [], [], set()
    for k in range(args.repeat):
        out = work / f"run{k}"
        r = timed(run_cmd + ["--out", str(out)])
        runs.append(r)
        libs |= r[3]
        stages.append(json.loads((out / "summary.json").read_text())["stages_ms"]["total"] / 1000)
    rows.append(
        (f"run ({args.hours} h, {args.device})", [r[0] for r in runs], [r[1] for r in runs], [r[2] for r in runs])
    )

    print(f"{'command':28s} {'first output s':>24s} {'exit s':>24s} {'peak RSS MB':>24s}")
    for name, first, done, rss in rows:
        print(f"{name:28s} {summary(first):>24s} {summary(done):>24s} {summary(rss):>24s}")
    walls = [r[1] for r in runs]
    print(
        f"run: stages (summary.json) {summary(stages)} s; the rest of the wall time "
        f"{summary([w - s for w, s in zip(walls, stages)])} s"
    )
    # The first training of a process against the later ones: four copies of the recording in one
    # `run` (--jobs 1, one after another), each recording's train stage from its summary.json.
    copies = []
    for k in range(4):
        copies.append(work / f"copy{k}.csv")
        copies[-1].write_bytes(csv.read_bytes())
    several = work / "several"
    subprocess.run(
        [args.zeroflow, "run", *map(str, copies), "--device", args.device, "--jobs", "1", "--out", str(several)],
        check=True,
        capture_output=True,
    )
    trains = {}
    for summary_file in several.glob("*/summary.json"):
        summary_json = json.loads(summary_file.read_text())
        trains[summary_json["input"]] = summary_json["stages_ms"]["train"]
    ordered = [trains[str(c)] for c in copies if str(c) in trains]
    print("train stage of 4 recordings in one process (ms):", ", ".join(f"{t:.1f}" for t in ordered))
    torch_libs = sorted(lib for lib in libs if "torch" in lib or lib.startswith("libc10"))
    print("run maps LibTorch:", ", ".join(torch_libs) if torch_libs else "no")
    print(
        f"(max RSS of this script's children: {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:.0f} MB)"
    )


if __name__ == "__main__":
    main()
