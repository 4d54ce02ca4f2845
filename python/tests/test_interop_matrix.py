"""The interop matrix (the seed talk's cheat sheet, through zeroflow): every framework's float32,
int64, bool, 0-size and 2-D strided arrays go into zeroflow and out to every framework; values
are checked, and the data pointer must not change where zero-copy is possible (the known copies
below say why each other one happens). With ZEROFLOW_INTEROP_RECORD=FILE each cell is appended to
FILE as a JSON line; scripts/interop-matrix renders docs/interop.md from them."""

import json
import os
import re
import warnings

import numpy as np
import pytest
from interop_frameworks import CASES, CPU_FRAMEWORKS, GPU_FRAMEWORKS, case_array  # noqa: E402

import zeroflow as zf  # noqa: E402  (scripts/test installs it; a missing module must fail, not skip)

RECORD = os.environ.get("ZEROFLOW_INTEROP_RECORD")


def unaligned_for_jax(cell):
    """XLA's CPU client takes a DLPack buffer in place only when it is 64-byte aligned."""
    origin = cell["origin"]
    if origin % 64:
        return (
            f"JAX (XLA CPU) adopts only 64-byte aligned buffers; this one is {origin % 64} bytes off "
            "(NumPy, PyTorch and Arrow allocate 16-byte aligned; zeroflow 256-byte aligned)"
        )
    return None


JAX_COMPACT = "JAX takes compact layouts only (jnp.from_dlpack(zf.ascontiguousarray(a)))"


def strided(reason):
    """A reason that holds when the array reached the target as a strided view."""
    return lambda cell: None if cell["contiguous"] else reason


#: (device, source, target, case) -> why the data is copied on the way ("*" matches anything); a
#: function of the cell ({"origin": source pointer, "contiguous": layout handed over}) when it
#: depends on where the data lies or how it is laid out.
KNOWN_COPIES = {
    ("cpu", "*", "JAX", "*"): unaligned_for_jax,
    ("cpu", "*", "JAX", "strided2d"): strided(JAX_COMPACT),
    ("cpu", "*", "TensorFlow", "strided2d"): strided(
        "TensorFlow refuses strided DLPack tensors (copy contiguous first)"
    ),
    ("cuda", "*", "JAX", "strided2d"): strided(JAX_COMPACT),
    ("cpu", "pyarrow", "*", "bool"): "Arrow stores booleans as bits; zeroflow unpacks them into bytes",
    ("cpu", "*", "pyarrow", "bool"): "Arrow stores booleans as bits; exporting packs them",
    ("cpu", "*", "pyarrow", "strided2d"): strided("Arrow needs contiguous values (pa.array(zf.ascontiguousarray(a)))"),
}
#: (device, source, target, case) -> why the move is refused.
KNOWN_UNSUPPORTED = {}


def _pandas_major():
    try:
        import pandas
    except ImportError:
        return 0
    return int(pandas.__version__.split(".")[0])


if _pandas_major() >= 3:
    # Copy-on-write: a pandas 3 Series hands out a read-only NumPy view, so its zeroflow array is
    # read-only too; legacy DLPack capsules have no read-only flag, and NumPy and zeroflow refuse them.
    for consumer in ("JAX", "TensorFlow"):
        KNOWN_UNSUPPORTED[("cpu", "pandas", consumer, "*")] = (
            f"pandas 3 data is read-only (copy-on-write) and {consumer} asks for a legacy DLPack capsule, which "
            "cannot say so: zf.asarray(series, copy=True)"
        )


def lookup(table, device, source, target, case, cell=None):
    """The most specific matching reason (exact names before wildcards)."""
    matches = [
        (sum(k == "*" for k in key), reason)
        for key, reason in table.items()
        if key[0] == device and key[1] in ("*", source) and key[2] in ("*", target) and key[3] in ("*", case)
    ]
    for _, reason in sorted(matches, key=lambda m: m[0]):
        reason = reason(cell) if callable(reason) else reason
        if reason:
            return reason
    return None


def record(**cell):
    if RECORD:
        os.makedirs(os.path.dirname(os.path.abspath(RECORD)), exist_ok=True)
        with open(RECORD, "a") as f:
            f.write(json.dumps(cell) + "\n")


