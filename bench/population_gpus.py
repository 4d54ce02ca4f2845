"""Population training on GPUs: beats trained per second per GPU, zeroflow's fused trainer
(`zeroflow train-population --device cuda`) against PyTorch's eager step of the same LightVAE
(zeroflow's PyTorch interop module, the seed's class; seed loss and Adam), in one command.

Method:
- Recordings: N synthetic recordings (`zeroflow generate`, 250 Hz, H hours each), read and
  segmented by the trainer itself; rows of 256 samples (the robust window at 250 Hz).
- zeroflow: `train-population --gpus G --batch B·G` for every G in 1..GPUs (at most 2) and per-GPU
  batch B in {1024, 4096}, checkpoints off; the figure is the trainer's own: steps × global batch
  / the seconds of its epochs / G (loading excluded, the test loss excluded). One run with
  `--max-device-memory 64M` (the least) measures rows in mapped host memory (read across the bus).
- Peer: PyTorch's eager step, one GPU: _torch_light_vae.py's LightVAE (loaded from its source
  file, so that the peer needs only torch), forward + seed loss + backward + Adam on B random rows, 20 warm-up
  steps, then 200 timed steps between two synchronisations.
- The 100,000-recording model of docs/scaling.md: beats per epoch / measured rate.

Usage: python3 bench/population_gpus.py ZEROFLOW_BINARY [--recordings 16] [--hours 6] [--epochs 60]
Writes the table to stdout and population_gpus.json beside it under $OUT when set.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import pathlib
import re
import subprocess
import sys
import time
import types

ROOT = pathlib.Path(__file__).resolve().parents[1]


def gpu_count(binary: str) -> int:
    info = subprocess.run([binary, "info"], capture_output=True, text=True, check=True).stdout
    return len(re.findall(r"^GPU \d+ ", info, re.M))


def make_recordings(binary: str, folder: pathlib.Path, count: int, hours: float) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for seed in range(count):
        path = folder / f"rec{seed:03d}_{hours:g}h.csv"
        if not path.exists():
            subprocess.run(
                [binary, "generate", "--hours", str(hours), "--seed", str(seed), "--heart-rate", str(60 + seed % 30)]
                + ["--out", str(path)],
                check=True,
                capture_output=True,
            )
        paths.append(str(path))
    return paths


def ours(binary: str, paths: list[str], out: pathlib.Path, gpus: int, batch: int, epochs: int, *extra: str) -> dict:
    command = [binary, "train-population", *paths, "--out", str(out), "--device", "cuda", "--force"]
    command += ["--gpus", str(gpus), "--batch", str(batch * gpus), "--epochs", str(epochs), "--checkpoint-every", "0"]
    t0 = time.perf_counter()
    proc = subprocess.run(command + list(extra), capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"zeroflow failed ({' '.join(command)}):\n{proc.stderr}")
    m = re.search(r"on (\d+) beats .*?: ([0-9.]+) s, ([0-9.e+]+) beats/s per GPU; final loss ([0-9.]+)", proc.stdout)
    return {
        "beats": int(m[1]),
        "train_s": float(m[2]),
        "beats_per_s_per_gpu": float(m[3]),
        "final_loss": float(m[4]),
        "wall_s": wall,
    }


def peer_step_rate(batch: int, width: int = 256, steps: int = 200) -> float:
    """PyTorch's eager step of the same LightVAE (zeroflow's PyTorch interop module, the seed's class),
    beats per second on one GPU."""
    import torch

    # zeroflow's PyTorch LightVAE from its source, as a module of a stand-in package whose __init__
    # never runs: no compiled zeroflow module needed.
    package = types.ModuleType("population_peer")
    package.__path__ = [str(ROOT / "python" / "zeroflow")]
    sys.modules["population_peer"] = package
    spec = importlib.util.spec_from_file_location(
        "population_peer._torch_light_vae", ROOT / "python" / "zeroflow" / "_torch_light_vae.py"
    )
    peer = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = peer
    spec.loader.exec_module(peer)
    device = torch.device("cuda:0")
    model = peer.LightVAE(width).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    rows = torch.randn(batch, width, device=device)

    def step():
        noise = torch.randn(batch, 2, device=device)
        recon, mu, logvar = model(rows, noise)
        loss = peer.seed_loss(recon, rows, mu, logvar)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    for _ in range(20):
        step()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    torch.cuda.synchronize()
    return steps * batch / (time.perf_counter() - t0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("--recordings", type=int, default=16)
    parser.add_argument("--hours", type=float, default=6.0)
    parser.add_argument("--epochs", type=int, default=60)
    parser.add_argument("--folder", default="/tmp/zeroflow-bench/population")
    args = parser.parse_args()
    folder = pathlib.Path(args.folder)
    gpus = min(gpu_count(args.binary), 2)
    if gpus < 1:
        raise SystemExit("needs a CUDA build of zeroflow and a GPU")
    t0 = time.perf_counter()
    paths = make_recordings(args.binary, folder, args.recordings, args.hours)
    print(f"{len(paths)} recordings of {args.hours:g} h ready in {time.perf_counter() - t0:.1f} s", flush=True)

    rows = []
    for batch in (1024, 4096):
        peer = peer_step_rate(batch)
        for g in range(1, gpus + 1):
            r = ours(args.binary, paths, folder / "model.safetensors", g, batch, args.epochs)
            rows.append({"gpus": g, "batch_per_gpu": batch, "peer_beats_per_s": peer if g == 1 else None, **r})
            print(json.dumps(rows[-1]), flush=True)
    mapped = ours(args.binary, paths, folder / "model.safetensors", 1, 4096, args.epochs, "--max-device-memory", "64M")
    mapped.update(gpus=1, batch_per_gpu=4096, mapped=True)
    rows.append(mapped)
    print(json.dumps(mapped), flush=True)

    print(
        "\n| GPUs | beats per GPU per step | zeroflow, beats/s per GPU | today's eager step, beats/s | ratio | final loss |"
    )
    print("|---|---|---|---|---|---|")
    for r in rows:
        peer = r.get("peer_beats_per_s")
        ratio = f"{r['beats_per_s_per_gpu'] / peer:.0f}×" if peer else "–"
        label = f"{r['gpus']}" + (" (rows in mapped host memory)" if r.get("mapped") else "")
        print(
            f"| {label} | {r['batch_per_gpu']} | {r['beats_per_s_per_gpu'] / 1e6:.2f} M | "
            + (f"{peer / 1e6:.3f} M" if peer else "–")
            + f" | {ratio} | {r['final_loss']:.6f} |"
        )
    for batch in (1024, 4096):
        one = next(r for r in rows if r["gpus"] == 1 and r["batch_per_gpu"] == batch and not r.get("mapped"))
        two = next((r for r in rows if r["gpus"] == 2 and r["batch_per_gpu"] == batch), None)
        if two:
            speedup = 2 * two["beats_per_s_per_gpu"] / one["beats_per_s_per_gpu"]
            print(f"two GPUs at {batch} beats per GPU per step: {speedup:.2f}× one GPU")
    best = max(r["beats_per_s_per_gpu"] for r in rows if r["gpus"] == 1 and not r.get("mapped"))
    beats = 1e8
    print(
        f"30 epochs over 1,000 recordings of 22 h (1e8 beats) on one GPU at {best / 1e6:.2f} M beats/s: "
        f"{30 * beats / best / 60:.1f} min of training"
    )
    out = os.environ.get("OUT")
    if out:
        pathlib.Path(out, "population_gpus.json").write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
