"""The TensorBoard plugin's and Nsight's rules: each threshold's edge on a small trace (just under is quiet,
just over fires), and the evidence each gives on a real run: what it measured, its words, where to look."""

import numpy as np
import pytest

from profguide.analysis import rules_device as rules
from profguide.analysis.summarise import summarise
from profguide.site.data import run_data
from profguide.text import cut
from tests.analysis.gpu_traces import DATALOADER, training_loop
from tests.helpers import ROOT
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.helpers import make_trace as make


def check(rule, trace):
    return rule(trace, summarise(trace))


def names_at(trace, at_us):
    """The names of the events that start at ``at_us``."""
    return {trace.names[trace.name[i]] for i in np.flatnonzero(trace.ts == at_us)}


def real(run_id):
    data = run_data(run_id, ROOT)
    return data.trace, data.summary


def cpu_steps(data_us, steps=3, step_us=100.0):
    """Steps without GPU work, each ``data_us`` in the DataLoader and the rest in one op."""
    events = []
    for step in range(steps):
        start = step * step_us
        events += [cpu(f"ProfilerStep#{step}", start, step_us, kind="annotation"),
                   cpu(DATALOADER, start, data_us, kind="annotation"),
                   cpu("aten::mm", start + data_us, step_us - data_us)]
    return make(*events)


@pytest.mark.parametrize(("data_us", "fires"), [(4.9, False), (5.0, False), (5.1, True)])
def test_data_loading_fires_over_5pct_of_the_steps_host_time(data_us, fires):
    found = check(rules.data_loading_over_5pct, cpu_steps(data_us))
    assert (found is not None) == fires
    if fires:
        assert found.measured == pytest.approx(data_us)
        assert "3 ProfilerSteps" in found.words and DATALOADER in found.words
        assert found.at_us == 0.0


def test_data_loading_on_a_gpu_trace_is_the_gpus_wait_for_it():
    found = check(rules.data_loading_over_5pct, training_loop(data_us=200.0))
    assert found is not None and "the GPU idle while the host loaded data" in found.words
    assert check(rules.data_loading_over_5pct, training_loop()) is None


def test_data_loading_on_a_real_run_names_the_dataloader_and_its_share():
    trace, summary = real("reading-input-workers-0")
    found = rules.data_loading_over_5pct(trace, summary)
    host = summary["host"]
    assert found.measured == pytest.approx(100 * host["by_activity"]["data loading"]["us"] / host["dur_us"])
    top = host["by_activity"]["data loading"]["top"][0][0]
    assert f"`{top}`" in found.words and f"{found.measured:.1f}%" in found.words
    assert found.at_us == trace.ts[trace.name == trace.names.index(top)].min()


@pytest.mark.parametrize(("name", "fires"), [
    ("DataParallel.forward", True),
    ("DistributedDataParallel.forward", False),
    ("torch/nn/parallel/data_parallel.py(183): forward", True),
    ("/usr/lib/python3/site-packages/torch/nn/parallel/data_parallel.py(190): replicate", True),
    ("nn.Module: DataParallel_0", True),
    ("autograd::engine::evaluate_function: ScatterBackward", True),
    ("autograd::engine::evaluate_function: ScatterBackward0", False),  # ATen's scatter, not DataParallel's
    ("torch/nn/parallel/distributed.py(1600): forward", False),
    ("nn.Module: DistributedDataParallel_0", False),
])
def test_data_parallel_is_told_by_its_frames_module_and_functions(name, fires):
    trace = make(cpu("aten::mm", 0, 10), cpu(name, 5, 20, kind="python"))
    found = check(rules.data_parallel, trace)
    assert (found is not None) == fires
    if fires:
        assert found.measured == 1 and found.at_us == 5 and "no GPU work" in found.words


def test_data_parallel_counts_the_gpus_it_drives():
    on_gpu_1 = {**gpu("gemm", 10, 20), "pid": 1}
    trace = make(cpu("nn.Module: DataParallel_0", 0, 100, kind="python"), gpu("gemm", 10, 20), on_gpu_1)
    assert "driving 2 GPUs" in check(rules.data_parallel, trace).words


GLOO_OP = cpu("gloo:all_reduce", 0, 30)
GLOO_INFO = {"distributedInfo": {"backend": "gloo", "rank": 0, "world_size": 2}}


