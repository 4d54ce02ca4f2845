"""zeroflow.io.read_recording and read_wfdb_annotations against the reference readers: wfdb-python
for WFDB records and annotations, pyedflib for EDF/EDF+. Every signal of every sample file is
compared sample by sample in physical units (zeroflow keeps float32, the references float64)."""

import pathlib

import numpy as np
import pytest

import zeroflow as zf

REPO = pathlib.Path(__file__).resolve().parents[2]
DATA = REPO.parent / "shared" / "data"  # the repository's parent folder holds shared/
SAMPLES = DATA / "wfdb-samples"
MITDB = DATA / "mitdb-ds1"

pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason=f"{DATA} (real ECG samples) is not on this machine")

# AAMI EC57 classes of the MIT-BIH beat symbols, written out here as the reference for zeroflow's mapping.
AAMI = {
    **dict.fromkeys("NLRej", "N"),
    **dict.fromkeys("AaJS", "S"),
    **dict.fromkeys("VE", "V"),
    "F": "F",
    **dict.fromkeys("/fQ", "Q"),
}


def _nonempty(*paths):
    """Skips when a sample file is missing or an empty placeholder (large samples may be left out)."""
    for path in paths:
        if not path.exists() or path.stat().st_size == 0:
            pytest.skip(f"{path.name} is missing or empty on this machine")


def _assert_same_signal(ours, reference, what):
    """float32 against float64: equal to float32 precision, NaN exactly where the reference has NaN."""
    ours = np.asarray(ours)
    reference = np.asarray(reference, dtype=np.float64)
    assert ours.dtype == np.float32, what
    assert ours.shape == reference.shape, f"{what}: {ours.shape} samples, reference {reference.shape}"
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(reference), err_msg=f"{what}: NaN positions")
    finite = ~np.isnan(reference)
    scale = np.max(np.abs(reference[finite]), initial=0.0)
    np.testing.assert_allclose(ours[finite], reference[finite], rtol=1e-6, atol=1e-7 * scale, err_msg=what)


def _wfdb_record(record):
    wfdb = pytest.importorskip("wfdb")
    # Unsmoothed frames: every signal at its own rate (fs times its samples per frame), as zeroflow reads it.
    return wfdb.rdrecord(str(record), smooth_frames=False, physical=True)


def _check_wfdb_record(record):
    reference = _wfdb_record(record)
    header = record.with_name(record.name + ".hea")
    for i, name in enumerate(reference.sig_name):
        got = zf.io.read_recording(header, i)
        what = f"{record.name} signal {i} ({name}, format {reference.fmt[i]})"
        assert got.lead == name, what
        assert got.leads == list(reference.sig_name), what
        if got.units.isascii():  # wfdb-python reads a Latin-1 unit ("°" in test_generator_2) as its default "mV"
            assert got.units == (reference.units[i] or ""), what
        assert got.sample_rate == pytest.approx(reference.fs * reference.samps_per_frame[i]), what
        _assert_same_signal(got.signal, reference.e_p_signal[i], what)
        # The name selects the same signal as the index.
        by_name = zf.io.read_recording(header, name)
        assert by_name.lead == name and np.array_equal(
            np.asarray(by_name.signal), np.asarray(got.signal), equal_nan=True
        ), what


def test_every_storage_format_of_binformats_equals_wfdb():
    record = SAMPLES / "binformats"
    _nonempty(record.with_suffix(".hea"), *(record.with_suffix(f".d{i}") for i in range(10)))
    reference = _wfdb_record(record)
    assert sorted(reference.fmt) == sorted(["8", "16", "61", "80", "160", "212", "310", "311", "24", "32"])
    _check_wfdb_record(record)


@pytest.mark.parametrize(
    "name, files",
    [
        ("n16", ["n16.dat"]),
        ("s0010_re", ["s0010_re.dat", "s0010_re.xyz"]),  # 12 leads in one file, 3 Frank leads in another
        ("3000003_0003", ["3000003_0003.dat"]),  # two signals interleaved in format 80
        ("wave_4", ["wave_4.dat"]),  # several samples per frame
        ("test_generator_2", ["test_generator_2.dat"]),  # 200 samples per frame of 1 Hz
    ],
)
def test_wfdb_samples_equal_wfdb(name, files):
    _nonempty(SAMPLES / f"{name}.hea", *(SAMPLES / f for f in files))
    _check_wfdb_record(SAMPLES / name)


