"""zeroflow.population and `zeroflow train-population` on the CPU: one process trains on the
library's trainer without torch, two gloo processes (torch.distributed as the transport only) take
the same steps as one, the model file is one that zeroflow scores any recording with, and a run
stopped (or killed) and resumed from its checkpoint (the library's format) ends with the
uninterrupted run's model, bit for bit."""

import os
import re
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import zeroflow as zf
from zeroflow import _model_file, population
from zeroflow import _population_checkpoint as checkpoints

OPTIONS = dict(epochs=4, batch=64, seed=42, device="cpu")
# Two processes add the same per-beat gradients as one, in another order: float32 rounding only.
SAME_STEPS_RTOL = 1e-5


def state_of(path):
    """Every tensor of a model file, through zeroflow's independent Python reader of it."""
    return _model_file.read(path)[1]


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
    """zeroflow's robust rows of the recordings, in order, as a population run trains on them."""
    return np.concatenate(
        [
            np.asarray(
                zf.signal.segment_beats(zf.io.read_recording(p).signal, sample_rate=250.0, method="robust").beats.rows
            )
            for p in paths
        ]
    )


def test_one_process_trains_without_torch(recordings, tmp_path):
    script = (
        "import sys, zeroflow.population as p\n"
        f"r = p.train({recordings[0][:2]!r}, {str(tmp_path / 'm.safetensors')!r}, epochs=2, batch=64, device='cpu')\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
        "print(r.recordings, r.processes, r.backend or 'single')\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["2", "1", "single"]


def test_one_process_takes_the_library_trainers_steps(recordings, one_process):
    # The same rows, seed and batch through zf.model.VAE: the same split, order and noise; the
    # population run leaves a last partial batch for the next epoch's shuffle, VAE.train takes it.
    rows = rows_of(recordings[0])
    assert rows.shape[0] == one_process.beats and one_process.recordings == 4
    vae = zf.model.VAE(rows.shape[1], "cpu", OPTIONS["seed"])
    ref = vae.train(rows, epochs=OPTIONS["epochs"], batch=OPTIONS["batch"], seed=OPTIONS["seed"])
    np.testing.assert_allclose(one_process.epoch_loss, ref.epoch_loss, rtol=0.03)
    assert one_process.epoch_loss[-1] < one_process.epoch_loss[0]
    assert one_process.train_beats == int((1 - 0.25) * rows.shape[0])


def test_two_gloo_processes_match_one(recordings, one_process, tmp_path):
    pytest.importorskip("torch")
    paths, broken = recordings
    two = population.train_population(paths + [broken], tmp_path / "two.safetensors", processes=2, threads=1, **OPTIONS)
    assert (two.processes, two.backend) == (2, "gloo") and (one_process.processes, one_process.backend) == (1, "")
    assert (two.beats, two.train_beats, two.recordings) == (one_process.beats, one_process.train_beats, 4)
    np.testing.assert_allclose(two.epoch_loss, one_process.epoch_loss, rtol=SAME_STEPS_RTOL)
    np.testing.assert_allclose(two.test_loss, one_process.test_loss, rtol=SAME_STEPS_RTOL)
    a, b = state_of(one_process.model_file), state_of(two.model_file)
    for name in a:
        np.testing.assert_allclose(a[name], b[name], rtol=1e-4, atol=1e-5, err_msg=name)
    assert [p for p, _ in two.skipped] == [broken] and "broken.csv:4" in two.skipped[0][1]


def test_pytorch_builds_the_saved_model_and_computes_zeroflows_scores(recordings, one_process):
    """Scores of the saved model: zeroflow's kernels against the PyTorch LightVAE built from the file."""
    torch = pytest.importorskip("torch")
    rows = rows_of(recordings[0][:1])
    scored = zf.model.VAE.load(one_process.model_file).score(rows)
    built = zf.model.torch_light_vae(one_process.model_file)
    state = state_of(one_process.model_file)
    assert set(built.state_dict()) == set(state)
    with torch.no_grad():
        x = torch.from_numpy(rows)
        mu, _ = built.encode(x)
        expected = torch.square(built.decode(mu) - x).mean(1)
    np.testing.assert_allclose(np.asarray(scored.score), expected.numpy(), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(np.asarray(scored.mu), mu.numpy(), rtol=1e-4, atol=1e-6)


def test_population_model_scores_a_new_recording(one_process, tmp_path, zeroflow_bin):
    new = tmp_path / "new.csv"
    zf.synth.write_ecg_csv(new, hours=0.05, seed=99, anomaly_rate=0.05)
    r = zf.run(new, model=one_process.model_file, device="cpu", labels=None)
    assert not r.trained and np.isfinite(np.asarray(r.score)).all() and len(np.asarray(r.score)) > 100
    command = [str(zeroflow_bin), "score", str(new), "--model", one_process.model_file]
    proc = subprocess.run(
        command + ["--out", str(tmp_path / "scored"), "--device", "cpu"], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "scored" / "beats.csv").exists()


def test_cli_one_process_is_the_library_and_two_go_through_python(recordings, one_process, zeroflow_bin, tmp_path):
    paths, broken = recordings
    env = {**os.environ, "ZEROFLOW_PYTHON": sys.executable}
    args = ["--device", "cpu", "--epochs", "4", "--batch", "64", "--seed", "42", "--threads", "1"]
    out = tmp_path / "cli.safetensors"
    one = subprocess.run(
        [str(zeroflow_bin), "train-population", *paths, broken, "--out", str(out), *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={k: v for k, v in os.environ.items() if k != "ZEROFLOW_PYTHON"},
    )
    assert one.returncode == 0, one.stderr
    assert "on the CPU (1 threads)" in one.stdout and "skipped" in one.stderr
    assert open(out, "rb").read() == open(one_process.model_file, "rb").read()  # the library's run, bit for bit
    if zf._core.has_torch or _torch_importable():
        two = subprocess.run(
            [str(zeroflow_bin), "train-population", *paths[:2], "--out", str(tmp_path / "two.safetensors"), *args]
            + ["--processes", "2"],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        assert two.returncode == 0, two.stderr
        assert "2 process(es) (gloo)" in two.stderr
    again = subprocess.run(
        [str(zeroflow_bin), "train-population", paths[0], "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert again.returncode == 2 and "--force" in again.stderr
    # The GPU path refuses it alike, before it needs a GPU.
    on_gpu = subprocess.run(
        [str(zeroflow_bin), "train-population", paths[0], "--out", str(out), "--device", "cuda"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert on_gpu.returncode == 2 and "exists; add --force" in on_gpu.stderr


def _torch_importable():
    import importlib.util

    return importlib.util.find_spec("torch") is not None


# --- checkpoints and resumption ---


class _Stopped(Exception):
    """A run cut short: raised by the progress callback, which a run calls after the epoch's checkpoint."""


def stop_after(epochs):
    def progress(line):
        if line.startswith(f"epoch {epochs}/"):
            raise _Stopped(line)

    return progress


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


def test_the_checkpoint_is_the_librarys_file(one_process, interrupted):
    state = checkpoints.read(interrupted)
    assert state["format"] == "zeroflow-population-checkpoint" and state["epochs_done"] == 2
    assert state["epoch_loss"] == one_process.epoch_loss[:2]
    assert state["seed"] == 42 and state["batch"] == 64 and state["weights"].dtype == np.float32
    assert state["weights"].shape == state["exp_avg"].shape == state["exp_avg_sq"].shape


def test_resumed_run_ends_where_the_uninterrupted_one_does(recordings, one_process, interrupted, tmp_path):
    paths, broken = recordings
    checkpoint = copy_of(interrupted, tmp_path)
    lines = []
    out = tmp_path / "resumed.safetensors"
    resumed = population.train_population(
        paths + [broken], out, threads=1, checkpoint=checkpoint, resume=True, progress=lines.append, **OPTIONS
    )
    assert [line.split()[1] for line in lines if line.startswith("epoch")] == ["3/4", "4/4"]
    assert resumed.epoch_loss == one_process.epoch_loss and resumed.test_loss == one_process.test_loss
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


def test_two_gloo_processes_resume_a_one_process_checkpoint(recordings, one_process, interrupted, tmp_path):
    pytest.importorskip("torch")
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


def test_checkpoint_every_sets_the_epochs_between_checkpoints(recordings, tmp_path):
    paths, _ = recordings
    for every, expected in [(2, [None, 2, 2, 4]), (0, [None] * 4)]:
        out = tmp_path / f"every{every}.safetensors"
        checkpoint = tmp_path / f"every{every}.checkpoint"
        seen = []

        def look(line, checkpoint=checkpoint, seen=seen):
            if line.startswith("epoch"):
                seen.append(checkpoints.read(str(checkpoint))["epochs_done"] if checkpoint.exists() else None)

        population.train(paths[:1], out, checkpoint=checkpoint, checkpoint_every=every, progress=look, **OPTIONS)
        assert seen == expected, every
        assert out.exists() and not checkpoint.exists()
        assert [p.name for p in tmp_path.iterdir() if "checkpoint" in p.name] == []


def test_resume_refuses_a_run_of_other_settings(recordings, interrupted, tmp_path):
    paths, broken = recordings
    checkpoint = copy_of(interrupted, tmp_path)
    out = tmp_path / "other.safetensors"
    for change, words in [
        (dict(seed=7), "the seed was 42, now 7"),
        (dict(batch=32), "the batch was 64, now 32"),
        (dict(learning_rate=1e-2), "the learning rate was"),
        (dict(test_fraction=0.5), "the test fraction was"),
        (dict(sample_rate=360.0), "the recordings' fingerprint"),
    ]:
        with pytest.raises(
            ValueError, match=f"{re.escape(str(checkpoint))}: cannot resume from this checkpoint: .*{words}"
        ):
            population.train_population(
                paths + [broken], out, checkpoint=checkpoint, resume=True, **{**OPTIONS, **change}
            )
    with pytest.raises(ValueError, match="the recordings' fingerprint"):
        population.train_population(paths, out, checkpoint=checkpoint, resume=True, **OPTIONS)
    with pytest.raises(ValueError, match="the recordings' fingerprint"):
        population.train_population(
            [paths[1], paths[0], *paths[2:], broken], out, checkpoint=checkpoint, resume=True, **OPTIONS
        )
    assert os.path.exists(checkpoint) and not out.exists()  # a refused run leaves everything as it was


def test_resume_refuses_a_recording_that_changed(recordings, tmp_path):
    recording = shutil.copy(recordings[0][0], tmp_path / "changing.csv")
    out = tmp_path / "changing.safetensors"
    with pytest.raises(_Stopped):
        population.train([recording], out, progress=stop_after(1), **{**OPTIONS, "epochs": 2})
    with open(recording, "a") as f:
        f.write("0.125\n")
    with pytest.raises(ValueError, match="the recordings' fingerprint"):
        population.train([recording], out, resume=True, **{**OPTIONS, "epochs": 2})


def test_checkpoint_left_behind_refuses_a_plain_start(recordings, interrupted, tmp_path):
    paths, broken = recordings
    checkpoint = copy_of(interrupted, tmp_path)
    out = tmp_path / "again.safetensors"
    left = (
        f"^an interrupted run left {re.escape(str(checkpoint))}: add --resume to continue it, or --force to start over$"
    )
    with pytest.raises(ValueError, match=left):
        population.train_population(paths + [broken], out, checkpoint=checkpoint, **OPTIONS)
    with pytest.raises(ValueError, match="an interrupted run left"):
        population.train_population(paths + [broken], out, processes=2, checkpoint=checkpoint, **OPTIONS)
    with pytest.raises(ValueError, match="there is no checkpoint .*nowhere.checkpoint to continue from"):
        population.train_population(
            paths + [broken], out, checkpoint=tmp_path / "nowhere.checkpoint", resume=True, **OPTIONS
        )
    damaged = tmp_path / "damaged.checkpoint"
    data = bytearray(open(checkpoint, "rb").read())
    data[-5] ^= 0x10
    damaged.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="checksum does not match its content"):
        population.train_population(paths + [broken], out, checkpoint=damaged, resume=True, **OPTIONS)
    # --force starts over (here with other settings, which resuming would refuse) and overwrites it.
    lines = []
    over = population.train_population(
        paths[:1], out, checkpoint=checkpoint, force=True, progress=lines.append, **{**OPTIONS, "epochs": 1}
    )
    assert [line for line in lines if line.startswith("epoch")][0].startswith("epoch 1/1")
    assert len(over.epoch_loss) == 1 and out.exists() and not os.path.exists(checkpoint)


def test_force_removes_only_a_checkpoint(recordings, tmp_path):
    paths, _ = recordings
    # A recording (not among the inputs) given as the checkpoint: --force must not delete it.
    precious = tmp_path / "precious.csv"
    shutil.copy(paths[0], precious)
    before = precious.read_bytes()
    with pytest.raises(ValueError, match="is not a zeroflow population checkpoint; --force starts over by replacing"):
        population.train_population(paths[1:2], tmp_path / "m.safetensors", checkpoint=precious, force=True, **OPTIONS)
    assert precious.read_bytes() == before


def test_cli_refuses_outputs_that_name_an_input_or_a_file_it_did_not_write(recordings, zeroflow_bin, tmp_path):
    paths, _ = recordings
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


def test_cli_run_killed_mid_run_resumes_to_the_uninterrupted_result(recordings, zeroflow_bin, tmp_path):
    """SIGKILL once the first checkpoint is on disk, then --resume: the model of a run never stopped."""
    paths, _ = recordings
    # Enough epochs that the run is still training when the kill comes, however busy the machine.
    options = {**OPTIONS, "epochs": 30}
    reference = population.train_population(paths, tmp_path / "reference.safetensors", threads=1, **options)
    out = tmp_path / "killed.safetensors"
    checkpoint = tmp_path / "killed.safetensors.checkpoint"
    command = [str(zeroflow_bin), "train-population", *paths, "--out", str(out), "--device", "cpu", "--threads", "1"]
    command += ["--epochs", "30", "--batch", str(OPTIONS["batch"]), "--seed", str(OPTIONS["seed"])]
    with open(tmp_path / "killed.log", "w") as log:
        run = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 300
            while not checkpoint.exists():
                if run.poll() is not None:
                    pytest.skip("the run finished before its first checkpoint was seen (a fast machine)")
                assert time.monotonic() < deadline, "no checkpoint after 300 s"
                time.sleep(0.001)
            run.send_signal(signal.SIGKILL)
        finally:
            run.kill()
            run.wait()
    if run.returncode != -signal.SIGKILL:
        pytest.skip("the run finished before it was killed (a fast machine)")
    state = checkpoints.read(str(checkpoint))
    assert 1 <= state["epochs_done"] < 30 and not out.exists()
    assert state["epoch_loss"] == reference.epoch_loss[: state["epochs_done"]]

    again = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert again.returncode == 1
    assert (
        f"an interrupted run left {checkpoint}: add --resume to continue it, or --force to start over" in again.stderr
    )
    resumed = subprocess.run(command + ["--resume"], capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert f"(resumed after {state['epochs_done']})" in resumed.stdout
    assert open(out, "rb").read() == open(reference.model_file, "rb").read()
    assert not checkpoint.exists()
