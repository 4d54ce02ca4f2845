"""GPU benchmark: zeroflow against the seed pipeline on the same 20 M-sample CSV, one table.

Method: the CSV (20 M float samples, ~22 h of synthetic ECG at 250 Hz, 9 decimals) is generated
once and read once before timing so that both readers see it in the page cache. Then the peer
(bench/seed_pipeline.py from the shared folder: pandas / pyarrow CSV, CuPy + Numba segmentation,
PyTorch training with the notebook's DataLoader) and `zeroflow run --device cuda` run on it, each
in its own process; zeroflow's per-stage times come from its summary.json (each stage ends with
a stream synchronisation), and its whole run is timed from process start to report.html.
zeroflow runs three times: with the seed's segmentation (`--segmentation seed`, like with like:
the stage table), with `--segmentation seed --normalize none`, whose rows are the seed's raw
samples, so that its final loss is comparable with the seed's (z-scored rows have a different
scale, so their loss is a different number), and with its defaults (robust detection, every beat
scored by shape and rhythm: the "default (robust)" rows).
Segmentation is timed as the seed times its own: the seed runs its stages once on the recording
(JIT, CuPy's pool) and then times them; zeroflow's warm_up stage segments the recording once
(kernels loaded, pool grown) and the segment stage is the second run. The cold run is its own row.
Floors: bytes each stage must move divided by the bandwidth measured in the same process
(device copy for GPU stages, pinned host->device for the CSV bytes).

Usage (GPU machine): python3 bench/gpu_vs_seed.py ZEROFLOW_BIN SEED_PIPELINE.py [WORKDIR]
"""

import json
import os
import pathlib
import subprocess
import sys
import time

zeroflow, seed = sys.argv[1], sys.argv[2]
work = pathlib.Path(sys.argv[3] if len(sys.argv) > 3 else "/tmp/zeroflow-bench")
work.mkdir(parents=True, exist_ok=True)
csv = work / "ecg20M.csv"
samples = 20_000_000
if not csv.exists():
    subprocess.run(
        [zeroflow, "generate", "--hours", str(samples / 250 / 3600), "--decimals", "9", "--out", str(csv)], check=True
    )
size = csv.stat().st_size
with open(csv, "rb") as f:  # page cache warm for both
    while f.read(1 << 26):
        pass

import torch  # noqa: E402  bandwidths for the floors

x = torch.empty(1 << 28, dtype=torch.uint8, device="cuda")
y = torch.empty_like(x)
torch.cuda.synchronize()
t0 = time.perf_counter()
for _ in range(10):
    y.copy_(x)
torch.cuda.synchronize()
d2d = 2 * 10 * x.numel() / (time.perf_counter() - t0)  # bytes read + written per second
h = torch.empty(1 << 28, dtype=torch.uint8).pin_memory()
t0 = time.perf_counter()
for _ in range(5):
    x.copy_(h, non_blocking=True)
torch.cuda.synchronize()
h2d = 5 * h.numel() / (time.perf_counter() - t0)
del x, y, h
torch.cuda.empty_cache()

peer = subprocess.run(
    [sys.executable, seed, str(csv), "30", "heartbeats"],
    capture_output=True,
    text=True,
    env={**os.environ, "PYTHONUNBUFFERED": "1"},
)
print(peer.stdout[-3000:], peer.stderr[-2000:], flush=True)
result_lines = [l for l in peer.stdout.splitlines() if l.startswith("RESULT ")]
ref = json.loads(result_lines[-1][7:]) if result_lines else {}

out = work / "zf-out"
t0 = time.perf_counter()
# Like with like: the seed's segmentation (--segmentation seed) for the stage table.
run = subprocess.run(
    [zeroflow, "run", str(csv), "--device", "cuda", "--segmentation", "seed", "--force", "--out", str(out)],
    capture_output=True,
    text=True,
)
wall = time.perf_counter() - t0
# zeroflow's default (robust detection, every beat scored by shape and rhythm): its own rows.
robust_out = work / "zf-out-robust"
t0 = time.perf_counter()
robust_run = subprocess.run(
    [zeroflow, "run", str(csv), "--device", "cuda", "--force", "--out", str(robust_out)], capture_output=True, text=True
)
robust_wall = time.perf_counter() - t0
if robust_run.returncode != 0:
    print(robust_run.stderr[-2000:], flush=True)