@pytest.mark.parametrize(("events", "top_level", "fires"), [
    ((GLOO_OP, gpu("gemm", 10, 20)), {}, True),
    ((cpu("aten::mm", 0, 30), gpu("gemm", 10, 20)), GLOO_INFO, True),
    ((GLOO_OP,), GLOO_INFO, False),  # no GPU: gloo is the backend for it
    ((GLOO_OP, gpu("gemm", 10, 20), gpu("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)", 40, 5)), {},
     False),  # NCCL carries the GPU's collectives; gloo the CPU's
])
def test_ddp_on_gloo_fires_only_beside_gpu_work_without_nccl(events, top_level, fires):
    found = check(rules.ddp_on_gloo_with_gpus, make(*events, **top_level))
    assert (found is not None) == fires


def test_ddp_on_gloo_points_at_the_first_gloo_collective():
    found = check(rules.ddp_on_gloo_with_gpus, make(cpu("aten::mm", 0, 5), {**GLOO_OP, "ts": 7},
                                                    gpu("gemm", 10, 20)))
    assert found.measured == 1 and found.at_us == 7 and "1 gloo collective" in found.words


NCCL = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)"


@pytest.mark.parametrize(("comm_us", "fires"), [(99.0, False), (100.0, False), (101.0, True)])
def test_communication_fires_over_10pct_of_the_window(comm_us, fires):
    trace = make(gpu("gemm", 0, 1000 - comm_us), gpu(NCCL, 1000 - comm_us, comm_us, stream=20))
    found = check(rules.communication_over_10pct, trace)
    assert (found is not None) == fires
    if fires:
        assert found.measured == pytest.approx(comm_us / 10)
        assert found.at_us == 1000 - comm_us and f"`{NCCL}`" in found.words and "0% of it behind" in found.words


@pytest.mark.parametrize(("hidden_us", "fires"), [(960.0, False), (890.0, False), (880.0, True)])
def test_communication_computation_hides_is_not_told_to_communicate_less(hidden_us, fires):
    # Expert-parallel dispatch and combine: all-to-alls over 1000 µs of a 1100 µs window (91%), a GEMM on
    # another stream hiding ``hidden_us`` of them; the rule fires only once over 10% of the window is exposed.
    trace = make(gpu("ncclDevKernel_SendRecv", 0, 1000, stream=20), gpu("gemm", 0, hidden_us),
                 gpu("gemm", 1000, 100))
    found = check(rules.communication_over_10pct, trace)
    assert (found is not None) == fires


def test_communication_on_a_real_run_is_the_summarys_share():
    trace, summary = real("multigpu-a100-16rank-overlap")
    found = rules.communication_over_10pct(trace, summary)
    comm = summary["communication"]
    assert found.measured == pytest.approx(100 * comm["kernel_us"] / summary["window"]["dur_us"])
    assert cut(comm["top"][0]["name"]) in found.words
    assert comm["top"][0]["name"] in names_at(trace, found.at_us)


@pytest.mark.parametrize(("busy_us", "fires"), [(499.0, True), (500.0, False), (501.0, False)])
def test_gpu_utilisation_fires_under_50pct_busy(busy_us, fires):
    trace = make(gpu("gemm", 0, busy_us - 1), gpu("add", 999, 1))
    found = check(rules.gpu_utilisation_under_50pct, trace)
    assert (found is not None) == fires
    if fires:
        assert found.measured == pytest.approx(busy_us / 10) and found.at_us == busy_us - 1


def test_gpu_utilisation_on_a_real_run_points_at_the_longest_gap():
    trace, summary = real("reading-a100-2rank")
    found = rules.gpu_utilisation_under_50pct(trace, summary)
    assert found.measured == summary["gpu_busy_pct"]
    assert found.at_us == summary["idle"]["longest_gaps"][0]["start_us"]
    assert f"{summary['gpu_busy_pct']:.1f}%" in found.words


HALF_OFF_CORES = "volta_fp16_sgemm_fp16_128x64_nn"  # cuBLAS's fp16 GEMM on the SIMT cores
HALF_ON_CORES = "volta_fp16_s884gemm_fp16_128x128_ldg8_f2f_nn"
HALF_GEMV = "void gemv2T_kernel_val<int, int, __half, __half, float, 128, 16, 4, 4, false, false>"


@pytest.mark.parametrize(("off_us", "fires"), [(0.9, False), (1.0, False), (1.1, True)])
def test_tensor_core_rule_fires_over_1pct_of_kernel_time_off_the_tensor_cores(off_us, fires):
    trace = make(gpu("elementwise_kernel", 0, 100 - off_us), gpu(HALF_OFF_CORES, 100, off_us))
    found = check(rules.tensor_core_eligible_not_on_tensor_cores, trace)
    assert (found is not None) == fires
    if fires:
        assert found.measured == pytest.approx(off_us) and found.at_us == 100 and HALF_OFF_CORES in found.words


