"""MIT-BIH DS1 quality benchmark: detection and V-beat ranking of `zeroflow run`, the seed's
segmentation against the defaults, per record and pooled.

Method. Each record of ../shared/data/mitdb (all 22 DS1 records of the inter-patient split of de
Chazal et al., IEEE TBME 2004: two leads, the first MLII but in 114, 360 Hz, 30 min) runs end to end
through the command-line tool, twice: once with the seed's behaviour (`--segmentation seed`: the
seed's NMS gate and length filter, beats outside the kept lengths not scored) and once with the
defaults. Input is the WFDB record (`NNN.hea`) when this zeroflow reads WFDB, else `NNN.csv
--sample-rate 360`. Each run folder is then scored with `zeroflow evaluate DIR --labels NNN.atr`
(or NNN.labels.csv), the same code as the pipeline's own evaluation (docs/architecture.md, "Quality"):
detection is a detected R peak within +-150 ms of a labelled beat, one to one (Se = TP/(TP+FN),
+P = TP/(TP+FP)); ranking is the AUROC and average precision of the V class (AAMI: V and E)
against every other labelled beat, over EVERY labelled beat, a labelled beat with no matched
detection or whose detection has no score ranking below every scored beat (ties among them).
"V unscored" counts the V beats ranked that way. Pooled: detection counts summed over the
records; ranking over all records' labelled beats together (each beat's score as its own run
gave it, from `evaluate --per-beat`), computed here with scikit-learn's roc_auc_score and
average_precision_score under the same rule. Training is seeded (--seed 42), so a rerun on the
same device gives the same numbers; CPU and GPU runs may differ in the last digits.

Then `zeroflow evaluate` over every default run folder prints the ANSI/AAMI EC57 table of the
beat classes and AF episodes (QRS, VEB, SVEB Se/+P, VEB FPR, AF duration Se/+P; per record,
gross, average) and the AUROC of V and S against the N beats per record and beat-weighted.

Usage: python3 bench/mitdb_ds1.py [--records 106 119] [--bin build/default/zeroflow] [--epochs 30]
       [--device auto|cpu|cuda] [--labels atr|csv] [--data DIR] [--work DIR]
"""

import argparse
import csv
import json
import pathlib
import subprocess
import sys
import tempfile
import time

import numpy as np
from sklearn.metrics import average_precision_score, roc_auc_score

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: All 22 DS1 records of the inter-patient split (../shared/data/mitdb), as PhysioNet serves them.
RECORDS = "101 106 108 109 112 114 115 116 118 119 122 124 201 203 205 207 208 209 215 220 223 230".split()
RATE = 360


def zeroflow(binary, *args):
    """Runs the CLI; returns its CompletedProcess, stopping the benchmark with its error line on failure."""
    proc = subprocess.run([str(binary), *map(str, args)], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"zeroflow {' '.join(map(str, args))} failed:\n{proc.stderr.strip()}")
    return proc


def run_record(args, record, flags, out, wfdb_input):
    data = args.data
    source = [data / f"{record}.hea"] if wfdb_input else [data / f"{record}.csv", "--sample-rate", RATE]
    labels = data / (f"{record}.atr" if args.labels == "atr" else f"{record}.labels.csv")
    start = time.perf_counter()
    zeroflow(
        args.bin,
        "run",
        *source,
        "--out",
        out,
        "--epochs",
        args.epochs,
        "--device",
        args.device,
        "--labels",
        labels,
        *flags,
    )
    seconds = time.perf_counter() - start
    per_beat = out / "per_beat.csv"
    zeroflow(args.bin, "evaluate", out, "--labels", labels, "--per-beat", per_beat)
    e = json.loads((out / "evaluation.json").read_text())["evaluation"]
    with open(per_beat, newline="") as f:
        beats = list(csv.DictReader(f))
    return {"evaluation": e, "beats": beats, "seconds": seconds}


def pooled(results):
    """Detection counts summed; V ranked over every record's labelled beats together."""
    tp = sum(r["evaluation"]["true_positives"] for r in results)
    fp = sum(r["evaluation"]["false_positives"] for r in results)
    fn = sum(r["evaluation"]["false_negatives"] for r in results)
    beats = [b for r in results for b in r["beats"]]
    is_v = np.array([b["class"] == "V" for b in beats])
    scored = np.array([b["score"] != "" for b in beats])
    scores = np.array([float(b["score"]) if b["score"] != "" else np.nan for b in beats])
    # Below every scored beat, all unscored beats tied (scikit-learn refuses infinities).
    floor = np.nanmin(scores) - 1.0 if scored.any() else 0.0
    ranked = np.where(scored, scores, floor)
    defined = 0 < is_v.sum() < len(beats)
    return {
        "labelled": len(beats),
        "v": int(is_v.sum()),
        "se": tp / (tp + fn) if tp + fn else None,
        "pp": tp / (tp + fp) if tp + fp else None,
        "auroc": roc_auc_score(is_v, ranked) if defined else None,
        "ap": average_precision_score(is_v, ranked) if defined else None,
        "unscored": int((is_v & ~scored).sum()),
        "seconds": sum(r["seconds"] for r in results),
    }


