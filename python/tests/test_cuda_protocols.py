"""Device-side protocols (GPU only; skipped without one): DLPack with streams, the CUDA Array
Interface v3 both ways, Arrow device arrays, and the refusals (stream 0, copy=False across
devices). The lead runs these on the GPU machine (docs/python.md, "GPU tests")."""

import numpy as np
import pytest

import zeroflow as zf  # noqa: E402  (scripts/test installs it; a missing module must fail, not skip)

pytestmark = pytest.mark.skipif(not zf.cuda_available(), reason="needs a CUDA build of zeroflow and a GPU")


def cupy_or_skip():
    return pytest.importorskip("cupy")


def torch_cuda_or_skip():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    return torch


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_device_arrays_describe_themselves(dtype):
    a = zf.zeros((5, 3), dtype, device="cuda")
    assert a.device == "cuda:0" and a.__dlpack_device__() == (2, 0)
    assert not hasattr(a, "__array_interface__")
    cai = a.__cuda_array_interface__
    assert cai["version"] == 3 and cai["shape"] == (5, 3) and cai["data"][0] == a.data_ptr
    assert cai["stream"] == 1 and cai["strides"] is None
    assert a[:, ::2].__cuda_array_interface__["strides"] == (3 * a.itemsize, 2 * a.itemsize)


def test_dlpack_stream_rules():
    a = zf.zeros((4,), device="cuda")
    with pytest.raises(ValueError, match="ambiguous"):
        a.__dlpack__(stream=0)
    a.__dlpack__(stream=-1)  # no synchronisation asked
    a.__dlpack__(stream=2)
    with pytest.raises(BufferError):
        a.__dlpack__(max_version=(1, 0), dl_device=(1, 0), copy=False)
    host = zf.from_dlpack(a.__dlpack__(max_version=(1, 0), dl_device=(1, 0)))
    assert host.device == "cpu" and np.array_equal(np.asarray(host), np.zeros(4, np.float32))


def test_torch_round_trip_is_zero_copy_on_non_default_streams():
    torch = torch_cuda_or_skip()
    producer = torch.cuda.Stream()
    with torch.cuda.stream(producer):
        x = torch.arange(1 << 20, device="cuda", dtype=torch.float32) * 3
    consumer = torch.cuda.Stream()
    z = zf.from_dlpack(x, stream=consumer)  # torch makes `consumer` wait on its current stream
    assert z.data_ptr == x.data_ptr() and z.stream == consumer.cuda_stream
    with torch.cuda.stream(consumer):
        y = torch.from_dlpack(z)  # zeroflow makes torch's stream wait on z.stream
        assert y.data_ptr() == x.data_ptr()
        assert torch.equal(y, torch.arange(1 << 20, device="cuda", dtype=torch.float32) * 3)


def test_cupy_through_cai_and_dlpack():
    cp = cupy_or_skip()
    x = cp.arange(12, dtype=cp.float32).reshape(3, 4)[:, ::-1]
    via_cai = zf._zeroflow._from_cuda_array_interface(x)
    via_dlpack = zf.asarray(x)
    for z in (via_cai, via_dlpack):
        assert z.data_ptr == x.data.ptr and z.strides == x.strides
    back = cp.asarray(via_cai)  # CuPy reads __cuda_array_interface__
    assert back.data.ptr == x.data.ptr and cp.array_equal(back, x)
    assert cp.from_dlpack(via_dlpack).data.ptr == x.data.ptr


def test_numba_reads_zeroflow_memory():
    numba_cuda = pytest.importorskip("numba.cuda")
    a = zf.asarray(np.arange(10, dtype=np.int64), device="cuda")
    d = numba_cuda.as_cuda_array(a)
    assert d.__cuda_array_interface__["data"][0] == a.data_ptr
    assert np.array_equal(d.copy_to_host(), np.arange(10))


def test_arrow_device_array_carries_a_sync_event():
    a = zf.asarray(np.arange(8, dtype=np.float32), device="cuda")
    schema, data = a.__arrow_c_device_array__()
    back = zf._zeroflow._from_arrow_device_array(schema, data, 2)
    assert back.data_ptr == a.data_ptr and back.device == "cuda:0" and back.stream == 2
    with pytest.raises(BufferError, match="host memory"):
        a.__arrow_c_array__()
    with pytest.raises(BufferError, match="bits"):
        zf.zeros((3,), "bool", device="cuda").__arrow_c_device_array__()


def test_pinned_memory_is_host_memory_to_cpu_consumers():
    p = zf.zeros((6,), "float32", device="cuda_host")
    assert np.asarray(p).__array_interface__["data"][0] == p.data_ptr
    seen_as_cpu = zf.from_dlpack(p.__dlpack__(max_version=(1, 0), dl_device=(1, 0)))
    assert seen_as_cpu.device == "cpu" and seen_as_cpu.data_ptr == p.data_ptr
    assert p.__cuda_array_interface__["stream"] is None


def test_device_import_export_loops_leak_nothing():
    torch = torch_cuda_or_skip()
    stats = zf.memory.StatisticsAdaptor(zf.memory.current_resource("cuda:0"))
    with zf.memory.using(stats):
        for _ in range(100):
            a = zf.zeros((256, 4), "float32", device="cuda")
            t = torch.from_dlpack(a)
            assert zf.asarray(t).data_ptr == a.data_ptr
            zf._zeroflow._from_cuda_array_interface(a)
            a.__dlpack__(stream=2)  # dropped unconsumed
            a.__arrow_c_device_array__()
            zf.from_dlpack(a.__dlpack__(max_version=(1, 0), dl_device=(1, 0)))  # a host copy
            del a, t
        torch.cuda.synchronize()
        s = stats.statistics()
    assert s["total_count"] >= 100 and s["current_bytes"] == 0 and s["current_count"] == 0, s