robust = json.loads((robust_out / "summary.json").read_text()) if robust_run.returncode == 0 else {"stages_ms": {}}
print(run.stderr[-4000:], flush=True)
summary = json.loads((out / "summary.json").read_text()) if run.returncode == 0 else {"stages_ms": {}}
ms = summary["stages_ms"]
raw_out = work / "zf-out-raw"
raw_run = subprocess.run(
    [
        zeroflow,
        "run",
        str(csv),
        "--device",
        "cuda",
        "--segmentation",
        "seed",
        "--normalize",
        "none",
        "--force",
        "--out",
        str(raw_out),
    ],
    capture_output=True,
    text=True,
)
if raw_run.returncode != 0:
    print(raw_run.stderr[-2000:], flush=True)
raw = json.loads((raw_out / "summary.json").read_text()) if raw_run.returncode == 0 else {}

n = samples
floors = {  # bytes that must move / bandwidth, in ms
    "csv": size / h2d * 1e3,
    "segment": (4 * n * 3) / d2d * 1e3,  # read the signal ~3 times (z-score, filter+gate, embed)
}
rows = [
    (
        "CSV -> device float32",
        ref.get("csv_pyarrow", float("nan")) * 1e3 + ref.get("h2d_copy", 0) * 1e3,
        ms.get("load"),
        floors["csv"],
    ),
    ("  (pandas, for reference)", ref.get("csv_pandas", float("nan")) * 1e3, None, None),
    (
        "segmentation, all stages",
        sum(ref.get(k, 0) for k in ("ricker_fftconv", "nms_window180", "indices_lengths", "prune_embed")) * 1e3,
        ms.get("segment"),
        floors["segment"],
    ),
    ("  (first, cold run: warm_up)", None, ms.get("warm_up"), None),
    ("VAE training, 30 epochs", ref.get("vae_train", float("nan")) * 1e3, ms.get("train"), None),
    ("scoring every beat", ref.get("vae_eval", float("nan")) * 1e3, ms.get("score"), None),
    ("whole run, start to report", None, wall * 1e3, None),
    ("default (robust) segmentation", None, robust["stages_ms"].get("segment"), None),
    ("  rhythm part of the score", None, robust["stages_ms"].get("rhythm_score"), None),
    ("default (robust) whole run", None, robust_wall * 1e3, None),
]
print(
    f"\nfile: {csv.name}, {size / 1e6:.0f} MB, {n} samples; device copy {d2d / 1e12:.2f} TB/s, "
    f"pinned H2D {h2d / 1e9:.1f} GB/s"
)
print(f"{'stage':30s} {'seed ms':>10s} {'zeroflow ms':>12s} {'speed-up':>9s} {'floor ms':>9s}")
for name, peer_ms, zf_ms, floor in rows:
    fmt = lambda v: f"{v:10.1f}" if v is not None else f"{'-':>10s}"
    ratio = f"{peer_ms / zf_ms:8.1f}x" if peer_ms and zf_ms else f"{'-':>9s}"
    print(f"{name:30s} {fmt(peer_ms)} {fmt(zf_ms):>12s} {ratio} {fmt(floor)[1:]:>9s}")
print("default (robust) run's stages, ms: " + ", ".join(f"{k} {v:.1f}" for k, v in robust.get("stages_ms", {}).items()))
print(
    f"beats found/kept: seed {ref.get('beats_found')}/{ref.get('beats_kept')}, "
    f"zeroflow --segmentation seed {summary.get('beats_found')}/{summary.get('beats_kept')}, "
    f"zeroflow default {robust.get('beats_found')} (every beat scored)"
)
print(
    f"final loss, raw rows (--normalize none): seed train {ref.get('final_train_loss')}, test "
    f"{ref.get('test_loss')}; zeroflow train {raw.get('loss_per_epoch', [None])[-1]}, test "
    f"{raw.get('test_loss')} (training {raw.get('stages_ms', {}).get('train', float('nan')):.1f} ms)"
)
if ref.get("final_train_loss") and raw.get("loss_per_epoch"):
    print(
        f"  zeroflow / seed final train loss: {raw['loss_per_epoch'][-1] / ref['final_train_loss']:.3f} "
        f"(target: <= 1.05)"
    )
print(
    f"final loss, z-scored rows (default): train {summary.get('loss_per_epoch', [None])[-1]}, "
    f"test {summary.get('test_loss')}"
)
print(f"peak device memory: zeroflow {summary.get('peak_device_bytes', 0) / 1e9:.2f} GB")
print(
    "RESULT "
    + json.dumps(
        {
            "seed": ref,
            "zeroflow": summary.get("stages_ms"),
            "wall_s": wall,
            "zeroflow_raw": raw.get("stages_ms"),
            "raw_loss": raw.get("loss_per_epoch", [None])[-1],
        }
    )
)
