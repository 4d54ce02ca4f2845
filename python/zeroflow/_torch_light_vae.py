"""The seed's LightVAE as a PyTorch module, for people who take zeroflow's models into PyTorch
(:func:`zeroflow.model.torch_light_vae` builds it from a model file). zeroflow itself trains and
scores on its own kernels; this module is interop only, and imports torch.

The layers and parameter names are zeroflow's model file's (the seed's class: sigma.alpha,
conv0.weight, ..., restore.bias), so that a state dict moves between the two unchanged.
"""

from __future__ import annotations

from typing import Tuple

import torch
import torch.nn.functional as F


class LightVAE(torch.nn.Module):
    """The seed's LightVAE in PyTorch: the same layers and parameter names as zeroflow's model file,
    so that its state moves to and from it."""

    def __init__(self, width: int):
        super().__init__()
        if width < 16 or width & (width - 1):
            raise ValueError(f"LightVAE width must be a power of two >= 16, got {width}")
        self.width = width
        self.down = _Downsample()
        self.sigma = _Swish()
        conv = torch.nn.Conv1d
        self.conv0, self.conv1, self.conv2 = conv(1, 4, 3, 1, 1), conv(4, 8, 3, 1, 1), conv(8, 16, 3, 1, 1)
        self.convA, self.convB = conv(16, 2, 3, 1, 1), conv(16, 2, 3, 1, 1)
        self.restore = torch.nn.Linear(2, width)
        self.conv3, self.conv4, self.conv5 = conv(8, 4, 3, 1, 1), conv(4, 2, 3, 1, 1), conv(2, 1, 3, 1, 1)

    def encode(self, x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        h = x.reshape(-1, 1, self.width)
        for c in (self.conv0, self.conv1, self.conv2):
            h = self.down(self.sigma(c(h)))
        return self.convA(h).mean(2), self.convB(h).mean(2)

    def decode(self, z: torch.Tensor) -> torch.Tensor:
        h = self.restore(z).view(-1, 8, self.width // 8)
        h = self.sigma(self.conv3(F.interpolate(h, scale_factor=2.0, mode="nearest")))
        h = self.sigma(self.conv4(F.interpolate(h, scale_factor=2.0, mode="nearest")))
        return self.conv5(F.interpolate(h, scale_factor=2.0, mode="nearest")).view(-1, self.width)

    def forward(self, x: torch.Tensor, noise: torch.Tensor):
        """x̂ from z = μ + noise·σ (the noise given: N(0, 1) of μ's shape), μ, log σ²."""
        mu, logvar = self.encode(x)
        return self.decode(mu + noise * torch.exp(0.5 * logvar)), mu, logvar


class _Swish(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.alpha = torch.nn.Parameter(torch.ones(1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.sigmoid(self.alpha * x)


class _Downsample(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("filter", torch.tensor([1.0, 2.0, 1.0]).view(1, 1, 3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        channels = x.shape[1]
        return F.conv1d(x, self.filter.expand(channels, 1, 3), stride=2, padding=1, groups=channels)


def seed_loss(recon: torch.Tensor, x: torch.Tensor, mu: torch.Tensor, logvar: torch.Tensor) -> torch.Tensor:
    """The seed's loss, summed over the rows: Σ mean_t (x̂−x)² − 0.1 Σ mean_d (1 + log σ² − μ² − σ²)."""
    mse = torch.square(recon - x.reshape(recon.shape)).mean(1).sum()
    kld = -0.1 * (1 + logvar - mu.pow(2) - logvar.exp()).mean(1).sum()
    return mse + kld
