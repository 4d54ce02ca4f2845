"""Importing zeroflow and torch in either order works (a crash of the GPU build, see _load.py)."""

import subprocess
import sys

import pytest

import zeroflow as zf

SCRIPTS = {
    "zeroflow first": "import zeroflow as zf, torch, torch.nn.functional",
    "torch first": "import torch, torch.nn.functional, zeroflow as zf",
}


@pytest.mark.skipif(not zf.has_torch, reason="this build does not link LibTorch")
@pytest.mark.parametrize("order", sorted(SCRIPTS))
def test_zeroflow_and_torch_import_in_either_order(order):
    device = "cuda" if zf.cuda_available() else "cpu"
    # A DLPack round trip proves both libraries are usable after the imports, not just loaded.
    script = SCRIPTS[order] + (
        f"\nt = torch.arange(5, dtype=torch.float32, device='{device}')"
        "\na = zf.asarray(t)"
        "\nback = torch.from_dlpack(a)"
        "\nassert back.data_ptr() == t.data_ptr() and back.sum().item() == 10.0"
        "\nprint('ok')"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"{order}: exit {proc.returncode}\n{proc.stderr[-2000:]}"
    assert proc.stdout.strip().endswith("ok")


def test_the_core_does_not_link_torch():
    """The core reaches LibTorch only through its backend module, loaded when a path needs it, so
    importing zeroflow loads no LibTorch library."""
    from zeroflow import _build_config

    assert _build_config.LINKS_TORCH is False
    assert _build_config.HAS_CUDA == zf.has_cuda
    script = (
        "import zeroflow, sys"
        "\nmaps = open('/proc/self/maps').read()"
        "\nprint('torch' in sys.modules, 'libtorch' in maps, 'libzeroflow_torch' in maps)"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["False", "False", "False"], proc.stdout
