"""One range for a sample rate, whoever states it: `--sample-rate` takes 50..100000 Hz, and so a
WFDB or EDF header must, refused before any sample is read (an absurd rate would make the
band-pass and the windows huge: minutes of work, then a failure)."""

import pathlib
import shutil
import time

import numpy as np
import pytest
from conftest import run_cli

DATA = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "mitdb"


def error_lines(proc):
    return [line for line in proc.stderr.splitlines() if line.startswith("zeroflow: error:")]


@pytest.mark.parametrize("rate, shown", [(1000000, "1e+06 Hz"), (10, "10 Hz"), (3000000, "3e+06 Hz")])
def test_a_wfdb_header_rate_outside_the_range_is_refused_at_once(zeroflow_bin, tmp_path, rate, shown):
    shutil.copy(DATA / "119.dat", tmp_path / "119.dat")
    lines = (DATA / "119.hea").read_text().splitlines()
    name, signals, _, samples = lines[0].split()[:4]
    (tmp_path / "119.hea").write_text("\n".join([f"{name} {signals} {rate} {samples}", *lines[1:]]) + "\n")
    start = time.monotonic()
    out = tmp_path / "out"
    proc = run_cli(zeroflow_bin, "run", tmp_path / "119.hea", "--out", out, "--device", "cpu", check=False)
    assert time.monotonic() - start < 30
    assert proc.returncode == 1
    [line] = error_lines(proc)
    assert str(tmp_path / "119.hea") in line and shown in line and "50-100000 Hz" in line
    assert not out.exists()


def test_an_edf_rate_outside_the_range_is_refused(zeroflow_bin, tmp_path):
    pyedflib = pytest.importorskip("pyedflib")
    path = tmp_path / "fast.edf"
    with pyedflib.EdfWriter(str(path), 1, file_type=pyedflib.FILETYPE_EDF) as writer:
        writer.setSignalHeaders(
            [
                {
                    "label": "ECG",
                    "dimension": "mV",
                    "sample_frequency": 200,
                    "physical_max": 5.0,
                    "physical_min": -5.0,
                    "digital_max": 32767,
                    "digital_min": -32768,
                }
            ]
        )
        writer.writeSamples([np.sin(np.arange(200 * 60) / 10.0)])
    data = bytearray(path.read_bytes())
    data[244:252] = b"0.0001  "  # the data record's duration: 200 samples in 0.1 ms is 2 MHz
    path.write_bytes(bytes(data))
    out = tmp_path / "out"
    proc = run_cli(zeroflow_bin, "run", path, "--out", out, "--device", "cpu", check=False)
    assert proc.returncode == 1
    [line] = error_lines(proc)
    assert str(path) in line and "2e+06 Hz" in line and "50-100000 Hz" in line
    assert not out.exists()
