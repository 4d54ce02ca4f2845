"""zeroflow.population: data-parallel training (gloo, two processes) takes the same steps as one
process, the PyTorch replica computes what zeroflow's LightVAE computes, the model file it writes
is one that zeroflow scores any recording with, and the loss is the one zeroflow's own trainer
reaches on the same beats."""

import os
import subprocess
import sys

import numpy as np
import pytest

import zeroflow as zf

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not zf.has_torch, reason="the model needs LibTorch")
population = pytest.importorskip("zeroflow.population")
from zeroflow import _model_file  # noqa: E402

pytest.importorskip("safetensors")
import safetensors.torch  # noqa: E402


def state_of(path):
    """Every tensor of a model file, through PyPI's safetensors (the format's reference reader)."""
    return safetensors.torch.load_file(str(path))


OPTIONS = dict(epochs=4, batch=64, seed=42, device="cpu")
# Two processes add the same per-beat gradients as one, in another order: float32 rounding only.
# Measured: 6e-9 relative after 5 epochs; 1e-5 leaves room for other CPUs' kernels.
SAME_STEPS_RTOL = 1e-5


@pytest.fixture(scope="module")
def recordings(tmp_path_factory):
    folder = tmp_path_factory.mktemp("population")
    paths = []
    for seed in range(21, 25):
        path = folder / f"p{seed}.csv"
        zf.synth.write_ecg_csv(path, hours=0.05, seed=seed, anomaly_rate=0.05, heart_rate=60 + seed)
        paths.append(str(path))
    broken = folder / "broken.csv"
    broken.write_text("heartbeats\n1\n2\nx\n")
    return paths, str(broken)


@pytest.fixture(scope="module")
def one_process(recordings, tmp_path_factory):
    paths, broken = recordings
    out = tmp_path_factory.mktemp("one") / "population.safetensors"
    return population.train_population(paths + [broken], out, threads=1, **OPTIONS)


def rows_of(paths):
    """zeroflow's robust rows of each recording, as zeroflow run trains on them."""
    return torch.cat(
        [
            torch.from_dlpack(
                zf.signal.segment_beats(zf.io.read_recording(p).signal, sample_rate=250.0, method="robust").beats.rows
            )
            for p in paths
        ]
    )


def test_two_gloo_processes_match_one(recordings, one_process, tmp_path):
    paths, broken = recordings
    two = population.train_population(paths + [broken], tmp_path / "two.safetensors", processes=2, threads=1, **OPTIONS)
    assert (two.processes, two.backend) == (2, "gloo") and (one_process.processes, one_process.backend) == (1, "")
    assert (two.beats, two.train_beats, two.recordings) == (one_process.beats, one_process.train_beats, 4)
    np.testing.assert_allclose(two.epoch_loss, one_process.epoch_loss, rtol=SAME_STEPS_RTOL)
    np.testing.assert_allclose(two.test_loss, one_process.test_loss, rtol=SAME_STEPS_RTOL)
    a, b = state_of(one_process.model_file), state_of(two.model_file)
    for name in a:
        torch.testing.assert_close(a[name], b[name], rtol=1e-4, atol=1e-5, msg=name)
    assert [p for p, _ in two.skipped] == [broken] and "broken.csv:4" in two.skipped[0][1]


def test_loss_is_zeroflows_own_trainers_on_the_same_beats(recordings, one_process):
    # zeroflow's trainer draws other batches and noise, so the curves differ by chance, not by much.
    rows = rows_of(recordings[0])
    assert rows.shape[0] == one_process.beats
    vae = zf.model.VAE(rows.shape[1], "cpu", OPTIONS["seed"])
    ref = vae.train(rows.numpy(), epochs=OPTIONS["epochs"], batch=OPTIONS["batch"], seed=OPTIONS["seed"])
    assert one_process.epoch_loss[-1] == pytest.approx(ref.epoch_loss[-1], rel=0.03)
    assert one_process.epoch_loss[0] == pytest.approx(ref.epoch_loss[0], rel=0.03)
    assert one_process.epoch_loss[-1] < one_process.epoch_loss[0]


def test_replica_computes_zeroflows_lightvae(recordings, one_process):
    """Scores of the saved model: zeroflow's LightVAE (C++) against the PyTorch replica's forward."""
    rows = rows_of(recordings[0][:1])
    scored = zf.model.VAE.load(one_process.model_file).score(rows.numpy())
    replica = population.LightVAE(rows.shape[1])
    state = state_of(one_process.model_file)
    assert set(state) == set(replica.state_dict())
    replica.load_state_dict(state)
    built = zf.model.torch_light_vae(one_process.model_file)  # the same network, from zeroflow
    for name, value in built.state_dict().items():
        torch.testing.assert_close(value, state[name], rtol=0, atol=0, msg=name)
    with torch.no_grad():
        mu, _ = replica.encode(rows)
        expected = torch.square(replica.decode(mu) - rows).mean(1)
    np.testing.assert_allclose(np.asarray(scored.score), expected.numpy(), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(np.asarray(scored.mu), mu.numpy(), rtol=1e-4, atol=1e-6)


def test_population_model_scores_a_new_recording(one_process, tmp_path, zeroflow_bin):
    new = tmp_path / "new.csv"
    zf.synth.write_ecg_csv(new, hours=0.05, seed=99, anomaly_rate=0.05)
    r = zf.run(new, model=one_process.model_file, device="cpu", labels=None)
    assert not r.trained and np.isfinite(np.asarray(r.score)).all() and len(np.asarray(r.score)) > 100
    proc = subprocess.run(
        [
            str(zeroflow_bin),
            "score",
            str(new),
            "--model",
            one_process.model_file,
            "--out",
            str(tmp_path / "scored"),
            "--device",
            "cpu",
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "scored" / "beats.csv").exists()


def test_damaged_model_file_is_refused(one_process, tmp_path):
    data = bytearray(open(one_process.model_file, "rb").read())
    data[100] ^= 0xFF
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="damaged"):
        _model_file.read(bad)
    with pytest.raises(zf.Error):
        zf.model.VAE.load(bad)


def test_cli_train_population(recordings, zeroflow_bin, tmp_path):
    paths, _ = recordings
    env = {**os.environ, "ZEROFLOW_PYTHON": sys.executable}
    out = tmp_path / "cli.pt"
    proc = subprocess.run(
        [
            str(zeroflow_bin),
            "train-population",
            *paths[:2],
            "--out",
            str(out),
            "--processes",
            "2",
            "--device",
            "cpu",
            "--epochs",
            "1",
            "--batch",
            "64",
            "--threads",
            "1",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "2 process(es) (gloo)" in proc.stderr and out.exists()
    again = subprocess.run(
        [str(zeroflow_bin), "train-population", paths[0], "--out", str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert again.returncode == 2 and "--force" in again.stderr
