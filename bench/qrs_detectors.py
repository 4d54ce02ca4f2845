"""QRS detectors on MIT-BIH DS1: zeroflow's detect_qrs against wfdb's XQRS and NeuroKit2's default.

Method. Each record of the DS1 subset in ../shared/data/mitdb-ds1 (106 108 114 116 119; de Chazal
et al., IEEE TBME 2004) is read with wfdb.rdrecord, channel 0 (MLII) at 360 Hz, in millivolts. The
reference beats are the beat annotations of wfdb.rdann(NNN, "atr") (symbols N L R B A a J S V r F
e j n E / f Q ?; rhythm, noise and other non-beat annotations are left out). Three detectors run
on the whole record, each with its defaults:
- zeroflow: zeroflow.detect_qrs(x, 360) on the float32 samples (the robust segmentation's detector);
- wfdb: wfdb.processing.XQRS(x, 360).detect(verbose=False), its qrs_inds (float64 samples);
- NeuroKit2: nk.ecg_peaks(nk.ecg_clean(x, sampling_rate=360), sampling_rate=360), its
  info["ECG_R_Peaks"] (the "neurokit" cleaning and detector, no artefact correction).
Matching: a detection matches a reference beat when they are at most 150 ms apart (54 samples at
360 Hz, inclusive), one to one, by our own greedy matching: every (reference, detection) pair
within the tolerance, closest first (ties: earlier reference, then earlier detection), each beat
and each detection used at most once. TP = matched pairs, FN = reference beats left, FP =
detections left; Se = TP/(TP+FN), +P = TP/(TP+FP), F1 = 2TP/(2TP+FN+FP). As a cross-check the
matched counts of wfdb.processing.compare_annotations (its own one-to-one matching, window 55 so
that "< window" is within 150 ms) are computed too and the largest difference is printed.
Pooled rows sum TP, FN and FP over the records.
Timing: wall clock (time.perf_counter) of the detection alone, data already in memory and in the
detector's input type, best of --repeats runs (3); samples/s = record samples / best time, pooled
= all samples / sum of the best times. zeroflow runs on the CPU here unless the module was built
with CUDA and --device cuda is given (then the signal is copied to the GPU once, outside the
timing, and the time includes waiting for the result).

Usage: python3 bench/qrs_detectors.py [--records 106 119] [--data DIR] [--repeats 3] [--device cpu|cuda]
"""

import argparse
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
RECORDS = ["106", "108", "114", "116", "119"]
TOLERANCE_SECONDS = 0.15
BEAT_SYMBOLS = frozenset("NLRBAaJSVrFejnE/fQ?")


def greedy_match(reference, detected, tolerance):
    """Number of one-to-one matches: pairs at most `tolerance` samples apart, closest first."""
    reference = np.sort(np.asarray(reference, dtype=np.int64))
    detected = np.sort(np.asarray(detected, dtype=np.int64))
    lo = np.searchsorted(detected, reference - tolerance, side="left")
    hi = np.searchsorted(detected, reference + tolerance, side="right")
    pairs = [(abs(int(detected[j]) - int(r)), i, j) for i, r in enumerate(reference) for j in range(lo[i], hi[i])]
    pairs.sort()
    used_ref, used_det = set(), set()
    for _, i, j in pairs:
        if i not in used_ref and j not in used_det:
            used_ref.add(i)
            used_det.add(j)
    return len(used_ref)


def wfdb_match(reference, detected, tolerance):
    """compare_annotations' matched count (its window is exclusive, hence tolerance + 1)."""
    from wfdb.processing import compare_annotations

    if len(reference) == 0 or len(detected) == 0:
        return 0
    return int(compare_annotations(np.asarray(reference), np.asarray(detected), tolerance + 1).tp)


def best_time(run, repeats):
    """(best wall-clock seconds, the last result) of `repeats` calls of run()."""
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - start)
    return best, result


