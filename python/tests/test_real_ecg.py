"""The real 5-minute ECG shipped by Debian's python3-scipy (MIT-BIH record 208, 360 Hz)."""

import json
import pathlib

import numpy as np
import pytest
from conftest import missing_test_dependency, run_cli

ECG_DAT = pathlib.Path("/usr/lib/python3/dist-packages/scipy/misc/ecg.dat")


@pytest.fixture(scope="module")
def scipy_ecg_csv(tmp_path_factory):
    if not ECG_DAT.exists():
        missing_test_dependency(f"{ECG_DAT} missing: scripts/setup installs python3-scipy")
    with np.load(ECG_DAT) as f:  # what scipy.misc.electrocardiogram() does: ADC counts -> mV
        ecg = (f["ecg"].astype(int) - 1024) / 200.0
    path = tmp_path_factory.mktemp("scipy") / "ecg208.csv"
    np.savetxt(path, ecg, fmt="%.3f", header="ecg", comments="")
    return path


def test_real_ecg_gives_a_plausible_beat_count(zeroflow_bin, scipy_ecg_csv, tmp_path):
    run_cli(
        zeroflow_bin, "run", scipy_ecg_csv, "--sample-rate", 360, "--out", tmp_path, "--device", "cpu", "--epochs", 5
    )
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["samples"] == 108000
    minutes = 108000 / 360 / 60
    # Record 208 runs at roughly 70-110 bpm (many PVCs): a plausible count, not an exact one.
    assert 60 * minutes <= summary["beats_found"] <= 130 * minutes, summary["beats_found"]
    assert summary["beats_kept"] >= 0.8 * summary["beats_found"]
