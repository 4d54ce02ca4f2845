"""One pool for all (zeroflow.allocators). Routing is process-wide, so the GPU checks run in a
fresh interpreter each; without a GPU only the refusals are checked."""

import os
import subprocess
import sys
import textwrap

import pytest

import zeroflow as zf  # noqa: E402  (scripts/test installs it; a missing module must fail, not skip)

gpu = pytest.mark.skipif(not zf.cuda_available(), reason="needs a CUDA build of zeroflow and a GPU")


def run_python(code):
    """Runs `code` in a fresh interpreter with this zeroflow importable; returns its stdout."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert "leaked" not in proc.stderr, proc.stderr
    return proc.stdout


def test_refusals_without_a_cuda_resource():
    with pytest.raises(ValueError, match="CUDA resource"):
        zf.allocators.use_for_torch(zf.memory.HostResource())
    if not zf.cuda_available():
        with pytest.raises(zf.CudaError):
            zf.allocators.share_pool()
    with pytest.raises(AttributeError):
        zf.allocators.no_such_thing


def test_configure_jax_sets_defaults_only(monkeypatch):
    monkeypatch.delenv("XLA_PYTHON_CLIENT_PREALLOCATE", raising=False)
    monkeypatch.setenv("XLA_PYTHON_CLIENT_MEM_FRACTION", "0.5")
    zf.allocators.configure_jax({"XLA_PYTHON_CLIENT_PREALLOCATE": "false", "XLA_PYTHON_CLIENT_MEM_FRACTION": "0.2"})
    assert os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] == "false"
    assert os.environ["XLA_PYTHON_CLIENT_MEM_FRACTION"] == "0.5"  # the user's setting wins


@gpu
def test_unknown_frameworks_are_refused():
    run_python("""
        import zeroflow as zf
        try:
            zf.allocators.share_pool(frameworks=["tensorflow"])
        except ValueError as e:
            assert "unknown frameworks" in str(e)
        else:
            raise AssertionError("tensorflow accepted")
    """)


@gpu
def test_torch_allocates_from_the_shared_pool():
    pytest.importorskip("torch")
    out = run_python("""
        import zeroflow as zf
        stats = zf.allocators.share_pool(frameworks=["torch"])
        import torch
        before = stats.statistics()["current_bytes"]
        x = torch.empty(1 << 20, device="cuda")          # 4 MiB through zeroflow's pool
        grew = stats.statistics()["current_bytes"] - before
        z = zf.asarray(x)                                 # and back without a copy
        assert z.data_ptr == x.data_ptr()
        del x, z
        torch.cuda.synchronize()
        print(grew, stats.statistics()["current_bytes"] - before)
    """)
    grew, left = map(int, out.split())
    assert grew == 4 << 20 and left == 0


@gpu
def test_cupy_allocates_from_the_shared_pool():
    pytest.importorskip("cupy")
    out = run_python("""
        import zeroflow as zf
        stats = zf.allocators.share_pool(frameworks=["cupy"])
        import cupy as cp
        before = stats.statistics()["current_bytes"]
        x = cp.ones(1000, dtype=cp.float64)
        grew = stats.statistics()["current_bytes"] - before
        assert zf.asarray(x).data_ptr == x.data.ptr
        del x
        print(grew, stats.statistics()["current_bytes"] - before)
    """)
    grew, left = map(int, out.split())
    assert grew >= 8000 and left == 0


@gpu
def test_numba_allocates_from_the_shared_pool():
    pytest.importorskip("numba.cuda")
    out = run_python("""
        import numpy as np
        import zeroflow as zf
        stats = zf.allocators.share_pool(frameworks=["numba"])
        from numba import cuda
        before = stats.statistics()["current_bytes"]
        d = cuda.to_device(np.arange(1000, dtype=np.int64))
        grew = stats.statistics()["current_bytes"] - before
        z = zf.asarray(d)
        assert z.data_ptr == d.__cuda_array_interface__["data"][0]
        assert np.array_equal(np.asarray(z.copy("cpu")), np.arange(1000))
        del d, z
        print(grew, stats.statistics()["current_bytes"] - before)
    """)
    grew, left = map(int, out.split())
    assert grew == 8000 and left == 0


@gpu
def test_everything_shares_one_pool():
    pytest.importorskip("torch")
    pytest.importorskip("cupy")
    out = run_python("""
        import zeroflow as zf
        stats = zf.allocators.share_pool()
        import cupy as cp, torch
        a = zf.zeros((1 << 18,), "float32", device="cuda")   # 1 MiB zeroflow
        b = torch.zeros(1 << 18, device="cuda")              # 1 MiB torch
        c = cp.zeros(1 << 18, dtype=cp.float32)              # 1 MiB CuPy
        print(stats.statistics()["current_bytes"] >= 3 << 20, stats.statistics()["current_count"] >= 3)
    """)
    assert out.split() == ["True", "True"]
