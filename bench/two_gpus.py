"""Two GPUs of one host (docs/scaling.md, "Two GPUs"): the link between them, peer-to-peer
hand-offs, data-parallel population training and Dask over both.

Method.
- Topology: ``nvidia-smi topo -m`` and ``nvidia-smi nvlink -s`` (the link's nominal bandwidth).
- Transfers: ``zeroflow_peer_copy_bench`` (its header gives the method): GPU 0 -> GPU 1 of an
  80 MB signal and a 100 MB beat matrix, peer copy with peer access on and off, staged through
  pinned host memory, and zeroflow's zero-copy hand-off read by a kernel on GPU 1.
- Population training: ``zeroflow train-population --gpus N`` on the beats of the same
  recordings, one process on GPU 0 and then two processes (NCCL, one per GPU): seconds per epoch
  (the train stage over the epochs), the scaling efficiency (one GPU's time / (2 x two GPUs'
  time)) and the final losses. The global batch is the same (``batch`` beats per step over all
  processes), so two GPUs do the same steps with half the beats each.
- Dask: ``zeroflow.dask.run_many`` over N copies of a 22 h recording on a local cluster of one
  GPU worker and then of two, each warmed with one short recording first: wall time, recordings
  per hour and the speed-up.
NVLink multicast stays off (NCCL_NVLS_ENABLE=0, as the machine sets it).

Usage: python3 bench/two_gpus.py --zeroflow BIN --peer-bench BIN [--copies 8] [--pop-hours 4]
                                 [--pop-recordings 4] [--epochs 5] [--dir /tmp/zeroflow-two] [--json FILE]
Needs zeroflow (the Python module) with CUDA, dask, distributed and dask-cuda, and two GPUs.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from scale_out_one_gpu import copies_and_warm_up, generate  # the same recordings as the one-GPU bench

os.environ["NCCL_NVLS_ENABLE"] = "0"  # never NVLink multicast (the machine's rule; kept for children)


def topology():
    out = {}
    for name, cmd in (("topo", ["nvidia-smi", "topo", "-m"]), ("nvlink", ["nvidia-smi", "nvlink", "-s"])):
        r = subprocess.run(cmd, capture_output=True, text=True)
        out[name] = r.stdout.strip()
        print(f"$ {' '.join(cmd)}\n{r.stdout.strip()}\n", flush=True)
    return out


def transfers(peer_bench):
    r = subprocess.run([peer_bench], capture_output=True, text=True)
    print(r.stdout, r.stderr, flush=True)
    if r.returncode != 0:
        sys.exit(f"{peer_bench} failed with {r.returncode}")
    return r.stdout


def population(zeroflow_bin, work, hours, recordings, epochs, threads):
    import re

    paths = [generate(zeroflow_bin, work / f"pop{i}.csv", hours, 21 + i) for i in range(recordings)]
    # zeroflow's fused trainer through `zeroflow train-population --gpus N` (one process per GPU,
    # NCCL between them); `threads` is unused on GPUs.
    del threads
    results = {}
    # (GPUs, beats per step over all of them): the same steps on one GPU and on two, then two GPUs
    # keeping 1024 beats each per step (half the steps; another optimisation path).
    for processes, batch in ((1, 1024), (2, 1024), (2, 2048)):
        t0 = time.perf_counter()
        command = [
            str(zeroflow_bin),
            "train-population",
            *map(str, paths),
            "--out",
            str(work / f"pop-{processes}-{batch}.pt"),
        ]
        command += ["--gpus", str(processes), "--batch", str(batch), "--epochs", str(epochs), "--seed", "42"]
        command += ["--checkpoint-every", "0", "--device", "cuda", "--force"]
        proc = subprocess.run(command, capture_output=True, text=True)
        if proc.returncode != 0:
            sys.exit(f"train-population failed: {proc.stderr[-2000:]}")
        total = time.perf_counter() - t0
        m = re.search(r"on (\d+) beats of .*?: ([0-9.]+) s, .*final loss ([0-9.eE+-]+)", proc.stdout)

        class r:  # noqa: N801  (the fields the table reads)
            beats = int(m.group(1))
            seconds = {"train": float(m.group(2))}
            epoch_loss = [float(m.group(3))]

        results[(processes, batch)] = {
            "s_per_epoch": r.seconds["train"] / epochs,
            "loss": r.epoch_loss[-1],
            "total_s": total,
            "beats": r.beats,
            "batch": batch,
        }
        print(
            f"population, {processes} GPU(s), {batch} beats a step: {r.beats} beats, {epochs} epochs, "
            f"{results[(processes, batch)]['s_per_epoch']:.3f} s/epoch, final loss {r.epoch_loss[-1]:.6f}, "
            f"whole call {total:.1f} s",
            flush=True,
        )
    one, two, wide = results[(1, 1024)], results[(2, 1024)], results[(2, 2048)]
    out = {
        "one": one,
        "two": two,
        "two_batch_per_gpu": wide,
        "efficiency": one["s_per_epoch"] / (2 * two["s_per_epoch"]),
        "efficiency_batch_per_gpu": one["s_per_epoch"] / (2 * wide["s_per_epoch"]),
        "loss_rel_diff": abs(two["loss"] - one["loss"]) / abs(one["loss"]),
    }
    print(
        f"population: same steps: scaling efficiency {100 * out['efficiency']:.0f} % "
        f"(speed-up {one['s_per_epoch'] / two['s_per_epoch']:.2f}x), final losses differ by "
        f"{out['loss_rel_diff']:.2e} (relative); 1024 beats per GPU a step: efficiency "
        f"{100 * out['efficiency_batch_per_gpu']:.0f} % (speed-up {one['s_per_epoch'] / wide['s_per_epoch']:.2f}x)",
        flush=True,
    )
    return out


def dask_two_workers(zeroflow_bin, work, copies, hours):
    import distributed

    import zeroflow.dask as zd

    inputs, warm = copies_and_warm_up(zeroflow_bin, work, copies, hours)
    out = {}
    for workers in (1, 2):
        cluster = zd.local_cluster(n_workers=workers)
        client = distributed.Client(cluster)
        try:
            client.wait_for_workers(workers)
            zd.run_many([warm] * workers, work / f"out-warm-{workers}", client=client, force=True, progress=False)
            t0 = time.perf_counter()
            df = zd.run_many(inputs, work / f"out-{workers}", client=client, force=True, progress=False)
            wall = time.perf_counter() - t0
        finally:
            client.close()
            cluster.close()
        if (df["status"] != "ok").any():
            sys.exit(f"run_many failed:\n{df[['input', 'error']]}")
        out[workers] = {
            "wall_s": wall,
            "task_s": float(df["seconds"].sum()),
            "workers_used": int(df["worker"].nunique()),
            "per_hour": copies / wall * 3600,
        }
        print(
            f"dask, {workers} worker(s): {copies} x {hours} h in {wall:.2f} s "
            f"({out[workers]['per_hour']:.0f} recordings/hour; tasks {out[workers]['task_s']:.2f} s on "
            f"{out[workers]['workers_used']} worker(s))",
            flush=True,
        )
    out["speedup"] = out[1]["wall_s"] / out[2]["wall_s"]
    print(f"dask: two workers {out['speedup']:.2f}x one", flush=True)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--zeroflow", default=os.environ.get("ZEROFLOW_BIN", "zeroflow"))
    ap.add_argument("--peer-bench", required=True)
    ap.add_argument("--copies", type=int, default=8)
    ap.add_argument("--hours", type=float, default=22)
    ap.add_argument("--pop-hours", type=float, default=4)
    ap.add_argument("--pop-recordings", type=int, default=4)
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument(
        "--threads", type=int, default=4, help="PyTorch CPU threads per training process (0: PyTorch's default)"
    )
    ap.add_argument("--dir", default="/tmp/zeroflow-two")
    ap.add_argument("--skip", choices=["transfers", "population", "dask"], action="append", default=[])
    ap.add_argument("--json")
    a = ap.parse_args()
    work = Path(a.dir)
    work.mkdir(parents=True, exist_ok=True)
    results = {"topology": topology()}
    if "transfers" not in a.skip:
        results["transfers"] = transfers(a.peer_bench)
    if "population" not in a.skip:
        results["population"] = population(a.zeroflow, work, a.pop_hours, a.pop_recordings, a.epochs, a.threads)
    if "dask" not in a.skip:
        results["dask"] = dask_two_workers(a.zeroflow, work, a.copies, a.hours)
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
