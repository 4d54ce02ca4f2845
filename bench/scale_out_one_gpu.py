"""The scale-out layers' own cost on one GPU (docs/scaling.md, section 3): Dask around the pipeline,
and torch.distributed (NCCL) around population training.

Method.
- Dask: a local cluster (`zeroflow.dask.local_cluster`: LocalCUDACluster, one worker on the GPU) is
  started and warmed with one short recording, so that the worker's CUDA and LibTorch start-up is
  not counted. Then `run_many` runs N copies of one recording (`zeroflow generate --hours H`). The
  overhead is the wall time of `run_many` beyond the sum of its tasks' own run times (the
  DataFrame's `seconds`), over that sum: scheduling, serialisation, the result rows, the progress.
- Population: `zeroflow.population.train` on the same recordings' beats, alone in this process
  (zeroflow's fused trainer; several GPUs: bench/two_gpus.py): seconds per epoch and the final loss.

Usage: python3 bench/scale_out_one_gpu.py [--copies 6] [--hours 22] [--pop-hours 2] [--epochs 5]
                                          [--dir /tmp/zeroflow-scale] [--json FILE]
Needs zeroflow (the Python module) with CUDA, dask, distributed and dask-cuda.
"""

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path


def generate(zeroflow_bin, path, hours, seed):
    if not path.exists():
        subprocess.run(
            [zeroflow_bin, "generate", "--hours", str(hours), "--seed", str(seed), "--out", str(path)],
            check=True,
            capture_output=True,
        )
    return path


def copies_and_warm_up(zeroflow_bin, work, copies, hours):
    """`copies` copies of one generated recording of `hours`, and a short one to warm a cluster with."""
    first = generate(zeroflow_bin, work / "long0.csv", hours, 7)
    inputs = [first]
    for i in range(1, copies):
        copy = work / f"long{i}.csv"
        if not copy.exists():
            shutil.copyfile(first, copy)
        inputs.append(copy)
    return inputs, generate(zeroflow_bin, work / "warm.csv", 0.1, 3)


def dask_overhead(zeroflow_bin, work, copies, hours):
    import distributed

    import zeroflow.dask as zd

    inputs, warm = copies_and_warm_up(zeroflow_bin, work, copies, hours)
    t0 = time.perf_counter()
    cluster = zd.local_cluster()
    client = distributed.Client(cluster)
    started = time.perf_counter() - t0
    try:
        zd.run_many([warm], work / "out-warm", client=client, force=True, progress=False)
        t0 = time.perf_counter()
        df = zd.run_many(inputs, work / "out-dask", client=client, force=True, progress=False)
        wall = time.perf_counter() - t0
    finally:
        client.close()
        cluster.close()
    if (df["status"] != "ok").any():
        sys.exit(f"run_many failed:\n{df[['input', 'error']]}")
    tasks = float(df["seconds"].sum())
    workers = df["worker"].nunique()
    out = {
        "cluster_start_s": started,
        "recordings": copies,
        "hours": hours,
        "workers": int(workers),
        "wall_s": wall,
        "task_s": tasks,
        "per_recording_s": wall / copies * workers,
        "overhead_pct": 100 * (wall * workers - tasks) / tasks,
    }
    print(
        f"dask: cluster start {started:.1f} s; {copies} x {hours} h on {workers} worker(s): wall {wall:.2f} s, "
        f"tasks {tasks:.2f} s, {out['per_recording_s']:.3f} s/recording, overhead {out['overhead_pct']:.2f} %"
    )
    return out


def population(zeroflow_bin, work, hours, epochs):
    import zeroflow.population as zp

    paths = [generate(zeroflow_bin, work / f"pop{i}.csv", hours, 11 + i) for i in range(2)]
    common = dict(epochs=epochs, device="cuda", seed=42, checkpoint_every=0)
    t0 = time.perf_counter()
    alone = zp.train(paths, work / "pop-alone.pt", **common)
    alone_s = time.perf_counter() - t0
    # A group of processes trains on the CPU (Python) or on GPUs through the CLI's NCCL launcher:
    # one process on one GPU is the library's trainer alone (bench/population_gpus.py scales it).
    out = {
        "beats": alone.beats,
        "epochs": epochs,
        "alone": {"s_per_epoch": alone.seconds["train"] / epochs, "loss": alone.epoch_loss[-1], "total_s": alone_s},
    }
    rel = 0.0
    print(
        f"population: {alone.beats} beats, {epochs} epochs: alone {out['alone']['s_per_epoch']:.3f} s/epoch; "
        f"final loss {alone.epoch_loss[-1]:.6f}"
    )
    assert math.isfinite(rel)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--zeroflow", default=os.environ.get("ZEROFLOW_BIN", "zeroflow"))
    ap.add_argument("--copies", type=int, default=6)
    ap.add_argument("--hours", type=float, default=22)
    ap.add_argument("--pop-hours", type=float, default=2)
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--dir", default="/tmp/zeroflow-scale")
    ap.add_argument("--skip", choices=["dask", "population"], action="append", default=[])
    ap.add_argument("--json")
    a = ap.parse_args()
    work = Path(a.dir)
    work.mkdir(parents=True, exist_ok=True)
    results = {}
    if "dask" not in a.skip:
        results["dask"] = dask_overhead(a.zeroflow, work, a.copies, a.hours)
    if "population" not in a.skip:
        results["population"] = population(a.zeroflow, work, a.pop_hours, a.epochs)
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
