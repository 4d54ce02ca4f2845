"""MONAI's VarAutoEncoder as the second VAE of :class:`zeroflow.sklearn.VAEOutlierDetector`
(``model="monai"``; the seed notebook's closing exercise). MONAI is an optional dependency (``pip
install monai``); this module imports it only when such a model is made.

The network is ``monai.networks.nets.VarAutoEncoder(spatial_dims=1, in_shape=(1, W),
out_channels=1, latent_size=2, channels=(4, 8, 16), strides=(2, 2, 2), use_sigmoid=False)``:
the LightVAE's channel widths, three halvings and a 2-D latent, with MONAI's own blocks (PReLU,
instance norm). It trains with the seed's loss and batches, like the LightVAE: per batch
``sum_rows mean_t (x_hat - x)^2 - 0.1 sum_rows mean_d (1 + log var - mu^2 - var)``, Adam, a fresh
permutation per epoch. Rows come from zeroflow through DLPack without a copy; scores go back the
same way. Scores decode the latent mean and are computed in double, so that a row's score does
not depend on the rows scored with it.
"""

from __future__ import annotations

import copy
import io
from dataclasses import dataclass
from typing import Any, List

from ._interop import Array, asarray

_MAGIC = b"zeroflow-monai-vae-1\n"


def available() -> bool:
    try:
        import monai  # noqa: F401
    except ImportError:
        return False
    return True


def _require() -> None:
    if not available():
        raise ImportError("model='monai' needs MONAI, an optional dependency: pip install monai")


@dataclass
class _Trained:
    epoch_loss: List[float]


@dataclass
class _Scores:
    score: Array


class MonaiVAE:
    """A VarAutoEncoder for rows of ``width`` samples on ``device`` (the VAE class's interface)."""

    def __init__(self, width: int, device: str = "cpu", seed: int = 42):
        _require()
        import torch
        from monai.networks.nets import VarAutoEncoder

        torch.manual_seed(seed)  # weights drawn on the CPU, then moved: the same on every device
        self.width = int(width)
        self.net = VarAutoEncoder(
            spatial_dims=1,
            in_shape=(1, self.width),
            out_channels=1,
            latent_size=2,
            channels=(4, 8, 16),
            strides=(2, 2, 2),
            use_sigmoid=False,
        )
        self.net.to(device)
        self._device = torch.device(device)

    @property
    def device(self) -> str:
        return str(self._device) if self._device.type == "cpu" else f"cuda:{self._device.index or 0}"

    def _rows(self, rows: Array) -> Any:
        import torch

        x = torch.from_dlpack(rows)  # zeroflow's memory, no copy
        return x.to(self._device).unsqueeze(1)  # (N, 1, W); a copy only from another device

    def train(
        self,
        rows: Array,
        *,
        epochs: int,
        batch: int,
        test_fraction: float = 0.0,
        seed: int = 42,
        learning_rate: float = 1e-3,
    ) -> _Trained:
        import torch

        x = self._rows(rows)
        n = x.shape[0]
        generator = torch.Generator(device="cpu").manual_seed(seed)
        optimiser = torch.optim.Adam(self.net.parameters(), lr=learning_rate)
        self.net.train()
        losses = []
        for _ in range(int(epochs)):
            order = torch.randperm(n, generator=generator).to(self._device)
            total = torch.zeros((), dtype=torch.float64, device=self._device)
            for begin in range(0, n, int(batch)):
                xb = x.index_select(0, order[begin : begin + int(batch)])
                recon, mu, logvar, _ = self.net(xb)
                loss = ((recon - xb) ** 2).mean(dim=(1, 2)).sum() - 0.1 * (1 + logvar - mu**2 - logvar.exp()).mean(
                    1
                ).sum()
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
                total += loss.detach()
            losses.append(float(total) / n)
        self.net.eval()
        return _Trained(losses)

    def score(self, rows: Array) -> _Scores:
        import torch

        x = self._rows(rows).double()
        net = copy.deepcopy(self.net).double().eval()
        with torch.no_grad():
            mu, _ = net.encode_forward(x)
            recon = net.decode_forward(mu, use_sigmoid=False)
            error = ((recon - x) ** 2).mean(dim=(1, 2)).float().contiguous()
        return _Scores(asarray(error))

    def to_bytes(self) -> bytes:
        import torch

        buffer = io.BytesIO()
        torch.save({"width": self.width, "state": {k: v.cpu() for k, v in self.net.state_dict().items()}}, buffer)
        return _MAGIC + buffer.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes, device: str = "cpu") -> "MonaiVAE":
        import torch

        if not data.startswith(_MAGIC):
            raise ValueError("the pickled VAEOutlierDetector's MONAI model is damaged or of another program")
        saved = torch.load(io.BytesIO(data[len(_MAGIC) :]), map_location="cpu", weights_only=True)
        model = cls(saved["width"], "cpu")
        model.net.load_state_dict(saved["state"])
        model.net.to(device).eval()
        model._device = torch.device(device)
        return model
