"""The seed-004 pipeline: the notebook's code against `zeroflow timeseries`, on the same file.

Usage: python3 bench/seed004_vs_zeroflow.py [--csv FILE] [--days 1096] [--step-minutes 60]
           [--column 7] [--devices cpu,cuda] [--runs 3] [--zeroflow build/default/zeroflow] [--json F]

The file: `zeroflow generate-electricity` (cached beside --csv), a stand-in for the notebook's
Kaggle electricity file, which is not reachable here; column 7 is the consumption, as in the
notebook's `df.iloc[:, 7]`.

The seed side is the notebook's end-to-end cell, run as written in a fresh Python process per run:
imports, `pd.read_csv` (`cudf.read_csv` on the GPU when cuDF is installed; pandas otherwise, and
the table says so), scikit-learn's `MinMaxScaler` on the host, the `Encoder` MLP (1-32-32-32-1)
trained for 100 full-batch epochs with Adam (lr 0.01, weight decay 1e-5), printing the loss every
10 epochs. One stage is added so that both sides do the same work: scoring every point by its
squared reconstruction error. The zeroflow side is one `zeroflow timeseries` process per run
(read on the device, min-max on the device, the same model and training — on a GPU zeroflow's own
kernels, which load no LibTorch; on the CPU LibTorch C++ — scores,
points.csv and summary.json written).

Each stage is timed inside its process (GPU stages end with a synchronisation); "end to end" is
the wall time of the whole process, interpreter or program start included. Medians over --runs.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# The seed-004 notebook's end-to-end cell, with timers between its steps and a scoring step.
SEED_SCRIPT = r"""
import time, json, sys
t0 = time.perf_counter()
marks = {}
def mark(name):
    global t0
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    t = time.perf_counter(); marks[name] = 1e3 * (t - t0); t0 = t
device = sys.argv[2]
path = sys.argv[1]
column = int(sys.argv[3])
import numpy as np
import pandas as pd
from sklearn.preprocessing import MinMaxScaler
import torch
import torch.nn as nn
from torch.autograd import Variable
use_cudf = False
if device.startswith("cuda"):
    try:
        import cudf as gd
        use_cudf = True
    except ImportError:
        pass
    torch.zeros(1, device=device)  # CUDA context, as the notebook's earlier cells had made it
mark("import")

if use_cudf:
    cudf_data = gd.read_csv(path)
    mark("read")
    minmax = MinMaxScaler().fit(cudf_data.iloc[:, column].to_numpy().reshape((-1, 1)).astype('float32'))
    series = minmax.transform(cudf_data.iloc[:, column].to_numpy().reshape((-1, 1)).astype('float32')).reshape((-1))
    series = gd.from_pandas(pd.DataFrame(series))
    mark("scale")
    from torch.utils.dlpack import from_dlpack
    X = from_dlpack(series.to_dlpack()).unsqueeze(1).to(device)
else:
    df = pd.read_csv(path)
    mark("read")
    minmax = MinMaxScaler().fit(df.iloc[:, column].values.reshape((-1, 1)).astype('float32'))
    df_time_series = minmax.transform(df.iloc[:, column].values.reshape((-1, 1)).astype('float32')).reshape((-1))
    df_time_series = pd.DataFrame(df_time_series)
    mark("scale")
    X = Variable(torch.from_numpy(df_time_series.values).float(), requires_grad=False).to(device)
mark("to_tensor")

class Encoder(nn.Module):
    def __init__(self, input_size, hidden_size, dimension=32):
        super(Encoder, self).__init__()
        self.hidden_size = hidden_size
        self.first_layer_encoder = nn.Linear(input_size, hidden_size)
        self.second_layer_encoder = nn.Linear(hidden_size, dimension)
        self.first_layer_decoder = nn.Linear(dimension, hidden_size)
        self.second_layer_decoder = nn.Linear(hidden_size, input_size)

    def forward(self, input):
        output = nn.functional.relu(self.first_layer_encoder(input))
        output = nn.functional.relu(self.second_layer_encoder(output))
        decode = nn.functional.relu(self.first_layer_decoder(output))
        decode = torch.sigmoid(self.second_layer_decoder(decode))
        return decode, output

num_epochs = 100
input_size = 1
learning_rate = 0.01

def train_model(X, device):
    model = Encoder(input_size, hidden_size=32, dimension=32).to(device)
    _X = X.to(device)
    criterion = nn.MSELoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate, weight_decay=1e-5)
    for epoch in range(num_epochs):
        output, _ = model(_X)
        loss = criterion(output, _X)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if (epoch) % 10 == 0:
            print('epoch [{:02d}/{}], loss:{:.9f}'.format(epoch, num_epochs, loss.data), file=sys.stderr)
    return model, loss.item()

model, final_loss = train_model(X, device)
mark("train")
with torch.no_grad():
    score = ((model(X)[0] - X) ** 2).mean(1).cpu().numpy()  # added: the anomaly score of every point
