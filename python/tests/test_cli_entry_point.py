"""The `zeroflow` command of an installed package (zeroflow/_cli.py): it runs the tool the package
carries, with the caller's arguments and exit status, and says what to do when the tool is missing."""

import pathlib
import subprocess
import sys

import pytest

from zeroflow import _cli

# A module run from a build tree (PYTHONPATH=<build>/python, as on the GPU machine) is no pip
# installation: the tool lives beside the build, not in the package.
installed_by_pip = pytest.mark.skipif(
    not any(part in ("site-packages", "dist-packages") for part in pathlib.Path(_cli.__file__).parts),
    reason="zeroflow is imported from a build tree, not installed by pip (the tool is not in the package)",
)


@installed_by_pip
def test_the_installed_package_carries_the_tool():
    assert _cli.binary().is_file(), f"pip install . put no tool at {_cli.binary()}"


@installed_by_pip
def test_the_command_runs_the_tool_with_its_arguments_and_exit_status(zeroflow_bin):
    version = subprocess.run([sys.executable, "-m", "zeroflow._cli", "--version"], capture_output=True, text=True)
    assert version.returncode == 0, version.stderr
    assert version.stdout == subprocess.run([zeroflow_bin, "--version"], capture_output=True, text=True).stdout
    bogus = subprocess.run([sys.executable, "-m", "zeroflow._cli", "bogus"], capture_output=True, text=True)
    assert bogus.returncode == 2
    assert "bogus" in bogus.stderr


def test_a_missing_tool_is_one_line_that_says_what_to_do(monkeypatch, tmp_path):
    monkeypatch.setattr(_cli, "binary", lambda: tmp_path / "bin" / "zeroflow")
    with pytest.raises(SystemExit) as stop:
        _cli.main()
    message = str(stop.value.code)
    assert message.startswith("zeroflow: error:") and "\n" not in message
    assert "install the zeroflow wheel" in message
