"""Known answers of the measures of the GPU's kernels: their time, their names decoded, the calls that launched them,
their footprint (``profguide.site.measures.kernels``)."""

import json

from profguide.site.measures.kernels import (
    BusiestGemmSpread,
    DeviceProperty,
    DeviceShare,
    GemmCallRatio,
    GemmCallsNamed,
    GpuBusyShare,
    KernelFootprint,
    KernelsDecoded,
    KernelsInside,
    KernelsJoined,
    KernelSpread,
    MeanOverMedian,
    OccupancyLimit,
    OccupancyReadsZero,
    PeakShare,
)
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.site.measures import Answer, answers, known, run
from tests.site.test_kernel_table import POINTWISE, SGEMM_NN
from tests.site.test_kernel_table import TENSILE as TENSILE_GEMM


def launch(ts, correlation, call="cudaLaunchKernel", kind="runtime"):
    """The call that launches the GPU op of this correlation id."""
    return cpu(call, ts, 2, kind=kind, correlation=correlation)


NO_GPU = run(cpu("aten::mm", 0, 5))

# aten::mm's kernel 90 µs, aten::add's 10, each joined by External id.
TWO_OPS = run(cpu("aten::mm", 0, 5, external_id=1), cpu("aten::add", 6, 5, external_id=2),
              gpu("gemm", 10, 90, external_id=1), gpu("add_kernel", 100, 10, external_id=2))
# Kernels 10 to 50 and 70 to 80 µs: 50 busy of a 70 µs window.
TWO_KERNELS = run(launch(0, 1), gpu("gemm", 10, 40, correlation=1), gpu("gemm", 70, 10))
# The top kernel: 1, 1, 1 and 9 µs, mean 3, median 1.
SKEWED = run(*(gpu("k", 10 * i, 1) for i in range(3)), gpu("k", 40, 9), gpu("small", 60, 1))
THOUSANDS = {"Input Dims": [[1000, 1000], [1000, 1000]], "Input type": ["float", "float"]}
MULTIPLY = (cpu("aten::mm", 0, 5, external_id=1, **THOUSANDS), gpu("gemm", 10, 200, external_id=1))
# cutlass_a: 10, 10, 10, 10, 20 µs (median 10, p95 18, mean 12); cutlass_b: 2, 10, 10 (median 10, mean 22/3).
CUTLASS = run(*(gpu("cutlass_a", 10 * i, 10) for i in range(4)), gpu("cutlass_a", 50, 20),
              gpu("cutlass_b", 100, 2), gpu("cutlass_b", 110, 10), gpu("cutlass_b", 130, 10), gpu("nccl", 200, 50))
SIXTY_FOURS = {"Input Dims": [[64, 64], [64, 64]], "Input type": ["float", "float"]}
EIGHTS = {"Input Dims": [[8, 8], [8, 8]], "Input type": ["float", "float"]}
# Three calls on 64×64 (10, 10 and 6 + 6 µs of kernels) and two on 8×8 whose slow call would spread far more, but
# which hold less kernel time.
GEMM_CALLS = run(cpu("aten::mm", 0, 5, external_id=1, **SIXTY_FOURS), gpu("gemm", 10, 10, external_id=1),
                 cpu("aten::mm", 20, 5, external_id=2, **SIXTY_FOURS), gpu("gemm", 30, 10, external_id=2),
                 cpu("aten::mm", 40, 5, external_id=3, **SIXTY_FOURS), gpu("gemm", 50, 6, external_id=3),
                 gpu("reduce", 56, 6, external_id=3),
                 cpu("aten::mm", 70, 5, external_id=4, **EIGHTS), gpu("gemm", 80, 1, external_id=4),
                 cpu("aten::mm", 90, 5, external_id=5, **EIGHTS), gpu("gemm", 100, 9, external_id=5))

WIDE = "[[64, 16], [16, 48]]"  # 2·64·16·48 FLOPs
NARROW = "[[64, 48], [48, 16]]"  # the same FLOPs in the other shape
TENSILE = "Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_{tile}_MI16x16x1"
FILL = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>"


def mm(ts, external_id, shapes):
    return cpu("aten::mm", ts, 5, external_id=external_id,
               **{"Input Dims": json.loads(shapes), "Input type": ["c10::BFloat16", "c10::BFloat16"]})


# Two calls of each shape: the wide one's GEMMs 10 and 12 µs (the second call with a 2 µs fill beside it), the
# narrow one's 9 and 11 µs, each shape with a tile of its own but for the narrow one's second call.
TWO_SHAPES = run(mm(0, 1, WIDE), gpu(TENSILE.format(tile="MT128x224x64"), 10, 10, external_id=1),
                 mm(30, 2, WIDE), gpu(FILL, 40, 2, external_id=2),
                 gpu(TENSILE.format(tile="MT128x224x64"), 42, 12, external_id=2),
                 mm(60, 3, NARROW), gpu(TENSILE.format(tile="MT256x128x64"), 70, 9, external_id=3),
                 mm(90, 4, NARROW), gpu(TENSILE.format(tile="MT128x224x64"), 100, 11, external_id=4))
