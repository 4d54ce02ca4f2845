"""zeroflow.Array's export protocols (DLPack, NumPy array interface) and imports (asarray,
from_dlpack), with the known traps of docs/architecture.md ("Ownership"): bool, 0-size and 0-d
arrays, negative and zero strides, read-only exports, capsules consumed twice, producers that die first."""

import ctypes
import gc
import warnings

import numpy as np
import pytest

import zeroflow as zf  # noqa: E402  (scripts/test installs it; a missing module must fail, not skip)

ctypes.pythonapi.PyCapsule_GetName.restype = ctypes.c_char_p
ctypes.pythonapi.PyCapsule_GetName.argtypes = [ctypes.py_object]


def capsule_name(capsule):
    return ctypes.pythonapi.PyCapsule_GetName(capsule).decode()


def ptr(x):
    """Address of element 0 of a NumPy array."""
    return x.__array_interface__["data"][0]


def filled(shape, dtype, seed=0):
    """A zeroflow host array holding seeded random values; returns (zeroflow array, NumPy copy)."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        ref = rng.integers(0, 2, size=shape).astype(bool)
    elif dtype.startswith("float"):
        ref = rng.standard_normal(shape).astype(dtype)
    else:
        ref = rng.integers(-(2**40), 2**40, size=shape).astype(dtype)
    a = zf.asarray(ref.copy())  # zeroflow views this fresh NumPy array; only `a` keeps it alive
    return a, ref


# ---- Array basics -----------------------------------------------------------------------------


def test_zeros_describes_itself():
    a = zf.zeros((3, 4), "int64")
    assert a.shape == (3, 4) and a.dtype == "int64" and a.device == "cpu"
    assert a.strides == (32, 8) and a.element_strides == (4, 1)
    assert a.ndim == 2 and a.size == 12 and a.nbytes == 96 and a.itemsize == 8
    assert a.is_contiguous and not a.readonly and len(a) == 3
    assert a.__dlpack_device__() == (1, 0)
    assert "shape=(3, 4)" in repr(a) and "int64" in repr(a)
    assert np.array_equal(np.asarray(a), np.zeros((3, 4), np.int64))


@pytest.mark.parametrize(
    "key",
    [
        1,
        -1,
        slice(None, None, 2),
        (slice(1, None), slice(None, None, -1)),
        (0, slice(2, 4)),
        (slice(5, 1), 2),
        (slice(None, None, -3), -2),
    ],
)
def test_indexing_is_numpy_indexing_as_views(key):
    a, ref = filled((6, 5), "float32", seed=1)
    view = a[key]
    assert np.array_equal(np.asarray(view), ref[key])
    expected = ref[key]
    if expected.size:
        assert view.data_ptr == ptr(np.asarray(a)) + (ptr(expected) - ptr(ref))


def test_index_errors():
    a = zf.zeros((2, 3))
    with pytest.raises(IndexError):
        a[2]
    with pytest.raises(IndexError):
        a[0, 0, 0]
    with pytest.raises(TypeError):
        a["x"]
    with pytest.raises(TypeError):
        len(zf.zeros(()))


# ---- DLPack export ----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "float64", "uint8", "int8"])
def test_numpy_from_dlpack_shares_memory(dtype):
    a, ref = filled((1000,), dtype, seed=2)
    b = np.from_dlpack(a)
    assert ptr(b) == a.data_ptr
    assert b.dtype == np.dtype(dtype)
    assert np.array_equal(b, ref)


def test_capsule_kinds_follow_max_version():
    a = zf.zeros((4,))
    assert capsule_name(a.__dlpack__()) == "dltensor"
    assert capsule_name(a.__dlpack__(max_version=(0, 8))) == "dltensor"
    assert capsule_name(a.__dlpack__(max_version=(1, 0))) == "dltensor_versioned"
    assert capsule_name(a.__dlpack__(max_version=(2, 3))) == "dltensor_versioned"
    with pytest.raises(TypeError):
        a.__dlpack__(max_version=1)


def test_strided_and_negative_and_zero_strides_export_as_they_are():
    a, ref = filled((6, 8), "float32", seed=3)
    for key in [(slice(None), slice(None, None, 2)), (slice(None, None, -1), slice(1, 7, 3))]:
        b = np.from_dlpack(a[key])
        assert np.array_equal(b, ref[key])
        assert b.strides == ref[key].strides
        assert ptr(b) == a[key].data_ptr
    # zero strides: a broadcast NumPy view comes in and goes back out unchanged
    base = np.arange(5, dtype=np.int64)
    broadcast = np.broadcast_to(base, (3, 5))
    z = zf.asarray(broadcast)
    assert z.element_strides == (0, 1) and z.readonly
    back = np.from_dlpack(z)
    assert back.strides == (0, 8) and ptr(back) == ptr(base)
    assert np.array_equal(back, broadcast)


def test_zero_size_and_zero_d_arrays():
    empty = zf.zeros((0, 3), "float32")
    b = np.from_dlpack(empty)
    assert b.shape == (0, 3) and b.dtype == np.float32
    scalar = zf.asarray(np.float64(2.5))
    assert scalar.shape == () and scalar.ndim == 0
    s = np.from_dlpack(scalar)
    assert s.shape == () and s == 2.5
    assert np.asarray(zf.zeros((0,), "int64")).shape == (0,)


def test_read_only_arrays_export_read_only_or_not_at_all():
    a, ref = filled((5,), "float64", seed=4)
    ro = a.as_readonly()
    assert ro.readonly
    with pytest.raises(BufferError, match="read-only"):
        ro.__dlpack__()  # a legacy capsule cannot say "read-only"
    b = np.from_dlpack(ro)  # NumPy asks for a versioned capsule: the flag makes it read-only
    assert not b.flags.writeable and ptr(b) == a.data_ptr
    assert not np.asarray(ro).flags.writeable  # the array interface says so too
    # and a read-only NumPy array comes in read-only
    frozen = ref.copy()
    frozen.flags.writeable = False
    assert zf.asarray(frozen).readonly


def test_copy_true_copies_and_says_so():
    a, ref = filled((7,), "int64", seed=5)
    capsule = a.__dlpack__(max_version=(1, 0), copy=True)
    c = zf.from_dlpack(capsule)
    assert c.data_ptr != a.data_ptr
    assert np.array_equal(np.asarray(c), ref)
    b = np.from_dlpack(a, copy=True)
    assert ptr(b) != a.data_ptr and np.array_equal(b, ref)


def test_cpu_exports_refuse_streams_and_foreign_devices():
    a = zf.zeros((3,))
    with pytest.raises(ValueError, match="stream"):
        a.__dlpack__(stream=1)
    with pytest.raises(BufferError):
        a.__dlpack__(max_version=(1, 0), dl_device=(2, 0), copy=False)
    if not zf.cuda_available():
        with pytest.raises(BufferError):
            a.__dlpack__(max_version=(1, 0), dl_device=(2, 0))
    assert capsule_name(a.__dlpack__(max_version=(1, 0), dl_device=(1, 0))) == "dltensor_versioned"
    with pytest.raises(ValueError):
        a.__dlpack__(max_version=(1, 0), dl_device=(10, 0))  # ROCm: not a zeroflow device


def test_host_arrays_have_no_cuda_array_interface():
    a = zf.zeros((3,))
    assert not hasattr(a, "__cuda_array_interface__")
    interface = a.__array_interface__
    assert interface["version"] == 3 and interface["typestr"] == "<f4" and interface["strides"] is None
    assert zf.zeros((2,), "bool").__array_interface__["typestr"] == "|b1"
    assert a[::2].__array_interface__["strides"] == (8,)


# ---- capsules: consumed once, released when dropped ------------------------------------------


def test_a_capsule_is_consumed_exactly_once():
    a, ref = filled((10,), "float32", seed=6)
    for kwargs in [{}, {"max_version": (1, 0)}]:
        capsule = a.__dlpack__(**kwargs)
        b = zf.from_dlpack(capsule)
        assert capsule_name(capsule).startswith("used_")
        with pytest.raises(ValueError, match="already consumed"):
            zf.from_dlpack(capsule)
        assert np.array_equal(np.asarray(b), ref)
    with pytest.raises(TypeError):
        zf.from_dlpack(object())


def test_numpy_capsule_consumed_by_zeroflow_cannot_be_consumed_again_by_numpy():
    x = np.arange(6, dtype=np.float32)
    capsule = x.__dlpack__()
    z = zf.from_dlpack(capsule)
    assert z.data_ptr == ptr(x)

    class Wrapper:  # NumPy's from_dlpack takes an object with __dlpack__
        def __dlpack__(self, **kwargs):
            return capsule

        def __dlpack_device__(self):
            return (1, 0)

    with pytest.raises(Exception):
        np.from_dlpack(Wrapper())


def test_producer_dies_before_the_consumer():
    # zeroflow producer, NumPy consumer
    a, ref = filled((4096,), "float64", seed=7)
    b = np.from_dlpack(a)
    del a
    gc.collect()
    assert np.array_equal(b, ref)
    # NumPy producer, zeroflow consumer
    x = ref.copy()
    z = zf.asarray(x)
    del x
    gc.collect()
    assert np.array_equal(np.asarray(z), ref)
    # a capsule outlives the array it came from
    a, ref = filled((100,), "int64", seed=8)
    capsule = a.__dlpack__(max_version=(1, 0))
    del a
    gc.collect()
    assert np.array_equal(np.asarray(zf.from_dlpack(capsule)), ref)


# ---- imports ----------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "uint16", "float16", "complex64"])
def test_asarray_of_numpy_is_zero_copy(dtype):
    x = np.ones((3, 5), dtype=dtype)
    z = zf.asarray(x)
    assert z.data_ptr == ptr(x) and z.dtype == np.dtype(dtype).name and z.shape == (3, 5)
    view = x[::-1, 1::2]
    zv = zf.asarray(view)
    assert zv.data_ptr == ptr(view) and zv.strides == view.strides


def test_asarray_copies_python_values_silently_and_refuses_copy_false():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        z = zf.asarray([[1.5, 2.5], [3.5, 4.5]])
    assert z.dtype == "float64" and np.array_equal(np.asarray(z), [[1.5, 2.5], [3.5, 4.5]])
    with pytest.raises(ValueError):
        zf.asarray([1, 2], copy=False)


def test_asarray_warns_when_it_must_copy_an_array_like():
    class OnlyArray:  # offers nothing but __array__, which copies
        def __array__(self, dtype=None, copy=None):
            if copy is False:
                raise ValueError("cannot share")
            return np.arange(4, dtype=np.int64)

    with pytest.warns(zf.CopyWarning):
        z = zf.asarray(OnlyArray())
    assert np.array_equal(np.asarray(z), np.arange(4))
    with pytest.raises(ValueError):
        zf.asarray(OnlyArray(), copy=False)


def test_asarray_copy_dtype_and_device_arguments():
    x = np.arange(5, dtype=np.int64)
    assert zf.asarray(x, copy=True).data_ptr != ptr(x)
    assert zf.asarray(x, copy=False).data_ptr == ptr(x)
    f = zf.asarray(x, dtype="float32")
    assert f.dtype == "float32" and np.array_equal(np.asarray(f), x.astype(np.float32))
    with pytest.raises(ValueError):
        zf.asarray(x, dtype="float32", copy=False)
    assert zf.asarray(x, device="cpu").data_ptr == ptr(x)
    if not zf.cuda_available():
        with pytest.raises(Exception):
            zf.asarray(x, device="cuda")


def test_unsupported_inputs_raise_clear_errors():
    with pytest.raises(TypeError, match="dtype"):
        zf.asarray(np.array(["a", "b"]))
    with pytest.raises(TypeError, match="dtype"):
        zf.asarray(np.array([object()]))
    with pytest.raises(TypeError):
        zf.zeros((2,), "float128")
    with pytest.raises(ValueError):
        zf.zeros((2,), device="tpu")


def test_big_endian_and_unaligned_inputs_are_copied_with_a_warning():
    big = np.arange(4, dtype=">i4")
    with pytest.warns(zf.CopyWarning):
        z = zf.asarray(big)
    assert np.array_equal(np.asarray(z), np.arange(4))
    raw = np.zeros(33, dtype=np.uint8)
    unaligned = raw[1:].view(np.float64)  # 4 doubles starting at an odd address
    with pytest.warns(zf.CopyWarning):
        zf.asarray(unaligned)


def test_ascontiguousarray_copies_only_views():
    a, ref = filled((4, 6), "float32", seed=9)
    assert zf.ascontiguousarray(a).data_ptr == a.data_ptr
    c = zf.ascontiguousarray(a[:, ::2])
    assert c.is_contiguous and c.data_ptr != a.data_ptr
    assert np.array_equal(np.asarray(c), ref[:, ::2])
    with pytest.raises(ValueError):
        zf.ascontiguousarray(a[:, ::2], copy=False)
