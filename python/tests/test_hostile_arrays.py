"""Array constructors against sizes that do not fit in 64 bits. NumPy is the reference: a shape it
refuses as too big, zeroflow refuses with ValueError too (once, zeros((2**62,), 'float32') gave an
array of 0 bytes); a shape it accepts, zeroflow accepts with the same size and byte count."""

import warnings

import numpy as np
import pytest

import zeroflow as zf

_core = zf._zeroflow

# Shapes on both sides of the 2**63-byte limit. None allocates more than a few bytes when it fits:
# the large ones hold a zero extent (NumPy, like zeroflow, still requires the other extents to fit).
SHAPES = [
    (2**62,),
    (2**62 + 1,),
    (2**61,),
    (2**60,),
    (2**32, 2**32),
    (2**31, 2**31, 2),
    (2**31, 2**31, 1),
    (2**62, 0),
    (2**63 - 1, 0),
    (0, 2**63 - 1),
    (2**32, 2**32, 0),
    (2**21, 2**21, 2**21, 0),
    (3, 0, 2**61),
    (5,),
    (2, 3),
    (),
    (0,),
]
DTYPES = ["int8", "int16", "float32", "float64", "complex128"]


def numpy_outcome(shape, dtype):
    """'too big' when NumPy refuses the shape for its size; else its (size, nbytes)."""
    try:
        a = np.empty(shape, dtype)
    except ValueError:
        return "too big"
    except MemoryError:
        return "allocation"
    return a.size, a.nbytes


@pytest.mark.parametrize("make", [zf.zeros, zf.empty], ids=["zeros", "empty"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_sizes_like_numpy(make, shape, dtype):
    expected = numpy_outcome(shape, dtype)
    if expected == "allocation":
        with pytest.raises(MemoryError):
            make(shape, dtype)
    elif expected == "too big":
        with pytest.raises(ValueError, match="too large"):
            make(shape, dtype)
    else:
        a = make(shape, dtype)
        assert (a.size, a.nbytes) == expected
        assert a.shape == shape
        if a.size:
            assert np.array_equal(np.asarray(a), np.zeros(shape, dtype)) or make is zf.empty


def test_the_reported_case():
    with pytest.raises(ValueError):
        zf.zeros((2**62,), "float32")


@pytest.mark.parametrize("shape", [(2**64,), (2**63,), (-(2**63) - 1,), (3, 2**70)], ids=str)
def test_extents_beyond_int64_are_value_errors(shape):
    with pytest.raises(ValueError):
        np.empty(shape, "int8")  # the reference refuses them too
    with pytest.raises(ValueError):
        zf.zeros(shape, "int8")


def test_a_size_that_fits_but_cannot_be_allocated_is_memory_error():
    # 2**63 - 4 bytes: representable, but no machine has them.
    with pytest.raises(MemoryError):
        zf.empty((2**61 - 1,), "float32")


class Interface:
    """An object that describes memory through the NumPy array interface, as any producer may."""

    def __init__(self, base, shape, strides):
        self.base = base
        self.__array_interface__ = dict(base.__array_interface__, shape=shape, strides=strides)


@pytest.mark.parametrize(
    "shape, strides",
    [
        ((3,), (2**62,)),  # (3 - 1) * 2**62 bytes: the reach wraps to -2**63
        ((2, 2), (2**62, 2**62)),
        ((2,), (-(2**63),)),
        ((2**62, 2), (0, 0)),  # 2**63 elements of one repeated byte: the count does not fit
        ((2**32, 2**32), None),  # contiguous strides of 2**64 bytes
    ],
    ids=str,
)
def test_array_interface_offsets_that_wrap_are_refused(shape, strides):
    base = np.arange(16, dtype=np.int8)
    with pytest.raises(ValueError):
        _core._from_array_interface(Interface(base, shape, strides))
    # The public entry point refuses too (after trying NumPy, which refuses or cannot export it).
    with pytest.raises((ValueError, BufferError)), warnings.catch_warnings():
        warnings.simplefilter("ignore", zf.CopyWarning)
        zf.asarray(Interface(base, shape, strides))


def test_array_interface_repeated_element_is_a_view_of_its_size():
    base = np.arange(4, dtype=np.float32)
    ref = np.lib.stride_tricks.as_strided(base, shape=(2**20, 2**20), strides=(0, 0))
    a = _core._from_array_interface(Interface(base, ref.shape, ref.strides))
    assert (a.shape, a.strides, a.size, a.nbytes) == (ref.shape, ref.strides, ref.size, ref.nbytes)
    assert np.shares_memory(np.asarray(a), base)


def test_huge_slice_steps_count_like_python():
    a = zf.asarray(np.arange(10, dtype=np.int32))
    for step in (2**62, 2**63 - 1, -(2**62), -(2**63) + 1):
        for start, stop in ((None, None), (3, None), (9, 0), (None, 4)):
            s = slice(start, stop, step)
            assert np.asarray(a[s]).tolist() == list(range(10))[s], s
