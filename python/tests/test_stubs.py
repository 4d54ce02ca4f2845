"""The committed type stub of the compiled core (python/zeroflow/_zeroflow.pyi) matches the module,
and the public modules carry docstrings and annotations."""

import inspect
import pathlib
import subprocess
import sys

import pytest

import zeroflow as zf  # noqa: E402  (scripts/test installs it; a missing module must fail, not skip)

STUB = pathlib.Path(__file__).resolve().parents[1] / "zeroflow" / "_zeroflow.pyi"


def test_core_stub_is_current(tmp_path):
    pytest.importorskip("nanobind.stubgen")
    out = tmp_path / "_zeroflow.pyi"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "nanobind.stubgen",
            "-q",
            "--exclude-values",
            "-m",
            "zeroflow._zeroflow",
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert out.read_text() == STUB.read_text(), (
        "python/zeroflow/_zeroflow.pyi is stale: regenerate it with "
        "python -m nanobind.stubgen -q --exclude-values -m zeroflow._zeroflow -o python/zeroflow/_zeroflow.pyi"
    )


def test_public_functions_are_documented_and_typed():
    modules = [
        zf.io,
        zf.signal,
        zf.model,
        zf.pipeline,
        zf.memory,
        zf.allocators,
        zf.synth,
        zf.rhythm,
        zf.classify,
        zf.holter,
        zf._interop,
        zf._arrow,
    ]
    for module in modules:
        for name, obj in vars(module).items():
            if name.startswith("_") or not inspect.isfunction(obj) or obj.__module__ != module.__name__:
                continue
            assert obj.__doc__, f"{module.__name__}.{name} has no docstring"
            assert "return" in inspect.get_annotations(obj) or name in ("using",), f"{module.__name__}.{name}"
    assert (STUB.parent / "py.typed").exists()
