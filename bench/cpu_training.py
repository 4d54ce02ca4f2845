"""CPU benchmark: `zeroflow run --device cpu` on a long recording, and the LightVAE's training step
on zeroflow's own CPU kernels against PyTorch's eager step of the seed's model on the same cores.

Method:
- The recording: `zeroflow generate --hours H --decimals 9` (H = 22.2: 20 M samples at 250 Hz,
  the ~500 MB CSV of the GPU benchmarks). `zeroflow run CSV --device cpu --epochs 30` runs REPEAT
  times in fresh processes (the first is not counted: it fills the page cache); reported: the
  median wall time, summary.json's train stage, and the training's steps (30 epochs of
  ceil(0.75·beats / 1024) batches), hence zeroflow's time per step.
- The peer: the seed's LightVAE, its loss and torch.optim.Adam, defined by the seed pipeline
  itself (its model code is read from seed_pipeline.py and run, not copied here), trained eagerly
  on the CPU with torch.set_num_threads(THREADS): STEPS steps of a batch of 1024 rows of the same
  width after 3 untimed ones; the median step time is reported.
- zeroflow's kernels use the same THREADS (OMP_NUM_THREADS); the ratio is the peer's time per step
  over zeroflow's.
- Floor: the step's arithmetic (forward ≈ 2·Σ cin·cout·3·n multiply-adds over the layers, backward
  about twice that) over the machine's peak FP32 rate: cores × 2 FMA units × 8 lanes (AVX2) ×
  2 FLOP × clock, printed with the clock read from /proc/cpuinfo.

Usage: python3 bench/cpu_training.py ZEROFLOW_BIN [--seed-pipeline ../shared/bench/seed_pipeline.py]
                                    [--hours 22.2] [--repeat 3] [--threads N] [--steps 20]
"""

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import tempfile
import time


def seed_model(seed_pipeline):
    """The seed's LightVAE class and loss, from the seed pipeline's own source."""
    text = pathlib.Path(seed_pipeline).read_text()
    start = text.index("class Swish(")
    end = text.index("from torch.utils import dlpack")
    import torch

    scope = {"torch": torch}
    exec(compile(text[start:end], seed_pipeline, "exec"), scope)
    return scope["LightVAE"], scope["loss_function"]


def peer_step_seconds(seed_pipeline, width, threads, steps):
    import torch

    torch.set_num_threads(threads)
    light_vae, loss_function = seed_model(seed_pipeline)
    torch.manual_seed(0)
    model = light_vae(width)
    opt = torch.optim.Adam(model.parameters())
    t = torch.linspace(-3, 3, width)
    rows = torch.exp(-((t[None, :] - torch.randn(1024, 1)) ** 2) * 4) + 0.05 * torch.randn(1024, width)
    times = []
    for k in range(steps + 3):
        t0 = time.perf_counter()
        opt.zero_grad()
        r, mu, lv = model(rows)
        loss = loss_function(r, rows, mu, lv)
        loss.backward()
        opt.step()
        if k >= 3:
            times.append(time.perf_counter() - t0)
    return statistics.median(times)


def step_flops(width):
    """Multiply-adds ×2 of one beat's forward pass; a training step is about 3× that per beat."""
    w = width
    layers = [(1, 4, w), (4, 8, w // 2), (8, 16, w // 4), (16, 4, w // 8), (8, 4, w // 4), (4, 2, w // 2), (2, 1, w)]
    forward = sum(2 * cin * cout * 3 * n for cin, cout, n in layers) + 2 * 2 * w
    return 3 * forward


def clock_ghz():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("cpu MHz"):
                return float(line.split(":")[1]) / 1000
    except OSError:
        pass
    return float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("zeroflow")
    ap.add_argument(
        "--seed-pipeline", default=str(pathlib.Path(__file__).resolve().parents[2] / "shared/bench/seed_pipeline.py")
    )
    ap.add_argument("--hours", type=float, default=22.2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    ap.add_argument("--steps", type=int, default=20)
    args = ap.parse_args()
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        csv = work / "ecg.csv"
        subprocess.run(
            [args.zeroflow, "generate", "--hours", str(args.hours), "--decimals", "9", "--out", str(csv)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        walls, trains = [], []
        summary = {}
        for k in range(args.repeat + 1):
            out = work / "out"
            t0 = time.perf_counter()
            subprocess.run(
                [args.zeroflow, "run", str(csv), "--device", "cpu", "--epochs", "30", "--force", "--out", str(out)],
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=env,
            )
            wall = time.perf_counter() - t0
            summary = json.loads((out / "summary.json").read_text())
            if k > 0:
                walls.append(wall)
                trains.append(summary["stages_ms"]["train"] / 1000)
    kept = summary["beats_kept"]
    width = (summary["model"]["parameters"] - 850) // 3  # the LightVAE has 850 + 3·W parameters
    train_rows = int(0.75 * kept)
    steps = 30 * -(-train_rows // 1024)
    own = statistics.median(trains) / steps
    peer = peer_step_seconds(args.seed_pipeline, width, args.threads, args.steps)
    flops = step_flops(width) * 1024
    peak = args.threads * 2 * 8 * 2 * clock_ghz() * 1e9
    print(
        f"recording: {args.hours} h, {kept} beats kept, rows of {width}, {steps} training steps; {args.threads} threads"
    )
    print(
        f"zeroflow run --device cpu: {statistics.median(walls):.2f} s wall (min {min(walls):.2f}, max {max(walls):.2f}),"
        f" train {statistics.median(trains):.2f} s"
    )
    print(
        f"step of 1024 rows: zeroflow {own * 1e3:.2f} ms, PyTorch eager (the seed's model) {peer * 1e3:.2f} ms,"
        f" ratio {peer / own:.1f}x"
    )
    print(
        f"floor: {flops / 1e9:.2f} GFLOP a step / {peak / 1e9:.0f} GFLOP/s peak = {flops / peak * 1e3:.2f} ms"
        f" ({flops / own / 1e9:.0f} GFLOP/s reached)"
    )


if __name__ == "__main__":
    main()
