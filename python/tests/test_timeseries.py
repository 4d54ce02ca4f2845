"""The seed-004 pipeline from the command line: `zeroflow generate-electricity` (read back with
pandas: layout, seasonality, holidays, labels that match the values) and `zeroflow timeseries`
(against scikit-learn's MinMaxScaler, the seed notebook's PyTorch model and loop on the same file,
NumPy's quantiles and scikit-learn's ranking metrics)."""

import json

import numpy as np
import pandas as pd
import pytest
from conftest import run_cli
from sklearn.metrics import average_precision_score, roc_auc_score
from sklearn.preprocessing import MinMaxScaler

import zeroflow as zf  # noqa: F401  (scripts/test installs it; a missing module must fail, not skip)

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def electricity(zeroflow_bin, tmp_path_factory):
    """Two years of hourly rows (the seed's file is about three), with its labels."""
    csv = tmp_path_factory.mktemp("electricity") / "electricity.csv"
    run_cli(zeroflow_bin, "generate-electricity", "--days", 730, "--seed", 5, "--out", csv)
    return csv, pd.read_csv(csv), pd.read_csv(csv.with_name("electricity.labels.csv"))


def test_the_table_has_the_seed_files_layout_and_its_cycles(electricity):
    _, df, labels = electricity
    assert list(df.columns) == [
        "ID",
        "datetime",
        "temperature",
        "pressure",
        "windspeed",
        "residential",
        "commercial",
        "electricity_consumption",
    ]  # consumption in column 7, as the notebook's iloc[:, 7]
    assert len(df) == 730 * 24 and (df["ID"] == np.arange(len(df))).all()
    t = pd.to_datetime(df["datetime"])
    assert t.iloc[0] == pd.Timestamp("2013-07-01") and (t.diff().dropna() == pd.Timedelta(hours=1)).all()
    clean = df.drop(index=labels["row"]).set_index(t.drop(index=labels["row"]))
    for name in ("residential", "commercial", "electricity_consumption"):
        x = df[name].where(~df.index.isin(labels.loc[labels["column"] == name, "row"])).interpolate()
        assert x.autocorr(24) > 0.6, name  # a daily cycle
        assert x.autocorr(168) > x.autocorr(84), name  # a weekly one
    weekday = clean[clean.index.dayofweek < 5]
    sunday = clean[clean.index.dayofweek == 6]
    noon = lambda frame: frame[frame.index.hour == 12]["commercial"].mean()  # noqa: E731
    assert noon(sunday) < 0.5 * noon(weekday)
    christmas = clean[(clean.index.month == 12) & (clean.index.day == 25)]
    working = weekday[(weekday.index.month == 12) & (weekday.index.day != 25)]
    assert noon(christmas) < 0.5 * noon(working)  # a holiday looks like a Sunday
    summer = clean[clean.index.month == 7]["temperature"].mean()
    winter = clean[clean.index.month == 1]["temperature"].mean()
    assert summer - winter > 12


def test_labels_mark_the_injected_anomalies(electricity):
    _, df, labels = electricity
    assert set(labels["kind"]) == {"spike", "dip", "outage"}
    assert set(labels["column"]) == {"residential", "commercial", "electricity_consumption"}
    for name in ("residential", "commercial", "electricity_consumption"):
        mine = labels[labels["column"] == name]
        x = df[name].to_numpy()
        outage = mine[mine["kind"] == "outage"]["row"].to_numpy()
        assert len(outage) and (x[outage] == 0).all()
        normal = np.setdiff1d(np.arange(len(x)), mine["row"])
        assert (x[normal] > 0).all()
        # against the same hour a week before and after: spikes well above, dips well below
        for kind, test in (("spike", lambda r: r > 1.5), ("dip", lambda r: r < 0.6)):
            rows = mine[mine["kind"] == kind]["row"].to_numpy()
            rows = rows[(rows >= 168) & (rows < len(x) - 168)]
            ratio = x[rows] / (0.5 * (x[rows - 168] + x[rows + 168]))
            assert test(np.median(ratio)), (name, kind, np.median(ratio))
    assert (labels["datetime"] == df["datetime"].to_numpy()[labels["row"]]).all()


class NotebookEncoder(torch.nn.Module):
    """The seed-004 notebook's Encoder."""

    def __init__(self):
        super().__init__()
        self.first_layer_encoder = torch.nn.Linear(1, 32)
        self.second_layer_encoder = torch.nn.Linear(32, 32)
        self.first_layer_decoder = torch.nn.Linear(32, 32)
        self.second_layer_decoder = torch.nn.Linear(32, 1)

    def forward(self, x):
        output = torch.relu(self.second_layer_encoder(torch.relu(self.first_layer_encoder(x))))
        return torch.sigmoid(self.second_layer_decoder(torch.relu(self.first_layer_decoder(output)))), output