def record_row(result):
    e = result["evaluation"]
    v = e["classes"]["V"]
    return {
        "labelled": e["labelled_beats"],
        "v": v["beats"],
        "se": e["sensitivity"],
        "pp": e["positive_predictivity"],
        "auroc": v["auroc"],
        "ap": v["average_precision"],
        "unscored": v["unscored_beats"],
        "seconds": result["seconds"],
    }


def print_table(title, columns):
    """One table: a row per metric, a column per configuration."""
    pct = lambda x: "undefined" if x is None else f"{100 * x:.2f} %"
    ratio = lambda x: "undefined" if x is None else f"{x:.4f}"
    rows = [
        ("beats (labelled)", "labelled", str),
        ("V beats", "v", str),
        ("Se", "se", pct),
        ("+P", "pp", pct),
        ("V AUROC (every beat)", "auroc", ratio),
        ("V AP (every beat)", "ap", ratio),
        ("V beats unscored", "unscored", str),
        ("run seconds", "seconds", lambda x: f"{x:.1f}"),
    ]
    names = list(columns)
    print(f"\n{title}")
    print(f"  {'':22}" + "".join(f"{n:>14}" for n in names))
    for label, key, fmt in rows:
        print(f"  {label:22}" + "".join(f"{fmt(columns[n][key]):>14}" for n in names))


def add_run_arguments(parser, epochs, device, epochs_help=None):
    """The options every DS1 benchmark takes: which records, which binary, how to train, where."""
    parser.add_argument("--records", nargs="+", default=RECORDS, help="record names (default: all 22 DS1 records)")
    parser.add_argument("--bin", type=pathlib.Path, default=ROOT / "build" / "default" / "zeroflow")
    parser.add_argument("--epochs", type=int, default=epochs, help=epochs_help)
    parser.add_argument("--device", default=device, choices=["auto", "cpu", "cuda"])
    parser.add_argument("--data", type=pathlib.Path, default=ROOT.parent / "shared" / "data" / "mitdb")
    parser.add_argument("--work", type=pathlib.Path, help="where run folders go (default: a temporary folder)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_run_arguments(parser, epochs=30, device="auto")
    parser.add_argument(
        "--labels",
        default="atr",
        choices=["atr", "csv"],
        help="reference beats: the WFDB annotations (NNN.atr) or NNN.labels.csv",
    )
    args = parser.parse_args()

    run_help = zeroflow(args.bin, "run", "--help").stdout
    wfdb_input = "WFDB" in run_help
    configs = {"seed": ["--segmentation", "seed"], "default": []}
    if "--segmentation" not in run_help:
        print("note: this zeroflow has no --segmentation flag: the 'seed' column is a run with its defaults")
        configs["seed"] = []
    print(
        f"zeroflow {args.bin}; input {'NNN.hea (WFDB)' if wfdb_input else 'NNN.csv --sample-rate 360'}; "
        f"labels NNN.{'atr' if args.labels == 'atr' else 'labels.csv'}; {args.epochs} epochs; device {args.device}"
    )

    with tempfile.TemporaryDirectory(prefix="zeroflow-ds1-") as scratch:
        work = args.work or pathlib.Path(scratch)
        results = {name: [] for name in configs}
        for record in args.records:
            columns = {}
            for name, flags in configs.items():
                r = run_record(args, record, flags, work / name / record, wfdb_input)
                results[name].append(r)
                columns[name] = record_row(r)
            print_table(f"record {record}", columns)
        if len(args.records) > 1:
            print_table(
                f"pooled ({' '.join(args.records)}: every labelled beat ranked together)",
                {name: pooled(rs) for name, rs in results.items()},
            )
        # The EC57 table of the default runs' classes and AF episodes (beats.atr): per record,
        # gross and average, the first 5 minutes left out, as `zeroflow evaluate` computes it.
        # The seed's method has no classes: before classes existed, its `flags` were the only
        # answer (docs/performance.md, "Detection accuracy on DS1 / EC57", has that baseline).
        folders = [work / "default" / record for record in args.records]
        print("\nEC57 (default runs; zeroflow evaluate, bxb's rules):")
        print(zeroflow(args.bin, "evaluate", *folders).stdout.split("\nrecord", 1)[-1].join(["record", ""]))


if __name__ == "__main__":
    main()
