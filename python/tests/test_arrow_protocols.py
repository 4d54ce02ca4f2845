"""The Arrow PyCapsule interface both ways, against pyarrow (and pandas through it): views
without copies, the copies Arrow's layout forces (bits, chunks), nulls, strided views, capsules
consumed twice, producers released before consumers, and requested_schema / **kwargs rules."""

import gc
import warnings
import weakref

import numpy as np
import pytest

import zeroflow as zf  # noqa: E402  (scripts/test installs it; a missing module must fail, not skip)

pa = pytest.importorskip("pyarrow")


def ptr(x):
    return x.__array_interface__["data"][0]


def values_address(arrow_array):
    return arrow_array.buffers()[1].address


@pytest.mark.parametrize(
    "dtype,arrow_type",
    [
        ("float32", pa.float32()),
        ("int64", pa.int64()),
        ("uint8", pa.uint8()),
        ("float64", pa.float64()),
        ("int16", pa.int16()),
        ("float16", pa.float16()),
    ],
)
def test_pyarrow_views_zeroflow_arrays(dtype, arrow_type):
    x = np.arange(100).astype(dtype)
    a = zf.asarray(x)
    p = pa.array(a)
    assert p.type == arrow_type and p.null_count == 0
    assert values_address(p) == a.data_ptr
    assert np.array_equal(p.to_numpy(), x)
    back = zf.asarray(p)
    assert back.data_ptr == a.data_ptr and back.dtype == dtype


def test_bool_columns_are_packed_and_unpacked_with_a_warning():
    x = np.array([True, False, True, True, False, False, False, True, True], dtype=bool)
    a = zf.asarray(x)
    with pytest.warns(zf.CopyWarning, match="bits"):
        p = pa.array(a)
    assert p.type == pa.bool_() and p.to_pylist() == x.tolist()
    with pytest.warns(zf.CopyWarning, match="bits"):
        back = zf.asarray(p)
    assert back.dtype == "bool" and np.array_equal(np.asarray(back), x)
    with pytest.raises(ValueError, match="copy=False"):
        zf.asarray(p, copy=False)
    # an offset slice of a bool array unpacks from the right bit
    sliced = pa.array(x.tolist())[3:8]
    with pytest.warns(zf.CopyWarning):
        assert np.array_equal(np.asarray(zf.asarray(sliced)), x[3:8])


def test_slices_keep_their_offset():
    p = pa.array(np.arange(20, dtype=np.int64))[5:12]
    z = zf.asarray(p)
    assert np.array_equal(np.asarray(z), np.arange(5, 12))
    assert z.data_ptr == values_address(p) + 5 * 8


def test_rows_travel_as_fixed_size_lists():
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    a = zf.asarray(x)
    p = pa.array(a)
    assert p.type == pa.list_(pa.field("item", pa.float32(), nullable=False), 6)
    assert p.values.buffers()[1].address == a.data_ptr
    assert np.array_equal(np.stack(p.to_numpy(zero_copy_only=False)), x)
    back = zf.asarray(p[1:3])
    assert back.shape == (2, 6) and np.array_equal(np.asarray(back), x[1:3])
    assert back.data_ptr == a.data_ptr + 6 * 4


def test_tables_both_ways():
    x = np.linspace(0, 1, 50, dtype=np.float32)
    i = np.arange(50, dtype=np.int64)
    t = zf.table({"x": x, "i": i})
    assert t.names == ["x", "i"] and len(t) == 50 and t.num_columns == 2 and "x" in t
    assert t["x"].data_ptr == ptr(x) and t[1].data_ptr == ptr(i)
    pt = pa.table(t)  # through __arrow_c_stream__
    assert pt.column_names == ["x", "i"]
    assert pt.column("x").chunks[0].buffers()[1].address == ptr(x)
    rb = pa.record_batch(t)  # through __arrow_c_array__
    assert rb.column(1).buffers()[1].address == ptr(i)
    back = zf.as_table(pt)
    assert back.names == ["x", "i"] and back["i"].data_ptr == ptr(i)
    assert np.array_equal(np.asarray(back["x"]), x)
    assert zf.as_table(rb)["x"].data_ptr == ptr(x)


def test_pandas_dataframes_and_series():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"a": np.arange(6.0), "b": np.arange(6)})
    t = zf.as_table(df)  # pandas' __arrow_c_stream__
    assert t.names == ["a", "b"]
    assert np.array_equal(np.asarray(t["a"]), df["a"].to_numpy())
    s = pd.Series(np.arange(5, dtype=np.float32))
    z = zf.asarray(s)  # __array__ without a copy
    assert z.data_ptr == ptr(s.to_numpy())
    back = pd.Series(np.asarray(zf.asarray(s)), copy=False)  # pandas 3 copies arrays by default
    assert ptr(back.to_numpy()) == z.data_ptr


