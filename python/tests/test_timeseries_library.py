"""The seed-004 pipeline as a library call: zeroflow.pipeline.run_timeseries gives what `zeroflow
timeseries` writes (the same scores, flags, threshold and summary), and the library's order
statistics, which both it and zeroflow.sklearn's detectors use, round as NumPy's quantile does."""

import json

import numpy as np
import pandas as pd
import pytest
from conftest import run_cli

import zeroflow as zf
from zeroflow import _core


@pytest.fixture(scope="module")
def table(zeroflow_bin, tmp_path_factory):
    """Sixty days of hourly rows and their labels."""
    csv = tmp_path_factory.mktemp("electricity") / "electricity.csv"
    run_cli(zeroflow_bin, "generate-electricity", "--days", 60, "--seed", 8, "--anomaly-rate", 0.005, "--out", csv)
    return csv


def test_run_timeseries_is_the_command(zeroflow_bin, table, tmp_path):
    out = tmp_path / "cli"
    args = ["--device", "cpu", "--epochs", 40, "--seed", 3, "--learning-rate", 0.02]
    run_cli(zeroflow_bin, "timeseries", table, "--column", "commercial", "--out", out, *args)
    points = pd.read_csv(out / "points.csv")
    summary = json.loads((out / "summary.json").read_text())

    r = zf.pipeline.run_timeseries(table, column="commercial", device="cpu", epochs=40, seed=3, learning_rate=0.02)
    assert r.column == "commercial" and r.device == "cpu"
    # points.csv holds every float32 with 9 significant digits: read back, it is the same float.
    for name in ("value", "scaled", "reconstruction", "score"):
        got = getattr(r, name)
        assert got.dtype == np.float32 and got.shape == (len(points),)
        np.testing.assert_array_equal(got, points[name].to_numpy(np.float64).astype(np.float32), err_msg=name)
    assert r.outlier.dtype == np.bool_
    np.testing.assert_array_equal(r.outlier, points["outlier"].to_numpy() == 1)
    np.testing.assert_array_equal(r.label, points["label"].to_numpy() == 1)  # INPUT's .labels.csv, as the CLI
    assert r.threshold == summary["threshold"]["value"]
    assert r.outlier.sum() == summary["threshold"]["outliers"] > 0
    # The summary is summary.json's, but for the times (the command's include writing the files).
    timing = ("stages_ms", "total_ms")
    assert {k: v for k, v in r.summary.items() if k not in timing} == {
        k: v for k, v in summary.items() if k not in timing
    }
    assert set(r.stages_ms) == set(r.summary["stages_ms"]) == {"read", "scale", "train", "score", "threshold"}
    assert set(summary["stages_ms"]) == set(r.stages_ms) | {"write"}
    assert r.epoch_loss == summary["loss"]


def test_run_timeseries_threshold_is_numpys_fence(table):
    r = zf.pipeline.run_timeseries(table, column=7, device="cpu", epochs=5, labels=None)
    assert r.label is None and "evaluation" not in r.summary
    q1, q3 = np.quantile(r.score.astype(np.float64), [0.25, 0.75])
    assert (r.q1, r.q3) == (q1, q3)
    assert r.threshold == q3 + 1.5 * (q3 - q1)
    np.testing.assert_array_equal(r.outlier, r.score > r.threshold)


def test_run_timeseries_refusals_name_no_flags(table):
    with pytest.raises(ValueError, match="epochs") as e:
        zf.pipeline.run_timeseries(table, column=7, device="cpu", epochs=-1)
    assert "--" not in str(e.value)
    with pytest.raises(ValueError, match="power"):
        zf.pipeline.run_timeseries(table, column="power", device="cpu", epochs=1)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_library_quantiles_round_as_numpy(dtype):
    rng = np.random.default_rng(4)
    for n in (1, 2, 3, 7, 100, 1001, 4096):
        x = rng.lognormal(0.0, 2.0, n).astype(dtype)
        wide = x.astype(np.float64)  # what the detectors' numpy path passed numpy.quantile
        for q in (0.0, 0.01, 0.05, 0.1, 0.25, 0.3, 0.5, 0.75, 0.95, 1.0):
            assert _core._quantile(zf.asarray(x), q) == np.quantile(wide, q), (n, q)
        q1, q3, lower, upper = _core._tukey_fence(zf.asarray(x))
        nq1, nq3 = np.quantile(wide, [0.25, 0.75])
        assert (q1, q3) == (nq1, nq3)
        assert lower == nq1 - 1.5 * (nq3 - nq1) and upper == nq3 + 1.5 * (nq3 - nq1)
    # strided views, NaN, nothing
    x = rng.normal(size=101).astype(dtype)
    assert _core._quantile(zf.asarray(x[::3]), 0.4) == np.quantile(x[::3].astype(np.float64), 0.4)
    assert np.isnan(_core._quantile(zf.asarray(np.array([1.0, np.nan, 2.0], dtype)), 0.5))
    with pytest.raises(ValueError, match="at least one value"):
        _core._quantile(zf.asarray(np.zeros(0, dtype)), 0.5)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        _core._quantile(zf.asarray(x), 1.5)


def test_run_timeseries_takes_its_loading_method_per_call(table):
    a = zf.pipeline.run_timeseries(table, column=7, device="cpu", epochs=2, io="posix")
    b = zf.pipeline.run_timeseries(table, column=7, device="cpu", epochs=2)
    np.testing.assert_array_equal(a.value, b.value)
    with pytest.raises(ValueError, match=r"io=gds: not a loading method; choose auto, kvikio, posix or mmap"):
        zf.pipeline.run_timeseries(table, column=7, device="cpu", epochs=1, io="gds")
