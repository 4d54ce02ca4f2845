"""One description of the run options for every front (zeroflow/pipeline/run_option_table.hpp).

- Python has every option of ``zeroflow run`` and ``zeroflow score``: for each one, a Python run with
  a value other than the default gives the same beats.csv and the same recorded options
  (summary.json's "options") as the command line with that flag.
- The command line's --help, Python's run() docstring and RunOptions come from the same table.
- A refused value is named in each front's own spelling.
- No message of the library names a command-line flag.
"""

import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from conftest import ROOT, run_cli

from zeroflow import pipeline

TABLE = {o["name"]: o for o in pipeline.OPTION_TABLE}

# Each option with a value other than its default that still makes a run of the small recording
# below; the scoring option (model) is compared through `zeroflow score`.
OTHER_VALUES = {
    "lead": "b",
    "sample_rate": "300",
    "channels": "2",
    "gain": "2",
    "allow_outside_record": True,
    "io": "posix",
    "threads": "1",
    "labels": "LABELS",
    "device": "cpu",
    "segmentation": "gate-to-gate",
    "normalize": "none",
    "min_beat_seconds": "0.3",
    "max_beat_seconds": "1.2",
    "min_peak_ratio": "0.2",
    "max_device_memory": "64M",
    "model": "MODEL",
    "model_kind": "mlp",
    "epochs": "3",
    "batch": "64",
    "seed": "7",
    "ricker_seconds": "0.1",
    "nms_window_seconds": "0.6",
    "refractory_seconds": "0.25",
    "t_wave_seconds": "0.3",
    "replace_seconds": "0.2",
    "slope_seconds": "0.06",
    "learn_seconds": "6",
    "stretch_seconds": "60",
    "overlap_seconds": "10",
    "window_before_seconds": "0.2",
    "window_after_seconds": "0.4",
    "pause_seconds": "1.5",
    "bradycardia_bpm": "45",
    "tachycardia_bpm": "110",
    "run_beats": "4",
    "class_params": "timing.one_cue_min_clarity=5,quality.min_clarity=12",
}


@pytest.fixture(scope="module")
def inputs(zeroflow_bin, tmp_path_factory):
    """A short recording as a two-column CSV (b = 2 a), its labels, a raw two-channel .f32 copy, a
    WFDB record whose signal file sits outside its folder, and a model trained on it."""
    folder = tmp_path_factory.mktemp("options")
    one = folder / "one.csv"
    run_cli(zeroflow_bin, "generate", "--hours", 0.03, "--heart-rate", 80, "--seed", 3, "--out", one)
    a = np.loadtxt(one, delimiter=",", skiprows=1, dtype=np.float32)
    two = folder / "two.csv"
    with open(two, "w") as f:
        f.write("a,b\n")
        for v in a:
            f.write(f"{float(v)!r},{2 * float(v)!r}\n")
    raw = folder / "two.f32"
    np.stack([a, 2 * a], axis=1).astype("<f4").tofile(raw)
    # A WFDB record (format 16) whose header names ../signals/rec.dat.
    record = folder / "record"
    signals = folder / "signals"
    record.mkdir()
    signals.mkdir()
    digital = np.clip(np.round(a * 200), -32768, 32767).astype("<i2")
    digital.tofile(signals / "rec.dat")
    (record / "rec.hea").write_text(
        f"rec 1 250 {len(digital)}\n../signals/rec.dat 16 200/mV 16 0 {int(digital[0])} 0 0 MLII\n"
    )
    model_dir = folder / "model"
    run_cli(zeroflow_bin, "run", two, "--device", "cpu", "--epochs", 2, "--out", model_dir)
    labels = folder / "one.labels.csv"
    assert labels.exists()
    return {
        "csv": two,
        "raw": raw,
        "wfdb": record / "rec.hea",
        "labels": labels,
        "model": model_dir / "model.safetensors",
    }


def _input_for(name, inputs):
    if name in ("channels", "gain"):
        return inputs["raw"]
    if name == "allow_outside_record":
        return inputs["wfdb"]
    return inputs["csv"]