mark("score")
print(json.dumps({"stages_ms": marks, "final_loss": final_loss, "cudf": use_cudf, "rows": int(X.shape[0])}))
"""

STAGES = ["import", "read", "scale", "to_tensor", "train", "score"]
ZEROFLOW_STAGES = {
    "import": ["cuda_init"],
    "read": ["read"],
    "scale": ["scale"],
    "to_tensor": [],
    "train": ["train"],
    "score": ["score", "threshold"],
}


def run_seed(csv, device, column):
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", SEED_SCRIPT, csv, device, str(column)], capture_output=True, text=True, timeout=3600
    )
    wall = 1e3 * (time.perf_counter() - t0)
    if proc.returncode != 0:
        raise RuntimeError(f"the seed's code failed on {device}:\n{proc.stderr[-3000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result["wall_ms"] = wall
    return result


def run_zeroflow(binary, csv, device, column):
    out = tempfile.mkdtemp(prefix="zf-seed004-")
    try:
        t0 = time.perf_counter()
        proc = subprocess.run(
            [binary, "timeseries", csv, "--column", str(column), "--out", out, "--device", device],
            capture_output=True,
            text=True,
            timeout=3600,
        )
        wall = 1e3 * (time.perf_counter() - t0)
        if proc.returncode != 0:
            raise RuntimeError(f"zeroflow timeseries failed on {device}:\n{proc.stderr[-3000:]}")
        with open(os.path.join(out, "summary.json")) as f:
            summary = json.load(f)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    summary["wall_ms"] = wall
    return summary


def median_of(runs, key_path):
    values = []
    for r in runs:
        v = r
        for k in key_path:
            v = v.get(k) if isinstance(v, dict) else None
        if v is not None:
            values.append(v)
    return statistics.median(values) if values else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--zeroflow", default=os.path.join(here, "..", "build", "default", "zeroflow"))
    ap.add_argument(
        "--csv",
        default=os.path.join(os.environ.get("ZEROFLOW_BENCH_DATA", tempfile.gettempdir()), "zeroflow_electricity.csv"),
    )
    ap.add_argument("--days", type=float, default=1096, help="length of a generated file (1096: the seed's ~26 k rows)")
    ap.add_argument("--step-minutes", type=float, default=60)
    ap.add_argument("--column", type=int, default=7)
    ap.add_argument("--devices", default=None, help="comma-separated; default: cpu, and cuda when PyTorch sees a GPU")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", help="write every run and the medians to this file")
    args = ap.parse_args()

    if not os.path.exists(args.csv):
        subprocess.run(
            [
                args.zeroflow,
                "generate-electricity",
                "--out",
                args.csv,
                "--days",
                str(args.days),
                "--step-minutes",
                str(args.step_minutes),
            ],
            check=True,
        )
    if args.devices:
        devices = args.devices.split(",")
    else:
        import torch

        devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])

    report = {"csv": os.path.abspath(args.csv), "bytes": os.path.getsize(args.csv), "devices": {}}
    for device in devices:
        seed_runs, zf_runs = [], []
        for _ in range(args.runs):  # alternate, so that drifting machine load hits both alike
            seed_runs.append(run_seed(args.csv, "cuda:0" if device == "cuda" else device, args.column))
            zf_runs.append(run_zeroflow(args.zeroflow, args.csv, device, args.column))
        rows = []
        for stage in STAGES:
            seed_ms = median_of(seed_runs, ["stages_ms", stage])
            keys = [k for k in ZEROFLOW_STAGES[stage] if k in zf_runs[0]["stages_ms"]]
            zf_ms = statistics.median(sum(r["stages_ms"][k] for k in keys) for r in zf_runs) if keys else None
            rows.append((stage, seed_ms, zf_ms))
        rows.append(("end to end (process)", median_of(seed_runs, ["wall_ms"]), median_of(zf_runs, ["wall_ms"])))
        cudf = seed_runs[0].get("cudf", False)
        report["devices"][device] = {"seed": seed_runs, "zeroflow": zf_runs, "table": rows, "seed_cudf": cudf}

        print(
            f"\n{device.upper()}: {seed_runs[0]['rows']} rows of {os.path.basename(args.csv)} "
            f"({report['bytes'] / 1e6:.1f} MB), medians of {args.runs} runs"
            + ("" if device == "cpu" else f"; seed read with {'cuDF' if cudf else 'pandas (no cuDF here)'}")
        )
        print("| stage | seed notebook | zeroflow | ratio |")
        print("|---|---|---|---|")
        for stage, s, z in rows:
            ratio = f"{s / z:.1f}x" if s and z else "-"
            fs = f"{s:.1f} ms" if s is not None else "-"
            fz = (
                f"{z:.1f} ms"
                if z is not None
                else "(in read)"
                if stage == "to_tensor"
                else "(program start: in end to end)"
                if stage == "import"
                else "-"
            )
            print(f"| {stage} | {fs} | {fz} | {ratio} |")
        print(
            f"final loss: seed {median_of(seed_runs, ['final_loss']):.3g}, "
            f"zeroflow {median_of(zf_runs, ['final_loss']):.3g}"
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)


if __name__ == "__main__":
    main()
