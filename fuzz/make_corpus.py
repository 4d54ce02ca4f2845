#!/usr/bin/env python3
"""Writes the seed corpus of the fuzz targets, fuzz/corpus/<target>/, from tests/data and from
small files built here by hand after each format's definition. Standard library only; run it again
after changing it (the files are committed, so that scripts/fuzz needs nothing but the build).

Each seed is small and valid (a few deliberately bad ones mark the edges of the format): the
fuzzers mutate them, so they only need to reach the code paths worth mutating from.
"""
import pathlib
import shutil
import struct

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fuzz" / "corpus"
WFDB = ROOT / "tests" / "data" / "wfdb"
MITDB = ROOT / "tests" / "data" / "mitdb"


shutil.rmtree(CORPUS, ignore_errors=True)  # a seed dropped here leaves no stale file behind


def write(target, name, data):
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data if isinstance(data, bytes) else data.encode("latin-1"))


# ---- CSV (fuzz_csv_host: one options byte, then the text) ---------------------------------------
# Options byte: bits 0-1 delimiter (',' ';' tab detect), 2-3 header (auto yes no auto), 4 NaN for
# missing values, 5-6 dtype (float32 float64 int64), 7 quoting off.
COMMA, SEMICOLON, TAB, DETECT = 0, 1, 2, 3
HEADER_YES, HEADER_NO = 4, 8
NAN = 16
FLOAT64, INT64 = 32, 64
NO_QUOTES = 128


def csv_seed(name, options, text):
    write("fuzz_csv_host", name, bytes([options]) + text.encode("latin-1"))


csv_seed("header_float32.csv", COMMA, "time,ecg\n0,0.5\n1,-0.25\n2,1e-3\n3,.5\n")
csv_seed("comments_semicolon_nan.csv", SEMICOLON | NAN, "# exported\n\na;b\n1;nan\n;2\n  # note\n-inf;N/A\n")
csv_seed("tabs_crlf.csv", TAB | HEADER_NO, "1\t2\t3\r\n4\t5\t6\r\n\r\n7\t8\t9")
csv_seed("quoted_header.csv", HEADER_YES, '"a ""x""",b\n"1.5", 2\n 3 ,"4"\n')
csv_seed("int64.csv", INT64 | HEADER_NO, "1,-2\n+3,9223372036854775807\n-9223372036854775808,0\n")
csv_seed("float64_hard.csv", FLOAT64, "x\n3661874.625\n7008545940202925.5\n2.4703282292062328e-324\n1.7976931348623157e308\n")
csv_seed("bom_detect.csv", DETECT, "\ufeff".encode("utf-8").decode("latin-1") + "a;b;c\n1;2;3\n4;5;6\n")
csv_seed("no_quotes.csv", COMMA | NO_QUOTES | NAN, 'v,"w\n1,\n2,3\n')
csv_seed("ragged.csv", COMMA | HEADER_NO, "1,2\n3\n4,5\n")
csv_seed("undecided.csv", COMMA | HEADER_NO, "256.000015258789062500001,1\n0.1,2\n")

# ---- number cells (fuzz_csv_number: one cell) ---------------------------------------------------
cells = [
    "0", "-0", "+0.0e-0", "1e-400", "4.9406564584124654e-324", "2.4703282292062328e-324",
    "2.2250738585072011e-308", "1.7976931348623157e308", "1.7976931348623159e308", "1.4e-45",
    "7.006492321624085e-46", "3.4028235e38", "3.40282356779733661637539395458142568447e38",
    "16777217", "9007199254740993", "9007199254740992.5", "0.1", ".1", "1.", "-.5e-3",
    "123456789012345678901234567890", "256.0000152587890625", "256.000015258789062500001",
    "3661874.625", "700.85459402029255e13", "2560000152587890625e-16", "1e23", "-1e39",
    "0." + "0" * 60 + "1e61", "1" + "0" * 80 + "e-80", "nan", "-NaN", "N/A", "none", "-Infinity",
    "+inf", "", "1e", "+-1", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
    "007",
]
for i, cell in enumerate(cells):
    write("fuzz_csv_number", f"cell_{i:02d}", cell)

# ---- labels CSV (fuzz_labels_csv) ----------------------------------------------------------------
write("fuzz_labels_csv", "sample_label.csv", "sample,label\r\n10,N\r\n\r\n250,V\r\n  \r\n499,N\r\n")
write("fuzz_labels_csv", "sample_symbol.csv",
      'sample,symbol\n18,+\n77,N\n370,A\n500,~\n662,L\n700,""""\n946,E\n1000,|\n1200,/\n1300,f\n')