@pytest.mark.parametrize(("kernel", "top_level"), [
    (HALF_ON_CORES, {}),
    (HALF_GEMV, {}),  # a matrix-vector product: nothing for a tensor core to tile
    ("maxwell_sgemm_128x64_nn", {}),  # fp32: fp32-matmul-on-tensor-core-gpu's to say
    (HALF_OFF_CORES, {"deviceProperties": [{"id": 0, "name": "Tesla P100", "computeMajor": 6,
                                            "computeMinor": 0}]}),  # no tensor cores on the GPU
])
def test_tensor_core_rule_is_quiet_on_what_tensor_cores_could_not_change(kernel, top_level):
    trace = make(gpu("elementwise_kernel", 0, 50), gpu(kernel, 50, 50), **top_level)
    assert check(rules.tensor_core_eligible_not_on_tensor_cores, trace) is None


PAGEABLE = "Memcpy HtoD (Pageable -> Device)"


@pytest.mark.parametrize(("name", "fires"), [(PAGEABLE, True), ("Memcpy HtoD (Pinned -> Device)", False),
                                             ("Memcpy DtoD (Device -> Device)", False)])
def test_pageable_copies_fire_from_the_first(name, fires):
    trace = make(gpu("gemm", 0, 10), gpu(name, 20, 5, kind="memcpy", bytes=4096), gpu("gemm", 30, 10))
    found = check(rules.pageable_host_to_device_copy, trace)
    assert (found is not None) == fires
    if fires:
        assert found.measured == 1 and found.at_us == 20 and "1 memcpy" in found.words and "4 KiB" in found.words


def test_pageable_copies_on_a_real_run_are_the_summarys():
    trace, summary = real("reference-a100-alexnet")
    found = rules.pageable_host_to_device_copy(trace, summary)
    rows = [row for row in summary["memory_traffic"] if row["name"] == PAGEABLE]
    assert found.measured == sum(row["count"] for row in rows)
    assert PAGEABLE in names_at(trace, found.at_us)


# CUDA's "API synchronization behavior": a synchronous copy to or from host memory blocks the host; one from device to
# device does not, nor does a memset of device memory (of pinned or managed memory, it does). HIP's calls wait whatever
# they copy: ROCm names the copy of an .item() to the host DtoD.
@pytest.mark.parametrize(("call", "copy", "fires"), [
    ("cudaMemcpy", "Memcpy DtoH (Device -> Pageable)", True), ("cudaMemcpy", "Memcpy HtoD (Pageable -> Device)", True),
    ("cudaMemcpy", "Memcpy DtoD (Device -> Device)", False), ("cudaMemcpy", None, True),
    ("cudaMemset", "Memset (Device)", False), ("cudaMemset", "Memset (Pinned)", True), ("cudaMemset", None, False),
    ("cuMemcpyDtoH_v2", None, True), ("cuMemcpyDtoD_v2", None, False), ("cuMemsetD8_v2", "Memset (Managed)", True),
    ("hipMemcpyWithStream", "Memcpy DtoD (Device -> Device)", True), ("hipMemset", "Memset (Device)", True),
    ("cudaMemcpyAsync", "Memcpy DtoH (Device -> Pinned)", False), ("cudaStreamSynchronize", None, False),
])
def test_a_copy_call_fires_where_the_host_waits_in_it(call, copy, fires):
    made = [gpu(copy, 14, 2, kind="memset" if "Memset" in copy else "memcpy", correlation=9)] if copy else []
    trace = make(cpu(call, 12, 3, kind="runtime", correlation=9), gpu("gemm", 0, 10), *made, gpu("gemm", 20, 10))
    found = check(rules.synchronous_memcpy_memset, trace)
    assert (found is not None) == fires
    if fires:
        assert found.measured == 1 and found.at_us == 12 and call in found.words
        assert "1 copy or set call that the host waited in" in found.words


def test_synchronous_copies_on_a_real_rocm_run_are_its_item_copies():
    trace, summary = real("reading-mi300x-bert")
    found = rules.synchronous_memcpy_memset(trace, summary)
    assert found is not None and found.measured == 1 and "hipMemcpyWithStream" in names_at(trace, found.at_us)


