#!/usr/bin/env python3
# %% [markdown]
# # The seed-004 pipeline with zeroflow's scikit-learn estimators
#
# The seed-004 notebook reads a consumption column of a multi-column CSV, min-max scales it (on the CPU:
# cuDF had no MinMaxScaler), trains an MLP autoencoder with PyTorch and looks at its
# reconstruction. Here the same steps are a scikit-learn ``Pipeline`` of zeroflow estimators:
#
# | step | what runs |
# |---|---|
# | load one column | ``zeroflow.read_csv`` (parsed on the GPU with ``--device cuda``), handed to PyTorch without a copy |
# | min-max scaling | ``zeroflow.sklearn.MinMaxScaler``, on the tensor's device |
# | MLP autoencoder 1-32-32-32-1, 100 epochs | ``zeroflow.sklearn.AutoEncoderOutlierDetector`` (LibTorch C++) |
# | anomaly score per point | ``score_samples`` (minus the reconstruction error), ``predict`` (Tukey's fence) |
#
# The input is a PyTorch tensor, so every result is a PyTorch tensor on the same device.
#
# Run: ``zeroflow generate-electricity --out electricity.csv`` (a stand-in for the seed's Kaggle
# file, which is not reachable here), then
# ``python examples/timeseries_pipeline.py electricity.csv --column electricity_consumption``.
# Labels beside the CSV (``electricity.labels.csv``) are used to report AUROC when present.
from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np
import torch
from sklearn.pipeline import make_pipeline

import zeroflow as zf
from zeroflow.sklearn import AutoEncoderOutlierDetector, MinMaxScaler


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="seed-004: one CSV column -> min-max -> MLP autoencoder -> anomaly scores")
    p.add_argument("csv", help="a CSV with a header, e.g. from `zeroflow generate-electricity`")
    p.add_argument("--column", default="electricity_consumption", help="column name or 0-based index")
    p.add_argument("--device", choices=["cpu", "cuda"], default="cuda" if zf.cuda_available() else "cpu")
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--top", type=int, default=10, help="how many of the most anomalous points to list")
    p.add_argument("--json", help="write a summary to this file")
    return p.parse_args(argv)


def labels_for(csv: str, column: str, n: int):
    """The labelled anomalies of `column` from CSV's .labels.csv (row,datetime,column,kind), if any."""
    path = os.path.splitext(csv)[0] + ".labels.csv"
    if not os.path.exists(path):
        return None
    import pandas as pd

    labels = pd.read_csv(path)
    truth = np.zeros(n, dtype=bool)
    truth[labels.loc[labels["column"] == column, "row"].to_numpy()] = True
    return truth


def main(argv=None) -> dict:
    args = parse_args(argv)
    column = int(args.column) if args.column.isdigit() else args.column
    times = {}

    start = time.perf_counter()
    table = zf.read_csv(args.csv, columns=[column], device=args.device)
    name = table.names[0]
    values = torch.from_dlpack(table.columns[0])  # zeroflow's column as a tensor: same memory
    x = values.unsqueeze(1)  # one feature: n x 1, a view
    times["read_ms"] = 1e3 * (time.perf_counter() - start)

    start = time.perf_counter()
    pipe = make_pipeline(MinMaxScaler(), AutoEncoderOutlierDetector(epochs=args.epochs, random_state=42))
    pipe.fit(x)
    times["fit_ms"] = 1e3 * (time.perf_counter() - start)

    start = time.perf_counter()
    scores = pipe.score_samples(x)  # a torch tensor on x's device: higher = more normal
    flags = pipe.predict(x)  # +1 / -1
    times["score_ms"] = 1e3 * (time.perf_counter() - start)
    assert isinstance(scores, torch.Tensor) and scores.device == x.device

    detector = pipe[-1]
    error = (-scores).cpu().numpy()
    top = np.argsort(error)[::-1][: args.top]
    summary = {
        "csv": args.csv,
        "column": name,
        "rows": int(x.shape[0]),
        "device": str(x.device),
        "final_loss": detector.loss_curve_[-1],
        "outliers": int((flags == -1).sum()),
        "times": times,
        "top": [{"row": int(i), "value": float(values[i]), "error": float(error[i])} for i in top],
    }
    truth = labels_for(args.csv, name, len(error))
    if truth is not None and truth.any() and not truth.all():
        from sklearn.metrics import roc_auc_score

        summary["auroc"] = float(roc_auc_score(truth, error))
        summary["top_labelled"] = int(truth[top].sum())
    print(
        f"{summary['rows']} points of {name!r} on {summary['device']}: final loss {summary['final_loss']:.3g}, "
        f"{summary['outliers']} outliers" + (f", AUROC {summary['auroc']:.3f}" if "auroc" in summary else "")
    )
    for t in summary["top"]:
        print(f"  row {t['row']:>7}: value {t['value']:10.1f}  error {t['error']:.4g}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=2)
    return summary


if __name__ == "__main__":
    main()
