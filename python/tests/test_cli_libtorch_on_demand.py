"""LibTorch only where it is needed: the tool does not link it (no DT_NEEDED entry), `--help`,
`info`, `generate` and `evaluate` never load it, and a run, a scoring and the seed-004 pipeline
(`timeseries`) train and score on zeroflow's own kernels without it, on the CPU and on a GPU.

What a process loads is read from the dynamic loader's own account (glibc's LD_DEBUG=files on
stderr: one "file=... [0];  needed by ..." or "calling init" line per library), which sees every
library, dlopen-ed ones included."""

import os
import subprocess

import pytest
from conftest import run_cli

import zeroflow as zf

pytestmark = pytest.mark.skipif(not zf.has_torch, reason="zeroflow built without LibTorch")


def loaded_libraries(zeroflow_bin, *args):
    env = dict(os.environ, LD_DEBUG="files")
    proc = subprocess.run([str(zeroflow_bin), *map(str, args)], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    names = set()
    for line in proc.stderr.splitlines():
        if "file=" in line:
            name = line.split("file=", 1)[1].split()[0].rstrip(";")
            names.add(os.path.basename(name))
    return names


def torch_of(names):
    return sorted(n for n in names if n.startswith(("libtorch", "libc10", "libzeroflow_torch")))


def test_the_tool_does_not_link_libtorch(zeroflow_bin):
    needed = subprocess.run(["readelf", "-d", str(zeroflow_bin)], capture_output=True, text=True)
    if needed.returncode != 0:
        pytest.skip("readelf is not installed")
    entries = [line for line in needed.stdout.splitlines() if "(NEEDED)" in line]
    assert entries, needed.stdout
    assert not [line for line in entries if "torch" in line or "c10" in line], entries


@pytest.mark.parametrize("args", [["--help"], ["info"], ["run", "--help"]])
def test_help_and_info_never_load_libtorch(zeroflow_bin, args):
    names = loaded_libraries(zeroflow_bin, *args)
    assert "libc.so.6" in names  # the loader's account is there at all
    assert torch_of(names) == []


def test_generate_and_evaluate_never_load_libtorch(zeroflow_bin, short_run, tmp_path):
    assert torch_of(loaded_libraries(zeroflow_bin, "generate", "--hours", 0.01, "--out", tmp_path / "g.csv")) == []
    out, _ = short_run
    assert torch_of(loaded_libraries(zeroflow_bin, "evaluate", out)) == []


def test_info_names_the_backend_without_loading_it(zeroflow_bin):
    line = next(x for x in run_cli(zeroflow_bin, "info").stdout.splitlines() if x.startswith("LibTorch"))
    assert "libzeroflow_torch.so" in line and "loaded when PyTorch's CUDA memory is routed" in line, line


def test_a_cpu_run_and_its_scoring_never_load_libtorch(zeroflow_bin, short_recording, tmp_path):
    names = loaded_libraries(
        zeroflow_bin, "run", short_recording, "--out", tmp_path / "o", "--device", "cpu", "--epochs", 1
    )
    assert "libc.so.6" in names
    assert torch_of(names) == []
    model = tmp_path / "o" / "model.safetensors"
    scored = loaded_libraries(
        zeroflow_bin, "score", short_recording, "--model", model, "--out", tmp_path / "s", "--device", "cpu"
    )
    assert torch_of(scored) == []


def test_a_gpu_run_never_loads_libtorch(zeroflow_bin, short_recording, tmp_path):
    if not zf.has_cuda or not zf.cuda_available():
        pytest.skip("no GPU")
    names = loaded_libraries(
        zeroflow_bin, "run", short_recording, "--out", tmp_path / "o", "--device", "cuda", "--epochs", 2
    )
    assert torch_of(names) == []
    scored = loaded_libraries(
        zeroflow_bin,
        "score",
        short_recording,
        "--model",
        tmp_path / "o" / "model.safetensors",
        "--out",
        tmp_path / "s",
        "--device",
        "cuda",
    )
    assert torch_of(scored) == []


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_the_seed004_pipeline_never_loads_libtorch(zeroflow_bin, tmp_path, device):
    if device == "cuda" and (not zf.has_cuda or not zf.cuda_available()):
        pytest.skip("no GPU")
    table = tmp_path / "el.csv"
    run_cli(zeroflow_bin, "generate-electricity", "--days", 30, "--seed", 2, "--out", table)
    args = ["timeseries", table, "--column", "electricity_consumption", "--epochs", 20]
    names = loaded_libraries(zeroflow_bin, *args, "--out", tmp_path / device, "--device", device)
    assert torch_of(names) == []
    assert len((tmp_path / device / "points.csv").read_text().splitlines()) > 700