# Of the wide shape's two calls the first launched a fill alone: no GEMM kernel, so no tile.
FILL_THEN_GEMM = run(mm(0, 1, WIDE), gpu(FILL, 10, 2, external_id=1),
                     mm(30, 2, WIDE), gpu(TENSILE.format(tile="MT128x224x64"), 40, 10, external_id=2))
FILL_ALONE = run(mm(0, 1, WIDE), gpu(FILL, 10, 2, external_id=1))
REDUCTION = "void splitKreduce_kernel<float, float, float, float, true, false, false>(cublasSplitKParams<float>"
# Four GEMM launches (two nn, a tn on tensor cores, a reduction without a layout) and a Triton pointwise kernel.
DECODED = run(*(gpu(name, 10 * index, 5) for index, name in enumerate((SGEMM_NN, SGEMM_NN, TENSILE_GEMM, REDUCTION,
                                                                        POINTWISE))))


def joined_lane(*unjoined_starts):
    """One kernel joined to its op at 60 µs, and kernels joined to none starting at ``unjoined_starts``."""
    return run(cpu("aten::mm", 50, 10, external_id=1), gpu("joined", 60, 5, external_id=1),
               *(gpu("earlier", start, 2) for start in unjoined_starts))


GEMM = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"
SILU = "void at::native::vectorized_elementwise_kernel<4, silu_kernel>(int)"
# MLP_0 launched a GEMM, the SiLU, a memset and a GEMM (three aten::mm and a silu); MLP_1 one GEMM; an add outside.
MLPS = run(cpu("nn.Module: MLP_0", 0, 100, kind="python"),
           cpu("aten::mm", 10, 20), launch(11, 1),
           cpu("aten::silu", 40, 10), launch(41, 2),
           cpu("aten::mm", 60, 20), cpu("cudaMemsetAsync", 61, 2, kind="runtime", correlation=4), launch(65, 3),
           cpu("nn.Module: MLP_1", 200, 60, kind="python"),
           cpu("aten::mm", 210, 20), launch(211, 5),
           cpu("aten::add", 300, 10), launch(301, 6),
           gpu(GEMM, 20, 5, correlation=1), gpu(SILU, 45, 2, correlation=2), gpu(GEMM, 70, 5, correlation=3),
           gpu("Memset (Device)", 66, 1, kind="memset", correlation=4), gpu(GEMM, 215, 5, correlation=5),
           gpu(SILU, 305, 2, correlation=6))
# A clone's copy, named as the trace names copies (another case than "memcpy dtod").
CLONE = run(cpu("aten::clone", 0, 20), cpu("cudaMemcpyAsync", 5, 5, kind="runtime", correlation=1),
            gpu("Memcpy DtoD (Device -> Device)", 10, 4, kind="memcpy", correlation=1))

H100 = {"id": 0, "name": "an H100", "computeMajor": 9, "computeMinor": 0, "warpSize": 32,
        "maxThreadsPerMultiprocessor": 2048, "regsPerMultiprocessor": 65536, "regsPerBlock": 65536,
        "sharedMemPerMultiprocessor": 233472, "sharedMemPerBlockOptin": 232448, "sharedMemPerBlock": 49152,
        "numSms": 132}


def kernel(name, correlation, threads, grid, registers, shared, occupancy):
    return gpu(name, 10 * correlation, 5, correlation=correlation, device=0, block=[threads, 1, 1], grid=grid,
               **{"registers per thread": registers, "shared memory": shared, "est. achieved occupancy %": occupancy})


# Each kernel's blocks an SM holds by each limit are worked out in tests/site/test_real_trace_measures.py:
# flash 2 (registers; 4 by shared memory), the GEMM 1 (registers and shared memory), the elementwise ones 16
# (warps).
KERNELS = (
    kernel("flash_fwd_kernel", 1, 128, [5, 16, 16], 255, 49152, 13), launch(9, 1),
    kernel(GEMM, 2, 384, [132, 1, 1], 168, 231424, 0), launch(19, 2, call="cudaLaunchKernelExC"),
    kernel("fmha_kernel", 3, 512, [4, 8, 1], 128, 42160, 5),
    launch(29, 3, call="cuLaunchKernelEx", kind="driver"),
    kernel("elementwise_kernel", 4, 128, [2, 1, 1], 20, 0, 0), launch(39, 4),
    kernel("big_elementwise", 5, 128, [17888, 1, 1], 18, 0, 100), launch(49, 5),
)
FOOTPRINTS = run(*KERNELS, deviceProperties=[H100])
# A ROCm trace's kernels carry a grid and a block but no registers or shared memory.
ROCM = run(gpu("attn_fwd", 0, 5, device=0, block=[256, 1, 1], grid=[8, 1, 1]),
           deviceProperties=[{"id": 0, "warpSize": 64}])
