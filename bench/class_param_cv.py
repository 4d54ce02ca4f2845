"""One parameter of the class rule chosen out of sample: leave-one-record-out over DS1, clean and
under electrode motion.

Used for `timing.one_cue_min_clarity` (the default `--param`: how clear a QRS must be for one
timing cue alone, early or before a pause, to call an unlike beat V; noise moves the detected R
peak, and with it one cue at a time) and `shape.family_min_voters` (how many members whose timing
counts a shape family needs before its vote makes its members V; a family of a few beats spoilt
by noise is not a recurring ectopic focus), `shape.other_lead_min_deviation` (the other leads'
check of V) and `shape.unconfirmed_v_min_clarity` (step 8: how clear a lone V beat that no other
lead reads must be). docs/classification.md gives every result.

Method. Each of the 22 DS1 records is run clean and with electrode motion in both leads at the
SNRs given (bench/noise_stress.py's protocol and synthesis: the first 5 minutes clean, then 2
minutes noisy and 2 clean), once for each value of the grid (`zeroflow run --class-params
PARAM=VALUE`), and scored to EC57's rules (`zeroflow evaluate`). For each record, the value is
the one with the fewest VEB errors — V beats missed plus beats called V that are not, counted
alike — over the other 21 records (ties: the smallest value), counted over every condition
together, and again over the clean records alone (the held-out judges of the classes are clean
recordings; under noise the false V beats outnumber every other error); that record's counts
with that value are its out-of-sample result under each objective. (EC57's targets, Se and +P of
92 %, are no objective here: under noise +P stays far below its target at any value, so the
largest worst margin only ever asks for the strictest value, whatever it costs in V beats
missed.) The table gives, per condition, the gross VEB Se / +P and false V (beats called V that
are not, per reference beat) out of sample, and in sample for every value of the grid.

Usage: python3 bench/class_param_cv.py [--param timing.one_cue_min_clarity] [--grid 0 10 15 20 25 30 40]
       [--bin build/cpu/zeroflow] [--snr 6 0] [--records ...] [--work DIR]
"""

import argparse
import pathlib
import sys
import tempfile

from mitdb_ds1 import add_run_arguments
from noise_stress import conditions, folder_of, gross, run_each


def veb_errors(results):
    """V beats missed plus beats called V that are not: EC57's two VEB errors, counted alike."""
    missed = sum(r["veb_sensitivity"]["denominator"] - r["veb_sensitivity"]["numerator"] for r in results)
    false = sum(
        r["veb_positive_predictivity"]["denominator"] - r["veb_positive_predictivity"]["numerator"] for r in results
    )
    return missed + false


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_run_arguments(parser, epochs=5, device="cpu", epochs_help="VAE epochs (the classes do not depend on them)")
    parser.add_argument("--snr", nargs="+", type=float, default=[6, 0], help="SNRs of electrode motion (dB)")
    parser.add_argument("--param", default="timing.one_cue_min_clarity", help="the class parameter to choose")
    parser.add_argument("--grid", nargs="+", type=float, default=[0, 10, 15, 20, 25, 30, 40], help="values to try")
    parser.add_argument("--seed", type=int, default=2024, help="seed of the synthesized noise")
    args = parser.parse_args()
    args.noise, args.leads = ["em"], "both"
    print(
        f"zeroflow {args.bin}; records {' '.join(args.records)}; em at {args.snr} dB in both leads; "
        f"{args.param} in {args.grid}"
    )

    counts = {}  # (record, condition, value) -> EC57 counts
    with tempfile.TemporaryDirectory(prefix="zeroflow-class-param-") as scratch:
        work = args.work or pathlib.Path(scratch)
        for i, record in enumerate(args.records):
            for condition, samples, rate in conditions(args, record, i):
                runs = {
                    folder_of(work / f"{args.param}={value:g}", condition, record): [
                        "--class-params",
                        f"{args.param}={value:g}",
                    ]
                    for value in args.grid
                }
                for value, result in zip(args.grid, run_each(args, record, samples, rate, runs).values()):
                    counts[record, condition, value] = result
            print(f"  {record} done", file=sys.stderr, flush=True)

    condition_names = sorted({c for _, c, _ in counts}, key=lambda c: (c[1] is not None, -(c[1] or 0)))
    # Two objectives: every condition together, and the clean records alone (the held-out judges
    # of the beat classes, DS2 among them, are clean; under noise the false V beats outnumber every
    # other error, so the first objective buys them with clean V beats missed).
    chosen = {}
    for objective in ("every condition", "clean only"):
        counted = [c for c in condition_names if objective == "every condition" or c[1] is None]
        for held in args.records:
            others = [r for r in args.records if r != held]
            chosen[objective, held] = min(
                args.grid, key=lambda b: (veb_errors([counts[r, c, b] for r in others for c in counted]), b)
            )
        picks = " ".join(f"{r}:{chosen[objective, r]:g}" for r in args.records)
        print(f"\n{args.param} chosen on {objective} (record: value):", picks)
    pct = lambda x: "     -" if x is None else f"{100 * x:6.2f}"
    print("\nVEB gross over the records, the first 5 minutes left out (EC57); Se, +P and false V in %:")
    print(f"  {'value':>28}{'condition':>11}{'VEB Se':>9}{'VEB +P':>9}{'false V':>9}")
    lines = [
        (f"out of sample, {o}", lambda r, c, o=o: counts[r, c, chosen[o, r]]) for o in ("every condition", "clean only")
    ]
    lines += [(f"{b:g} (in sample)", lambda r, c, b=b: counts[r, c, b]) for b in args.grid]
    for name, pick in lines:
        for c in condition_names:
            g = gross([pick(r, c) for r in args.records])
            label = "clean" if c[1] is None else f"em {c[1]:g} dB"
            print(f"  {name:>28}{label:>11}{pct(g['veb_se']):>9}{pct(g['veb_pp']):>9}{pct(g['false_v']):>9}")


if __name__ == "__main__":
    main()
