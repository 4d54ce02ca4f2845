"""`zeroflow run/score --figures png`: the report's figures as PNG files in OUT/figures/."""

import struct
import zlib

import pytest
from conftest import run_cli, score_on_cpu

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
ALL_FIGURES = {
    "overview.png",
    "excerpt.png",
    "lengths.png",
    "beats.png",
    "latent.png",
    "decoded_grid.png",
    "anomalies.png",
    "loss.png",
}
# Drawn from run_result fields every run fills; the others need run_result.figures (figure_data).
ALWAYS = {"lengths.png", "latent.png", "decoded_grid.png"}


def png_chunks(path):
    """The (type, data) chunks of a PNG file, each CRC-checked; fails on anything that is not one."""
    data = path.read_bytes()
    assert data[:8] == PNG_MAGIC, f"{path.name}: not a PNG"
    chunks, pos = [], 8
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        assert zlib.crc32(kind + body) == crc, f"{path.name}: bad CRC in {kind!r}"
        chunks.append((kind, body))
        pos += 12 + length
    return chunks


def check_png(path):
    chunks = png_chunks(path)
    kind, ihdr = chunks[0]
    assert kind == b"IHDR"
    width, height, bit_depth, colour_type = struct.unpack(">IIBB", ihdr[:10])
    assert (width, height) == (1600, 1000), path.name
    assert bit_depth == 8 and colour_type in (2, 6), path.name  # 8-bit RGB(A)
    assert chunks[-1][0] == b"IEND", f"{path.name}: truncated"
    # A drawn figure compresses to tens of KB; a blank 1600×1000 image to about 5 KB.
    assert sum(len(body) for kind, body in chunks if kind == b"IDAT") > 15_000, path.name


def run_figures(zeroflow_bin, *args):
    """Runs the CLI; skips the test when this zeroflow has no cairo (after checking it says so)."""
    proc = run_cli(zeroflow_bin, *args, check=False)
    if proc.returncode != 0 and "built without cairo" in proc.stderr:
        errors = [line for line in proc.stderr.splitlines() if line.startswith("zeroflow: error:")]
        assert len(errors) == 1 and "libcairo2-dev" in errors[0], proc.stderr
        pytest.skip("this zeroflow was built without cairo")
    assert proc.returncode == 0, proc.stderr
    return proc


@pytest.fixture(scope="module")
def figures_run(zeroflow_bin, short_recording, tmp_path_factory):
    out = tmp_path_factory.mktemp("figures-run")
    proc = run_figures(
        zeroflow_bin, "run", short_recording, "--out", out, "--device", "cpu", "--epochs", 3, "--figures", "png"
    )
    return out, proc


def test_run_writes_the_figures_as_png(figures_run):
    out, proc = figures_run
    names = {p.name for p in (out / "figures").iterdir()}
    assert names <= ALL_FIGURES, names - ALL_FIGURES  # and no temporaries left behind
    assert ALWAYS | {"loss.png"} <= names, names
    for name in names:
        check_png(out / "figures" / name)
    assert "PNG figures" in proc.stderr
    assert (out / "report.html").exists() and (out / "summary.json").exists()


def test_score_writes_the_figures_but_no_loss(zeroflow_bin, short_recording, figures_run, tmp_path):
    out, _ = figures_run
    run_figures(
        zeroflow_bin,
        "score",
        short_recording,
        "--model",
        out / "model.safetensors",
        "--out",
        tmp_path,
        "--device",
        "cpu",
        "--figures",
        "png",
    )
    names = {p.name for p in (tmp_path / "figures").iterdir()}
    assert ALWAYS <= names <= ALL_FIGURES - {"loss.png"}, names  # nothing was trained
    for name in names:
        check_png(tmp_path / "figures" / name)


def test_no_figures_by_default(zeroflow_bin, short_recording, figures_run, tmp_path):
    out, _ = figures_run
    score_on_cpu(zeroflow_bin, short_recording, out / "model.safetensors", tmp_path)
    assert (tmp_path / "beats.csv").exists()
    assert not (tmp_path / "figures").exists()


def test_unknown_figure_format_is_refused(zeroflow_bin, short_recording, tmp_path):
    proc = run_cli(zeroflow_bin, "run", short_recording, "--out", tmp_path, "--figures", "svg", check=False)
    assert proc.returncode != 0 and "--figures" in proc.stderr
    assert not (tmp_path / "beats.csv").exists()
    help_text = run_cli(zeroflow_bin, "run", "--help").stdout
    assert "--figures" in help_text and "png" in help_text
