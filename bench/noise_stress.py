"""Noise stress test on MIT-BIH DS1, in the manner of the MIT-BIH Noise Stress Test Database:
QRS detection (and the EC57 beat-class figures) of `zeroflow run` as noise grows.

Method. For each record of ../shared/data/mitdb (all 22 DS1 records by default) the lead zeroflow
reads by default (MLII) gets additive noise on the Noise Stress Test's protocol, as WFDB's `nst`
applies it: the first 5 minutes clean (a learning period), then 2 minutes noisy and 2 minutes
clean, alternately, to the end; the noise gain set for a signal-to-noise ratio of 24, 18, 12, 6,
0 and -6 dB. SNR follows `nst`'s definition: signal power S = (QRS peak-to-peak amplitude)^2 / 8,
the power of a sine wave of that peak-to-peak size, from the mean peak-to-peak amplitude within
+-50 ms of the reference beats (the largest and smallest 5 % left out); noise power N = the mean
square of the (zero-mean) noise; SNR = 10 log10(S / (a^2 N)) for noise gain a.

The noise records of the NST database are not here, so the three kinds of noise are synthesized,
each matching the character of its recorded counterpart (seeded, the same for every run):
  bw  baseline wander: Brownian noise low-passed at 0.5 Hz plus a respiratory swing (0.2-0.35 Hz);
  ma  muscle artefact: white noise band-passed 10-100 Hz (EMG), its amplitude modulated by a slow
      envelope, so it comes in bursts;
  em  electrode motion, the hardest (the NST database's standard records use it): noise
      band-passed 1-15 Hz, where the QRS energy lies, in bursts of 0.2-2 s, plus baseline steps
      that decay over about 0.3 s.
The noisy lead is written as a raw float32 file (mV) and run with `zeroflow run NNN.f32
--sample-rate 360 --labels NNN.atr`; `zeroflow evaluate` then scores it to EC57's rules (150 ms
window, the first 5 minutes left out, so a third of what is counted is clean, as in the NST
database). The table gives gross QRS Se/+P over the records per noise kind and SNR, and gross VEB
Se/+P; the `clean` row is the same records without noise.

Usage: python3 bench/noise_stress.py [--records 118 119] [--noise em ma bw] [--snr 24 12 6]
       [--bin build/default/zeroflow] [--device cpu] [--epochs 5] [--work DIR]
"""

import argparse
import json
import pathlib
import sys
import tempfile

import numpy as np
import wfdb
from mitdb_ds1 import add_run_arguments, zeroflow  # the same records, options and CLI runner
from scipy import signal as sps

SNRS = [24, 18, 12, 6, 0, -6]
NOISES = ["em", "ma", "bw"]
LEARNING_SECONDS = 300
PERIOD_SECONDS = 120
#: MIT beat symbols (the reference annotations' beats; rhythm, noise and comment codes are not).
BEAT_SYMBOLS = set("NLRBAaJSVrFejnE/fQ?")


def read_lead_and_beats(data, record, both=False):
    """The lead zeroflow reads by default (MLII, else the first) — with `both`, it and the record's
    other lead, as columns — its rate, and the reference beats (sample, MIT symbol) of NNN.atr,
    rhythm, noise and comment annotations left out."""
    rec = wfdb.rdrecord(str(data / record))
    lead = rec.sig_name.index("MLII") if "MLII" in rec.sig_name else 0
    ann = wfdb.rdann(str(data / record), "atr")
    beats = [(int(s), sym) for s, sym in zip(ann.sample, ann.symbol) if sym in BEAT_SYMBOLS]
    signal = rec.p_signal[:, [lead, 1 - lead]] if both else rec.p_signal[:, lead]
    return signal, rec.fs, [s for s, _ in beats], [sym for _, sym in beats]


def lowpass(x, hz, rate, order=2):
    return sps.sosfiltfilt(sps.butter(order, hz, "lowpass", fs=rate, output="sos"), x)


def bandpass(x, low, high, rate, order=2):
    return sps.sosfiltfilt(sps.butter(order, [low, high], "bandpass", fs=rate, output="sos"), x)


def unit_power(x):
    x = x - x.mean()
    return x / np.sqrt(np.mean(x * x))


