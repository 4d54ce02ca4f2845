"""A choice of model on MIT-BIH DS1: the seed's LightVAE, MONAI's VarAutoEncoder and the seed-004
MLP autoencoder, each as a zeroflow.sklearn detector after the same BeatSegmenter.

Method. Each record of /work/shared/data/mitdb-ds1 (lead MLII, 360 Hz, read with wfdb-python) is
segmented once by BeatSegmenter (the robust method of `zeroflow run`; rows are robust z-scores).
The beats are split 75/25 (seeded shuffle, as the seed splits); each model is fitted on the
training beats (30 epochs, seed 42; the MLP with 100 full-batch epochs, its notebook's setting).
"test loss" is the mean reconstruction error of the held-out beats decoded from the latent mean
(the same measure for every model, so comparable; not the VAE's loss with its KL term). "V AUROC"
ranks every labelled beat by its detected beat's anomaly score (minus score_samples, over all
beats), V (AAMI: V and E) against every other labelled beat; a labelled beat without a detection
within 150 ms ranks lowest. The score here is the reconstruction error alone: `zeroflow run` adds
the rhythm part, so its AUROC (docs/performance.md) is higher. MONAI's row is skipped when MONAI is missing.

Usage: python3 bench/vae_models_ds1.py [--records 106 119] [--data DIR] [--epochs 30] [--device cpu]
"""

import argparse
import importlib.util
import pathlib
import time

import numpy as np
from sklearn.metrics import roc_auc_score

from zeroflow.sklearn import AutoEncoderOutlierDetector, BeatSegmenter, VAEOutlierDetector

RECORDS = ["106", "108", "114", "116", "119"]
BEAT_SYMBOLS = frozenset("NLRBAaJSVrFejnE/fQ?")


def load(data, record):
    import wfdb

    rec = wfdb.rdrecord(str(data / record), channels=[0])
    ann = wfdb.rdann(str(data / record), "atr")
    keep = [i for i, s in enumerate(ann.symbol) if s in BEAT_SYMBOLS]
    samples = np.asarray(ann.sample)[keep]
    is_v = np.array([ann.symbol[i] in ("V", "E") for i in keep])
    return rec.p_signal[:, 0].astype(np.float32), float(rec.fs), samples, is_v


def models(epochs, device):
    out = {"LightVAE (seed, LibTorch C++)": VAEOutlierDetector(epochs=epochs, random_state=42, device=device)}
    if importlib.util.find_spec("monai") is not None:
        out["MONAI VarAutoEncoder"] = VAEOutlierDetector(model="monai", epochs=epochs, random_state=42, device=device)
    out["MLP autoencoder (seed 004)"] = AutoEncoderOutlierDetector(random_state=42, device=device)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", nargs="*", default=RECORDS)
    ap.add_argument(
        "--data", default=str(pathlib.Path(__file__).resolve().parents[2] / "shared" / "data" / "mitdb-ds1")
    )
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--device", default=None, help="cpu or cuda:0 (default: where the rows are, the CPU)")
    args = ap.parse_args()
    data = pathlib.Path(args.data)

    results = {}
    pooled = {}
    for record in args.records:
        signal, rate, labelled, is_v = load(data, record)
        seg = BeatSegmenter(sample_rate=rate).set_output(transform="pandas")
        beats = seg.fit_transform(signal)
        rows, peaks = beats.to_numpy(), beats.index.to_numpy()
        order = np.random.default_rng(42).permutation(len(rows))
        train, test = order[: int(0.75 * len(rows))], order[int(0.75 * len(rows)) :]
        # each labelled beat's detection: the nearest detected peak within 150 ms
        nearest = np.clip(np.searchsorted(peaks, labelled), 1, len(peaks) - 1)
        nearest = np.where(
            np.abs(peaks[nearest - 1] - labelled) < np.abs(peaks[nearest] - labelled), nearest - 1, nearest
        )
        matched = np.abs(peaks[nearest] - labelled) <= 0.15 * rate
        for name, model in models(args.epochs, args.device).items():
            t0 = time.perf_counter()
            model.fit(rows[train])
            seconds = time.perf_counter() - t0
            error = -np.asarray(model.score_samples(rows))
            score = np.where(matched, error[nearest], -np.inf)
            score = np.where(np.isfinite(score), score, np.min(error) - 1.0)
            auroc = roc_auc_score(is_v, score) if is_v.any() else float("nan")
            results[(record, name)] = (float(np.mean(error[test])), auroc, seconds)
            p = pooled.setdefault(name, ([], []))
            p[0].append(score)
            p[1].append(is_v)
            print(
                f"{record} {name}: test loss {results[(record, name)][0]:.4f}, V AUROC {auroc:.3f}, "
                f"fit {seconds:.1f} s",
                flush=True,
            )

    names = list(pooled)
    print("\n| record | " + " | ".join(f"{n}: test loss / V AUROC" for n in names) + " |")
    print("|---|" + "---|" * len(names))
    for record in args.records:
        cells = [f"{results[(record, n)][0]:.4f} / {results[(record, n)][1]:.3f}" for n in names]
        print(f"| {record} | " + " | ".join(cells) + " |")
    cells = []
    for n in names:
        # pooled ranking: every record's beats together (scores are per record, as each model is)
        losses = [results[(r, n)][0] for r in args.records]
        auroc = roc_auc_score(np.concatenate(pooled[n][1]), np.concatenate(pooled[n][0]))
        cells.append(f"{np.mean(losses):.4f} / **{auroc:.3f}**")
    print("| pooled | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
