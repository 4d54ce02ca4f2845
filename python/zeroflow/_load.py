"""Loads the compiled core, zeroflow._zeroflow.

When the core links LibTorch, torch is imported first, the order torch's own C++ extensions
need. (On the GPU machine the core once crashed torch's import when loaded first; the cause was a
static libstdc++ copied into the core by a compiler that ships no shared one, fixed in
cmake/shared_libstdcxx.cmake, and python/tests/test_import_order.py checks both orders.) Importing
torch first also finds LibTorch by its sonames when the core's RPATH does not (a moved virtual
environment, another site-packages).
"""

from __future__ import annotations

import importlib
from types import ModuleType


def _links_torch() -> bool:
    try:
        from ._build_config import LINKS_TORCH
    except ImportError:  # a tree without a build: let the core's own import say what is missing
        return False
    return bool(LINKS_TORCH)


def load_core() -> ModuleType:
    if _links_torch():
        try:
            import torch  # noqa: F401  (must precede the core, see above)
        except ImportError:
            pass  # a system LibTorch without the Python package: the core's RPATH finds it
    return importlib.import_module("zeroflow._zeroflow")
