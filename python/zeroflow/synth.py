"""Synthetic ECG recordings with known R-peaks and labels ('N' normal, 'V' premature ventricular
beat), the same generator as ``zeroflow generate``: for examples and tests without patient data."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Union

from ._interop import Array, _core


@dataclass
class Recording:
    signal: Array  #: float32 samples in millivolts
    r_peaks: Array  #: int64 sample index of every beat
    labels: Array  #: uint8 ASCII label per beat: ord('N') or ord('V')
    sample_rate: float


def generate_ecg(
    hours: float = 1.0,
    *,
    sample_rate: float = 250.0,
    anomaly_rate: float = 0.03,
    seed: int = 42,
    heart_rate: float = 70.0,
    noise_mv: float = 0.02,
) -> Recording:
    """A synthetic recording (host arrays). Raises ValueError for options out of range."""
    signal, peaks, labels = _core._generate_ecg(hours, sample_rate, anomaly_rate, seed, heart_rate, noise_mv)
    return Recording(signal, peaks, labels, sample_rate)


def write_ecg_csv(
    path: Union[str, os.PathLike],
    hours: float = 1.0,
    *,
    sample_rate: float = 250.0,
    anomaly_rate: float = 0.03,
    seed: int = 42,
    heart_rate: float = 70.0,
    noise_mv: float = 0.02,
    decimals: int = 4,
) -> str:
    """Writes a recording as the seeds' one-column CSV (``heartbeats``) and its labels beside it
    (PATH's .labels.csv, whose path is returned), both atomically."""
    return _core._write_ecg(os.fspath(path), hours, sample_rate, anomaly_rate, seed, heart_rate, noise_mv, decimals)
