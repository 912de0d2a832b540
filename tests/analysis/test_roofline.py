"""The roofline: which op calls are counted, their rates against the device's roof, the GPU work with no formula,
and, on every real trace, no op above its roof."""

import pytest

from profguide import trace
from profguide.analysis import roofline
from profguide.analysis.opwork import op_work
from profguide.analysis.peaks import device_peaks
from tests.helpers import TRACES, make_trace
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu

H100 = {"id": 0, "name": "NVIDIA H100 80GB HBM3", "numSms": 132, "totalGlobalMem": 85018279936, "computeMajor": 9,
        "computeMinor": 0}
ADDMM_DIMS = [[512], [141, 512], [512, 512], [], []]
ADDMM_TYPES = ["c10::BFloat16"] * 3 + ["Scalar", "Scalar"]
REAL_TRACES = sorted(TRACES.glob("*.json.gz"))
QWEN_H100 = TRACES / "h100_qwen1.5_0.5b_inference.json.gz"
GEMM_KERNEL = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_warpgroupsize1x1x1_execute_segment_k_off"


def linear_trace(kernel_us=10.0, device=H100, extra=()):
    """aten::linear calling aten::addmm, whose one kernel runs ``kernel_us``; then an aten::index with no formula
    and a kernel of its own."""
    return make_trace(
        cpu("aten::linear", 0, 30, **{"Input Dims": [[1, 141, 512], [512, 512], [512]],
                                      "Input type": ["c10::BFloat16"] * 3, "Concrete Inputs": ["", "", ""]}),
        cpu("aten::addmm", 2, 25, **{"Input Dims": ADDMM_DIMS, "Input type": ADDMM_TYPES,
                                     "Concrete Inputs": ["", "", "", "1", "1"]}),
        cpu("cudaLaunchKernel", 20, 4, kind="runtime", correlation=1),
        gpu(GEMM_KERNEL, 30, kernel_us, correlation=1),
        cpu("aten::index", 40, 10),
        cpu("cudaLaunchKernel", 45, 3, kind="runtime", correlation=2),
        gpu("index_elementwise_kernel", 60, 5, correlation=2),
        *extra,
        deviceProperties=[device] if device else [])


def test_the_innermost_sized_op_is_counted_with_its_kernels_time():
    rows = roofline.roofline_rows(linear_trace())
    assert [(row["name"], row["calls"], row["device_us"], row["kernel"]) for row in rows] == [
        ("aten::addmm", 1, 10.0, GEMM_KERNEL)]  # not aten::linear around it: its work would count twice
    work = op_work("aten::addmm", ADDMM_DIMS, ADDMM_TYPES, ["", "", "", "1", "1"])
    assert work is not None and (rows[0]["flops"], rows[0]["bytes"]) == (work.flops, work.bytes)


def test_rates_roof_and_fraction_follow_from_the_work_the_time_and_the_peaks():
    row = roofline.roofline_rows(linear_trace(kernel_us=10.0))[0]
    peaks = device_peaks(H100)
    assert peaks is not None
    assert row["tflops"] == pytest.approx(row["flops"] / 10e-6 / 1e12)
    assert row["tb_per_s"] == pytest.approx(row["bytes"] / 10e-6 / 1e12)
    assert row["intensity"] == pytest.approx(row["flops"] / row["bytes"])
    bandwidth_roof = peaks.tb_per_s * row["intensity"]
    peak = peaks.tflops["bf16"]
    assert row["roof_tflops"] == pytest.approx(min(peak, bandwidth_roof))
    assert row["bound"] == ("memory" if bandwidth_roof < peak else "compute")
    assert row["fraction"] == pytest.approx(row["tflops"] / row["roof_tflops"])
    assert row["lost_us"] == pytest.approx(10.0 * (1 - row["fraction"]))
    slower = roofline.roofline_rows(linear_trace(kernel_us=20.0))[0]
    assert slower["fraction"] == pytest.approx(row["fraction"] / 2)  # twice the time, half the rate


def test_gpu_work_outside_every_counted_op_is_listed_by_its_launcher():
    summary = roofline.roofline(linear_trace())
    assert summary is not None
    assert [(row["name"], row["calls"], row["device_us"]) for row in summary["unmodelled"]] == [
        ("aten::index", 1, 5.0)]
    assert (summary["modelled_us"], summary["device_us"]) == (10.0, 15.0)


def test_a_gpu_op_no_op_launched_is_listed_as_such():
    summary = roofline.roofline(linear_trace(extra=[gpu("Memcpy HtoD", 90, 4, kind="memcpy")]))
    assert summary is not None and (roofline.NO_OP, 1, 4.0) in [
        (row["name"], row["calls"], row["device_us"]) for row in summary["unmodelled"]]


def test_a_device_not_in_the_table_gets_rates_but_no_roof():
    unknown = {"id": 0, "name": "Imaginary GPU 9000", "numSms": 7}
    row = roofline.roofline_rows(linear_trace(device=unknown))[0]
    assert row["tflops"] is not None and row["roof_tflops"] is None and row["fraction"] is None
    summary = roofline.roofline(linear_trace(device=unknown))
    assert summary is not None and summary["peaks_model"] is None and summary["device"] == "Imaginary GPU 9000"