def test_chunked_data_is_concatenated_with_a_warning():
    single = pa.chunked_array([np.arange(4, dtype=np.float64)])
    assert zf.asarray(single).data_ptr == single.chunks[0].buffers()[1].address
    multi = pa.chunked_array([[1.0, 2.0], [3.0]])
    with pytest.warns(zf.CopyWarning, match="2 chunks"):
        z = zf.asarray(multi)
    assert np.array_equal(np.asarray(z), [1.0, 2.0, 3.0])
    with pytest.raises(ValueError):
        zf.asarray(multi, copy=False)
    batches = pa.Table.from_batches([pa.record_batch({"v": [1, 2]}), pa.record_batch({"v": [3]})])
    with pytest.warns(zf.CopyWarning):
        t = zf.as_table(batches)
    assert np.array_equal(np.asarray(t["v"]), [1, 2, 3])


def test_refusals():
    with pytest.raises(ValueError, match="null"):
        zf.asarray(pa.array([1.0, None, 3.0]))
    with pytest.raises(ValueError, match="no zeroflow equivalent"):
        zf.asarray(pa.array(["a", "b"]))
    with pytest.raises(TypeError, match="2 columns"):
        zf.asarray(pa.record_batch({"a": [1], "b": [2]}))
    a = zf.zeros((4, 6), "float32")
    with pytest.raises(BufferError, match="contiguous"):
        a[:, ::2].__arrow_c_array__()
    assert pa.array(zf.ascontiguousarray(a[:, ::2])).type.list_size == 3
    with pytest.raises(BufferError):
        zf.zeros((3,), "bfloat16").__arrow_c_schema__()
    with pytest.raises(BufferError):
        zf.zeros((2, 2, 2)).__arrow_c_array__()
    with pytest.raises(NotImplementedError):
        a.__arrow_c_device_array__(future_option=True)
    schema, device_array = a.__arrow_c_device_array__(future_option=None)  # None-valued keywords are fine
    with pytest.raises(TypeError):
        a.__arrow_c_array__(requested_schema="not a capsule")


def test_requested_schema_is_best_effort():
    a = zf.asarray(np.arange(3, dtype=np.int64))
    p = pa.array(a, type=pa.int64())
    assert p.to_pylist() == [0, 1, 2]
    schema, data = a.__arrow_c_array__(requested_schema=pa.int32().__arrow_c_schema__())
    assert zf.asarray(pa.Array._import_from_c_capsule(schema, data)).dtype == "int64"  # ours, as allowed


def test_device_array_interface_on_the_cpu():
    a = zf.asarray(np.arange(5, dtype=np.float32))
    schema, data = a.__arrow_c_device_array__()
    back = zf._zeroflow._from_arrow_device_array(schema, data)
    assert back.data_ptr == a.data_ptr and back.device == "cpu"
    p = pa.array(zf.asarray(np.arange(3.0)))
    assert zf.asarray(p).data_ptr == values_address(p)  # pyarrow's own __arrow_c_device_array__


def test_a_capsule_pair_is_consumed_once():
    a = zf.asarray(np.arange(4, dtype=np.float32))
    schema, data = a.__arrow_c_array__()
    first = zf._zeroflow._from_arrow_array(schema, data)
    with pytest.raises(ValueError, match="already released"):
        zf._zeroflow._from_arrow_array(schema, data)
    assert first.data_ptr == a.data_ptr
    stream = zf.table({"v": np.arange(3)}).__arrow_c_stream__()
    batches = zf._zeroflow._from_arrow_stream(stream)
    assert len(batches) == 1
    with pytest.raises(ValueError, match="already consumed"):
        zf._zeroflow._from_arrow_stream(stream)


def test_producers_released_before_consumers_and_unconsumed_capsules():
    x = np.arange(1000, dtype=np.float64)
    alive = weakref.ref(x)
    a = zf.asarray(x)
    p = pa.array(a)
    del x, a
    gc.collect()
    assert alive() is not None  # pyarrow's array holds zeroflow's view, which holds NumPy's
    assert p[999].as_py() == 999.0
    del p
    gc.collect()
    assert alive() is None
    # capsules dropped without a consumer release what they hold
    y = np.arange(10, dtype=np.int64)
    alive = weakref.ref(y)
    capsules = zf.asarray(y).__arrow_c_array__()
    stream = zf.table({"y": y}).__arrow_c_stream__()
    del y
    gc.collect()
    assert alive() is not None
    del capsules, stream
    gc.collect()
    assert alive() is None


def test_import_keeps_pyarrow_data_alive():
    p = pa.array(np.arange(50, dtype=np.int32))
    z = zf.asarray(p)
    del p
    gc.collect()
    assert np.array_equal(np.asarray(z), np.arange(50))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert zf.asarray(pa.array(np.arange(3.0))).size == 3  # no copy, no warning
