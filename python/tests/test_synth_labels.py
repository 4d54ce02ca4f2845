"""`zeroflow generate` labels: three columns (sample, MIT-BIH symbol, AAMI class), and atrial
premature beats that are early without a compensatory pause, checked with NumPy from the file."""

import numpy as np
import pytest
from conftest import run_cli

AAMI = {"N": "N", "A": "S", "V": "V"}


def read_labels(path):
    with open(path, encoding="utf-8") as f:
        header = f.readline().strip().split(",")
    rows = np.genfromtxt(path, delimiter=",", skip_header=1, dtype=None, encoding="utf-8")
    return header, rows["f0"].astype(np.int64), rows["f1"].astype(str), rows["f2"].astype(str)


def local_median_rr(samples, symbols, i, half=10):
    """Median R-R between two normal beats among the `half` beats either side of beat i."""
    lo, hi = max(0, i - half), min(len(samples) - 1, i + half)
    k = np.arange(lo + 1, hi + 1)
    normal = (symbols[k] == "N") & (symbols[k - 1] == "N")
    return np.median(np.diff(samples)[k - 1][normal])


@pytest.fixture(scope="module")
def apb_recording(zeroflow_bin, tmp_path_factory):
    csv = tmp_path_factory.mktemp("apb") / "apb.csv"
    run_cli(
        zeroflow_bin,
        "generate",
        "--hours",
        1,
        "--apb-rate",
        0.08,
        "--anomaly-rate",
        0.04,
        "--seed",
        11,
        "--noise-bursts-per-hour",
        20,
        "--baseline-jumps-per-hour",
        20,
        "--out",
        csv,
    )
    return csv


def test_labels_have_sample_symbol_and_aami_class(apb_recording):
    header, samples, symbols, classes = read_labels(apb_recording.with_suffix(".labels.csv"))
    assert header == ["sample", "symbol", "aami"]
    assert set(symbols) == {"N", "A", "V"}
    assert all(AAMI[s] == c for s, c in zip(symbols, classes))
    assert np.all(np.diff(samples) > 0) and samples[0] >= 0 and samples[-1] < 3600 * 250
    # About the fractions asked for (binomial, 5 standard errors).
    n = len(symbols)
    for symbol, rate in [("A", 0.08), ("V", 0.04)]:
        assert abs(np.sum(symbols == symbol) - n * rate) < 5 * np.sqrt(n * rate * (1 - rate)) + 1


def test_apbs_are_early_without_compensatory_pause(apb_recording):
    _, samples, symbols, _ = read_labels(apb_recording.with_suffix(".labels.csv"))
    before_ratio, after_ratio, pvc_pair_ratio = [], [], []
    for i in np.flatnonzero(np.isin(symbols, ["A", "V"])):
        if i < 1 or i + 1 >= len(samples) or symbols[i - 1] != "N" or symbols[i + 1] != "N":
            continue
        local = local_median_rr(samples, symbols, i)
        before, after = samples[i] - samples[i - 1], samples[i + 1] - samples[i]
        if symbols[i] == "A":
            before_ratio.append(before / local)
            after_ratio.append(after / local)
        else:
            pvc_pair_ratio.append((before + after) / local)
    before_ratio, after_ratio = np.array(before_ratio), np.array(after_ratio)
    assert len(before_ratio) > 200
    # Early: coupling 55-80 % of the sinus R-R, which heart-rate variability widens a little
    # against the local median.
    assert np.all(before_ratio < 1.0) and np.all(before_ratio > 0.45)
    assert np.quantile(before_ratio, 0.99) < 0.9
    assert 0.6 < np.mean(before_ratio) < 0.75
    # The sinus node restarts at the APB: the next interval is about one normal R-R, so
    # before + after falls well short of the two R-Rs of a compensatory pause ...
    assert np.all(np.abs(after_ratio - 1.04) < 0.3)
    assert np.mean(before_ratio + after_ratio) < 1.85
    # ... which the PVCs of the same recording do have.
    assert len(pvc_pair_ratio) > 50 and abs(np.mean(pvc_pair_ratio) - 2.0) < 0.06


def test_artefacts_file_lists_bursts_and_jumps(apb_recording):
    path = apb_recording.with_suffix(".artefacts.csv")
    with open(path, encoding="utf-8") as f:
        assert f.readline().strip() == "start,end,kind"
    rows = np.genfromtxt(path, delimiter=",", skip_header=1, dtype=None, encoding="utf-8")
    starts, ends, kinds = rows["f0"], rows["f1"], rows["f2"].astype(str)
    assert set(kinds) == {"noise_burst", "baseline_jump"}
    assert np.all(starts < ends) and np.all(np.diff(starts) >= 0) and ends.max() <= 3600 * 250
    # A noise burst is where the signal's sample-to-sample changes are much larger than usual.
    signal = np.loadtxt(apb_recording, skiprows=1, dtype=np.float64)
    d2 = np.diff(signal) ** 2
    typical = np.median(d2)
    for s, e in zip(starts[kinds == "noise_burst"], ends[kinds == "noise_burst"]):
        assert np.mean(d2[s : e - 1]) > 5 * typical, (s, e)


def test_generate_defaults_include_apbs_and_no_artefacts(zeroflow_bin, tmp_path):
    csv = tmp_path / "default.csv"
    run_cli(zeroflow_bin, "generate", "--hours", 1, "--out", csv)
    _, _, symbols, _ = read_labels(csv.with_suffix(".labels.csv"))
    assert 0.01 < np.mean(symbols == "A") < 0.03  # --apb-rate 0.02
    assert not csv.with_suffix(".artefacts.csv").exists()


def test_out_of_range_flags_are_refused(zeroflow_bin, tmp_path):
    for flags in (
        ["--apb-rate", "0.6"],
        ["--noise-bursts-per-hour", "-1"],
        ["--baseline-jumps-per-hour", "400"],
        ["--apb-rate", "0.3", "--anomaly-rate", "0.3"],
    ):
        proc = run_cli(zeroflow_bin, "generate", "--hours", 0.01, *flags, "--out", tmp_path / "x.csv", check=False)
        assert proc.returncode != 0, flags
        assert not (tmp_path / "x.csv").exists()