@pytest.mark.parametrize("record", ["106", "119"])
def test_mitdb_records_equal_wfdb(record):
    _nonempty(MITDB / f"{record}.hea", MITDB / f"{record}.dat")
    _check_wfdb_record(MITDB / record)


def test_default_lead_is_mlii_then_ii():
    _nonempty(MITDB / "106.hea", SAMPLES / "s0010_re.hea", SAMPLES / "s0010_re.dat", SAMPLES / "s0010_re.xyz")
    reference = _wfdb_record(MITDB / "106")
    got = zf.io.read_recording(MITDB / "106")  # the record name without .hea
    assert got.lead == "MLII" and got.sample_rate == 360
    _assert_same_signal(got.signal, reference.e_p_signal[reference.sig_name.index("MLII")], "106 default lead")
    assert zf.io.read_recording(SAMPLES / "s0010_re.hea").lead == "ii"
    assert zf.io.read_recording(SAMPLES / "test_generator_2.hea").lead == "ECG"  # a name before uV units
    assert zf.io.read_recording(SAMPLES / "test_generator_2.edf").lead == "ECG"


def test_unknown_lead_lists_the_leads():
    _nonempty(SAMPLES / "3000003_0003.hea", SAMPLES / "3000003_0003.dat")
    with pytest.raises(ValueError, match=r"(?s)aVQ.*II.*V"):
        zf.io.read_recording(SAMPLES / "3000003_0003.hea", "aVQ")
    with pytest.raises(ValueError, match="2"):
        zf.io.read_recording(SAMPLES / "3000003_0003.hea", 2)


def test_missing_signal_file_is_named(tmp_path):
    header = tmp_path / "rec.hea"
    header.write_text("rec 1 250 10\nrec.dat 16 200/mV 16 0 0 0 0 ECG\n")
    with pytest.raises(zf.Error, match="rec.dat"):
        zf.io.read_recording(header)


def _edf_reference(path, tmp_path):
    pyedflib = pytest.importorskip("pyedflib")
    # pyEDFlib refuses header bytes outside ASCII (test_generator_2 writes "°" as one Latin-1 byte):
    # it reads a copy with those bytes replaced, and the units are compared where both are ASCII.
    data = bytearray(path.read_bytes())
    header_bytes = int(data[184:192].decode("ascii"))
    for i in range(header_bytes):
        if data[i] >= 0x80:
            data[i] = ord("?")
    copy = tmp_path / path.name
    copy.write_bytes(bytes(data))
    with pyedflib.EdfReader(str(copy)) as reader:
        return [
            (
                reader.getLabel(i),
                reader.getPhysicalDimension(i),
                reader.getSampleFrequency(i),
                reader.readSignal(i, digital=False),
            )
            for i in range(reader.signals_in_file)
        ]


@pytest.mark.parametrize("name", ["test_generator_2.edf", "n16.edf", "wave_4.edf"])
def test_edf_equals_pyedflib(name, tmp_path):
    path = SAMPLES / name
    _nonempty(path)
    reference = _edf_reference(path, tmp_path)
    assert reference, name
    labels = [label for label, *_ in reference]
    for i, (label, units, rate, signal) in enumerate(reference):
        got = zf.io.read_recording(path, i)
        what = f"{name} signal {i} ({label})"
        assert got.lead == label and got.leads == labels, what
        if "?" not in units:
            assert got.units == units, what
        assert got.sample_rate == pytest.approx(rate), what
        _assert_same_signal(got.signal, signal, what)


