"""The seed notebook's segmentation (docs/architecture.md, "The seed pipelines") in plain NumPy: an
independent reference for zeroflow's beats. Circular FFT convolution exactly as the seed."""

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def ricker(window, length):
    t = np.linspace(-3, 3, window)
    kernel = np.zeros(length)
    kernel[:window] = np.exp(-0.5 * t**2) * (1 - t**2)
    return 2 * kernel / np.sqrt(window)


def segment(signal, ricker_width=30, window=180, lower=100, upper=256, min_peak_ratio=0.1):
    """The seed's segmentation; min_peak_ratio > 0 adds zeroflow's weak-peak filter (0 = the seed)."""
    x = np.asarray(signal, dtype=np.float64)
    filtered = np.fft.irfft(np.fft.rfft(x) * np.fft.rfft(ricker(ricker_width, len(x))), n=len(x))
    maxima = sliding_window_view(filtered, window).max(axis=1)
    gate = (maxima == filtered[(window + 1) // 2 : (window + 1) // 2 + len(maxima)]).astype(np.int64)
    gate[1:] *= np.diff(gate) == 1
    indices = np.flatnonzero(gate == 1)
    if min_peak_ratio > 0 and len(indices):
        heights = filtered[indices + (window + 1) // 2]
        median = np.sort(heights)[(len(heights) - 1) // 2]
        indices = indices[heights >= min_peak_ratio * median]
    lengths = np.diff(indices)
    kept = (lengths >= lower) & (lengths <= upper)
    return filtered, indices, lengths, kept