def baseline_wander(n, rate, rng):
    brownian = lowpass(np.cumsum(rng.standard_normal(n)), 0.5, rate)
    t = np.arange(n) / rate
    breathing = np.sin(2 * np.pi * rng.uniform(0.2, 0.35) * t + rng.uniform(0, 2 * np.pi))
    return unit_power(unit_power(brownian) + 0.5 * breathing)


def bursts(n, rate, rng, per_second, shortest, longest):
    """0/1 envelope: bursts at Poisson times, each of a uniform duration, edges smoothed over 50 ms."""
    envelope = np.zeros(n)
    for start in np.flatnonzero(rng.random(n) < per_second / rate):
        envelope[start : start + int(rng.uniform(shortest, longest) * rate)] = 1.0
    return np.convolve(envelope, np.hanning(int(0.05 * rate)) / np.hanning(int(0.05 * rate)).sum(), "same")


def muscle_artefact(n, rate, rng):
    emg = bandpass(rng.standard_normal(n), 10, 100, rate)
    envelope = 0.3 + np.abs(lowpass(rng.standard_normal(n), 0.3, rate))
    return unit_power(emg * envelope / envelope.mean())


def electrode_motion(n, rate, rng):
    motion = bandpass(rng.standard_normal(n), 1, 15, rate) * (0.1 + bursts(n, rate, rng, 0.4, 0.2, 2.0))
    steps = np.zeros(n)
    for start in np.flatnonzero(rng.random(n) < 0.1 / rate):
        length = min(n - start, int(2 * rate))
        steps[start : start + length] += rng.normal(0, 3) * np.exp(-np.arange(length) / (0.3 * rate))
    return unit_power(unit_power(motion) + 0.5 * unit_power(steps))


SYNTHESIZE = {"bw": baseline_wander, "ma": muscle_artefact, "em": electrode_motion}


def qrs_power(ecg, beats, rate):
    """nst's signal power: (mean QRS peak-to-peak amplitude, extremes trimmed)^2 / 8."""
    half = int(0.05 * rate)
    p2p = np.array([np.ptp(ecg[max(0, b - half) : b + half + 1]) for b in beats])
    low, high = np.percentile(p2p, [5, 95])
    return np.mean(p2p[(p2p >= low) & (p2p <= high)]) ** 2 / 8


