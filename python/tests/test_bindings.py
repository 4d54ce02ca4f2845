"""The Python layer over the C++ API: read_csv, the segmentation steps (against the NumPy seed
reference), the VAE, run, memory resources and statistics, and bad input."""

import gc
import json
import math

import numpy as np
import pytest
from seed_reference import ricker, segment  # noqa: E402

import zeroflow as zf  # noqa: E402  (scripts/test installs it; a missing module must fail, not skip)


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    """12 minutes of synthetic ECG at 250 Hz, 90 bpm, 5 % PVCs, written as CSV with labels."""
    path = tmp_path_factory.mktemp("py") / "ecg.csv"
    labels = zf.synth.write_ecg_csv(path, 0.2, anomaly_rate=0.05, heart_rate=90, seed=7)
    return path, labels


@pytest.fixture(scope="module")
def signal(recording):
    return zf.read_csv(recording[0])["heartbeats"]


# ---- read_csv ---------------------------------------------------------------------------------


def test_read_csv_matches_numpy(recording):
    path, _ = recording
    t = zf.read_csv(path)
    assert t.names == ["heartbeats"] and t.num_rows == 0.2 * 3600 * 250
    expected = np.loadtxt(path, skiprows=1, dtype=np.float32)
    assert np.array_equal(np.asarray(t["heartbeats"]), expected)
    t64 = zf.read_csv(path, dtype="float64", threads=2)
    assert t64["heartbeats"].dtype == "float64"
    assert np.array_equal(np.asarray(t64[0]), np.loadtxt(path, skiprows=1, dtype=np.float64))


def test_read_csv_options_and_errors(tmp_path):
    text = "# comment\nx;y;z\n1;2;3\n4;5;6\n"
    t = zf.io.read_csv_text(text, delimiter=None, columns=["z", 0], dtypes={"z": "int64"})
    assert t.names == ["z", "x"] and t["z"].dtype == "int64"
    assert np.array_equal(np.asarray(t["z"]), [3, 6]) and np.array_equal(np.asarray(t["x"]), [1, 4])
    with pytest.raises(zf.ParseError, match=r"bad\.csv:3: column 2"):
        zf.io.read_csv_text("a,b\n1,2\n3,oops\n", name="bad.csv")
    assert issubclass(zf.ParseError, ValueError)
    t = zf.io.read_csv_text("a\n1\n\n2\nnan\n", na="nan")
    assert np.isnan(np.asarray(t["a"])[2])
    with pytest.raises(zf.ParseError):
        zf.read_csv(tmp_path / "missing.csv")
    with pytest.raises(ValueError):
        zf.io.read_csv_text("a\n1\n", header="maybe")
    if not zf.cuda_available():
        with pytest.raises(zf.CudaError):
            zf.io.read_csv_text("a\n1\n", device="cuda")


# ---- the segmentation steps against the seed's NumPy code ---------------------------------------


def test_steps_match_the_seed_reference(signal):
    x = np.asarray(signal)
    filtered_ref, indices_ref, lengths_ref, kept_ref = segment(x)
    kernel = zf.signal.ricker_kernel(30)
    assert np.allclose(np.asarray(kernel), ricker(30, 30), atol=1e-7)
    filtered = zf.signal.bandpass(x, 30)  # a NumPy array goes in as it is
    assert np.allclose(np.asarray(filtered), filtered_ref, atol=1e-4)
    gate = zf.signal.nms_gate(filtered, 180)
    positions = zf.signal.gate_positions(gate)
    norm = zf.signal.robust_zscore(signal)
    baseline = norm.center * float(np.sum(np.asarray(kernel), dtype=np.float64))
    strong = zf.signal.drop_weak_peaks(filtered, positions, 180, 0.1, baseline)
    lengths = zf.signal.beat_lengths(strong)
    assert np.array_equal(np.asarray(strong), indices_ref)
    assert np.array_equal(np.asarray(lengths), lengths_ref)
    hist = np.asarray(zf.signal.length_histogram(lengths, 513))
    assert hist.sum() == len(lengths_ref) and hist[lengths_ref[0]] >= 1
    median = np.median(x)
    assert norm.center == pytest.approx(median, abs=1e-6)
    assert norm.scale == pytest.approx(1.4826 * np.median(np.abs(x - median)), rel=1e-5)
    emb = zf.signal.embed_beats(signal, strong, lengths, 100, 256, 256, norm)
    rows = np.asarray(emb.rows)
    assert rows.shape == (kept_ref.sum(), 256)
    first = np.asarray(emb.kept_index)[0]
    start, length = indices_ref[first], lengths_ref[first]
    expected = (x[start : start + length] - np.float32(norm.center)) / np.float32(norm.scale)
    assert np.allclose(rows[0, :length], expected, atol=1e-6) and not rows[0, length:].any()
    peaks = np.asarray(zf.signal.locate_peaks(signal, strong, 180, 30, norm.center))
    assert len(peaks) == len(indices_ref) and np.all(np.diff(peaks) > 0)


