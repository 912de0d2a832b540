"""profguide.site.claims: the measures that read a trace where a recording's summary table is not there (a real
trace from another machine has none), each on a small trace whose answer is worked out by hand, with the case it
cannot be taken; and profguide.analysis.kernel_resources, the kernel footprint some of them read."""

import json
from types import SimpleNamespace

import pytest

from profguide.analysis import kernel_resources
from profguide.site import claims
from profguide.site.measures.host import CallCount, SyncBusyShare
from profguide.site.measures.kernels import KernelFootprint, KernelsInside, OccupancyLimit, OccupancyReadsZero
from profguide.site.measures.memory import FreedOutsideOps
from profguide.site.measures.ops import NestedIn, OpShare, OpsPerCall, OpTotal
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.helpers import make_trace


def data(*events):
    return SimpleNamespace(trace=make_trace(*events))


def launch(ts, correlation, call="cudaLaunchKernel", kind="runtime"):
    """The call that launches the GPU op of this correlation id."""
    return cpu(call, ts, 2, kind=kind, correlation=correlation)


def test_an_ops_calls_of_every_shape_added_up_and_one_ops_column_over_anothers():
    found = data(
        cpu("aten::linear", 0, 100), cpu("aten::t", 10, 10), cpu("aten::addmm", 30, 60),
        launch(40, 1), gpu("gemm", 50, 30, correlation=1),
        cpu("aten::linear", 200, 60, **{"Input Dims": [[2, 4]]}), cpu("aten::t", 205, 10), cpu("aten::addmm", 220, 30),
        launch(225, 2), gpu("gemm", 240, 10, correlation=2))
    assert claims.measured(OpTotal("aten::linear", "calls"), found) == 2  # two shapes, one op
    assert claims.measured(OpTotal("aten::linear", "cpu_us"), found) == 160  # 100 + 60
    assert claims.measured(OpTotal("aten::t", "device_us"), found) == 0  # a view launches nothing
    assert claims.measured(OpTotal("aten::addmm", "self_device_us"), found) == 40  # 30 + 10, launched by addmm
    # aten::t's 10 + 10 µs of aten::linear's 100 + 60.
    assert claims.measured(OpShare("aten::t", "aten::linear", "cpu_us"), found) == pytest.approx(20 / 160)
    # The kernels inside aten::linear (30 + 10 µs) are all aten::addmm's.
    assert claims.measured(OpShare("aten::linear", "aten::addmm", "device_us"), found) == 1
    # Cannot be measured: an op the trace does not hold, or a whole of nothing (linear launches nothing itself).
    assert claims.measured(OpTotal("aten::view", "device_us"), found) is None
    assert claims.measured(OpShare("aten::view", "aten::linear", "cpu_us"), found) is None
    assert claims.measured(OpShare("aten::addmm", "aten::linear", "self_device_us"), found) is None


def test_events_nested_in_each_call_of_an_op_on_its_thread():
    found = data(
        cpu("aten::item", 0, 50), cpu("cudaMemcpyAsync", 10, 5, kind="runtime"),
        cpu("cudaStreamSynchronize", 20, 20, kind="runtime"),
        cpu("cudaStreamSynchronize", 60, 10, kind="runtime"),  # between the calls: in neither
        cpu("aten::item", 100, 50),
        cpu("cudaStreamSynchronize", 110, 10, kind="runtime", tid=2))  # inside the second call's time, another thread
    # One sync in the first call, none in the second: 1 over 2 calls.
    assert claims.measured(NestedIn("aten::item", "cudaStreamSynchronize"), found) == 0.5
    assert claims.measured(NestedIn("aten::item", "cudaMemcpyAsync"), found) == 0.5
    assert claims.measured(NestedIn("aten::item", "aten::copy_"), found) == 0  # a name the trace lacks: none inside
    assert claims.measured(NestedIn("aten::addmm", "aten::copy_"), found) is None  # no call of the outer op