@pytest.fixture(scope="module")
def pipeline_run(zeroflow_bin, electricity, tmp_path_factory):
    csv, _, _ = electricity
    out = tmp_path_factory.mktemp("ts")
    run_cli(zeroflow_bin, "timeseries", csv, "--column", "7", "--out", out, "--device", "cpu", "--seed", 11)
    return out, pd.read_csv(out / "points.csv"), json.loads((out / "summary.json").read_text())


def test_timeseries_is_the_notebooks_pipeline(electricity, pipeline_run):
    _, df, _ = electricity
    _, points, summary = pipeline_run
    assert summary["column"] == "electricity_consumption" and summary["rows"] == len(df) == len(points)
    # the notebook's preprocessing
    values = df.iloc[:, 7].values.reshape((-1, 1)).astype("float32")
    scaled = MinMaxScaler().fit(values).transform(values).reshape(-1)
    np.testing.assert_array_equal(points["value"].to_numpy(np.float32), values.reshape(-1))
    np.testing.assert_array_equal(points["scaled"].to_numpy(np.float32), scaled)
    # the notebook's model and loop, from the same initial weights (seed 11)
    torch.manual_seed(11)
    model = NotebookEncoder()
    x = torch.from_numpy(scaled).unsqueeze(1)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=1e-5)
    losses = []
    for _ in range(100):
        output, _ = model(x)
        loss = torch.nn.MSELoss()(output, x)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    np.testing.assert_allclose(summary["loss"], losses, rtol=1e-3)
    with torch.no_grad():
        recon = model(x)[0].squeeze(1).numpy()
    np.testing.assert_allclose(points["reconstruction"], recon, rtol=1e-3, atol=1e-5)
    # the score is the squared reconstruction error, and outliers lie beyond Tukey's fence
    np.testing.assert_allclose(
        points["score"], (points["reconstruction"] - points["scaled"]) ** 2, rtol=1e-5, atol=1e-9
    )
    q1, q3 = np.quantile(points["score"].to_numpy(np.float32), [0.25, 0.75])
    fence = q3 + 1.5 * (q3 - q1)
    assert summary["threshold"]["value"] == pytest.approx(fence, rel=1e-6)
    np.testing.assert_array_equal(points["outlier"], (points["score"] > fence).astype(int))


def test_timeseries_finds_the_labelled_anomalies(electricity, pipeline_run):
    _, _, labels = electricity
    _, points, summary = pipeline_run
    truth = np.zeros(len(points), dtype=int)
    truth[labels.loc[labels["column"] == "electricity_consumption", "row"]] = 1
    np.testing.assert_array_equal(points["label"], truth)
    e = summary["evaluation"]
    assert e["anomalies"] == truth.sum()
    assert e["auroc"] == pytest.approx(roc_auc_score(truth, points["score"]), abs=1e-9)
    assert e["average_precision"] == pytest.approx(average_precision_score(truth, points["score"]), abs=1e-9)
    assert e["auroc"] > 0.95
    assert set(summary["stages_ms"]) >= {"read", "scale", "train", "score", "write"}


def test_timeseries_refusals(zeroflow_bin, electricity, tmp_path):
    csv, _, _ = electricity
    proc = run_cli(zeroflow_bin, "timeseries", csv, "--column", "datetime", "--out", tmp_path / "a", check=False)
    assert proc.returncode == 1 and "datetime" in proc.stderr and "cannot parse" in proc.stderr
    proc = run_cli(zeroflow_bin, "timeseries", csv, "--column", "power", "--out", tmp_path / "b", check=False)
    assert proc.returncode == 1 and "power" in proc.stderr
    proc = run_cli(zeroflow_bin, "generate-electricity", "--out", tmp_path, check=False)
    assert proc.returncode == 1 and "is a folder" in proc.stderr


def test_the_example_pipeline_of_estimators(electricity, tmp_path):
    import pathlib
    import subprocess
    import sys

    csv, df, _ = electricity
    example = pathlib.Path(__file__).resolve().parents[2] / "examples" / "timeseries_pipeline.py"
    out = tmp_path / "summary.json"
    proc = subprocess.run(
        [sys.executable, str(example), str(csv), "--device", "cpu", "--epochs", "60", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    summary = json.loads(out.read_text())
    assert summary["rows"] == len(df) and summary["column"] == "electricity_consumption"
    assert summary["auroc"] > 0.95
    assert summary["top_labelled"] >= 8  # of the 10 points it ranks first
