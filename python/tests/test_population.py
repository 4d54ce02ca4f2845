"""zeroflow.population: data-parallel training (gloo, two processes) takes the same steps as one
process, the PyTorch replica computes what zeroflow's LightVAE computes, the model file it writes
is one that zeroflow scores any recording with, the loss is the one zeroflow's own trainer
reaches on the same beats, and a run stopped (or killed) and resumed from its checkpoint ends with
the uninterrupted run's model, bit for bit."""

import os
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import zeroflow as zf

torch = pytest.importorskip("torch")
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
    # The GPU path refuses it alike, before it needs a GPU.
    on_gpu = subprocess.run(
        [str(zeroflow_bin), "train-population", paths[0], "--out", str(out), "--device", "cuda"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert on_gpu.returncode == 2 and "exists; add --force" in on_gpu.stderr


# --- checkpoints and resumption ---


class _Stopped(Exception):
    """A run cut short: raised by the progress callback, which a run calls after the epoch's checkpoint."""


def stop_after(epochs):
    def progress(line):
        if line.startswith(f"epoch {epochs}/"):
            raise _Stopped(line)

    return progress


def checkpoint_state(path):
    return torch.load(path, map_location="cpu", weights_only=True)


@pytest.fixture(scope="module")
def interrupted(recordings, tmp_path_factory):
    """The checkpoint that the one_process run leaves when it is stopped after its second epoch."""
    paths, broken = recordings
    out = tmp_path_factory.mktemp("interrupted") / "population.safetensors"
    with pytest.raises(_Stopped):
        population.train_population(paths + [broken], out, threads=1, progress=stop_after(2), **OPTIONS)
    assert not out.exists()
    return str(out) + ".checkpoint"


def copy_of(checkpoint, folder):
    """A copy to resume from (resuming deletes the checkpoint when the run finishes)."""
    return shutil.copy(checkpoint, folder / "run.checkpoint")


def test_resumed_run_ends_where_the_uninterrupted_one_does(recordings, one_process, interrupted, tmp_path):
    paths, broken = recordings
    state = checkpoint_state(interrupted)
    assert state["epochs_done"] == 2 and state["epoch_loss"] == one_process.epoch_loss[:2]
    checkpoint = copy_of(interrupted, tmp_path)
    lines = []
    out = tmp_path / "resumed.safetensors"
    resumed = population.train_population(
        paths + [broken], out, threads=1, checkpoint=checkpoint, resume=True, progress=lines.append, **OPTIONS
    )
    assert lines[0].startswith("resumed from") and "2/4 epochs done" in lines[0]
    assert [line.split()[1] for line in lines[1:]] == ["3/4", "4/4"]
    assert resumed.epoch_loss == one_process.epoch_loss and resumed.test_loss == one_process.test_loss
    a, b = state_of(one_process.model_file), state_of(out)
    assert set(a) == set(b) and all(torch.equal(a[k], b[k]) for k in a)
    assert open(out, "rb").read() == open(one_process.model_file, "rb").read()
    assert not os.path.exists(checkpoint)


def test_resume_may_raise_the_epochs(recordings, one_process, interrupted, tmp_path):
    # Nothing in an epoch depends on how many follow it: the first four of five are the four-epoch run's.
    paths, broken = recordings
    longer = population.train_population(
        paths + [broken],
        tmp_path / "longer.safetensors",
        threads=1,
        checkpoint=copy_of(interrupted, tmp_path),
        resume=True,
        **{**OPTIONS, "epochs": 5},
    )
    assert len(longer.epoch_loss) == 5 and longer.epoch_loss[:4] == one_process.epoch_loss
    assert _model_file.read(longer.model_file)[0]["epochs"] == "5"


def test_checkpoint_every_sets_the_epochs_between_checkpoints(recordings, tmp_path):
    paths, _ = recordings
    for every, expected in [(2, [None, 2, 2, 4]), (0, [None] * 4)]:
        out = tmp_path / f"every{every}.safetensors"
        checkpoint = tmp_path / f"every{every}.checkpoint"
        seen = []

        def look(line, checkpoint=checkpoint, seen=seen):
            seen.append(checkpoint_state(checkpoint)["epochs_done"] if checkpoint.exists() else None)

        population.train(paths[:1], out, checkpoint=checkpoint, checkpoint_every=every, progress=look, **OPTIONS)
        assert seen == expected, every
        assert out.exists() and not checkpoint.exists()
        assert [p.name for p in tmp_path.iterdir() if "checkpoint" in p.name] == []


def test_resume_refuses_a_run_of_other_settings(recordings, interrupted, tmp_path):
    paths, broken = recordings
    checkpoint = copy_of(interrupted, tmp_path)
    out = tmp_path / "other.safetensors"
    for change, words in [
        (dict(seed=7), "the seed differs (42 then, 7 now)"),
        (dict(batch=32), "the global batch differs (64 then, 32 now)"),
        (dict(learning_rate=1e-2), "the learning rate differs (0.001 then, 0.01 now)"),
        (dict(test_fraction=0.5), "the test fraction differs (0.25 then, 0.5 now)"),
        (dict(sample_rate=360.0), "the sample rate differs (the default then, 360.0 now)"),
        (dict(column=1), "the lead differs (the default then, 1 now)"),
        (dict(epochs=3), "may raise --epochs, not lower it to 3"),
    ]:
        with pytest.raises(ValueError, match=f"^cannot resume from {checkpoint}: .*{_escaped(words)}"):
            population.train_population(
                paths + [broken], out, checkpoint=checkpoint, resume=True, **{**OPTIONS, **change}
            )
    with pytest.raises(ValueError, match="over 5 recordings, and this run has 4"):
        population.train_population(paths, out, checkpoint=checkpoint, resume=True, **OPTIONS)
    with pytest.raises(ValueError, match=f"recording 1 was {_escaped(paths[0])} and is now {_escaped(paths[1])}"):
        population.train_population(
            [paths[1], paths[0], *paths[2:], broken], out, checkpoint=checkpoint, resume=True, **OPTIONS
        )
    # Two processes: refused by the caller before any process starts, as one clear error.
    with pytest.raises(ValueError, match="the seed differs"):
        population.train_population(
            paths + [broken], out, processes=2, checkpoint=checkpoint, resume=True, **{**OPTIONS, "seed": 7}
        )
    assert os.path.exists(checkpoint) and not out.exists()  # a refused run leaves everything as it was


def test_resume_refuses_a_recording_that_changed(recordings, tmp_path):
    recording = shutil.copy(recordings[0][0], tmp_path / "changing.csv")
    out = tmp_path / "changing.safetensors"
    with pytest.raises(_Stopped):
        population.train([recording], out, progress=stop_after(1), **{**OPTIONS, "epochs": 2})
    before = os.path.getsize(recording)
    with open(recording, "a") as f:
        f.write("0.125\n")
    with pytest.raises(
        ValueError, match=f"{_escaped(recording)} has changed since \\({before} bytes then, {before + 6} now\\)"
    ):
        population.train([recording], out, resume=True, **{**OPTIONS, "epochs": 2})


def test_checkpoint_left_behind_refuses_a_plain_start(recordings, interrupted, tmp_path):
    paths, broken = recordings
    checkpoint = copy_of(interrupted, tmp_path)
    out = tmp_path / "again.safetensors"
    with pytest.raises(
        ValueError,
        match=f"^an interrupted run left {_escaped(checkpoint)}: add --resume to continue it, or --force to start over$",
    ):
        population.train_population(paths + [broken], out, checkpoint=checkpoint, **OPTIONS)
    with pytest.raises(ValueError, match="an interrupted run left"):
        population.train_population(paths + [broken], out, processes=2, checkpoint=checkpoint, **OPTIONS)
    with pytest.raises(ValueError, match="^nothing to resume: .*nowhere.checkpoint does not exist"):
        population.train_population(
            paths + [broken], out, checkpoint=tmp_path / "nowhere.checkpoint", resume=True, **OPTIONS
        )
    damaged = tmp_path / "damaged.checkpoint"
    damaged.write_bytes(open(checkpoint, "rb").read()[:-100])
    with pytest.raises(ValueError, match="is not a zeroflow population checkpoint or is damaged"):
        population.train_population(paths + [broken], out, checkpoint=damaged, resume=True, **OPTIONS)
    # --force starts over (here with other settings, which resuming would refuse) and overwrites it.
    lines = []
    over = population.train_population(
        paths[:1], out, checkpoint=checkpoint, force=True, progress=lines.append, **{**OPTIONS, "epochs": 1}
    )
    assert lines == [lines[0]] and lines[0].startswith("epoch 1/1") and len(over.epoch_loss) == 1
    assert out.exists() and not os.path.exists(checkpoint)


def test_force_removes_only_a_checkpoint(recordings, interrupted, tmp_path):
    paths, _ = recordings
    # A recording (not among the inputs) given as the checkpoint: --force must not delete it.
    precious = tmp_path / "precious.csv"
    shutil.copy(paths[0], precious)
    before = precious.read_bytes()
    with pytest.raises(
        ValueError, match="is not a zeroflow population checkpoint; --force starts over by removing only"
    ):
        population.train_population(paths[1:2], tmp_path / "m.safetensors", checkpoint=precious, force=True, **OPTIONS)
    assert precious.read_bytes() == before
    # A real one, even damaged, may go: it is what an interrupted run left.
    checkpoint = copy_of(interrupted, tmp_path)
    state = checkpoint_state(checkpoint)
    del state["optimizer"]
    torch.save(state, checkpoint)
    with pytest.raises(ValueError, match="damaged population checkpoint: its 'optimizer' field is missing"):
        population.train_population(paths, tmp_path / "m.safetensors", checkpoint=checkpoint, resume=True, **OPTIONS)
    population.train_population(
        paths[:1], tmp_path / "m.safetensors", checkpoint=checkpoint, force=True, **{**OPTIONS, "epochs": 1}
    )
    assert not os.path.exists(checkpoint)


def test_cli_refuses_outputs_that_name_an_input_or_a_file_it_did_not_write(recordings, zeroflow_bin, tmp_path):
    paths, _ = recordings
    env = {**os.environ, "ZEROFLOW_PYTHON": sys.executable}
    recording = tmp_path / "rec.csv"
    shutil.copy(paths[0], recording)
    before = recording.read_bytes()
    other = tmp_path / "notes.txt"
    other.write_text("not a model")

    def cli(*args):
        return subprocess.run(
            [str(zeroflow_bin), "train-population", str(recording), *map(str, args), "--device", "cpu"],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )

    for args, reason in [
        (("--out", recording, "--force"), "is one of the recordings; choose another file for the model"),
        (("--out", tmp_path / "m.safetensors", "--checkpoint", recording, "--force"), "is one of the recordings"),
        (("--out", tmp_path / "m.safetensors", "--checkpoint", tmp_path / "m.safetensors"), "name one file"),
        (("--out", other, "--force"), "exists and is not a model zeroflow wrote"),
    ]:
        proc = cli(*args)
        assert proc.returncode == 2 and reason in proc.stderr, (args, proc.stderr)
    assert recording.read_bytes() == before and other.read_text() == "not a model"


def test_two_gloo_processes_resume_a_one_process_checkpoint(recordings, one_process, interrupted, tmp_path):
    paths, broken = recordings
    two = population.train_population(
        paths + [broken],
        tmp_path / "two.safetensors",
        processes=2,
        threads=1,
        checkpoint=copy_of(interrupted, tmp_path),
        resume=True,
        **OPTIONS,
    )
    assert (two.processes, two.backend) == (2, "gloo")
    assert two.epoch_loss[:2] == one_process.epoch_loss[:2]  # the checkpoint's, as they were
    np.testing.assert_allclose(two.epoch_loss, one_process.epoch_loss, rtol=SAME_STEPS_RTOL)
    np.testing.assert_allclose(two.test_loss, one_process.test_loss, rtol=SAME_STEPS_RTOL)
    a, b = state_of(one_process.model_file), state_of(two.model_file)
    for name in a:
        torch.testing.assert_close(a[name], b[name], rtol=1e-4, atol=1e-5, msg=name)


def test_cli_run_killed_mid_run_resumes_to_the_uninterrupted_result(recordings, zeroflow_bin, tmp_path):
    """SIGKILL once the first checkpoint is on disk, then --resume: the model of a run never stopped."""
    paths, _ = recordings
    # Enough epochs that the run is still training when the kill comes, however busy the machine.
    options = {**OPTIONS, "epochs": 10}
    reference = population.train_population(paths, tmp_path / "reference.safetensors", threads=1, **options)
    out = tmp_path / "killed.safetensors"
    checkpoint = tmp_path / "killed.safetensors.checkpoint"
    command = [str(zeroflow_bin), "train-population", *paths, "--out", str(out), "--device", "cpu", "--threads", "1"]
    command += ["--epochs", "10", "--batch", str(OPTIONS["batch"]), "--seed", str(OPTIONS["seed"])]
    env = {**os.environ, "ZEROFLOW_PYTHON": sys.executable}
    with open(tmp_path / "killed.log", "w") as log:
        run = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
        try:
            deadline = time.monotonic() + 300
            while not checkpoint.exists():
                assert run.poll() is None, (
                    "the run ended before its first checkpoint: " + (tmp_path / "killed.log").read_text()
                )
                assert time.monotonic() < deadline, "no checkpoint after 300 s"
                time.sleep(0.01)
            run.send_signal(signal.SIGKILL)
        finally:
            run.kill()
            run.wait()
    assert run.returncode == -signal.SIGKILL, "the run finished before it was killed"
    state = checkpoint_state(checkpoint)
    assert 1 <= state["epochs_done"] < 10 and not out.exists()
    assert state["epoch_loss"] == reference.epoch_loss[: state["epochs_done"]]

    again = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert again.returncode == 1
    assert (
        f"an interrupted run left {checkpoint}: add --resume to continue it, or --force to start over" in again.stderr
    )
    resumed = subprocess.run(command + ["--resume"], capture_output=True, text=True, env=env, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert f"resumed from {checkpoint}: {state['epochs_done']}/10 epochs done" in resumed.stderr
    assert open(out, "rb").read() == open(reference.model_file, "rb").read()
    assert not checkpoint.exists()


def _escaped(text):
    import re

    return re.escape(str(text))