def test_a_sync_inside_a_step_fires_and_the_profilers_after_the_last_does_not():
    inside = training_loop(item=True)
    found = check(rules.sync_inside_steps, inside)
    assert found is not None and found.measured == 4 and "inside 4 ProfilerSteps" in found.words
    after = training_loop(extra=(cpu("cudaDeviceSynchronize", 10_000, 50, kind="runtime"),))
    assert check(rules.sync_inside_steps, after) is None


def test_sync_inside_steps_on_a_real_run_points_at_the_longest():
    trace, summary = real("reading-a100-16rank")
    found = rules.sync_inside_steps(trace, summary)
    assert names_at(trace, found.at_us) & rules.SYNC_CALLS and any(
        step["start_us"] <= found.at_us < step["start_us"] + step["dur_us"] for step in summary["steps"])


def gapped(gap_us, window_us):
    """GPU work from 0 to ``window_us`` with one idle gap of ``gap_us`` in the middle."""
    busy = (window_us - gap_us) / 2
    return make(gpu("gemm", 0, busy), gpu("gemm", busy + gap_us, busy))


@pytest.mark.parametrize(("gap_us", "window_us", "fires"), [
    (1_990.0, 10_000.0, False), (2_010.0, 10_000.0, True),  # a fifth of the window
    (600.0, 1_000.0, False),  # most of a short window, but under a millisecond
    (490_000.0, 10_000_000.0, False), (510_000.0, 10_000_000.0, True),  # Nsight's 500 ms, in a long window
])
def test_a_long_gap_is_a_fifth_of_the_window_or_500_ms(gap_us, window_us, fires):
    found = check(rules.long_gpu_gaps, gapped(gap_us, window_us))
    assert (found is not None) == fires
    if fires:
        assert found.measured == pytest.approx(gap_us) and found.at_us == pytest.approx((window_us - gap_us) / 2)


def test_long_gaps_on_a_real_run_point_at_the_longest():
    trace, summary = real("reference-a100-alexnet")
    found = rules.long_gpu_gaps(trace, summary)
    longest = summary["idle"]["longest_gaps"][0]
    assert (found.measured, found.at_us) == (longest["dur_us"], longest["start_us"])


def stretches(busy_in_emptiest_us):
    """30 stretches of 100 µs, the GPU busy through all but the 11th, in which it is busy ``…_us``."""
    return make(gpu("gemm", 0, 1000), gpu("gemm", 1000, busy_in_emptiest_us), gpu("gemm", 1100, 1900))


@pytest.mark.parametrize(("busy_us", "fires"), [(49.0, True), (50.0, False), (51.0, False)])
def test_a_stretch_fires_under_50pct_busy_on_a_busy_gpu(busy_us, fires):
    found = check(rules.low_gpu_utilisation_stretch, stretches(busy_us))
    assert (found is not None) == fires
    if fires:
        assert found.measured == pytest.approx(busy_us) and found.at_us == pytest.approx(1000)
        assert "1 of its 30 stretches" in found.words


def test_a_stretch_is_left_to_the_utilisation_rule_on_a_gpu_idle_overall():
    trace = make(gpu("gemm", 0, 100), gpu("gemm", 2900, 100))
    summary = summarise(trace)
    assert rules.low_gpu_utilisation_stretch(trace, summary) is None
    assert rules.gpu_utilisation_under_50pct(trace, summary) is not None


def memory(ts, total, device_type=1, device_id=0):
    """An allocator's ``[memory]`` instant as profile_memory=True writes it."""
    return {"ph": "i", "s": "t", "name": "[memory]", "ts": ts, "pid": 100, "tid": 1,
            "args": {"Bytes": 1, "Total Allocated": total, "Device Type": device_type, "Device Id": device_id}}


GPU_OF_1000_BYTES = {"deviceProperties": [{"id": 0, "name": "GPU", "totalGlobalMem": 1000}]}


@pytest.mark.parametrize(("peak", "fires"), [(899, False), (900, False), (901, True)])
def test_memory_fires_over_90pct_of_the_gpus_memory(peak, fires):
    trace = make(gpu("gemm", 0, 10), memory(1, 100), memory(4, peak), memory(6, 200),
                 memory(5, 10**6, device_type=0, device_id=-1),  # the CPU's: no GPU's capacity
                 **GPU_OF_1000_BYTES)
    found = check(rules.memory_over_90pct, trace)
    assert (found is not None) == fires
    if fires:
        assert found.measured == pytest.approx(peak / 10) and found.at_us == 4 and "GPU 0's" in found.words


def test_memory_without_the_gpus_capacity_says_nothing():
    assert check(rules.memory_over_90pct, make(gpu("gemm", 0, 10), memory(4, 10**9))) is None