def test_the_ops_inside_each_call_of_a_region_at_any_depth_the_median_over_its_calls():
    found = data(
        cpu("attention", 0, 100, kind="annotation"), cpu("aten::matmul", 10, 30), cpu("aten::bmm", 15, 20),
        cpu("aten::softmax", 50, 10), cpu("cudaLaunchKernel", 52, 2, kind="runtime"),
        cpu("attention", 200, 100, kind="annotation"), cpu("aten::matmul", 210, 30), cpu("aten::bmm", 215, 20),
        cpu("aten::softmax", 250, 10), cpu("aten::_softmax", 252, 5), cpu("myop::fused", 270, 5),
        cpu("attention", 400, 50, kind="annotation"), cpu("aten::empty", 410, 5),
        cpu("aten::add", 420, 5, tid=2))  # inside the third call's time, on another thread: not in it
    # aten:: ops at any depth: 3, 4 and 1 a call (the runtime call and the other namespace are not aten:: ops).
    assert claims.measured(OpsPerCall("attention"), found) == 3
    assert claims.measured(OpsPerCall("attention", prefix=""), found) == 3  # every op: 3, 5 and 1
    assert claims.measured(OpsPerCall("aten::matmul"), found) == 1  # an op's calls: each holds one bmm
    assert claims.measured(OpsPerCall("MLP"), found) is None  # no such region


GEMM = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"
SILU = "void at::native::vectorized_elementwise_kernel<4, silu_kernel>(int)"


def test_gpu_ops_launched_inside_a_modules_or_an_ops_calls_by_family():
    found = data(
        cpu("nn.Module: MLP_0", 0, 100, kind="python"),
        cpu("aten::mm", 10, 20), launch(11, 1),
        cpu("aten::silu", 40, 10), launch(41, 2),
        cpu("aten::mm", 60, 20), cpu("cudaMemsetAsync", 61, 2, kind="runtime", correlation=4), launch(65, 3),
        cpu("nn.Module: MLP_1", 200, 60, kind="python"),
        cpu("aten::mm", 210, 20), launch(211, 5),
        cpu("aten::add", 300, 10), launch(301, 6),  # outside both modules
        gpu(GEMM, 20, 5, correlation=1), gpu(SILU, 45, 2, correlation=2), gpu(GEMM, 70, 5, correlation=3),
        gpu("Memset (Device)", 66, 1, kind="memset", correlation=4), gpu(GEMM, 215, 5, correlation=5),
        gpu(SILU, 305, 2, correlation=6))
    # MLP_0 launched a GEMM, the SiLU, a memset and a GEMM; MLP_1 one GEMM: 5 GPU ops over 2 calls.
    assert claims.measured(KernelsInside(module="MLP"), found) == 2.5
    assert claims.measured(KernelsInside(module="MLP", family="gemm"), found) == 1.5  # (2 + 1) / 2
    assert claims.measured(KernelsInside(module="MLP", family="elementwise"), found) == 0.5  # (1 + 0) / 2
    assert claims.measured(KernelsInside(module="MLP", family="copy"), found) == 0.5  # the memset, a copy by name
    assert claims.measured(KernelsInside(module="MLP", named="silu_kernel"), found) == 0.5  # MLP_0's SiLU alone
    assert claims.measured(KernelsInside(module="MLP", family="gemm", named="silu_kernel"), found) == 0
    # The three aten::mm launched three GEMMs and the memset: 4 over 3 calls; 3 GEMMs over 3.
    assert claims.measured(KernelsInside(op="aten::mm"), found) == pytest.approx(4 / 3)
    assert claims.measured(KernelsInside(op="aten::mm", family="gemm"), found) == 1
    assert claims.measured(KernelsInside(module="Attention"), found) is None  # no such module's calls
    assert claims.measured(KernelsInside(op="aten::bmm"), found) is None


def test_the_gpus_busy_time_during_the_longest_sync_and_the_calls_a_name_starts():
    found = data(cpu("cudaDeviceSynchronize", 100, 100, kind="runtime"), cpu("cudaStreamSynchronize", 300, 5,
                                                                               kind="runtime"),
                 gpu("gemm", 80, 70), gpu("gemm", 170, 10))
    # The longest sync spans 100 to 200; kernels cover 100 to 150 and 170 to 180 of it: 60 of 100 µs.
    assert claims.measured(SyncBusyShare(), found) == pytest.approx(0.6)
    assert claims.measured(SyncBusyShare(), data(gpu("gemm", 0, 10))) is None  # no sync to measure
    calls = data(cpu("cudaOccupancyMaxActiveBlocksPerMultiprocessor", 0, 1, kind="runtime"),
                 cpu("cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", 5, 1, kind="runtime"),
                 cpu("cuLaunchKernelEx", 10, 1, kind="driver"), cpu("cudaOccupancyLike", 20, 1))  # an op: no call
    assert claims.measured(CallCount("cudaOccupancy"), calls) == 2
    assert claims.measured(CallCount("cuLaunchKernelEx"), calls) == 1
    # A count of calls is always measured: a trace without them holds none.
    assert claims.measured(CallCount("hipLaunchKernel"), calls) == 0


