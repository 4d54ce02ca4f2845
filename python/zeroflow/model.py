"""The seed's LightVAE (LibTorch builds): train on beat rows, score every row, decode a latent grid.

Rows come from any framework through :func:`zeroflow.asarray` without copying (on the model's
device they reach LibTorch through DLPack); results are zeroflow arrays on the rows' device.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Union

from ._interop import Array, _core
from .signal import _checked


def _require_torch() -> None:
    if not _core.has_torch:
        raise RuntimeError("this zeroflow was built without LibTorch (ZEROFLOW_TORCH=OFF): no model")


@dataclass
class TrainResult:
    epoch_loss: List[float]  #: per epoch, the seed's figure (sum of batch losses / train rows)
    test_loss: float         #: the same over the test split after training (NaN when it is empty)
    train_index: Array       #: int64 row indices of the training split, ascending
    test_index: Array        #: int64 row indices of the test split, ascending


@dataclass
class Scores:
    score: Array  #: float32 per row: reconstruction error from the latent mean; higher = more anomalous
    mu: Array     #: float32 (rows x 2): latent mean of each row


class VAE:
    """A LightVAE for rows of ``width`` samples (a power of two >= 16) on ``device``."""

    def __init__(self, width: int, device: Any = "cpu", seed: int = 42):
        _require_torch()
        self._vae = _core.VAE(width, device, seed)

    @classmethod
    def load(cls, path: Union[str, os.PathLike], device: Any = "cpu") -> "VAE":
        """Reads a model written by :meth:`save` (or ``zeroflow run``'s model.pt)."""
        _require_torch()
        model = cls.__new__(cls)
        model._vae = _core.VAE.load(os.fspath(path), device)
        return model

    def train(self, rows: Any, *, epochs: int = 30, batch: int = 1024, test_fraction: float = 0.25, seed: int = 42,
              learning_rate: float = 1e-3, on_epoch: Optional[Callable[[int, float], None]] = None) -> TrainResult:
        """Trains as the seed does (shuffled 75/25 split, Adam, batches gathered on the device).

        Args:
            rows: float32 N x width rows (any strides; host or the model's GPU).
            on_epoch: called after each epoch with (epoch, loss).
        """
        r = self._vae._train(_checked(rows, "rows", ("float32",), 2), epochs, batch, test_fraction, seed, learning_rate, on_epoch)
        return TrainResult(**r)

    def score(self, rows: Any, *, batch: int = 4096) -> Scores:
        """The anomaly score of every row (deterministic: decoded from the latent mean)."""
        score, mu = self._vae._score(_checked(rows, "rows", ("float32",), 2), batch)
        return Scores(score, mu)

    def decode_grid(self, n: int = 5, extent: float = 2.0) -> Array:
        """Rows decoded from the n x n latent grid linspace(-extent, extent, n)^2: (n*n) x width."""
        return self._vae.decode_grid(n, extent)

    def save(self, path: Union[str, os.PathLike]) -> None:
        """Writes the model atomically."""
        self._vae.save(os.fspath(path))

    @property
    def width(self) -> int:
        return self._vae.width

    @property
    def device(self) -> str:
        return self._vae.device

    @property
    def parameter_count(self) -> int:
        return self._vae.parameter_count

    def __repr__(self) -> str:
        return f"zeroflow.model.VAE(width={self.width}, device={self.device!r})"


def set_cpu_threads(threads: int) -> None:
    """Threads of LibTorch's CPU pool (process-wide)."""
    _require_torch()
    _core.set_cpu_threads(threads)