def same_values(got, expected):
    got = np.asarray(got)
    return got.shape == expected.shape and got.dtype == expected.dtype and np.array_equal(got, expected)


def move(source, target, case):
    """One cell: the case's array made in `source`, into zeroflow, out to `target`."""
    x = case_array(case)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        obj = source.make(x)
        origin = source.pointer(obj)
        z = source.to_zeroflow(obj)
        out = target.from_zeroflow(z)
        values = target.to_numpy(out)
        landed = target.pointer(out)
    notes = sorted({str(w.message) for w in caught if issubclass(w.category, zf.CopyWarning)})
    if not same_values(values, x):
        return "wrong", f"values differ: got {np.asarray(values)!r:.200}", notes, None
    if origin is None:
        return "ok", "no data to share (0 elements)", notes, None
    hops = f"into zeroflow: {'same' if z.data_ptr == origin else 'new'} pointer"
    return ("zero-copy" if landed == origin else "copy"), hops, notes, {"origin": origin, "contiguous": z.is_contiguous}


@pytest.fixture(scope="module", autouse=True)
def versions():
    """One record per run: what was measured with."""
    import importlib
    import platform

    found = {}
    for module in ["numpy", "pandas", "pyarrow", "torch", "jax", "tensorflow", "cupy", "numba", "mxnet"]:
        try:
            found[module] = importlib.import_module(module).__version__
        except Exception:  # noqa: BLE001 - absent or broken: not in the list
            pass
    record(
        meta=True,
        zeroflow=zf.__version__,
        python=platform.python_version(),
        machine=platform.machine(),
        cuda=zf.cuda_available(),
        versions=found,
        recipes={f"{f.device}:{f.name}": [f.import_recipe, f.export_recipe] for f in CPU_FRAMEWORKS + GPU_FRAMEWORKS},
    )


def frameworks(device):
    return CPU_FRAMEWORKS if device == "cpu" else GPU_FRAMEWORKS


ROWS = [("cpu", f.name) for f in CPU_FRAMEWORKS] + [("cuda", f.name) for f in GPU_FRAMEWORKS]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("device,source_name", ROWS, ids=[f"{d}-{n}" for d, n in ROWS])
def test_matrix_row(device, source_name, case):
    source = next(f for f in frameworks(device) if f.name == source_name)
    why = source.unavailable()
    if why:
        for target in frameworks(device):
            record(
                device=device,
                source=source.name,
                target=target.name,
                case=case,
                result="unavailable",
                detail=why,
                recipe="",
            )
        pytest.skip(f"{source.name} ({device}): {why}")
    problems = []
    for target in frameworks(device):
        recipe = re.sub(r"\ba\b", source.import_recipe.split("  #")[0], target.export_recipe.split("  #")[0])
        absent = target.unavailable()
        if absent:
            record(
                device=device,
                source=source.name,
                target=target.name,
                case=case,
                result="unavailable",
                detail=absent,
                recipe=recipe,
            )
            continue
        try:
            result, detail, notes, context = move(source, target, case)
        except Exception as error:  # noqa: BLE001 - every failure is a cell of the matrix
            result, detail, notes, context = (
                "unsupported",
                f"{type(error).__name__}: {str(error).splitlines()[0][:200]}",
                [],
                None,
            )
        reason = lookup(KNOWN_COPIES, device, source.name, target.name, case, context) if result == "copy" else None
        record(
            device=device,
            source=source.name,
            target=target.name,
            case=case,
            result=result,
            detail=detail,
            reason=reason or "",
            warnings=notes,
            recipe=recipe,
        )
        cell = f"{source.name} -> {target.name} ({case})"
        if result == "wrong":
            problems.append(f"{cell}: {detail}")
        elif result == "copy" and not reason:
            problems.append(f"{cell}: copied ({detail}) where zero-copy is possible")
        elif result == "unsupported" and not lookup(KNOWN_UNSUPPORTED, device, source.name, target.name, case):
            problems.append(f"{cell}: {detail}")
    assert not problems, "\n".join(problems)