write("fuzz_labels_csv", "sample_symbol_aami.csv", "\ufeffsample,symbol,aami\n5,N,\n9,A,S\n12,Q,V\n20,+,x\n"
      .encode("utf-8"))
# Symbols that are neither beats nor annotations (refused), and one sample twice (one beat or refused).
write("fuzz_labels_csv", "unknown_symbols.csv", "sample,label\n10,N\n20,PVC\n30,0\n40,nan\n")
write("fuzz_labels_csv", "same_sample.csv", "sample,symbol\n10,N\n10,L\n20,V\n20,N\n")

# ---- WFDB annotations (fuzz_wfdb_annotations: MIT format) ----------------------------------------
write("fuzz_wfdb_annotations", "119.atr", (MITDB / "119.atr").read_bytes())


def annotation(code, interval):
    return struct.pack("<H", (code << 10) | interval)


def skip(interval):  # SKIP (59), then a 32-bit interval, high word first
    return annotation(59, 0) + struct.pack("<H", (interval >> 16) & 0xFFFF) + struct.pack("<H", interval & 0xFFFF)


def aux(text):  # AUX (63): the length in the interval field, the text padded to even length
    data = text.encode("latin-1")
    return annotation(63, len(data)) + data + (b"\0" if len(data) % 2 else b"")


write("fuzz_wfdb_annotations", "every_field.atr",
      annotation(28, 5) + aux("(N") + annotation(1, 100) + annotation(60, 1) + annotation(61, 2) +
      annotation(62, 0) + annotation(5, 300) + skip(70000) + annotation(8, 10) + annotation(22, 4) + aux("note") +
      annotation(1, 0) + annotation(12, 500) + annotation(0, 0))
# The structure the reader checks (labels.hpp: read_labels by content): a note before the start is
# allowed (wfdb-python's time resolution), a beat there is not; no end marker; a code that is none;
# rdann's text printout under an annotation file's name (read as a CSV and refused).
write("fuzz_wfdb_annotations", "note_before_start.atr",
      skip(-1) + annotation(22, 0) + annotation(63, 4) + b"## 1" + skip(1) + annotation(1, 10) + annotation(5, 100) +
      annotation(0, 0))
write("fuzz_wfdb_annotations", "beat_before_start.atr", skip(-100) + annotation(1, 0) + annotation(1, 200) + annotation(0, 0))
write("fuzz_wfdb_annotations", "no_end_marker.atr", annotation(1, 10) + annotation(5, 100))
# The time-resolution note as wfdb-python's wrann writes it (labels.hpp: read_labels_for).
write("fuzz_wfdb_annotations", "time_resolution.atr",
      annotation(22, 0) + aux("## time resolution: 250") + skip(-1) + annotation(0, 1) + annotation(1, 10) +
      annotation(5, 290) + annotation(0, 0))
write("fuzz_wfdb_annotations", "unknown_code.atr", annotation(1, 10) + annotation(53, 3) + annotation(0, 0))
write("fuzz_wfdb_annotations", "rdann_printout.atr",
      b"      0:00.050       18     N    0    0    0\n      0:00.833      300     V    0    0    0\n")
# Not labels, by their first bytes (labels.cpp): data after the end marker, UTF-16 text, an EDF file.
write("fuzz_wfdb_annotations", "data_after_end.atr", annotation(1, 10) + annotation(0, 0) + b"{\"__metadata__\":{}}")
write("fuzz_wfdb_annotations", "utf16_labels.atr", "\ufeffsample,symbol\n10,N\n".encode("utf-16-le"))
write("fuzz_wfdb_annotations", "edf_file.atr", b"0       " + b" " * 248 + b"\x00" * 8)

# ---- WFDB records (fuzz_wfdb_record: header, NUL, signal file) -----------------------------------


