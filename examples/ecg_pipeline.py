#!/usr/bin/env python3
# %% [markdown]
# # The seed's ECG pipeline, through zeroflow, with other frameworks mixed in
#
# The seed notebook (and the seed talk) runs cuDF -> CuPy -> Numba -> PyTorch on
# one ECG recording. Here zeroflow holds the data and each framework works on zeroflow's memory in
# place; every hand-off is checked to keep the same data pointer.
#
# | step | `--device cuda` | `--device cpu` |
# |---|---|---|
# | load CSV | zeroflow (parsed on the GPU) | zeroflow |
# | band-pass (Ricker) | zeroflow | zeroflow |
# | NMS gate | **Numba** kernel writing into a zeroflow array | **NumPy** sliding max on zeroflow memory |
# | gate fix-up `g[1:] *= diff(g) == 1` | **CuPy** | **NumPy** |
# | beats, pruning, embedding | zeroflow | zeroflow |
# | VAE training and scores | zeroflow (LibTorch), rows handed over as a **PyTorch** tensor | same |
# | ranking the anomalies | **PyTorch** `topk` on zeroflow's scores | same |
#
# On the GPU, `zf.allocators.share_pool()` first makes PyTorch, CuPy and Numba allocate from
# zeroflow's pool, so one set of statistics covers the whole run.
#
# Run: `python examples/ecg_pipeline.py --device cpu` (or `cuda`); `--csv FILE` for your own
# recording (one column, 250 Hz unless `--sample-rate`), else a synthetic one is generated.
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time

import numpy as np

import zeroflow as zf


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        description="The seed's ECG pipeline through zeroflow, with NumPy or Numba + CuPy and PyTorch stages."
    )
    p.add_argument("--device", choices=["cpu", "cuda"], default="cuda" if zf.cuda_available() else "cpu")
    p.add_argument("--csv", help="recording (one column); default: a synthetic one")
    p.add_argument("--hours", type=float, default=0.5, help="length of the synthetic recording")
    p.add_argument("--sample-rate", type=float, default=250.0)
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--top", type=int, default=10, help="how many anomalies to list")
    p.add_argument("--json", help="write the summary (hand-offs, beats, memory) to this file")
    return p.parse_args(argv)


class Handoffs:
    """Records every hand-off between frameworks: (what, same data pointer?)."""

    def __init__(self):
        self.rows = []

    def check(self, what, before, after):
        self.rows.append((what, int(before) == int(after)))
        return after

    def all_zero_copy(self):
        return all(ok for _, ok in self.rows)


# %% [markdown]
# ## Memory: one pool
def memory_setup(device):
    if device == "cuda":
        # Before PyTorch, CuPy or Numba allocate anything on the GPU.
        return zf.allocators.share_pool(frameworks=("torch", "cupy", "numba"))
    return zf.memory.track("cpu")


