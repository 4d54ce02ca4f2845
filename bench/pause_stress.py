"""Pause stress test on MIT-BIH DS1: QRS detection of `zeroflow run` when the heart stops for a while.

Why. Long sinus pauses (sinus arrest, high-grade AV block) leave seconds without a QRS complex. A
detector whose thresholds adapt to what it sees must not lower them so far in a pause that a P wave,
a T wave or the noise of the baseline becomes a beat. DS1 has few such pauses; the held-out half of
MIT-BIH has a record with many (up to 6 s), so they are made here from DS1's own signal.

Method. Each record of ../shared/data/mitdb (all 22 DS1 records by default; the lead zeroflow reads by
default, MLII) gets a pause of D seconds every 40 s after the first 5 minutes (the learning period),
D cycling through --pauses (default 2, 3, 4, 6 s). A pause goes into a normal R-R interval (both
beats N, L or R) after the T wave: at max(0.40 s, 0.55 R-R) after the
first beat and at least 0.20 s before the second. What fills it is the record's own diastole: the
level at the cut, carried across with the noise of that beat's diastole (its first differences,
re-integrated, so the spectrum and size are the record's own), and one blocked P wave (the next
beat's P wave, -0.25 s .. -0.08 s before its R peak, baseline-corrected) in the middle of each pause
of 3 s or more, as in AV block. The reference annotations after each cut move by D. The lead is
written as raw float32 and run with `zeroflow run NNN.f32 --sample-rate 360 --labels NNN.csv`, then
`zeroflow evaluate` (EC57: 150 ms window, the first 5 minutes left out). The table gives gross QRS
Se/+P with and without the pauses, and the detections that fall inside a pause (each one a false
positive: no reference beat is there).

Usage: python3 bench/pause_stress.py [--records 101 119] [--pauses 2 3 4 6] [--every 40]
       [--bin build/default/zeroflow] [--device cpu] [--epochs 1] [--work DIR]
"""

import argparse
import csv
import json
import pathlib
import sys
import tempfile

import numpy as np
from mitdb_ds1 import add_run_arguments, zeroflow
from noise_stress import LEARNING_SECONDS, read_lead_and_beats

#: Beats of normal conduction (AAMI N: normal, bundle branch blocks) that a pause may follow.
NORMAL = set("NLR")


def cut_points(samples, symbols, rate, every, first):
    """Indices k of reference beats after which a pause goes: two normal beats, every `every` s."""
    out, next_time = [], first
    for k in range(len(samples) - 1):
        if samples[k] < next_time * rate or symbols[k] not in NORMAL or symbols[k + 1] not in NORMAL:
            continue
        out.append(k)
        next_time = samples[k] / rate + every
    return out


def with_pauses(ecg, samples, symbols, rate, every, durations, rng):
    """The lead with pauses inserted; the moved annotations; the pauses' [start, end) in the new lead."""
    beat_samples = np.array(samples)
    cuts = cut_points(beat_samples, symbols, rate, every, LEARNING_SECONDS)
    pieces, pauses, moved = [], [], beat_samples.copy()
    previous, shift = 0, 0
    for i, k in enumerate(cuts):
        r, r_next = beat_samples[k], beat_samples[k + 1]
        at = r + max(int(0.40 * rate), int(0.55 * (r_next - r)))
        if at > r_next - int(0.20 * rate):
            continue
        length = int(durations[i % len(durations)] * rate)
        diastole = ecg[r + int(0.40 * rate) : max(r + int(0.40 * rate) + 2, r_next - int(0.25 * rate))]
        steps = np.diff(diastole)
        noise = np.cumsum(rng.choice(steps - steps.mean(), length)) if len(steps) else np.zeros(length)
        noise -= np.linspace(0, noise[-1], length)  # ends where it starts: no step at either edge
        fill = ecg[at] + noise
        if durations[i % len(durations)] >= 3:
            p = ecg[r_next - int(0.25 * rate) : r_next - int(0.08 * rate)]
            p = p - np.linspace(p[0], p[-1], len(p))
            middle = length // 2 - len(p) // 2
            fill[middle : middle + len(p)] += p
        pieces += [ecg[previous:at], fill]
        pauses.append((at + shift, at + shift + length))
        shift += length
        moved[beat_samples >= at] += length
        previous = at
    pieces.append(ecg[previous:])
    return np.concatenate(pieces), moved, pauses


