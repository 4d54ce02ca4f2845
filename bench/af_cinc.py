"""AF in short single-lead recordings (CinC 2017): the strip prior's cross-validation and its fit.

Method. `zeroflow run` (default flags, CPU) processes every recording of
../shared/data/cinc2017-dev (4,264 odd-numbered training records of the PhysioNet/CinC Challenge
2017: 300 Hz, one handheld lead, 9-61 s; labels N normal, A AF, O another rhythm, ~ noisy) once, in
one process (`--jobs`), into --work. A record is called AF when its run has an AF episode
(episodes.csv).

Every record is a strip (its beats span at most a minute), which zeroflow reads whole with a small
learned prior (classify/af_strip.hpp): a logistic model over eight measures of the strip's rhythm
and atrial activity (P waves, f waves). The measures come from each run's beats.csv through zeroflow.rhythm.measure_af_strip
(the library's own function; the run's final V and Q beats and the beats of unreadable stretches
left out, where the run leaves out a first guess of the V beats and the unlike beats no clearer
than noise).

Out of sample: 5-fold cross-validation over the records (stratified by label, seeded; the
challenge gives no patient identifiers, and its records are mostly one per patient). On four
folds: the measures standardised, an L2 logistic regression (scikit-learn, C = 1) of AF against
every other label (a noisy strip is not AF either), and the decision: the P-wave veto (a strip
whose median P-wave coherence is at least the bound, one of COHERENCE_GRID, is not AF) and the
threshold, the lowest probability at which the out-of-fold predictions of an inner 5-fold
cross-validation of those four folds, vetoed, call at most 1 % of N and 4 % of O records AF (the
targets); the bound that finds the most AF records there, the lowest among equals. Then the fifth
fold is scored.
The out-of-sample row pools the five held-out folds; it is the result. `--repeats N` adds the mean
over N seeded splits (the split alone moves the figures by about a point). `--fit PATH` fits the prior
the same way on every record and writes it (the library embeds data/af_strip_prior.safetensors).

Also shown: the runs' own calls (the shipped prior, fitted on these records: in-sample) and the
window rule alone (strip_max_seconds = 0, the rule before strips had a prior), re-decided offline.

Usage: python3 bench/af_cinc.py [--bin build/cpu/zeroflow] [--work /tmp/zeroflow-cinc]
       [--data ../shared/data/cinc2017-dev] [--jobs 2] [--limit N] [--fit data/af_strip_prior.safetensors]
       [--repeats 10]
"""

from __future__ import annotations

import argparse
import csv
import json
import pathlib
import subprocess
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
RATE = 300.0
LABELS = ("A", "N", "O", "~")
#: The targets of false AF (% of N and of O records) that the threshold respects.
FALSE_AF_MAX = {"N": 1.0, "O": 4.0}
FOLDS = 5
SEED = 2017
#: Bounds of the strip's P-wave veto the inner cross-validation chooses from: a median coherence of
#: 0.5 is already a P wave alike in most beats (CinC's normal strips: median 0.59), and 0.9 is
#: nearly every beat's.
COHERENCE_GRID = (0.5, 0.6, 0.7, 0.8, 0.9)


def run_all(binary: pathlib.Path, data: pathlib.Path, work: pathlib.Path, records: list[str], jobs: int) -> None:
    """One `zeroflow run` over every record (one process, --jobs at a time; 4,264 paths are far
    below the command line's limit). A --work folder that already holds the runs is reused."""
    if (work / "runs.csv").exists():
        return
    proc = subprocess.run(
        [str(binary), "run", *[str(data / f"{r}.hea") for r in records], "--jobs", str(jobs), "--device", "cpu"]
        + ["--out", str(work)],
        capture_output=True,
        text=True,
    )
    if proc.returncode not in (0, 1):  # 1: some recording failed; those are counted below
        sys.exit(f"zeroflow run failed ({proc.returncode}):\n{proc.stderr[-2000:]}")