def stream_bytes(fmt, samples):  # bytes of `samples` samples (wfdb.hpp's formats)
    if samples == 0:
        return 0
    last = samples - 1
    return {8: samples, 80: samples, 16: 2 * samples, 61: 2 * samples, 160: 2 * samples, 24: 3 * samples,
            32: 4 * samples, 212: 3 * (last // 2) + (2 if last % 2 == 0 else 3),
            310: 4 * (last // 3) + (2 if last % 3 == 0 else 4), 311: 4 * (last // 3) + 2 + last % 3}[fmt]


FRAMES = 40
for line in (WFDB / "binformats.hea").read_text().splitlines()[1:]:
    fields = line.split()
    fmt = int(fields[1])
    fields[0] = "s.dat"
    fields[6] = "0"  # the checksum covered all 499 samples
    header = f"binformats 1 200 {FRAMES}\n" + " ".join(fields) + "\n"
    data = (WFDB / line.split()[0]).read_bytes()[: stream_bytes(fmt, FRAMES)]
    write("fuzz_wfdb_record", f"format_{fmt}", header.encode() + b"\0" + data)

write("fuzz_wfdb_record", "3000003_0003",
      (WFDB / "3000003_0003.hea").read_bytes() + b"\0" + (WFDB / "3000003_0003.dat").read_bytes())
write("fuzz_wfdb_record", "119_head",
      b"119 1 360 120\n119.dat 212 200.0(1024)/mV 12 0 825 2943 0 MLII\n\0" +
      (MITDB / "119.dat").read_bytes()[: stream_bytes(212, 120)])
# Two signals sharing a file with samples per frame, skew and byte offset; comments, counter
# frequency, base time and date; a second file for a format-8 signal with skew.
shared = ("# made by fuzz/make_corpus.py\n"
          "mixed 3 250/1000(5) 8 10:20:30 01/02/2003\n"
          "s.dat 16x2:1+4 200(10)/uV 16 0 0 0 0 ECG lead II\n"
          "s.dat 16 0/mV 16 0 7 0 0 V1\n"
          "t.dat 8:2 100 8 0 -3 -3 0 resp\n")
data = bytes(range(4)) + struct.pack("<24h", *[(-1) ** k * 37 * k for k in range(24)])
write("fuzz_wfdb_record", "mixed", shared.encode() + b"\0" + data)
write("fuzz_wfdb_record", "null_signal", b"z 2 100 0\ns.dat 0\ns.dat 16 100 16 0 0 0 0 II\n\0" + bytes(8))
# Signal files outside the record's folder: refused by name, before any file is looked at.
write("fuzz_wfdb_record", "outside_folder",
      b"o 3 250 4\n../o.dat 16 200 16 0 0 0 0 I\n/etc/o.dat 16\nsub/../../o.dat 16\n\0" + bytes(8))

# ---- EDF / EDF+ (fuzz_edf) -----------------------------------------------------------------------


def field(value, width):
    text = str(value).encode("latin-1")
    assert len(text) <= width, (value, width)
    return text + b" " * (width - len(text))


def edf(signals, records, duration, plus=False, data=b""):
    """signals: (label, units, pmin, pmax, dmin, dmax, samples per record) each."""
    ns = len(signals)
    head = (field(0, 8) + field("X M 01-JAN-2001 seed", 80) + field("Startdate 01-JAN-2001 X X X", 80) +
            field("01.01.01", 8) + field("10.20.30", 8) + field(256 * (ns + 1), 8) +
            field("EDF+C" if plus else "", 44) + field(records, 8) + field(duration, 8) + field(ns, 4))
    columns = [(0, 16), (None, 80), (1, 8), (2, 8), (3, 8), (4, 8), (5, 8), (None, 80), (6, 8), (None, 32)]
    for index, width in columns:
        for s in signals:
            head += field("" if index is None else s[index], width)
    return head + data


def samples(values):
    return struct.pack(f"<{len(values)}h", *values)


ecg = ("ECG II", "uV", -3276.8, 3276.7, -32768, 32767, 10)
write("fuzz_edf", "edf_one_signal.edf",
      edf([ecg], 2, 1, data=samples([k * 100 - 500 for k in range(10)]) + samples([-k * 7 for k in range(10)])))
annotations = ("EDF Annotations", "", -1, 1, -32768, 32767, 16)


def tal_record(onset, entries):
    tals = f"+{onset}\x14\x14\0".encode() + b"".join(entries)
    assert len(tals) <= 32
    return tals + b"\0" * (32 - len(tals))


records = samples(list(range(10))) + tal_record(0, [b"+0.5\x150.2\x14N\x14\0"])
records += samples(list(range(10, 20))) + tal_record(1, [b"+1.25\x14V\x14A\x14\0"])
write("fuzz_edf", "edf_plus_annotations.edf",
      edf([("MLII", "mV", -5, 5, -2048, 2047, 10), annotations], 2, 1, plus=True, data=records))
write("fuzz_edf", "edf_unknown_records.edf", edf([ecg], -1, 0.5, data=samples(list(range(-5, 15)))))

total = sum(f.stat().st_size for f in CORPUS.rglob("*") if f.is_file())
print(f"corpus: {sum(1 for f in CORPUS.rglob('*') if f.is_file())} files, {total} bytes in {CORPUS}")