def test_a_cpu_trace_is_not_judged_against_a_gpu_roof():
    cpu_only = make_trace(cpu("aten::addmm", 0, 30, **{"Input Dims": ADDMM_DIMS, "Input type": ADDMM_TYPES}))
    assert roofline.roofline(cpu_only) is None
    assert roofline.roofline_rows(cpu_only) == []  # no GPU work launched: nothing counted


def test_the_window_keeps_the_ops_that_start_in_it():
    assert roofline.roofline_rows(linear_trace(), window=(35.0, 100.0)) == []
    assert len(roofline.roofline_rows(linear_trace(), window=(0.0, 35.0))) == 1


def test_the_furthest_below_are_ranked_by_time_lost():
    summary = roofline.roofline(trace.load(QWEN_H100))
    assert summary is not None and summary["furthest"]
    lost = [row["lost_us"] for row in summary["furthest"]]
    assert lost == sorted(lost, reverse=True)
    everything = roofline.roofline_rows(trace.load(QWEN_H100))
    assert max(row["lost_us"] or 0.0 for row in everything) == lost[0]


@pytest.mark.parametrize("path", REAL_TRACES, ids=lambda path: path.name)
def test_no_op_on_a_real_trace_is_above_its_roof(path):
    """An op above its roof is a wrong formula, a wrong peak or a wrong type."""
    loaded = trace.load(path)
    rows = roofline.roofline_rows(loaded) + roofline.roofline_kernels(loaded)
    above = [(row["name"], row["shapes"], row["dtype"], row["kernel"], row["fraction"]) for row in rows
             if row["fraction"] is not None and row["fraction"] > 1]
    assert not above


def test_a_copy_from_the_host_gets_no_roof_and_one_on_the_device_does():
    def copy(kind):
        return linear_trace(extra=[
            cpu("aten::copy_", 100, 20, **{"Input Dims": [[512, 512], [512, 512], []],
                                           "Input type": ["float", "float", "Scalar"],
                                           "Concrete Inputs": ["", "", "False"]}),
            cpu("cudaMemcpyAsync", 105, 4, kind="runtime", correlation=9),
            gpu(f"Memcpy {kind}", 110, 50, kind="memcpy", correlation=9)])

    rows = {row["kernel"]: row for row in roofline.roofline_rows(copy("HtoD (Pinned -> Device)"))}
    assert rows["Memcpy HtoD (Pinned -> Device)"]["fraction"] is None  # PCIe's bandwidth, not the GPU memory's
    rows = {row["kernel"]: row for row in roofline.roofline_rows(copy("DtoD (Device -> Device)"))}
    assert rows["Memcpy DtoD (Device -> Device)"]["bound"] == "memory"


def test_an_op_that_launches_its_own_kernel_counts_beside_the_sized_op_inside_it():
    """Flash attention's op zero-fills a buffer (aten::zeros → aten::fill_) before it launches its kernel."""
    dims = [[16, 559, 16, 64]] * 3 + [[]] * 12
    concrete = ["", "", "", "", "", "559", "559", "0.", "True", "False", "0.125", "", "", "", ""]
    types = ["c10::BFloat16"] * 3 + ["", ""] + ["Scalar"] * 6 + [""] * 4  # as the MI300X Qwen trace writes them
    found = roofline.roofline_rows(make_trace(
        cpu("aten::_flash_attention_forward", 0, 50, **{"Input Dims": dims, "Input type": types,
                                                         "Concrete Inputs": concrete}),
        cpu("aten::fill_", 2, 5, **{"Input Dims": [[1], []], "Input type": ["int", "Scalar"],
                                    "Concrete Inputs": ["", "0"]}),
        cpu("cudaLaunchKernel", 3, 2, kind="runtime", correlation=1),
        cpu("cudaLaunchKernel", 20, 2, kind="runtime", correlation=2),
        gpu("fill_kernel", 10, 2, correlation=1),
        gpu("flash_fwd_kernel", 30, 100, correlation=2),
        deviceProperties=[H100]))
    assert {(row["name"], row["device_us"], row["kernel"]) for row in found} == {
        ("aten::_flash_attention_forward", 100.0, "flash_fwd_kernel"), ("aten::fill_", 2.0, "fill_kernel")}


def test_by_kernel_a_call_counts_for_its_one_kernel_with_the_sets_beside_it_and_not_with_two_kernels():
    extra = [cpu("aten::addmm", 100, 30, **{"Input Dims": ADDMM_DIMS, "Input type": ADDMM_TYPES,
                                            "Concrete Inputs": ["", "", "", "1", "1"]}),
             cpu("cudaMemsetAsync", 102, 2, kind="runtime", correlation=5),
             cpu("cudaLaunchKernel", 110, 3, kind="runtime", correlation=6),
             cpu("cudaLaunchKernel", 115, 3, kind="runtime", correlation=7),
             gpu("Memset (Device)", 120, 1, kind="memset", correlation=5),
             gpu(GEMM_KERNEL, 125, 10, correlation=6),
             gpu("splitKreduce_kernel", 140, 2, correlation=7)]
    by_kernel = roofline.roofline_kernels(linear_trace(extra=extra[:1] + extra[1:3] + extra[4:6]))
    assert [(row["name"], row["calls"], row["device_us"]) for row in by_kernel] == [(GEMM_KERNEL, 2, 21.0)]
    split = roofline.roofline_kernels(linear_trace(extra=extra))  # the second call launched two kernels
    assert [(row["name"], row["calls"], row["device_us"]) for row in split] == [(GEMM_KERNEL, 1, 10.0)]