def memory(ts, size, device_type=1, tid=1):
    """An allocator's ``[memory]`` instant as profile_memory=True writes it."""
    return {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "ts": ts, "pid": 100, "tid": tid,
            "args": {"Device Type": device_type, "Device Id": 0 if device_type else -1, "Bytes": size,
                     "Total Allocated": 0}}


def test_what_a_region_frees_between_its_ops_over_what_they_allocate_from_the_allocators_events():
    found = data(
        cpu("step", 0, 100, kind="annotation"), cpu("aten::empty", 10, 10), cpu("aten::mm", 30, 20),
        memory(15, 1000), memory(16, 200, device_type=0), memory(35, 3000), memory(45, -500),
        memory(60, -1000), memory(80, -2500), memory(65, -9999, tid=2), memory(150, -4000))
    # Inside the ops, on the GPU: 1000 + 3000 - 500 = 3500 allocated; between them: -1000 - 2500 = -3500 freed (the
    # other thread's free and the one after the step are not the step's): 3500 / 3500.
    assert claims.measured(FreedOutsideOps("step"), found) == 1
    # On the CPU, the ops allocated 200 and the step freed none of it between them.
    assert claims.measured(FreedOutsideOps("step", memory="cpu"), found) == 0
    assert claims.measured(FreedOutsideOps("forward"), found) is None  # no such region
    assert claims.measured(FreedOutsideOps("step"), data(cpu("step", 0, 100, kind="annotation"))) is None


H100 = {"id": 0, "name": "an H100", "computeMajor": 9, "computeMinor": 0, "warpSize": 32,
        "maxThreadsPerMultiprocessor": 2048, "regsPerMultiprocessor": 65536, "regsPerBlock": 65536,
        "sharedMemPerMultiprocessor": 233472, "sharedMemPerBlockOptin": 232448, "sharedMemPerBlock": 49152,
        "numSms": 132}


def kernel(name, correlation, threads, grid, registers, shared, occupancy):
    return gpu(name, 10 * correlation, 5, correlation=correlation, device=0, block=[threads, 1, 1], grid=grid,
               **{"registers per thread": registers, "shared memory": shared, "est. achieved occupancy %": occupancy})


KERNELS = (
    kernel("flash_fwd_kernel", 1, 128, [5, 16, 16], 255, 49152, 13), launch(9, 1),
    kernel(GEMM, 2, 384, [132, 1, 1], 168, 231424, 0), launch(19, 2, call="cudaLaunchKernelExC"),
    kernel("fmha_kernel", 3, 512, [4, 8, 1], 128, 42160, 5),
    launch(29, 3, call="cuLaunchKernelEx", kind="driver"),
    kernel("elementwise_kernel", 4, 128, [2, 1, 1], 20, 0, 0), launch(39, 4),
    kernel("big_elementwise", 5, 128, [17888, 1, 1], 18, 0, 100), launch(49, 5),
)


@pytest.fixture
def footprint_run(tmp_path):
    path = tmp_path / "trace.json"
    path.write_text(json.dumps({"traceEvents": list(KERNELS), "deviceProperties": [H100]}))
    return SimpleNamespace(trace_path=lambda rank=0: path)


