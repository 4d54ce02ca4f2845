"""`zeroflow train-population` on GPUs (zeroflow's fused step, NCCL between GPUs), through the CLI:
a run killed with SIGKILL after a checkpoint and resumed writes the model file of a run never
stopped, byte for byte; two GPUs reach one GPU's loss for the same global batch. Skips where the
CLI was built without CUDA or the machine has too few GPUs (the CPU path's tests:
test_population.py)."""

from __future__ import annotations

import re
import signal
import subprocess
import time

import pytest


def _gpus(binary) -> int:
    """GPUs the CLI can use: `zeroflow info` lists one "GPU N" line each (none in a CPU build)."""
    info = subprocess.run([str(binary), "info"], capture_output=True, text=True, timeout=120).stdout
    return len(re.findall(r"^GPU \d+ ", info, re.M))


@pytest.fixture(scope="module")
def gpus(zeroflow_bin):
    n = _gpus(zeroflow_bin)
    if n < 1:
        pytest.skip("needs a CUDA build of the CLI and a GPU")
    return n


@pytest.fixture(scope="module")
def recordings(zeroflow_bin, tmp_path_factory):
    """Four synthetic 20-minute recordings: about 5,600 beats together."""
    folder = tmp_path_factory.mktemp("population_gpus")
    paths = []
    for seed in range(4):
        path = folder / f"r{seed}.csv"
        subprocess.run(
            [str(zeroflow_bin), "generate", "--hours", "0.33", "--seed", str(seed), "--heart-rate", str(64 + 3 * seed)]
            + ["--out", str(path)],
            check=True,
            capture_output=True,
            timeout=300,
        )
        paths.append(str(path))
    return paths


def _train(binary, paths, out, *extra, check=True):
    command = [str(binary), "train-population", *paths, "--out", str(out), "--device", "cuda", "--seed", "3"]
    proc = subprocess.run(command + list(extra), capture_output=True, text=True, timeout=600)
    if check:
        assert proc.returncode == 0, proc.stderr + proc.stdout
    return proc


def _final_loss(stdout: str) -> float:
    return float(re.search(r"final loss ([0-9.eE+-]+)", stdout)[1])


def test_killed_run_resumes_to_the_uninterrupted_model(zeroflow_bin, gpus, recordings, tmp_path):
    epochs = ["--epochs", "3000", "--batch", "512"]  # seconds of training: time to kill it
    reference = tmp_path / "reference.safetensors"
    _train(zeroflow_bin, recordings, reference, *epochs, "--checkpoint-every", "0")

    out = tmp_path / "killed.safetensors"
    checkpoint = tmp_path / "killed.safetensors.checkpoint"
    command = [str(zeroflow_bin), "train-population", *recordings, "--out", str(out), "--device", "cuda"]
    command += ["--seed", "3", *epochs, "--checkpoint-every", "100"]
    run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 300
        while not checkpoint.exists():
            assert run.poll() is None, "the run ended before its first checkpoint: " + run.stdout.read().decode()
            assert time.monotonic() < deadline, "no checkpoint after 300 s"
            time.sleep(0.001)
        run.send_signal(signal.SIGKILL)
    finally:
        run.kill()
        run.wait()
    assert run.returncode == -signal.SIGKILL, "the run finished before it was killed"
    assert checkpoint.exists() and not out.exists()

    refused = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert refused.returncode == 1 and f"an interrupted run left {checkpoint}" in refused.stderr
    resumed = subprocess.run(command + ["--resume"], capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    assert "(resumed after " in resumed.stdout
    assert out.read_bytes() == reference.read_bytes()
    assert not checkpoint.exists()


def test_two_gpus_reach_one_gpus_loss(zeroflow_bin, gpus, recordings, tmp_path):
    if gpus < 2:
        pytest.skip("needs two GPUs")
    settings = ["--epochs", "20", "--batch", "1024", "--checkpoint-every", "0"]
    one = _train(zeroflow_bin, recordings, tmp_path / "one.safetensors", *settings)
    two = _train(zeroflow_bin, recordings, tmp_path / "two.safetensors", *settings, "--gpus", "2")
    assert "with 2 GPUs" in two.stdout
    a, b = _final_loss(one.stdout), _final_loss(two.stdout)
    assert abs(a - b) <= 1e-5 * abs(a), (a, b)


def test_refuses_more_gpus_than_the_machine_has(zeroflow_bin, gpus, recordings, tmp_path):
    proc = _train(zeroflow_bin, recordings, tmp_path / "m.safetensors", "--gpus", str(gpus + 1), check=False)
    assert proc.returncode == 1 and f"this machine has {gpus}" in proc.stderr


def test_python_trains_on_the_gpu_as_the_cli_does(zeroflow_bin, gpus, recordings, tmp_path):
    """`zeroflow.population.train(device="cuda")` in one process is the library's trainer: the
    model file of the CLI's GPU path, byte for byte."""
    zf = pytest.importorskip("zeroflow")
    from zeroflow import population

    if not zf.cuda_available():
        pytest.skip("the zeroflow module was built without CUDA")
    lines = []
    result = population.train(
        recordings,
        tmp_path / "python.safetensors",
        epochs=5,
        batch=512,
        seed=3,
        device="cuda",
        checkpoint_every=0,
        progress=lines.append,
    )
    cli = _train(
        zeroflow_bin,
        recordings,
        tmp_path / "cli.safetensors",
        "--epochs",
        "5",
        "--batch",
        "512",
        "--checkpoint-every",
        "0",
    )
    assert (tmp_path / "python.safetensors").read_bytes() == (tmp_path / "cli.safetensors").read_bytes()
    assert abs(result.epoch_loss[-1] - _final_loss(cli.stdout)) <= 1e-6 * result.epoch_loss[-1]
    assert result.processes == 1 and result.backend == "" and len(result.epoch_loss) == 5
    assert any(line.startswith("epoch 5/5") for line in lines), lines