# %% [markdown]
# ## The NMS gate, outside zeroflow
# The seed's 1-D non-maximum suppression: gate[p] = 1 when the sample (w+1)/2 into the window
# [p, p+w) is the window's maximum; then only rising edges survive (`gate[1:] *= diff(gate) == 1`).
def gate_numpy(filtered, window, handoffs):
    x = np.asarray(filtered)  # zeroflow -> NumPy (array interface)
    handoffs.check("zeroflow -> NumPy (filtered signal)", filtered.data_ptr, x.__array_interface__["data"][0])
    maxima = np.lib.stride_tricks.sliding_window_view(x, window).max(axis=1)
    gate = zf.zeros((len(maxima),), "uint8")  # zeroflow memory, filled by NumPy
    g = np.asarray(gate)
    handoffs.check("zeroflow -> NumPy (gate)", gate.data_ptr, g.__array_interface__["data"][0])
    g[:] = maxima == x[(window + 1) // 2 : (window + 1) // 2 + len(maxima)]
    g[1:] *= np.diff(g.astype(np.int8)) == 1
    return gate


def gate_numba_cupy(filtered, window, handoffs):
    import cupy as cp
    from numba import cuda

    if not hasattr(np, "row_stack"):
        # numba-cuda builds that predate NumPy 2.4 register an overload of np.row_stack (removed in
        # 2.4) when they compile their first kernel, and fail with AttributeError; NumPy's alias was vstack.
        np.row_stack = np.vstack

    @cuda.jit
    def segment_kernel(signal, window, out):
        base, step = cuda.grid(1), cuda.gridsize(1)
        for position in range(base, signal.shape[0] - window + 1, step):
            best = -math.inf
            for i in range(window):
                v = signal[position + i]
                best = v if v > best else best
            out[position] = 1 if best == signal[position + (window + 1) // 2] else 0

    n = filtered.shape[0] - window + 1
    gate = zf.empty((n,), "uint8", device="cuda")
    signal_view = cuda.as_cuda_array(filtered)  # zeroflow -> Numba (CUDA Array Interface)
    out_view = cuda.as_cuda_array(gate)
    handoffs.check(
        "zeroflow -> Numba (filtered signal)", filtered.data_ptr, signal_view.__cuda_array_interface__["data"][0]
    )
    handoffs.check("zeroflow -> Numba (gate)", gate.data_ptr, out_view.__cuda_array_interface__["data"][0])
    segment_kernel[80 * 32, 64](signal_view, window, out_view)
    g = cp.asarray(gate)  # zeroflow -> CuPy (CUDA Array Interface)
    handoffs.check("zeroflow -> CuPy (gate)", gate.data_ptr, g.data.ptr)
    g[1:] *= (cp.diff(g.astype(cp.int8)) == 1).astype(cp.uint8)
    cp.cuda.get_current_stream().synchronize()
    return gate


# %% [markdown]
# ## The pipeline
def main(argv=None):
    args = parse_args(argv)
    device = args.device
    if device == "cuda" and not zf.cuda_available():
        sys.exit("--device cuda needs a CUDA build of zeroflow and a GPU")
    stats = memory_setup(device)
    import torch

    handoffs = Handoffs()
    timings = {}
    t0 = time.perf_counter()

    # Load: the CSV column straight into the device's memory.
    with tempfile.TemporaryDirectory() as folder:
        path = args.csv
        if path is None:
            path = os.path.join(folder, "ecg.csv")
            zf.synth.write_ecg_csv(
                path, args.hours, sample_rate=args.sample_rate, anomaly_rate=0.03, heart_rate=90, seed=42
            )
        table = zf.read_csv(path, device=device)
    signal = table.columns[0]
    timings["load"] = time.perf_counter() - t0

    # Band-pass in zeroflow, the gate in NumPy or Numba + CuPy.
    sizes = zf.signal.segment_sizes(sample_rate=args.sample_rate)
    t = time.perf_counter()
    filtered = zf.signal.bandpass(signal, sizes.ricker_width)
    gate = (gate_numba_cupy if device == "cuda" else gate_numpy)(filtered, sizes.nms_window, handoffs)
    # The foreign gate must be zeroflow's own, bit for bit.
    reference = zf.signal.nms_gate(filtered, sizes.nms_window)
    same_gate = bool(np.array_equal(np.asarray(gate.copy("cpu")), np.asarray(reference.copy("cpu"))))

    # Beats: positions (weak peaks dropped, as zeroflow run does), lengths, normalised rows.
    positions = zf.signal.gate_positions(gate)
    norm = zf.signal.robust_zscore(signal)
    kernel_sum = float(np.asarray(zf.signal.ricker_kernel(sizes.ricker_width), dtype=np.float64).sum())
    positions = zf.signal.drop_weak_peaks(filtered, positions, sizes.nms_window, 0.1, norm.center * kernel_sum)
    lengths = zf.signal.beat_lengths(positions)
    beats = zf.signal.embed_beats(signal, positions, lengths, sizes.min_length, sizes.max_length, sizes.row_width, norm)
    timings["segment"] = time.perf_counter() - t

    # The VAE: rows go to PyTorch and back to zeroflow's trainer without a copy.
    t = time.perf_counter()
    rows = torch.from_dlpack(beats.rows)  # zeroflow -> PyTorch (DLPack)
    handoffs.check("zeroflow -> PyTorch (beat rows)", beats.rows.data_ptr, rows.data_ptr())
    vae = zf.VAE(sizes.row_width, device=device, seed=42)
    history = vae.train(rows, epochs=args.epochs)  # PyTorch -> zeroflow (DLPack)
    scores = vae.score(rows)
    timings["train+score"] = time.perf_counter() - t

    # Ranking in PyTorch, on zeroflow's scores.
    score = torch.from_dlpack(scores.score)  # zeroflow -> PyTorch
    handoffs.check("zeroflow -> PyTorch (scores)", scores.score.data_ptr, score.data_ptr())
    top = torch.topk(score, min(args.top, score.numel()))
    kept_index = torch.from_dlpack(beats.kept_index)
    starts = torch.from_dlpack(positions)[kept_index[top.indices]]
    anomalies = [
        {"beat": int(b), "time_s": float(s) / args.sample_rate, "score": float(v)}
        for b, s, v in zip(kept_index[top.indices].tolist(), starts.tolist(), top.values.tolist())
    ]
    if device == "cuda":
        torch.cuda.synchronize()
    timings["total"] = time.perf_counter() - t0

    summary = {
        "device": device,
        "samples": int(signal.shape[0]),
        "beats_found": int(lengths.shape[0]),
        "beats_kept": int(beats.rows.shape[0]),
        "gate_matches_zeroflow": same_gate,
        "loss_per_epoch": history.epoch_loss,
        "test_loss": history.test_loss,
        "top_anomalies": anomalies,
        "handoffs": [{"what": what, "zero_copy": ok} for what, ok in handoffs.rows],
        "all_zero_copy": handoffs.all_zero_copy(),
        "memory": stats.statistics(),
        "seconds": timings,
    }
    print(
        f"zeroflow ECG pipeline on {device}: {summary['samples']} samples, {summary['beats_found']} beats, "
        f"{summary['beats_kept']} kept; loss {history.epoch_loss[0]:.4g} -> {history.epoch_loss[-1]:.4g}"
    )
    for what, ok in handoffs.rows:
        print(f"  {'zero-copy' if ok else 'COPY     '}  {what}")
    print(f"  gate from {'Numba + CuPy' if device == 'cuda' else 'NumPy'} == zeroflow's nms_gate: {same_gate}")
    print("  most anomalous beats: " + ", ".join(f"#{a['beat']} at {a['time_s']:.1f} s" for a in anomalies[:5]))
    m = summary["memory"]
    print(f"  one pool ({device}): peak {m['peak_bytes'] / 2**20:.1f} MiB over {m['total_count']} allocations")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=2)
    return 0 if same_gate and handoffs.all_zero_copy() else 1


if __name__ == "__main__":
    sys.exit(main())
