"""zeroflow.pipeline.run's typed signature and RunOptions, generated from the library's table of run options.

- python/zeroflow/_run_keywords.py is what scripts/generate-run-keywords writes from the table now
  (a change to the table without running the generator fails here).
- run() has one typed keyword-only parameter per option of the table, RunOptions one typed field.
- An unknown keyword is Python's own TypeError.
- labels and column mean what they did under ``**keywords``.
"""

import dataclasses
import inspect
import os
import runpy
import subprocess
import sys
from typing import Literal, Optional, Union

import pytest
from conftest import ROOT

from zeroflow import pipeline

GENERATOR = ROOT / "scripts" / "generate-run-keywords"
GENERATED = ROOT / "python" / "zeroflow" / "_run_keywords.py"
PathLike = Union[str, os.PathLike]
#: The Python type of each kind of option (a text option with choices: a Literal of them).
KIND_TYPES = {
    "bool": bool,
    "int": int,
    "float": float,
    "path": PathLike,
    "str": Union[str, int],
    "bytes": Union[int, str],
}
RUN_OWN = ["input", "options", "out", "model_out", "figures", "progress"]


def _expected_type(option):
    if option["choices"]:
        return Optional[Literal[tuple(option["choices"])]]
    assert option["kind"] in KIND_TYPES, (
        f"{option['name']}: kind {option['kind']!r} is new; give it a type in scripts/generate-run-keywords and here"
    )
    value_type = KIND_TYPES[option["kind"]]
    return Optional[value_type]


@pytest.fixture(scope="module")
def generator():
    return runpy.run_path(str(GENERATOR), run_name="generate_run_keywords")


def test_the_generated_file_is_the_generators_output_for_the_table(generator):
    expected = generator["render"](pipeline.OPTION_TABLE)
    assert GENERATED.read_text() == expected, (
        "python/zeroflow/_run_keywords.py is out of date with the table of run options: "
        "run .venv/bin/python scripts/generate-run-keywords"
    )


def test_the_generators_check_mode(generator, tmp_path, capsys):
    stale = tmp_path / "_run_keywords.py"
    stale.write_text(GENERATED.read_text() + "# edited by hand\n")
    assert generator["main"](["--check"], target=stale) == 1
    message = capsys.readouterr().err
    assert message.count("\n") == 1 and "out of date" in message and "generate-run-keywords" in message
    assert stale.read_text().endswith("# edited by hand\n")  # --check writes nothing
    # The script itself, on the committed file (the installed zeroflow reads the table).
    proc = subprocess.run([sys.executable, str(GENERATOR), "--check"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_run_has_one_typed_keyword_only_parameter_per_option():
    parameters = inspect.signature(pipeline.run).parameters
    names = [o["name"] for o in pipeline.OPTION_TABLE]
    assert list(parameters) == RUN_OWN + names + ["column"]
    for o in pipeline.OPTION_TABLE:
        p = parameters[o["name"]]
        assert p.kind is inspect.Parameter.KEYWORD_ONLY, o["name"]
        assert p.annotation == _expected_type(o), (o["name"], p.annotation)
        assert p.default == ("auto" if o["name"] == "labels" else None), o["name"]
    lead = parameters["lead"]
    assert parameters["column"].kind is inspect.Parameter.KEYWORD_ONLY
    assert parameters["column"].annotation == lead.annotation
    assert inspect.signature(pipeline.run).return_annotation is pipeline.RunResult
    assert not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())


def test_run_options_has_one_typed_field_per_option():
    fields = dataclasses.fields(pipeline.RunOptions)
    assert [f.name for f in fields] == [o["name"] for o in pipeline.OPTION_TABLE]
    for f, o in zip(fields, pipeline.OPTION_TABLE):
        assert f.type == _expected_type(o), (f.name, f.type)
        assert f.default is None, f.name


def test_run_and_run_options_belong_to_the_pipeline_module():
    import zeroflow
    from zeroflow.pipeline import OPTION_TABLE, RunOptions, run

    assert (
        run is pipeline.run is zeroflow.run
        and RunOptions is pipeline.RunOptions
        and OPTION_TABLE is pipeline.OPTION_TABLE
    )
    assert run.__module__ == RunOptions.__module__ == "zeroflow.pipeline"
    assert isinstance(RunOptions(device="cpu"), pipeline.RunOptions)
    for o in OPTION_TABLE:
        assert f"        {o['name']}: " in run.__doc__, o["name"]


def test_an_unknown_keyword_is_pythons_type_error(tmp_path):
    with pytest.raises(TypeError, match=r"run\(\) got an unexpected keyword argument 'sample_rates'"):
        pipeline.run(tmp_path / "missing.csv", sample_rates=250)
    with pytest.raises(TypeError, match="options= takes a zeroflow.pipeline.RunOptions"):
        pipeline.run(tmp_path / "missing.csv", {"device": "cpu"})


class _Given(Exception):
    pass


@pytest.fixture
def given(monkeypatch):
    """Calls run() up to the library: returns the options it would hand to the run (name: value text),
    with the labels beside the recording spelled BESIDE."""

    class Core:
        @staticmethod
        def _labels_beside(input):
            return "BESIDE"

        @staticmethod
        def _run(input, given, *args, **kwargs):
            raise _Given(dict(given))

    monkeypatch.setattr(pipeline, "_core", Core)

    def call(*args, **kwargs):
        with pytest.raises(_Given) as caught:
            pipeline.run("recording.csv", *args, **kwargs)
        return caught.value.args[0]

    return call


def test_labels_and_column_keep_their_meaning(given):
    RunOptions = pipeline.RunOptions
    # Left out, or "auto": the labels beside the recording; None: none (the library's default, nothing).
    assert given()["labels"] == "BESIDE"
    assert given(labels="auto")["labels"] == "BESIDE"
    assert "labels" not in given(labels=None)
    assert given(labels="mine.csv")["labels"] == "mine.csv"
    # An options object's labels apply when the keyword is left out; labels="auto" given overrides them,
    # while None, as any option's None, leaves them.
    assert given(RunOptions(labels="mine.csv"))["labels"] == "mine.csv"
    assert given(RunOptions(labels="mine.csv"), labels="auto")["labels"] == "BESIDE"
    assert given(RunOptions(labels="mine.csv"), labels=None)["labels"] == "mine.csv"
    assert given(RunOptions(device="cpu"))["labels"] == "BESIDE"
    # column is lead's older name; lead wins when both are given.
    assert given(column="b")["lead"] == "b"
    assert given(column="b", lead="a")["lead"] == "a"
    assert "column" not in given(column="b")
    # Options at None are not given (the library's defaults); keywords override the object's fields.
    chosen = given(RunOptions(epochs=5, seed=1), epochs=None, seed=2, allow_outside_record=True, sample_rate=360.0)
    assert chosen == {
        "epochs": "5",
        "seed": "2",
        "allow_outside_record": "true",
        "sample_rate": "360.0",
        "labels": "BESIDE",
    }