def test_segment_beats_in_one_call(signal):
    seg = zf.segment_beats(signal)
    _, indices_ref, lengths_ref, kept_ref = segment(np.asarray(signal))
    assert seg.sizes == zf.signal.segment_sizes()
    assert np.array_equal(np.asarray(seg.positions), indices_ref)
    assert np.array_equal(np.asarray(seg.beats.kept).astype(bool), kept_ref)
    assert seg.beats.rows.shape == (kept_ref.sum(), 256)
    # the seed's detector exactly: no weak-peak filter
    seed = zf.segment_beats(signal, min_peak_ratio=0)
    assert np.array_equal(np.asarray(seed.positions), segment(np.asarray(signal), min_peak_ratio=0)[1])


def test_inputs_from_other_frameworks_are_used_in_place(signal):
    torch = pytest.importorskip("torch")
    x = torch.from_dlpack(signal)  # zeroflow -> torch, no copy
    assert x.data_ptr() == signal.data_ptr
    a = zf.signal.bandpass(x, 30)  # torch -> zeroflow, no copy
    b = zf.signal.bandpass(signal, 30)
    assert np.array_equal(np.asarray(a), np.asarray(b))
    strided = np.repeat(np.asarray(signal), 2)[::2]  # a strided view: steps take any stride
    assert np.array_equal(np.asarray(zf.signal.bandpass(strided, 30)), np.asarray(b))


def test_bad_input_is_a_clear_python_error(signal):
    with pytest.raises(TypeError, match="float32"):
        zf.signal.bandpass(np.zeros(1000), 30)  # float64
    with pytest.raises(ValueError, match="1-D"):
        zf.signal.bandpass(np.zeros((10, 100), np.float32), 30)
    with pytest.raises(ValueError):
        zf.signal.bandpass(np.zeros(10, np.float32), 30)  # kernel longer than the signal
    with pytest.raises(TypeError, match="int64"):
        zf.signal.beat_lengths(np.arange(5, dtype=np.int32))
    with pytest.raises(ValueError):
        zf.signal.segment_sizes(sample_rate=-1)
    with pytest.raises(TypeError):
        zf.signal.bandpass("not an array", 30)


# ---- model and pipeline ------------------------------------------------------------------------


def test_vae_trains_scores_and_round_trips(signal, tmp_path):
    torch = pytest.importorskip("torch")
    zf.model.set_cpu_threads(1)
    rows = zf.segment_beats(signal).beats.rows
    vae = zf.VAE(256, seed=3)
    assert vae.width == 256 and vae.device == "cpu" and vae.parameter_count == 850 + 3 * 256
    seen = []
    result = vae.train(rows, epochs=3, batch=256, on_epoch=lambda e, loss: seen.append((e, loss)))
    assert [e for e, _ in seen] == [0, 1, 2] and result.epoch_loss == [loss for _, loss in seen]
    assert result.epoch_loss[-1] < result.epoch_loss[0] and math.isfinite(result.test_loss)
    n = rows.shape[0]
    assert result.train_index.size + result.test_index.size == n
    assert abs(result.test_index.size - 0.25 * n) <= 1
    scores = vae.score(rows)
    assert scores.score.shape == (n,) and scores.mu.shape == (n, 2)
    again = vae.score(torch.from_dlpack(rows))  # same rows through torch: same scores
    assert np.array_equal(np.asarray(scores.score), np.asarray(again.score))
    vae.save(tmp_path / "m.pt")
    loaded = zf.VAE.load(tmp_path / "m.pt")
    assert np.array_equal(np.asarray(loaded.score(rows).score), np.asarray(scores.score))
    assert vae.decode_grid(3).shape == (9, 256)
    with pytest.raises(TypeError, match="float32"):
        vae.score(np.zeros((4, 256)))
    with pytest.raises(ValueError):
        vae.score(np.zeros((4, 128), np.float32))
    with pytest.raises(ValueError):
        zf.VAE(100)


def test_on_epoch_errors_stop_training(signal):
    rows = zf.segment_beats(signal).beats.rows

    def fail(epoch, loss):
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        zf.VAE(256).train(rows, epochs=2, on_epoch=fail)


