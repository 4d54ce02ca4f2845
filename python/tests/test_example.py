"""examples/ecg_pipeline.py on the CPU (the GPU run is the lead's: docs/python.md): a small
synthetic recording, every hand-off zero-copy, NumPy's gate equal to zeroflow's, and the most
anomalous beats are the premature ventricular ones."""

import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import zeroflow as zf  # noqa: E402  (scripts/test installs it; a missing module must fail, not skip)

pytest.importorskip("torch")
EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "ecg_pipeline.py"


def test_example_runs_on_the_cpu(tmp_path):
    csv = tmp_path / "ecg.csv"
    labels = zf.synth.write_ecg_csv(csv, 0.2, anomaly_rate=0.03, heart_rate=90, seed=3)
    out = tmp_path / "summary.json"
    proc = subprocess.run(
        [
            sys.executable,
            str(EXAMPLE),
            "--device",
            "cpu",
            "--csv",
            str(csv),
            "--epochs",
            "10",
            "--top",
            "5",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    summary = json.loads(out.read_text())
    assert summary["all_zero_copy"] and summary["gate_matches_zeroflow"]
    assert len(summary["handoffs"]) == 4
    assert summary["beats_found"] > 0.95 * 0.2 * 3600 * 1.5  # 90 bpm
    assert summary["beats_kept"] > 0.95 * summary["beats_found"]
    truth = np.genfromtxt(labels, delimiter=",", names=True, dtype=None, encoding="utf-8")
    pvc_seconds = truth["sample"][truth["symbol"] == "V"] / 250.0
    hits = sum(np.min(np.abs(pvc_seconds - a["time_s"])) < 1.5 for a in summary["top_anomalies"])
    assert hits >= 4, (summary["top_anomalies"], pvc_seconds[:20])
    assert summary["memory"]["current_bytes"] >= 0 and summary["memory"]["peak_bytes"] > 0