def test_how_many_blocks_of_a_kernel_fit_on_an_sm_by_each_limit():
    fits = {launch.name: kernel_resources.fit(launch)
            for launch in kernel_resources.launches_of(json.dumps({"traceEvents": list(KERNELS),
                                                                   "deviceProperties": [H100]}).encode())}
    # flash: 4 warps a block. A warp takes 255 × 32 = 8160 registers, 8192 rounded up to 256; a quarter of the SM's
    # 65536 holds 16384 // 8192 = 2 warps, the SM 8, so 8 // 4 = 2 blocks. Shared memory: the system reserves
    # 233472 - 232448 = 1024 bytes a block, so 233472 // (49152 + 1024) = 4. Warps: 64 // 4 = 16. Blocks: 32.
    flash = fits["flash_fwd_kernel"]
    assert flash.by == {"registers": 2, "shared memory": 4, "warps": 16, "blocks": 32}
    assert (flash.blocks, flash.limited_by, flash.theoretical) == (2, ("registers",), 2 * 4 / 64)
    # The GEMM: 12 warps; 168 × 32 = 5376 registers a warp, 3 warps a quarter, 12 an SM: 1 block; and
    # 233472 // (231424 + 1024) = 1 by shared memory: both limit it, to 12 of 64 warps.
    gemm = fits[GEMM]
    assert (gemm.blocks, gemm.limited_by, gemm.theoretical) == (1, ("registers", "shared memory"), 12 / 64)
    # A small elementwise block: 20 × 32 = 640 registers, 768 rounded up: 21 warps a quarter, 84 an SM, 21 blocks;
    # no shared memory; 64 // 4 = 16 by warps, the least: every warp an SM holds.
    tiny = fits["elementwise_kernel"]
    assert (tiny.by["shared memory"], tiny.blocks, tiny.limited_by, tiny.theoretical) == (None, 16, ("warps",), 1)
    assert kernel_resources.fit(kernel_resources.Launch("k", 1.0, "", 32, 0, 128, 1, None, {"warpSize": 32})) is None


def test_a_kernels_footprint_and_what_limits_it(footprint_run):
    def footprint(kernels, value):
        return claims.measured(KernelFootprint(kernels, value), footprint_run)

    assert footprint("flash", "registers") == 255
    assert footprint("flash", "shared memory") == 49152
    assert footprint("flash", "blocks") == 2  # worked out in the test above
    assert footprint("flash", "blocks by shared memory") == 4
    assert footprint("flash", "theoretical") == 0.125  # 2 blocks of 4 warps over 64
    assert footprint("flash", "recorded") == pytest.approx(0.13)  # the trace's 13 %
    assert footprint("sm90", "blocks") == 1
    assert claims.measured(OccupancyLimit("sm90", "shared memory"), footprint_run) == 1
    assert claims.measured(OccupancyLimit("flash", "shared memory"), footprint_run) == 0
    # "elementwise" names the tiny and the big kernel; both are limited by warps (16 blocks of 4).
    assert claims.measured(OccupancyLimit("elementwise", "warps"), footprint_run) == 1
    assert footprint("absent", "blocks") is None
    assert claims.measured(OccupancyLimit("absent", "registers"), footprint_run) is None


def test_which_kernels_the_occupancy_column_reads_zero_for(footprint_run):
    def zero(**which):
        return claims.measured(OccupancyReadsZero(**which), footprint_run)

    assert zero() == pytest.approx(2 / 5)  # the GEMM and the tiny kernel
    # Above the default 49152 bytes a block: the GEMM alone, which reads 0.
    assert zero(shared_memory="above default") == 1
    # Within it: flash (13), fmha (5), tiny (0) and big (100): one of four reads 0; the tiny kernel's grid of 2
    # blocks leaves SMs empty, and of the two whose grid gives each of the 132 SMs a block (flash's 1280, big's
    # 17888), none reads 0.
    assert zero(shared_memory="within default") == 0.25
    assert zero(shared_memory="within default", full_grid=True) == 0
    assert zero(calls=("cuLaunchKernelEx",)) == 0  # the driver-launched fmha reads 5 %
    assert zero(calls=("cudaLaunchKernelExC",), kernels="sm90") == 1
    assert zero(kernels="absent") is None
    assert zero(calls=("cudaGraphLaunch",)) is None


def test_a_trace_without_footprints_gives_none(tmp_path):
    path = tmp_path / "rocm.json"
    # A ROCm trace's kernels carry a grid and a block but no registers or shared memory.
    path.write_text(json.dumps({"traceEvents": [gpu("attn_fwd", 0, 5, device=0, block=[256, 1, 1], grid=[8, 1, 1])],
                                "deviceProperties": [{"id": 0, "warpSize": 64}]}))
    run = SimpleNamespace(trace_path=lambda rank=0: path)
    assert kernel_resources.kernel_launches(path) == []
    assert claims.measured(KernelFootprint("attn", "blocks"), run) is None
    assert claims.measured(OccupancyReadsZero(), run) is None
    assert kernel_resources.kernel_launches(tmp_path / "missing.json") == []