def noisy_periods(n, rate):
    """1 where the protocol adds noise: after the learning period, 2 minutes on, 2 off."""
    t = np.arange(n) / rate
    after = t - LEARNING_SECONDS
    return ((after >= 0) & ((after // PERIOD_SECONDS) % 2 == 0)).astype(np.float64)


def run_one(args, record, samples, rate, folder, flags=()):
    """Runs zeroflow on one (noisy) lead, or on two as the channels of one raw recording (the beats
    found in the first, the classes reading both), with `flags` added; returns the EC57 counts
    `zeroflow evaluate` wrote."""
    return run_each(args, record, samples, rate, {folder: flags})[folder]


def run_each(args, record, samples, rate, runs):
    """run_one of the same samples once for each folder of `runs` with its own flags (the raw file
    written once); returns the EC57 counts by folder."""
    first = next(iter(runs))
    first.parent.mkdir(parents=True, exist_ok=True)
    raw = first.with_suffix(".f32")
    samples.astype("<f4").tofile(raw)  # row by row: frames of interleaved channels
    labels = args.data / f"{record}.atr"
    common = ["--sample-rate", rate, "--labels", labels, "--epochs", args.epochs, "--device", args.device]
    if samples.ndim == 2:
        common += ["--channels", samples.shape[1]]
    counts = {}
    for folder, flags in runs.items():
        folder.mkdir(parents=True, exist_ok=True)
        zeroflow(args.bin, "run", raw, "--out", folder, "--force", *common, *flags)
        zeroflow(args.bin, "evaluate", folder)
        counts[folder] = json.loads((folder / "evaluation.json").read_text())["ec57"]
    raw.unlink()
    return counts


def conditions(args, record, i):
    """The record's lead(s) clean and under each noise kind and SNR of `args`: (name, samples, rate)."""
    ecg, rate, samples, _ = read_lead_and_beats(args.data, record, args.leads == "both")
    leads = ecg.reshape(len(ecg), -1)
    beats = np.array(samples)
    power = np.array([qrs_power(leads[:, j], beats, rate) for j in range(leads.shape[1])])
    gate = noisy_periods(len(ecg), rate)
    yield ("clean", None), ecg, rate
    for k, kind in enumerate(args.noise):
        # Each lead its own noise (the NST database's noise records have one per electrode).
        noise = np.column_stack(
            [SYNTHESIZE[kind](len(ecg), rate, np.random.default_rng([args.seed, i, k, j])) if j else
             SYNTHESIZE[kind](len(ecg), rate, np.random.default_rng([args.seed, i, k]))
             for j in range(leads.shape[1])]
        )  # fmt: skip
        for snr in args.snr:
            gain = np.sqrt(power / 10 ** (snr / 10))  # the noise has unit power; each lead its SNR
            yield (kind, snr), (leads + gain * gate[:, None] * noise).reshape(ecg.shape), rate


def folder_of(work, condition, record):
    kind, snr = condition
    return work / ("clean" if snr is None else f"{kind}{snr:+g}") / record


def gross(results):
    total = lambda key, part: sum(r[key][part] for r in results)
    ratio = lambda key: total(key, "numerator") / total(key, "denominator") if total(key, "denominator") else None
    return {
        "qrs_se": ratio("qrs_sensitivity"),
        "qrs_pp": ratio("qrs_positive_predictivity"),
        "veb_se": ratio("veb_sensitivity"),
        "veb_pp": ratio("veb_positive_predictivity"),
        "beats": total("qrs_sensitivity", "denominator"),
        # Beats called V that are not (N, S or no beat at all), as a share of the reference beats.
        "false_v": (total("veb_positive_predictivity", "denominator") - total("veb_positive_predictivity", "numerator"))
        / max(1, total("qrs_sensitivity", "denominator")),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_run_arguments(parser, epochs=5, device="cpu", epochs_help="VAE epochs (detection does not depend on them)")
    parser.add_argument("--noise", nargs="+", default=NOISES, choices=NOISES, help="kinds of noise (default: all)")
    parser.add_argument("--snr", nargs="+", type=float, default=SNRS, help="SNRs in dB (default: 24 18 12 6 0 -6)")
    parser.add_argument("--seed", type=int, default=2024, help="seed of the synthesized noise")
    parser.add_argument(
        "--leads",
        choices=["one", "both"],
        default="one",
        help="one: MLII alone; both: MLII and the other lead, each with its own noise at the SNR",
    )
    args = parser.parse_args()
    print(
        f"zeroflow {args.bin}; records {' '.join(args.records)}; device {args.device}; noise seed {args.seed}; "
        f"leads {args.leads}"
    )

    rows = {}
    with tempfile.TemporaryDirectory(prefix="zeroflow-nst-") as scratch:
        work = args.work or pathlib.Path(scratch)
        for i, record in enumerate(args.records):
            for condition, samples, rate in conditions(args, record, i):
                folder = folder_of(work, condition, record)
                rows.setdefault(condition, []).append(run_one(args, record, samples, rate, folder))
            print(f"  {record} done", file=sys.stderr, flush=True)

    pct = lambda x: "     -" if x is None else f"{100 * x:6.2f}"
    print("\nGross over the records, the first 5 minutes left out (EC57); Se and +P in %:")
    print(f"  {'noise':6}{'SNR dB':>8}{'beats':>8}{'QRS Se':>9}{'QRS +P':>9}{'VEB Se':>9}{'VEB +P':>9}{'false V':>9}")
    for (kind, snr), results in rows.items():
        g = gross(results)
        snr_text = "-" if snr is None else f"{snr:g}"
        print(
            f"  {kind:6}{snr_text:>8}{g['beats']:>8}{pct(g['qrs_se']):>9}{pct(g['qrs_pp']):>9}"
            f"{pct(g['veb_se']):>9}{pct(g['veb_pp']):>9}{pct(g['false_v']):>9}"
        )


if __name__ == "__main__":
    main()