def detectors(device):
    """name -> (prepare(samples, fs) -> input, detect(input, fs) -> R-peak samples)."""
    import neurokit2 as nk
    import wfdb.processing

    import zeroflow as zf

    def zf_prepare(x, fs):
        a = x.astype(np.float32)
        if device == "cuda":
            import cupy  # the GPU copy is made here, outside the timing

            a = cupy.asarray(a)
        return a

    def zf_detect(a, fs):
        peaks = zf.detect_qrs(a, fs)
        return np.asarray(peaks.copy("cpu") if device == "cuda" else peaks)

    def xqrs_detect(x, fs):
        xqrs = wfdb.processing.XQRS(sig=x, fs=fs)
        xqrs.detect(verbose=False)
        return np.asarray(xqrs.qrs_inds)

    def nk_detect(x, fs):
        _, info = nk.ecg_peaks(nk.ecg_clean(x, sampling_rate=fs), sampling_rate=fs)
        return np.asarray(info["ECG_R_Peaks"])

    return {
        "zeroflow": (zf_prepare, zf_detect),
        "wfdb XQRS": (lambda x, fs: x, xqrs_detect),
        "NeuroKit2": (lambda x, fs: x, nk_detect),
    }


def scores(tp, fn, fp):
    se = tp / (tp + fn) if tp + fn else float("nan")
    pp = tp / (tp + fp) if tp + fp else float("nan")
    f1 = 2 * tp / (2 * tp + fn + fp) if tp + fn + fp else float("nan")
    return 100 * se, 100 * pp, 100 * f1


HEADER = ["record", "detector", "beats", "TP", "FN", "FP", "Se %", "+P %", "F1 %", "Msamples/s"]


def row_of(record, name, beats, tp, fn, fp, samples, seconds):
    se, pp, f1 = scores(tp, fn, fp)
    return [
        record,
        name,
        str(beats),
        str(tp),
        str(fn),
        str(fp),
        f"{se:.2f}",
        f"{pp:.2f}",
        f"{f1:.2f}",
        f"{samples / seconds / 1e6:.2f}",
    ]


def print_tables(rows):
    widths = [max(len(h), *(len(r[k]) for r in rows)) for k, h in enumerate(HEADER)]
    line = lambda cells: "  ".join(
        c.rjust(w) if k >= 2 else c.ljust(w)  # noqa: E731
        for k, (c, w) in enumerate(zip(cells, widths))
    )
    print(line(HEADER))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print(line(r))
    print()
    print("| " + " | ".join(HEADER) + " |")
    print("|" + "|".join("---" if k < 2 else "---:" for k in range(len(HEADER))) + "|")
    for r in rows:
        print("| " + " | ".join(r) + " |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", nargs="+", default=RECORDS)
    parser.add_argument("--data", type=pathlib.Path, default=ROOT.parent / "shared" / "data" / "mitdb-ds1")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    args = parser.parse_args()
    import wfdb

    if not (args.data / f"{args.records[0]}.hea").exists():
        sys.exit(f"{args.data / (args.records[0] + '.hea')} not found: give the MIT-BIH folder with --data")
    methods = detectors(args.device)
    rows, pooled, cross_check = [], {}, 0
    for record in args.records:
        path = str(args.data / record)
        rec = wfdb.rdrecord(path, channels=[0])
        fs = float(rec.fs)
        x = rec.p_signal[:, 0]
        ann = wfdb.rdann(path, "atr")
        reference = np.array([s for s, sym in zip(ann.sample, ann.symbol) if sym in BEAT_SYMBOLS], dtype=np.int64)
        tolerance = int(np.floor(TOLERANCE_SECONDS * fs + 1e-9))
        for name, (prepare, detect) in methods.items():
            data = prepare(x, fs)
            seconds, peaks = best_time(lambda: detect(data, fs), args.repeats)
            tp = greedy_match(reference, peaks, tolerance)
            cross_check = max(cross_check, abs(tp - wfdb_match(reference, peaks, tolerance)))
            fn, fp = len(reference) - tp, len(peaks) - tp
            rows.append(row_of(record, name, len(reference), tp, fn, fp, len(x), seconds))
            p = pooled.setdefault(name, [0, 0, 0, 0, 0, 0.0])
            for k, v in enumerate((len(reference), tp, fn, fp, len(x), seconds)):
                p[k] += v
            print(f"{record} {name}: {rows[-1][6]} / {rows[-1][7]} in {seconds:.3f} s", file=sys.stderr)
    for name, (beats, tp, fn, fp, samples, seconds) in pooled.items():
        rows.append(row_of("pooled", name, beats, tp, fn, fp, samples, seconds))
    print_tables(rows)
    print(
        f"\nmatching: greedy, closest pair first, within {TOLERANCE_SECONDS * 1000:.0f} ms; "
        f"wfdb.processing.compare_annotations differs by at most {cross_check} matched beat(s) per record."
    )
    print(f"timing: best of {args.repeats}, detection only, zeroflow on {args.device}.")


if __name__ == "__main__":
    main()