TWO_GPUS = run(cpu("aten::mm", 0, 10), deviceProperties=[{"id": 0, "name": "GPU", "numSms": 132},
                                                         {"id": 1, "numSms": 66}])

ANSWERS = [
    Answer("joined-by-external-id", TWO_OPS, DeviceShare("aten::mm"), 90 / 100),
    Answer("no-kernel", NO_GPU, DeviceShare("aten::mm"), None),
    Answer("busy-over-the-window", TWO_KERNELS, GpuBusyShare(), 50 / 70),
    Answer("no-gpu-work", NO_GPU, GpuBusyShare(), None),
    Answer("one-slow-launch", SKEWED, MeanOverMedian(), 3 / 1),
    Answer("no-kernel", NO_GPU, MeanOverMedian(), None),
    # 2 × 1000³ FLOPs in 200 µs: 10 TFLOP/s, against the A100's 19.5 TFLOP/s for FP32.
    Answer("an-a100", run(*MULTIPLY, deviceProperties=[{"name": "NVIDIA A100-SXM4-80GB"}]), PeakShare(), 10 / 19.5),
    Answer("a-gpu-without-a-datasheet", run(*MULTIPLY, deviceProperties=[{"name": "Some GPU"}]), PeakShare(), None),
    Answer("no-multiply", NO_GPU, PeakShare(), None),
    Answer("p95-most", CUTLASS, KernelSpread("cutlass", "p95", "most"), 18 / 10),
    Answer("mean-least", CUTLASS, KernelSpread("cutlass", "mean", "least"), 22 / 3 / 10),
    Answer("no-such-kernel", CUTLASS, KernelSpread("absent", "p95", "most"), None),
    Answer("max-of-the-busiest-shape", GEMM_CALLS, BusiestGemmSpread("max"), 12 / 10),
    Answer("no-kernel", run(cpu("aten::mm", 0, 5, **SIXTY_FOURS)), BusiestGemmSpread("max"), None),
    Answer("every-call-one-tile", TWO_SHAPES, GemmCallsNamed("aten::mm", WIDE, "mt128x224x64"), 1),
    Answer("half-the-calls", TWO_SHAPES, GemmCallsNamed("aten::mm", NARROW, "MT256x128x64"), 1 / 2),
    Answer("no-call-on-the-shape", TWO_SHAPES, GemmCallsNamed("aten::mm", "[[1, 1], [1, 1]]", "MT256x128x64"), None),
    Answer("a-call-without-a-gemm", FILL_THEN_GEMM, GemmCallsNamed("aten::mm", WIDE, "MT128x224x64"), 1 / 2),
    Answer("only-a-fill", FILL_ALONE, GemmCallsNamed("aten::mm", WIDE, "MT128x224x64"), 0),
    # Narrow: 9 and 11 µs, median 10; wide: 10 and 12 + 2 µs, median 12.
    Answer("narrow-over-wide", TWO_SHAPES, GemmCallRatio("aten::mm", NARROW, WIDE), 10 / 12),
    Answer("no-call-on-the-other", TWO_SHAPES, GemmCallRatio("aten::mm", NARROW, "[[1, 1], [1, 1]]"), None),
    Answer("launches-not-names", DECODED, KernelsDecoded("gemm"), 4),
    Answer("layout-nn", DECODED, KernelsDecoded("gemm", "layout", "nn"), 2 / 4),
    Answer("no-layout-said", DECODED, KernelsDecoded("gemm", "layout", "unknown"), 1 / 4),
    Answer("on-tensor-cores-counted", DECODED, KernelsDecoded("gemm", "tensor_cores", "yes", count=True), 1),
    Answer("fused-ops", DECODED, KernelsDecoded("triton", "fused", "add_cos_sin"), 1),
    Answer("no-attention-to-share", DECODED, KernelsDecoded("attention", "backend", "flash"), None),
    Answer("no-attention", DECODED, KernelsDecoded("attention"), 0),
    Answer("one-of-four-joined", joined_lane(0, 10, 20), KernelsJoined(), 1 / 4),
    Answer("all-unjoined-before", joined_lane(0, 10, 20), KernelsJoined(before=True), 1),
    Answer("one-unjoined-after", joined_lane(0, 70), KernelsJoined(before=True), 1 / 2),
    Answer("every-kernel-joined", joined_lane(), KernelsJoined(before=True), None),
    Answer("no-kernel", NO_GPU, KernelsJoined(), None),
    Answer("a-modules-gpu-ops", MLPS, KernelsInside(module="MLP"), 5 / 2),
    Answer("its-gemms", MLPS, KernelsInside(module="MLP", family="gemm"), (2 + 1) / 2),
    Answer("its-elementwise", MLPS, KernelsInside(module="MLP", family="elementwise"), (1 + 0) / 2),
    Answer("its-memset-a-copy", MLPS, KernelsInside(module="MLP", family="copy"), (1 + 0) / 2),
    Answer("named", MLPS, KernelsInside(module="MLP", named="silu_kernel"), (1 + 0) / 2),
    Answer("family-and-name", MLPS, KernelsInside(module="MLP", family="gemm", named="silu_kernel"), 0),
    Answer("an-ops-calls", MLPS, KernelsInside(op="aten::mm"), 4 / 3),
    Answer("an-ops-gemms", MLPS, KernelsInside(op="aten::mm", family="gemm"), 3 / 3),
    Answer("no-such-module", MLPS, KernelsInside(module="Attention"), None),
    Answer("no-such-op", MLPS, KernelsInside(op="aten::bmm"), None),
    Answer("a-copy-named-as-written", CLONE, KernelsInside(op="aten::clone", named="Memcpy DtoD"), 1),
    Answer("a-copy-in-another-case", CLONE, KernelsInside(op="aten::clone", named="memcpy dtod"), 0),
    Answer("registers", FOOTPRINTS, KernelFootprint("flash", "registers"), 255),
    Answer("shared-memory", FOOTPRINTS, KernelFootprint("flash", "shared memory"), 49152),
    Answer("threads", FOOTPRINTS, KernelFootprint("flash", "threads"), 128),
    Answer("blocks", FOOTPRINTS, KernelFootprint("flash", "blocks"), 2),
    Answer("blocks-by-shared-memory", FOOTPRINTS, KernelFootprint("flash", "blocks by shared memory"), 4),
    Answer("theoretical", FOOTPRINTS, KernelFootprint("flash", "theoretical"), 2 * 4 / 64),
    Answer("recorded", FOOTPRINTS, KernelFootprint("flash", "recorded"), 0.13),
    Answer("the-gemms-blocks", FOOTPRINTS, KernelFootprint("sm90", "blocks"), 1),
    Answer("no-such-kernel", FOOTPRINTS, KernelFootprint("absent", "blocks"), None),
    Answer("no-footprint-recorded", ROCM, KernelFootprint("attn", "blocks"), None),
    Answer("the-gemm-by-shared-memory", FOOTPRINTS, OccupancyLimit("sm90", "shared memory"), 1),
    Answer("flash-not-by-shared-memory", FOOTPRINTS, OccupancyLimit("flash", "shared memory"), 0),
    Answer("elementwise-by-warps", FOOTPRINTS, OccupancyLimit("elementwise", "warps"), 1),
    Answer("no-such-kernel", FOOTPRINTS, OccupancyLimit("absent", "registers"), None),
    # Reading 0: the GEMM and the small elementwise kernel, of five.
    Answer("every-launch", FOOTPRINTS, OccupancyReadsZero(), 2 / 5),
    Answer("above-the-default-shared-memory", FOOTPRINTS, OccupancyReadsZero(shared_memory="above default"), 1),
    # Within it: flash (13 %), fmha (5), the small one (0), the big one (100).
    Answer("within-it", FOOTPRINTS, OccupancyReadsZero(shared_memory="within default"), 1 / 4),
    # Of those, flash's 1280 blocks and the big one's 17888 give each of the 132 SMs one; neither reads 0.
    Answer("within-it-on-a-full-grid", FOOTPRINTS,
           OccupancyReadsZero(shared_memory="within default", full_grid=True), 0),
    Answer("launched-by-the-driver", FOOTPRINTS, OccupancyReadsZero(calls=("cuLaunchKernelEx",)), 0),
    Answer("by-a-call-and-a-name", FOOTPRINTS, OccupancyReadsZero(calls=("cudaLaunchKernelExC",), kernels="sm90"), 1),
    Answer("no-such-kernel", FOOTPRINTS, OccupancyReadsZero(kernels="absent"), None),
    Answer("no-such-call", FOOTPRINTS, OccupancyReadsZero(calls=("cudaGraphLaunch",)), None),
    Answer("no-footprint-recorded", ROCM, OccupancyReadsZero(), None),
    Answer("the-first-gpus", TWO_GPUS, DeviceProperty("numSms"), 132),
    Answer("a-word-not-a-number", TWO_GPUS, DeviceProperty("name"), None),
    Answer("no-device-properties", NO_GPU, DeviceProperty("numSms"), None),
]


@answers(ANSWERS)
def test_known_answer(answer, tmp_path):
    known(answer, tmp_path)
