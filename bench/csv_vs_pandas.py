"""CSV loading: zeroflow's read_csv against pandas.read_csv(dtype=float32) on the same file.

Usage: python3 csv_vs_pandas.py [--bench PATH/zeroflow_read_csv_bench] [--file F.csv]
                                [--values N] [--runs R] [--threads T]

Generates once (cached at --file, default $ZEROFLOW_BENCH_DATA or the system temp folder) a
single-column float CSV like the seed notebook's: header `heartbeats`, then N (20 M) values of
an ECG-like float64 signal written with Python's repr, about 20-25 bytes per line (~450 MB).
Times pandas (best and median of R runs; the first read also warms the page cache) and the
bench program (median of R runs), and prints a table with the ratio. Physical limit for
reference: the bytes must be read once from the page cache (memory bandwidth, several GB/s).
"""

import argparse
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np


def generate(path, n, seed=42):
    rng = np.random.default_rng(seed)
    tmp = path + ".part"
    t0 = time.perf_counter()
    with open(tmp, "w", encoding="ascii") as f:
        f.write("heartbeats\n")
        step = 1_000_000
        for start in range(0, n, step):
            t = np.arange(start, min(n, start + step)) / 250.0
            # beats ~1.2 Hz as narrow peaks, baseline wander, noise: mV-scale float64 values
            phase = (t * 1.2) % 1.0
            x = 1.5 * np.exp(-(((phase - 0.3) / 0.012) ** 2)) - 0.2 * np.exp(-(((phase - 0.36) / 0.02) ** 2))
            x += 0.3 * np.exp(-(((phase - 0.6) / 0.06) ** 2)) + 0.1 * np.sin(2 * math.pi * 0.2 * t)
            x += rng.normal(0.0, 0.03, size=t.shape)
            f.write("\n".join(map(repr, x.tolist())))
            f.write("\n")
    os.replace(tmp, path)
    print(f"generated {path}: {n} values, {os.path.getsize(path) / 1e6:.1f} MB in {time.perf_counter() - t0:.1f} s")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--bench", default=os.path.join(here, "..", "build", "bench", "zeroflow_read_csv_bench"))
    default_dir = os.environ.get("ZEROFLOW_BENCH_DATA", tempfile.gettempdir())
    ap.add_argument("--file", default=os.path.join(default_dir, "zeroflow_heartbeats_20M.csv"))
    ap.add_argument("--values", type=int, default=20_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=0, help="zeroflow threads (0 = all cores)")
    args = ap.parse_args()

    if not os.path.exists(args.file):
        generate(args.file, args.values)
    size_mb = os.path.getsize(args.file) / 1e6

    import pandas as pd

    pandas_times, pandas_cpu = [], []
    for _ in range(args.runs):
        c0, t0 = time.process_time(), time.perf_counter()
        df = pd.read_csv(args.file, dtype="float32")
        pandas_times.append(time.perf_counter() - t0)
        pandas_cpu.append(time.process_time() - c0)
    pandas_rows = len(df)
    reference = df["heartbeats"].to_numpy()
    del df

    out = subprocess.run(
        [args.bench, args.file, "heartbeats", str(args.threads), str(max(args.runs, 3))],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    print(out.strip())
    fields = dict(kv.split("=") for kv in out.strip().splitlines()[-1].split()[1:])
    zf_time, zf_cpu, zf_rows = float(fields["seconds"]), float(fields["cpu_seconds"]), int(fields["rows"])
    if zf_rows != pandas_rows:
        sys.exit(f"row counts differ: zeroflow {zf_rows}, pandas {pandas_rows}")

    pandas_median = statistics.median(pandas_times)
    pandas_cpu_median = statistics.median(pandas_cpu)
    load = os.getloadavg()[0]
    print()
    print(f"file: {args.file} ({size_mb:.1f} MB, {pandas_rows} rows), cores: {os.cpu_count()}, load: {load:.1f}")
    print(f"{'reader':30s} {'wall s':>8s} {'MB/s':>8s} {'speedup':>8s} {'CPU s':>8s} {'CPU ratio':>10s}")
    print(
        f"{'pandas.read_csv(float32)':30s} {pandas_median:8.3f} {size_mb / pandas_median:8.1f} {1.0:7.2f}x "
        f"{pandas_cpu_median:8.3f} {1.0:9.2f}x"
    )
    print(
        f"{'zeroflow read_csv (float32)':30s} {zf_time:8.3f} {size_mb / zf_time:8.1f} "
        f"{pandas_median / zf_time:7.2f}x {zf_cpu:8.3f} {pandas_cpu_median / zf_cpu:9.2f}x"
    )
    print(f"pandas runs: {', '.join(f'{t:.3f}' for t in pandas_times)} s")
    if load > os.cpu_count():
        print(
            f"note: load average {load:.1f} on {os.cpu_count()} cores: other work shares the CPUs, wall times are noisy"
        )
    print(
        f"RESULT pandas_s={pandas_median:.4f} zeroflow_s={zf_time:.4f} speedup={pandas_median / zf_time:.2f} "
        f"pandas_cpu_s={pandas_cpu_median:.4f} zeroflow_cpu_s={zf_cpu:.4f} "
        f"mb={size_mb:.1f} rows={pandas_rows} first={reference[0]!r}"
    )


if __name__ == "__main__":
    main()
