"""Python reads, checks and seals model files with zeroflow's own reader and writer
(zeroflow/model/model_file.hpp through the compiled core): what Python accepts, refuses and writes
is what `zeroflow score` and zeroflow.model accept, refuse and read."""

import json
import struct

import numpy as np
import pytest

import zeroflow as zf
from zeroflow import _model_file  # noqa: E402


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "vae.safetensors"
    zf.model.VAE(32, "cpu", 3).save(path)
    return path


def reference_read(path):
    """Metadata and tensors through PyPI's safetensors, the format's reference reader."""
    pytest.importorskip("safetensors")
    import safetensors
    import safetensors.numpy

    with safetensors.safe_open(str(path), framework="numpy") as f:
        meta = f.metadata()
    return meta, safetensors.numpy.load_file(str(path))


def rewritten(data, **changes):
    """The file's bytes with metadata entries changed, the rest (checksum included) as it was."""
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    header["__metadata__"].update(changes)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + data[8 + n :]


def test_read_gives_what_the_reference_reader_gives(saved):
    meta, tensors = _model_file.read(saved)
    want_meta, want = reference_read(saved)
    assert meta == want_meta
    assert sorted(tensors) == sorted(want)
    for name, values in want.items():
        np.testing.assert_array_equal(tensors[name], values)


def test_read_refuses_what_zeroflow_refuses(saved, tmp_path):
    data = saved.read_bytes()
    # A file sealed again after its format version changed: the checksum matches, the version does not.
    meta, tensors = reference_read(saved)
    resealed = _model_file.file_bytes(tensors, dict(meta, format_version="4"))
    bad = tmp_path / "v4.safetensors"
    bad.write_bytes(resealed)
    with pytest.raises(ValueError, match="is of model format 4"):
        _model_file.read(bad)
    with pytest.raises(zf.Error):
        zf.model.VAE.load(bad)
    # A changed entry without a new seal.
    changed = tmp_path / "changed.safetensors"
    changed.write_bytes(rewritten(data, epochs="7"))
    with pytest.raises(
        ValueError, match=r"changed\.safetensors is not a zeroflow model file or is damaged \(.*checksum"
    ):
        _model_file.read(changed)


def test_written_files_are_what_zeroflow_reads(saved, tmp_path):
    meta, tensors = reference_read(saved)
    path = tmp_path / "again.safetensors"
    _model_file.write(path, tensors, meta)
    again_meta, again = reference_read(path)
    assert again_meta == meta  # the same content, so the same checksum
    assert again_meta["checksum"] == _model_file.checksum(
        meta, {k: ("F32", v.shape, v.tobytes()) for k, v in tensors.items()}
    )
    rows = np.random.default_rng(1).normal(size=(64, 32)).astype(np.float32)
    original = np.asarray(zf.model.VAE.load(saved).score(rows).score)
    reloaded = np.asarray(zf.model.VAE.load(path).score(rows).score)
    np.testing.assert_array_equal(reloaded, original)