def _value_for(name, inputs):
    value = OTHER_VALUES[name]
    if value == "LABELS":
        return str(inputs["labels"])
    if value == "MODEL":
        return str(inputs["model"])
    return value


def _read_beats(folder):
    with open(folder / "beats.csv") as f:
        header = f.readline().strip().split(",")
        rows = [line.rstrip("\n").split(",") for line in f]
    return header, rows


def _same_beats(cli_dir, py_dir):
    header_cli, rows_cli = _read_beats(cli_dir)
    header_py, rows_py = _read_beats(py_dir)
    assert header_cli == header_py
    assert len(rows_cli) == len(rows_py)
    for r_cli, r_py in zip(rows_cli, rows_py):
        for name, x, y in zip(header_cli, r_cli, r_py):
            if x == y:
                continue
            # Training in two processes may differ in the last float digits (thread counts).
            assert float(x) == pytest.approx(float(y), rel=1e-3, abs=1e-4), (name, x, y)


def test_every_option_of_the_table_is_compared_here():
    assert set(OTHER_VALUES) == {o["name"] for o in pipeline.OPTION_TABLE if o["use"] != "library"}


@pytest.mark.parametrize("name", sorted(OTHER_VALUES))
def test_python_and_the_command_line_run_alike(name, zeroflow_bin, inputs, tmp_path):
    option = TABLE[name]
    value = _value_for(name, inputs)
    recording = _input_for(name, inputs)
    base = {"device": "cpu", "epochs": "2"}
    if name in ("channels", "gain"):
        base["sample_rate"] = "250"
    if name in base:
        del base[name]
    flag = option["flag"]
    command = "score" if option["use"] == "scoring" else "run"
    args = [command, recording, "--out", tmp_path / "cli"]
    for key, v in base.items():
        if command == "score" and TABLE[key]["use"] == "training":
            continue
        args += [TABLE[key]["flag"], v]
    args += [flag] if option["kind"] == "bool" else [flag, value]
    run_cli(zeroflow_bin, *args)

    keywords = {k: v for k, v in base.items() if not (command == "score" and TABLE[k]["use"] == "training")}
    keywords[name] = value
    pipeline.run(recording, out=tmp_path / "py", **keywords)

    _same_beats(tmp_path / "cli", tmp_path / "py")
    recorded_cli = json.loads((tmp_path / "cli" / "summary.json").read_text())["options"]
    recorded_py = json.loads((tmp_path / "py" / "summary.json").read_text())["options"]
    assert recorded_cli == recorded_py
    expected = {"true": "true", True: "true"}.get(value, value)
    if option["kind"] == "bytes":
        expected = str(64 << 20)
    if option["kind"] == "float":
        assert float(recorded_py[name]) == float(value)
    else:
        assert recorded_py[name] == expected, recorded_py


def test_run_options_object_and_keywords_agree(inputs, tmp_path):
    options = pipeline.RunOptions(device="cpu", epochs=2, min_peak_ratio=0.2)
    a = pipeline.run(inputs["csv"], options, out=tmp_path / "a")
    b = pipeline.run(inputs["csv"], device="cpu", epochs=2, min_peak_ratio=0.2, out=tmp_path / "b")
    np.testing.assert_array_equal(np.asarray(a.peak), np.asarray(b.peak))
    assert a.summary["options"] == b.summary["options"]
    assert a.summary["options"]["min_peak_ratio"] == "0.2"
    # Keywords override the object's fields.
    c = pipeline.run(inputs["csv"], options, min_peak_ratio=0.3, out=tmp_path / "c")
    assert c.summary["options"]["min_peak_ratio"] == "0.3"


