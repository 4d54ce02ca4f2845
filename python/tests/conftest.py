"""Shared fixtures: the zeroflow executable and small recordings made once per session."""

import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
#: What `zeroflow run` leaves in its folder (robust segmentation, no --figures), sorted.
RUN_RESULTS = [
    "beats.atr",
    "beats.csv",
    "episodes.csv",
    "events.csv",
    "model.safetensors",
    "report.html",
    "summary.json",
]


@pytest.fixture(scope="session")
def zeroflow_bin():
    path = pathlib.Path(os.environ.get("ZEROFLOW_BIN", ROOT / "build" / "default" / "zeroflow"))
    assert path.exists(), f"{path} not built: run scripts/test (or set ZEROFLOW_BIN)"
    return path


@pytest.fixture(scope="session")
def png_zeroflow_bin(zeroflow_bin):
    """The executable, for tests that write --figures png; they skip where it was built without cairo."""
    info = run_cli(zeroflow_bin, "info").stdout
    if "PNG figures   not built in" in info:
        pytest.skip("this zeroflow was built without cairo (--figures png)")
    assert "PNG figures   cairo" in info, info
    return zeroflow_bin


def missing_test_dependency(message):
    """A test tool scripts/setup installs is missing: under scripts/test (ZEROFLOW_REQUIRE_TEST_DEPS=1,
    where its absence is a broken set-up) the test fails; elsewhere (a clone on another machine) it
    skips, saying what is missing."""
    if os.environ.get("ZEROFLOW_REQUIRE_TEST_DEPS") == "1":
        pytest.fail(message)
    pytest.skip(message)


def run_cli(binary, *args, check=True):
    """Runs the CLI; returns the CompletedProcess (text mode)."""
    proc = subprocess.run([str(binary), *map(str, args)], capture_output=True, text=True, timeout=600)
    if check and proc.returncode != 0:
        raise AssertionError(f"zeroflow {' '.join(map(str, args))} failed ({proc.returncode}):\n{proc.stderr}")
    return proc


def score_on_cpu(binary, recording, model, out, *args, check=True):
    """`zeroflow score RECORDING --model MODEL --out OUT --device cpu ARGS...` (run_cli's result)."""
    return run_cli(binary, "score", recording, "--model", model, "--out", out, "--device", "cpu", *args, check=check)


@pytest.fixture(scope="session")
def short_recording(zeroflow_bin, tmp_path_factory):
    """12 minutes of synthetic ECG at 250 Hz, 90 bpm, 5 % PVCs and no atrial premature beats, and its
    labels (sample,symbol,aami)."""
    folder = tmp_path_factory.mktemp("rec")
    csv = folder / "short.csv"
    run_cli(
        zeroflow_bin,
        "generate",
        "--hours",
        0.2,
        "--anomaly-rate",
        0.05,
        "--apb-rate",
        0,
        "--heart-rate",
        90,
        "--seed",
        7,
        "--out",
        csv,
    )
    return csv


@pytest.fixture(scope="session")
def short_run(zeroflow_bin, short_recording, tmp_path_factory):
    """`zeroflow run` on the short recording (CPU, few epochs): its output folder."""
    out = tmp_path_factory.mktemp("run")
    proc = run_cli(zeroflow_bin, "run", short_recording, "--out", out, "--device", "cpu", "--epochs", 8)
    return out, proc


@pytest.fixture(scope="session")
def run_119(zeroflow_bin, tmp_path_factory):
    """`zeroflow run` of MIT-BIH 119 (tests/data: ventricular bigeminy and trigeminy), once."""
    out = tmp_path_factory.mktemp("run119") / "out"
    run_cli(zeroflow_bin, "run", ROOT / "tests" / "data" / "mitdb" / "119.hea", "--out", out, "--epochs", "1",
            "--device", "cpu")  # fmt: skip
    return out


@pytest.fixture
def results_119(run_119, tmp_path):
    """A copy of run_119's folder for a test to change."""
    copy = tmp_path / "results"
    shutil.copytree(run_119, copy)
    return copy