@pytest.mark.parametrize("name", ["n16", "wave_4"])
def test_empty_sample_files_are_refused_like_the_references_do(name):
    # These samples are kept with empty signal files (the originals are large); both references refuse them.
    wfdb = pytest.importorskip("wfdb")
    pyedflib = pytest.importorskip("pyedflib")
    if (SAMPLES / f"{name}.dat").stat().st_size:
        pytest.skip(f"{name}.dat is not empty here")
    with pytest.raises(ValueError):
        wfdb.rdrecord(str(SAMPLES / name))
    with pytest.raises(zf.ParseError, match=rf"{name}\.dat: the file is truncated: it holds 0 of the"):
        zf.io.read_recording(SAMPLES / f"{name}.hea")
    with pytest.raises(OSError):
        pyedflib.EdfReader(str(SAMPLES / f"{name}.edf"))
    with pytest.raises(zf.ParseError, match=rf"{name}\.edf: the file has 0 bytes"):
        zf.io.read_recording(SAMPLES / f"{name}.edf")


def test_edf_annotations_equal_pyedflib():
    pyedflib = pytest.importorskip("pyedflib")
    path = SAMPLES / "test_edfann.edf"  # EDF+ with an annotation signal only
    _nonempty(path)
    with pyedflib.EdfReader(str(path)) as reader:
        assert reader.signals_in_file == 0
        onsets, durations, texts = reader.readAnnotations()
    got = zf.io.read_edf_annotations(path)
    assert len(got) > 100
    assert [a.text for a in got] == list(texts)
    np.testing.assert_allclose([a.onset for a in got], onsets)
    np.testing.assert_allclose([a.duration for a in got], durations)
    with pytest.raises(zf.ParseError, match=r"only EDF\+ annotations"):
        zf.io.read_recording(path)


def test_edf_and_wfdb_of_test_generator_2_agree():
    _nonempty(SAMPLES / "test_generator_2.edf", SAMPLES / "test_generator_2.dat")
    edf = zf.io.read_recording(SAMPLES / "test_generator_2.edf", "ECG")
    wfdb = zf.io.read_recording(SAMPLES / "test_generator_2.hea", "ECG")
    assert edf.sample_rate == wfdb.sample_rate == 200
    step = 1 / 32.7675  # one digital step of the WFDB record, in its units (uV)
    np.testing.assert_allclose(np.asarray(edf.signal), np.asarray(wfdb.signal), atol=step)


@pytest.mark.parametrize("record", ["106", "119"])
def test_mitdb_annotations_equal_wfdb_beats(record):
    wfdb = pytest.importorskip("wfdb")
    _nonempty(MITDB / f"{record}.atr")
    reference = wfdb.rdann(str(MITDB / record), "atr")
    beats = [i for i, symbol in enumerate(reference.symbol) if symbol in AAMI]
    assert len(beats) > 1000  # 30 minutes of beats; rhythm and noise annotations are the rest
    got = zf.io.read_wfdb_annotations(MITDB / f"{record}.atr")
    np.testing.assert_array_equal(np.asarray(got.samples), np.asarray(reference.sample)[beats])
    assert got.symbols == [reference.symbol[i] for i in beats]
    assert got.classes == [AAMI[reference.symbol[i]] for i in beats]


def test_truncated_annotation_file_gives_its_offset(tmp_path):
    _nonempty(MITDB / "106.atr")
    data = (MITDB / "106.atr").read_bytes()
    cut = tmp_path / "cut.atr"
    cut.write_bytes(data[:101])  # half of a 16-bit word at the end
    with pytest.raises(zf.ParseError, match="cut.atr"):
        zf.io.read_wfdb_annotations(cut)


@pytest.mark.skipif(not zf.cuda_available(), reason="no CUDA device")
def test_recording_on_the_gpu_equals_the_host_one():
    _nonempty(SAMPLES / "3000003_0003.hea", SAMPLES / "3000003_0003.dat")
    host = zf.io.read_recording(SAMPLES / "3000003_0003.hea", "II")
    gpu = zf.io.read_recording(SAMPLES / "3000003_0003.hea", "II", device="cuda")
    assert gpu.signal.device.startswith("cuda")
    np.testing.assert_array_equal(np.asarray(gpu.signal.copy("cpu")), np.asarray(host.signal))