def run_and_evaluate(args, record, lead, samples, symbols, rate, folder):
    folder.mkdir(parents=True, exist_ok=True)
    raw = folder.with_suffix(".f32")
    labels = folder.with_suffix(".labels.csv")
    lead.astype("<f4").tofile(raw)
    with open(labels, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["sample", "symbol"])
        w.writerows(zip(samples, symbols))
    common = ["--sample-rate", rate, "--labels", labels, "--epochs", args.epochs, "--device", args.device]
    zeroflow(args.bin, "run", raw, "--out", folder, "--force", *common)
    zeroflow(args.bin, "evaluate", folder)
    raw.unlink()
    with open(folder / "beats.csv", newline="") as f:
        peaks = np.array([int(row["peak"]) for row in csv.DictReader(f)])
    return json.loads((folder / "evaluation.json").read_text())["ec57"], peaks


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_run_arguments(parser, epochs=1, device="cpu", epochs_help="VAE epochs (detection does not depend on them)")
    parser.add_argument("--pauses", nargs="+", type=float, default=[2, 3, 4, 6], help="pause lengths in s")
    parser.add_argument("--every", type=float, default=40, help="seconds between pauses (default 40)")
    parser.add_argument("--seed", type=int, default=2024, help="seed of the pauses' noise")
    args = parser.parse_args()
    print(f"zeroflow {args.bin}; records {' '.join(args.records)}; pauses {args.pauses} s every {args.every} s")

    totals = {"clean": [], "paused": []}
    inside_total, pauses_total = 0, 0
    print(f"  {'record':8}{'pauses':>7}{'inside':>8}{'QRS Se':>9}{'QRS +P':>9}   (with pauses)")
    with tempfile.TemporaryDirectory(prefix="zeroflow-pauses-") as scratch:
        work = args.work or pathlib.Path(scratch)
        for i, record in enumerate(args.records):
            ecg, rate, samples, symbols = read_lead_and_beats(args.data, record)
            clean, _ = run_and_evaluate(args, record, ecg, samples, symbols, rate, work / "clean" / record)
            rng = np.random.default_rng([args.seed, i])
            lead, moved, pauses = with_pauses(ecg, samples, symbols, rate, args.every, args.pauses, rng)
            paused, peaks = run_and_evaluate(args, record, lead, moved, symbols, rate, work / "paused" / record)
            # A detection within 150 ms of a pause's edges may be the beat before or after it.
            margin = int(0.15 * rate)
            inside = sum(int(np.sum((peaks > a + margin) & (peaks < b - margin))) for a, b in pauses)
            totals["clean"].append(clean)
            totals["paused"].append(paused)
            inside_total += inside
            pauses_total += len(pauses)
            se = paused["qrs_sensitivity"]
            pp = paused["qrs_positive_predictivity"]
            print(
                f"  {record:8}{len(pauses):>7}{inside:>8}{100 * se['value']:9.2f}{100 * pp['value']:9.2f}",
                flush=True,
            )

    def gross(results, key):
        num = sum(r[key]["numerator"] for r in results)
        den = sum(r[key]["denominator"] for r in results)
        return 100 * num / den if den else float("nan")

    print("\nGross over the records, the first 5 minutes left out (EC57); Se and +P in %:")
    print(f"  {'':14}{'QRS Se':>9}{'QRS +P':>9}")
    for name, results in totals.items():
        qrs_se, qrs_pp = gross(results, "qrs_sensitivity"), gross(results, "qrs_positive_predictivity")
        print(f"  {name:14}{qrs_se:9.2f}{qrs_pp:9.2f}")
    print(f"  detections inside the {pauses_total} pauses: {inside_total}", file=sys.stdout)


if __name__ == "__main__":
    main()