def test_run_returns_arrays_and_writes_the_contract(recording, tmp_path):
    path, labels = recording
    lines = []
    r = zf.run(path, device="cpu", epochs=3, out=tmp_path, progress=lines.append)
    assert r.device == "cpu" and r.samples == 0.2 * 3600 * 250 and r.trained
    assert lines and any("epoch" in line for line in lines)
    n = r.start.size
    kept = np.asarray(r.kept)
    split = np.asarray(r.split)
    score = np.asarray(r.score)
    assert r.summary["beats_found"] == n and r.summary["beats_kept"] == kept.sum()
    assert set(np.unique(split[kept])) <= {1, 2} and not split[~kept].any()
    assert np.isfinite(score[kept]).all() and np.isnan(score[~kept]).all()
    assert r.summary["evaluation"]["sensitivity"] > 0.99  # labels found beside the CSV
    assert r.decoded_grid.shape == (25, 256) and len(r.epoch_loss) == 3
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["beats_found"] == n
    beats = np.genfromtxt(tmp_path / "beats.csv", delimiter=",", names=True, dtype=None, encoding="utf-8")
    assert np.array_equal(beats["start"], np.asarray(r.start))
    assert (tmp_path / "model.safetensors").exists() and (tmp_path / "report.html").exists()
    scored = zf.run(path, device="cpu", model=tmp_path / "model.safetensors", labels=None)
    assert not scored.trained and "evaluation" not in scored.summary
    assert np.allclose(np.asarray(scored.score)[kept], score[kept], equal_nan=True)


# ---- memory -----------------------------------------------------------------------------------


def test_resources_and_adaptors():
    host = zf.memory.HostResource()
    stats = zf.memory.StatisticsAdaptor(host)
    limited = zf.memory.LimitingAdaptor(stats, 1 << 20)
    tracked = zf.memory.LeakTrackingAdaptor(limited, report_on_destruction=False)
    assert tracked.upstream is limited or tracked.upstream.name == limited.name
    block = tracked.allocate_block(1000)
    p = tracked.allocate(24)
    assert block.ptr % 256 == 0 and p % 256 == 0
    assert stats.statistics()["current_bytes"] == 1024 and stats.statistics()["current_count"] == 2
    assert limited.used == 1024 and len(tracked.outstanding()) == 2
    with pytest.raises(MemoryError):
        tracked.allocate(1 << 21)
    with pytest.raises(ValueError):
        tracked.deallocate(p + 8, 24)  # not a live allocation: refused, not corrupted
    tracked.deallocate(p, 24)
    del block
    gc.collect()
    s = stats.statistics()
    assert s["current_bytes"] == 0 and s["peak_bytes"] == 1024 and s["total_count"] == 2
    assert "no outstanding" in tracked.report()
    with zf.memory.using(stats):
        a = zf.zeros((10,), "float64")
        assert stats.statistics()["current_bytes"] == 80
    del a
    assert stats.statistics()["current_bytes"] == 0
    if not zf.cuda_available():
        with pytest.raises(zf.CudaError):
            zf.memory.CudaPoolResource()


def test_import_export_loops_leak_nothing():
    """Every protocol, both ways, 200 times: the pool's statistics return to zero and no capsule,
    view or producer is left behind."""
    pa = pytest.importorskip("pyarrow")
    torch = pytest.importorskip("torch")
    stats = zf.memory.StatisticsAdaptor(zf.memory.HostResource())
    with zf.memory.using(stats):
        for i in range(200):
            a = zf.zeros((64, 4), "float32")
            b = zf.zeros((33,), "bool")
            np.from_dlpack(a)[0, 0] = i
            np.asarray(a[::2])
            zf.asarray(np.from_dlpack(a))
            t = torch.from_dlpack(a)
            assert zf.asarray(t[1:]).data_ptr == a.data_ptr + 16
            del t
            zf.from_dlpack(a.__dlpack__(max_version=(1, 0)))
            a.__dlpack__()  # dropped unconsumed: its deleter runs
            a.__dlpack__(max_version=(1, 0), copy=True)
            a.__arrow_c_array__()
            zf.asarray(pa.array(a))
            pa.table(zf.table({"x": a[:, 0].copy()}))
            with pytest.warns(zf.CopyWarning):
                zf.asarray(pa.array(b))
            capsule = a.__dlpack__()
            zf.from_dlpack(capsule)
            with pytest.raises(ValueError):
                zf.from_dlpack(capsule)
            del a, b, capsule
        gc.collect()
        s = stats.statistics()
    assert s["total_count"] >= 200 * 4
    assert s["current_bytes"] == 0 and s["current_count"] == 0, s


def test_synthetic_recordings():
    rec = zf.synth.generate_ecg(0.01, seed=5)
    assert rec.signal.dtype == "float32" and rec.signal.size == 0.01 * 3600 * 250
    labels = np.asarray(rec.labels).tobytes().decode()
    assert set(labels) <= {"N", "V"} and len(labels) == rec.r_peaks.size
    with pytest.raises(ValueError):
        zf.synth.generate_ecg(-1)
