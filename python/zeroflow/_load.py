"""Loads the compiled core, zeroflow._zeroflow.

The core links LibTorch when zeroflow was built with it. Its RPATH finds the torch package
installed beside zeroflow (or where torch was at build time); when that fails (a moved virtual
environment, another site-packages), importing torch first loads the same libraries by their
sonames, and the core loads after it.
"""
from __future__ import annotations

import importlib
from types import ModuleType


def load_core() -> ModuleType:
    try:
        return importlib.import_module("zeroflow._zeroflow")
    except ImportError as error:
        if "libtorch" not in str(error) and "libc10" not in str(error):
            raise
        import torch  # noqa: F401  (loads libtorch*.so and libc10*.so for the core)

        return importlib.import_module("zeroflow._zeroflow")