def test_help_docstring_and_run_options_come_from_the_table(zeroflow_bin):
    run_help = run_cli(zeroflow_bin, "run", "--help").stdout
    score_help = run_cli(zeroflow_bin, "score", "--help").stdout
    doc = pipeline.run.__doc__
    fields = {f.name for f in pipeline.dataclasses.fields(pipeline.RunOptions)}
    for o in pipeline.OPTION_TABLE:
        assert o["name"] in fields
        assert f"{o['name']}:" in doc, o["name"]
        if o["use"] == "library":
            continue
        flag = o["flag"]
        shown = score_help if o["use"] == "scoring" else run_help
        assert re.search(re.escape(flag) + r"\b", shown), flag
        if o["default"] and o["kind"] != "bool":
            assert f"={o['default']}" in shown, (flag, o["default"])


def test_a_refused_value_is_named_in_each_fronts_spelling(zeroflow_bin, inputs, tmp_path):
    cli = run_cli(zeroflow_bin, "run", inputs["csv"], "--max-device-memory", "1M", "--out", tmp_path, check=False)
    assert cli.returncode == 2
    assert "--max-device-memory: 1M is under the 64M a run needs at least" in cli.stderr
    with pytest.raises(ValueError, match=r"max_device_memory=1M: 1M is under the 64M a run needs at least"):
        pipeline.run(inputs["csv"], device="cpu", max_device_memory="1M")
    both = run_cli(zeroflow_bin, "run", inputs["csv"], "--min-beat", "2", "--max-beat", "1", check=False)
    assert "--min-beat 2 s must be shorter than --max-beat 1 s" in both.stderr
    with pytest.raises(ValueError, match=r"min_beat_seconds=2 s must be shorter than max_beat_seconds=1 s"):
        pipeline.run(inputs["csv"], min_beat_seconds=2, max_beat_seconds=1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'sample_rates'"):
        pipeline.run(inputs["csv"], sample_rates=250)


def test_the_scheduler_takes_every_flag_of_run(zeroflow_bin, inputs, tmp_path):
    """`run --scheduler` hands every flag to zeroflow.dask, whose command line is made from the table."""
    pytest.importorskip("dask.distributed")
    from zeroflow import dask as zd

    parser = zd._parser()
    for o in pipeline.OPTION_TABLE:
        if o["use"] in ("library", "scoring"):
            continue
        flag = o["flag"]
        argv = ["x.csv", "--out", "o", "--scheduler", "local", flag]
        if o["kind"] != "bool":
            argv.append("1")
        assert getattr(parser.parse_args(argv), o["name"]) is not None, flag
    # A value the library refuses is a usage error before any cluster starts, in flag terms.
    env = dict(os.environ, ZEROFLOW_PYTHON=sys.executable)
    proc = subprocess.run(
        [
            str(zeroflow_bin),
            "run",
            str(inputs["csv"]),
            "--scheduler",
            "local",
            "--segmentation",
            "seed",
            "--max-device-memory",
            "1G",
            "--out",
            str(tmp_path / "o"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 2, proc.stderr
    assert "--max-device-memory segments in chunks with the robust method only" in proc.stderr


def test_no_library_message_names_a_command_line_flag():
    """Messages of the library name options as it knows them (`name`); the fronts spell them."""
    flag = re.compile(r'"[^"\n]*(?<![\w-])--[a-z][a-z-]+')
    offenders = []
    for path in sorted((ROOT / "src").rglob("*")):
        if path.suffix not in (".cpp", ".hpp", ".cu") or path.name == "run_option_table.cpp":
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            code = line.split("//")[0] if not line.lstrip().startswith('"') else line
            if flag.search(code):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


def test_population_fronts_take_the_tables_defaults(zeroflow_bin):
    """train-population's CLI and `population.train` default to the table's epochs, batch and seed
    (`python -m zeroflow.population` reads them from the table): one place to change a default."""
    import inspect

    from zeroflow import population
    from zeroflow._interop import _core

    table = {o["name"]: o["default"] for o in _core._run_option_table()}
    signature = inspect.signature(population.train)
    help_text = run_cli(zeroflow_bin, "train-population", "--help").stdout
    for name in ("epochs", "batch", "seed"):
        assert str(signature.parameters[name].default) == table[name], name
        assert re.search(rf"--{name} [^\n]*?={re.escape(table[name])}\b", help_text), (name, help_text)
