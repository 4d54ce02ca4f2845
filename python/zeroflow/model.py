"""The models of zeroflow: the seed's LightVAE (:class:`VAE`: train on beat rows, score every row,
decode a latent grid) and the seed-004 MLP autoencoder (:class:`MLPAutoencoder`), on zeroflow's own
kernels on the CPU and the GPU (no torch needed).

Rows come from any framework through :func:`zeroflow.asarray` without copying (on the model's
device they reach the kernels through DLPack); results are zeroflow arrays on the rows' device.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Union

from ._interop import Array, _core, asarray
from .signal import _checked

_SEGMENT_DEFAULTS = _core._segment_defaults()


@dataclass
class TrainResult:
    epoch_loss: List[float]  #: per epoch, the seed's figure (sum of batch losses / train rows)
    test_loss: float  #: the same over the test split after training (NaN when it is empty)
    train_index: Array  #: int64 row indices of the training split, ascending
    test_index: Array  #: int64 row indices of the test split, ascending


@dataclass
class Scores:
    score: Array  #: float32 per row: reconstruction error from the latent mean; higher = more anomalous
    mu: Array  #: float32 (rows x 2): latent mean of each row


class VAE:
    """A LightVAE for rows of ``width`` samples (a power of two >= 16) on ``device``."""

    def __init__(self, width: int, device: Any = "cpu", seed: int = 42):
        self._vae = _core.VAE(width, device, seed)

    @classmethod
    def load(cls, path: Union[str, os.PathLike], device: Any = "cpu") -> "VAE":
        """Reads a model written by :meth:`save` (or ``zeroflow run``'s model.safetensors)."""
        model = cls.__new__(cls)
        model._vae = _core.VAE.load(os.fspath(path), device)
        return model

    def train(
        self,
        rows: Any,
        *,
        epochs: int = 30,
        batch: int = 1024,
        test_fraction: float = 0.25,
        seed: int = 42,
        learning_rate: float = 1e-3,
        on_epoch: Optional[Callable[[int, float], None]] = None,
    ) -> TrainResult:
        """Trains as the seed does (shuffled 75/25 split, Adam, batches gathered on the device).

        Args:
            rows: float32 N x width rows (any strides; host or the model's GPU).
            on_epoch: called after each epoch with (epoch, loss).
        """
        r = self._vae._train(
            _checked(rows, "rows", ("float32",), 2), epochs, batch, test_fraction, seed, learning_rate, on_epoch
        )
        return TrainResult(**r)

    def score(self, rows: Any, *, batch: int = 4096) -> Scores:
        """The anomaly score of every row (deterministic: decoded from the latent mean)."""
        score, mu = self._vae._score(_checked(rows, "rows", ("float32",), 2), batch)
        return Scores(score, mu)

    def describe_rows(
        self,
        sample_rate: float,
        *,
        method: str = "robust",
        normalized: bool = True,
        min_beat_seconds: float = _SEGMENT_DEFAULTS["min_beat_seconds"],
        max_beat_seconds: float = _SEGMENT_DEFAULTS["max_beat_seconds"],
        window_before_seconds: float = _SEGMENT_DEFAULTS["window_before_seconds"],
        window_after_seconds: float = _SEGMENT_DEFAULTS["window_after_seconds"],
    ) -> None:
        """Records how the training rows were made; :meth:`save` writes it into the model file.

        ``zeroflow score`` uses a model only on recordings whose rows are made the same way (sample
        rate, segmentation, normalisation, windows), and refuses a model that does not say. The
        arguments are those of :class:`zeroflow.sklearn.BeatSegmenter` (and ``zeroflow run``), whose
        rows are robust z-scores (``normalized=True``); :func:`zeroflow.signal.segment_beats` with the
        same arguments makes the same rows.

        Raises:
            ValueError: an unknown method, or windows whose rows are not ``width`` samples wide.
        """
        self._vae._describe_rows(
            float(sample_rate),
            method,
            bool(normalized),
            float(min_beat_seconds),
            float(max_beat_seconds),
            float(window_before_seconds),
            float(window_after_seconds),
        )

    @property
    def described_rows(self) -> Optional[Dict[str, Any]]:
        """How the training rows were made (sample_rate, segmentation, normalized, and the windows in
        samples), as described or read from the model file; None when never described."""
        return self._vae.described_rows

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


class MLPAutoencoder:
    """The seed-004 MLP autoencoder: ``features -> hidden -> code -> hidden -> features``, ReLU, a
    sigmoid output (for data scaled to [0, 1]), trained with Adam on the mean squared error.

    The defaults are the notebook's (one feature, 32 and 32 units); for a seed the initial weights
    are those of the notebook's PyTorch module after ``torch.manual_seed(seed)``.
    """

    def __init__(self, features: int = 1, hidden: int = 32, code: int = 32, device: Any = "cpu", seed: int = 42):
        self._net = _core.MLPAutoencoder(int(features), int(hidden), int(code), device, int(seed))

    @classmethod
    def _wrap(cls, net: Any) -> "MLPAutoencoder":
        model = cls.__new__(cls)
        model._net = net
        return model

    @classmethod
    def from_bytes(cls, data: bytes, device: Any = "cpu", what: str = "the model bytes") -> "MLPAutoencoder":
        """A model from :meth:`to_bytes`; `what` names the bytes in error messages."""
        return cls._wrap(_core.MLPAutoencoder.from_bytes(data, device, what))

    @classmethod
    def load(cls, path: Union[str, os.PathLike], device: Any = "cpu") -> "MLPAutoencoder":
        """Reads a model written by :meth:`save`."""
        return cls._wrap(_core.MLPAutoencoder.load(os.fspath(path), device))

    def train(
        self,
        rows: Any,
        *,
        epochs: int = 100,
        batch: int = 0,
        learning_rate: float = 0.01,
        weight_decay: float = 1e-5,
        seed: int = 42,
        on_epoch: Optional[Callable[[int, float], None]] = None,
    ) -> List[float]:
        """Trains from the current weights; returns each epoch's loss.

        Args:
            rows: float32 N x features (or 1-D N for one feature), finite, on the host or the model's device.
            batch: rows per Adam step; 0: every row in one step (the notebook).
            seed: seeds the per-epoch shuffles when batched.
            on_epoch: called after each epoch with (epoch, loss).
        """
        return self._net._train(
            asarray(rows), int(epochs), int(batch), float(learning_rate), float(weight_decay), int(seed), on_epoch
        )

    def score(self, rows: Any) -> Array:
        """Per row: the mean of its squared reconstruction errors (float32, on the rows' device)."""
        return self._net._score(asarray(rows))

    def reconstruct(self, rows: Any) -> Array:
        """The reconstruction of every row (float32, the rows' shape, on their device)."""
        return self._net._reconstruct(asarray(rows))

    def to_bytes(self) -> bytes:
        """The widths and weights as bytes (for pickle)."""
        return self._net.to_bytes()

    def save(self, path: Union[str, os.PathLike]) -> None:
        """Writes :meth:`to_bytes` to `path` atomically."""
        self._net.save(os.fspath(path))

    @property
    def features(self) -> int:
        return self._net.features

    @property
    def hidden(self) -> int:
        return self._net.hidden

    @property
    def code(self) -> int:
        return self._net.code

    @property
    def device(self) -> str:
        return self._net.device

    @property
    def parameter_count(self) -> int:
        return self._net.parameter_count

    def __repr__(self) -> str:
        return (
            f"zeroflow.model.MLPAutoencoder(features={self.features}, hidden={self.hidden}, code={self.code}, "
            f"device={self.device!r})"
        )


def set_cpu_threads(threads: int) -> None:
    """Threads of the model's CPU work (process-wide): zeroflow's own kernels. Default: the CPUs this process may run on (or OMP_NUM_THREADS)."""
    _core.set_cpu_threads(threads)


def torch_light_vae(path: Union[str, os.PathLike], device: Any = "cpu") -> "torch.nn.Module":  # noqa: F821
    """The PyTorch LightVAE (the seed's class in PyTorch, the same layers and names as
    zeroflow's) with the weights of a zeroflow model file (``model.safetensors``), on ``device``:
    for fine-tuning, inspection or export in PyTorch. ``encode(x)`` gives (mu, logvar) and
    ``decode(mu)`` the reconstruction that zeroflow's score compares with ``x``.

    Raises:
        ValueError: the file is not a zeroflow LightVAE model file, or it is damaged.
    """
    import torch

    from . import _model_file
    from ._torch_light_vae import LightVAE

    meta, tensors = _model_file.read(path)
    if meta.get("model") != "lightvae":
        raise ValueError(f"{os.fspath(path)} holds a model of kind {meta.get('model')!r}, not a LightVAE")
    net = LightVAE(int(meta["width"]))
    net.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in tensors.items()})
    return net.to(device).eval()