def read_run(folder: pathlib.Path) -> dict:
    """A run's beats as find_af_episodes takes them, and whether the run called AF."""
    from zeroflow.classify import CLASS_DEFAULTS

    with open(folder / "beats.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    clarity = np.array([float(r["clarity"]) for r in rows])
    # The run leaves out of the AF test a first guess of its V beats, the unlike beats no clearer
    # than noise and the beats of unreadable stretches (the median clarity of +-4 beats under
    # CLASS_DEFAULTS' bound). beats.csv has the last; its V and Q beats stand in for the others.
    k = int(CLASS_DEFAULTS["quality.stretch_beats"])
    unreadable = [
        np.median(clarity[max(0, b - k) : b + k + 1]) < CLASS_DEFAULTS["quality.min_clarity"] for b in range(len(rows))
    ]
    number = lambda r, key: float(r[key]) if r[key] else np.nan  # noqa: E731
    with open(folder / "episodes.csv") as f:
        called = len(f.read().strip().splitlines()) > 1
    return dict(
        peaks=np.array([int(r["peak"]) for r in rows], dtype=np.int64),
        left_out=np.array([r["class"] in ("V", "Q") for r in rows], dtype=bool) | np.array(unreadable, dtype=bool),
        p_wave_coherence=np.array([number(r, "p_coherence") for r in rows]),
        p_wave_similarity=np.array([number(r, "p_similarity") for r in rows]),
        f_wave_rate=np.array([number(r, "f_wave_rate") for r in rows]),
        called=called,
    )


def measures(run: dict) -> np.ndarray | None:
    from zeroflow.rhythm import measure_af_strip

    return measure_af_strip(
        run["peaks"], RATE, left_out=run["left_out"], p_wave_coherence=run["p_wave_coherence"],
        p_wave_similarity=run["p_wave_similarity"], f_wave_rate=run["f_wave_rate"],
    )  # fmt: skip


def threshold_of(probability: np.ndarray, labels: np.ndarray) -> float:
    """The lowest threshold that calls at most FALSE_AF_MAX of N and O records AF (inf: none)."""
    best = np.inf
    for t in np.unique(probability)[::-1]:
        called = probability >= t
        if all(100 * np.mean(called[labels == k]) <= v for k, v in FALSE_AF_MAX.items()):
            best = t
        else:
            break
    return float(best)


def vetoed(X: np.ndarray, coherence_max: float) -> np.ndarray:
    """Strips whose P wave is coherent enough to veto AF (an unmeasured coherence vetoes nothing)."""
    from zeroflow.rhythm import AF_STRIP_FEATURES

    return np.nan_to_num(X[:, AF_STRIP_FEATURES.index("p_wave_coherence")], nan=0.0) >= coherence_max


def called_af(prior: dict, X: np.ndarray) -> np.ndarray:
    """The prior's call, as af_strip_is_af makes it."""
    return (probability_of(prior, X) >= prior["threshold"][0]) & ~vetoed(X, prior["p_wave_coherence_max"][0])


def fit(X: np.ndarray, labels: np.ndarray, measured: np.ndarray) -> dict:
    """The prior fitted on these records: standardisation, weights, bias, veto and threshold (the method above)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold

    def logistic(rows):
        mean, scale = np.nanmean(X[rows], axis=0), np.nanstd(X[rows], axis=0)
        model = LogisticRegression(C=1.0, max_iter=5000).fit(standardised(X[rows], mean, scale), labels[rows] == "A")
        return mean, scale, model

    fitted = np.flatnonzero(measured)
    mean, scale, model = logistic(fitted)
    # The threshold from out-of-fold probabilities (a record too short to measure is never AF).
    probability = np.zeros(len(labels))
    inner = StratifiedKFold(FOLDS, shuffle=True, random_state=SEED + 1)
    for train, test in inner.split(fitted, labels[fitted]):
        m, s, inner_model = logistic(fitted[train])
        probability[fitted[test]] = inner_model.predict_proba(standardised(X[fitted[test]], m, s))[:, 1]
    _, bound, threshold = max(
        (np.mean((vetoed_probability >= t)[labels == "A"]), -bound, t)
        for bound in COHERENCE_GRID
        for vetoed_probability in [np.where(vetoed(X, bound), 0.0, probability)]
        for t in [threshold_of(vetoed_probability, labels)]
    )
    return dict(
        mean=mean, scale=scale, weight=model.coef_[0], bias=model.intercept_[:1],
        threshold=np.array([threshold]), p_wave_coherence_max=np.array([-bound]),
    )  # fmt: skip


def standardised(X: np.ndarray, mean: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """(X - mean) / scale, a NaN measure (no P wave measured) 0: its mean, as the library counts it."""
    return np.nan_to_num((X - mean) / scale, nan=0.0)


def probability_of(prior: dict, X: np.ndarray) -> np.ndarray:
    z = prior["bias"][0] + standardised(X, prior["mean"], prior["scale"]) @ prior["weight"]
    return 1.0 / (1.0 + np.exp(-z))


def rates(labels: np.ndarray, called: np.ndarray) -> dict[str, tuple[int, int]]:
    return {k: (int(called[labels == k].sum()), int((labels == k).sum())) for k in LABELS}


def row(label: str, r: dict[str, tuple[int, int]]) -> str:
    cells = [f"{100 * k / n:.1f} % ({k}/{n})" if n else "-" for k, n in (r[x] for x in LABELS)]
    return f"| {label} | " + " | ".join(cells) + " |"


def write_prior(path: pathlib.Path, prior: dict, figures: str, count: int) -> None:
    from safetensors.numpy import save_file

    from zeroflow.rhythm import AF_STRIP_FEATURES

    metadata = {
        "features": ",".join(AF_STRIP_FEATURES),
        "model": "logistic regression on standardised measures: AF when 1 / (1 + exp(-(bias + "
        "sum(weight * (x - mean) / scale)))) >= threshold and the median P-wave coherence < p_wave_coherence_max",
        "source": f"PhysioNet/Computing in Cardiology Challenge 2017, {count} odd-numbered training records "
        "(Clifford GD et al., Computing in Cardiology 44, 2017)",
        "license": "ODC-By 1.0 (the data); the fitted numbers are zeroflow's",
        "procedure": "bench/af_cinc.py --fit: scikit-learn LogisticRegression(C=1); in 5-fold out-of-fold "
        "probabilities, the P-wave coherence veto (from 0.5-0.9) that finds the most AF records and the lowest "
        "threshold that calls at most 1 % of N and 4 % of O records AF",
        "out_of_sample": figures,
    }
    tensors = {k: np.ascontiguousarray(v, dtype=np.float64) for k, v in prior.items()}
    path.parent.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(path), metadata=metadata)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", type=pathlib.Path, default=ROOT / "build" / "default" / "zeroflow")
    parser.add_argument("--data", type=pathlib.Path, default=ROOT.parent / "shared" / "data" / "cinc2017-dev")
    parser.add_argument("--work", type=pathlib.Path, default=pathlib.Path("/tmp/zeroflow-cinc"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--limit", type=int, default=0, help="only the first N records (a quick look)")
    parser.add_argument("--fit", type=pathlib.Path, help="write the prior fitted on every record here")
    parser.add_argument("--repeats", type=int, default=1, help="also the mean over this many 5-fold splits")
    args = parser.parse_args()
    if not (args.data / "REFERENCE.csv").exists():
        sys.exit(f"af_cinc: no {args.data}/REFERENCE.csv (../shared/data/cinc2017-dev)")
    from sklearn.model_selection import StratifiedKFold

    from zeroflow.rhythm import AF_STRIP_FEATURES, find_af_episodes

    with open(args.data / "REFERENCE.csv") as f:
        reference = {r[0]: r[1] for r in csv.reader(f) if r}
    names = sorted(reference)[: args.limit or None]
    run_all(args.bin, args.data, args.work, names, args.jobs)
    runs = {n: read_run(args.work / n) for n in names if (args.work / n / "beats.csv").exists()}
    failed = len(names) - len(runs)
    names = sorted(runs)
    labels = np.array([reference[n] for n in names])
    found = [measures(runs[n]) for n in names]
    measured = np.array([x is not None for x in found])
    X = np.array([x if x is not None else np.full(len(AF_STRIP_FEATURES), np.nan) for x in found])
    print(
        f"{len(names)} records ({failed} runs failed; {int((~measured).sum())} too short to measure)", file=sys.stderr
    )

    def cross_validated(seed: int) -> np.ndarray:
        held_out = np.zeros(len(names), dtype=bool)
        for train, test in StratifiedKFold(FOLDS, shuffle=True, random_state=seed).split(X, labels):
            prior = fit(X[train], labels[train], measured[train])
            held_out[test] = measured[test] & called_af(prior, X[test])
        return held_out

    held_out = cross_validated(SEED)
    # The split moves the figures by about a point: the mean over --repeats other splits shows it.
    repeats = [cross_validated(SEED + k) for k in range(1, args.repeats)]
    window_rule = np.array(
        [
            bool(
                find_af_episodes(
                    runs[n]["peaks"],
                    RATE,
                    left_out=runs[n]["left_out"],
                    p_wave_coherence=runs[n]["p_wave_coherence"],
                    strip_max_seconds=0,
                ).episodes
            )  # fmt: skip
            for n in names
        ]
    )
    table = [
        "| | A (AF) | N (normal) | O (other rhythm) | ~ (noisy) |",
        "|---|---|---|---|---|",
        row(f"strip prior, {FOLDS}-fold cross-validation (out of sample)", rates(labels, held_out)),
        row("zeroflow run (the shipped prior, fitted on these records: in-sample)", rates(labels, np.array([runs[n]["called"] for n in names]))),
        row("the window rule alone (strip_max_seconds = 0)", rates(labels, window_rule)),
    ]  # fmt: skip
    if repeats:
        mean = [100 * np.mean([r[labels == k].mean() for r in [held_out, *repeats]]) for k in LABELS]
        table.insert(3, f"| the same, mean of {args.repeats} splits | " + " | ".join(f"{m:.1f} %" for m in mean) + " |")
    print("Records called AF, by reference label (CinC 2017 odd-numbered training records)\n")
    print("\n".join(table))
    if args.fit:
        prior = fit(X, labels, measured)
        write_prior(args.fit, prior, json.dumps(rates(labels, held_out)), len(names))
        print(f"\nwrote {args.fit}: {json.dumps({k: np.round(v, 6).tolist() for k, v in prior.items()})}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
