"""profguide.analysis.kernels: kernel statistics, memory traffic, occupancy and achieved TFLOP/s."""

import pytest

from profguide.analysis import kernels
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.helpers import make_trace as make


def test_top_kernels_have_count_and_percentiles():
    t = make(*[gpu("k", 10 * i, float(i + 1)) for i in range(10)], gpu("other", 200, 1))
    [k, other] = kernels.top_kernels(t)
    assert (k["name"], k["count"], k["total_us"], k["max"]) == ("k", 10, 55, 10)
    assert k["p50"] == pytest.approx(5.5) and k["p95"] == pytest.approx(9.55)
    assert other["count"] == 1


def test_memory_traffic_adds_bytes_and_bandwidth():
    t = make(gpu("Memcpy HtoD (Pageable -> Device)", 0, 10, kind="memcpy", bytes=1_000_000),
             gpu("Memcpy HtoD (Pageable -> Device)", 20, 10, kind="memcpy", bytes=3_000_000),
             gpu("Memset (Device)", 40, 1, kind="memset", bytes=100))
    [copy, memset] = kernels.memory_traffic(t)
    assert (copy["count"], copy["total_us"], copy["bytes"]) == (2, 20, 4_000_000)
    assert copy["gb_per_s"] == pytest.approx(200.0)  # 4 MB in 20 µs
    assert memset["kind"] == "memset"


def test_occupancy_is_duration_weighted():
    occupancy = "est. achieved occupancy %"
    t = make(gpu("k", 0, 30, **{occupancy: 10}), gpu("k", 40, 10, **{occupancy: 50}), gpu("j", 60, 10))
    assert kernels.occupancy(t) == [{"name": "k", "occupancy_pct": 20.0, "total_us": 40.0}]
    assert kernels.occupancy(t, "nothing") == []


def test_gemm_throughput_from_recorded_shapes():
    n = 1024
    t = make(
        cpu("aten::mm", 0, 10, external_id=7, **{"Input Dims": [[n, n], [n, n]], "Input type": ["float", "float"]}),
        cpu("cudaLaunchKernel", 2, 2, kind="runtime", correlation=1, external_id=7),
        gpu("ampere_sgemm", 10, 200, correlation=1, external_id=7),
        deviceProperties=[{"name": "NVIDIA A100-SXM4-80GB"}],
    )
    [row] = kernels.gemm_throughput(t)
    assert row["flops"] == 2 * n**3 and row["kernel_us"] == 200
    assert row["tflops"] == pytest.approx(2 * n**3 / 200e-6 / 1e12)
    assert row["peak_tflops"] == 19.5 and row["pct_of_peak"] == pytest.approx(100 * row["tflops"] / 19.5)



@pytest.mark.parametrize(("kernel", "dtype", "device", "peak"), [
    ("ampere_tf32_s1688gemm_tf32_128x128_16x3_nn", "float", "NVIDIA A100-SXM4-80GB", 156.0),  # TF32's peak
    ("ampere_sgemm_128x64_nn", "float", "NVIDIA A100-SXM4-80GB", 19.5),
    ("nvjet_tst_128x256_64x4_2x1_v_bz_coopA_TNT", "c10::BFloat16", "NVIDIA H100 80GB HBM3", 1979 / 2),
    ("ampere_sgemm_128x64_nn", "float", "NVIDIA GeForce RTX 4090", None),  # not in the table
])
def test_gemm_throughput_peak_by_kernel_type_and_device(kernel, dtype, device, peak):
    t = make(
        cpu("aten::mm", 0, 10, external_id=7, **{"Input Dims": [[8, 8], [8, 8]], "Input type": [dtype, dtype]}),
        cpu("cudaLaunchKernel", 2, 2, kind="runtime", correlation=1, external_id=7),
        gpu(kernel, 10, 200, correlation=1, external_id=7),
        deviceProperties=[{"name": device, "numSms": 132}],
    )
    [row] = kernels.gemm_throughput(t)
    assert row["peak_tflops"] == peak

