"""Known answers of the roofline's measures: an op's work, rates and place under its roof, the shares of the GPU
time the formulas cover, and the notes on a kernel's footprint (``profguide.site.measures.roofline``)."""

from profguide.analysis import footprint
from profguide.site.measures.roofline import (
    FootprintNote,
    FootprintNoted,
    FurthestBelow,
    HighestFraction,
    OpRoofline,
    RooflineShare,
)
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.site.measures import Answer, answers, known, run
from tests.site.measures.test_kernels import FOOTPRINTS, ROCM

H100 = {"id": 0, "name": "NVIDIA H100 80GB HBM3", "numSms": 132, "totalGlobalMem": 85018279936, "computeMajor": 9,
        "computeMinor": 0}
BF16 = "c10::BFloat16"
ADDMM = "[[512], [141, 512], [512, 512], [], []]"
ADDMM_ARGS = {"Input Dims": [[512], [141, 512], [512, 512], [], []], "Input type": [BF16] * 3 + ["Scalar"] * 2,
              "Concrete Inputs": ["", "", "", "1", "1"]}
MUL_ARGS = {"Input Dims": [[1000, 1000], [1000, 1000]], "Input type": [BF16] * 2, "Concrete Inputs": ["", ""]}
INDEX_ARGS = {"Input Dims": [[10], [3]], "Input type": ["float", "long int"]}


def launched(op, ts, correlation, kernel, kernel_us, **args):
    """An op whose one kernel runs ``kernel_us``, launched by the runtime."""
    return (cpu(op, ts, 20, **args), cpu("cudaLaunchKernel", ts + 2, 3, kind="runtime", correlation=correlation),
            gpu(kernel, ts + 10, kernel_us, correlation=correlation))


# Two addmm calls of 10 µs each, a mul of 5 µs, and an aten::index of 5 µs with no formula.
MODEL = (*launched("aten::addmm", 0, 1, "gemm", 10, **ADDMM_ARGS), *launched("aten::addmm", 40, 2, "gemm", 10,
                                                                               **ADDMM_ARGS),
         *launched("aten::mul", 80, 3, "mul_kernel", 5, **MUL_ARGS), *launched("aten::index", 120, 4, "index", 5,
                                                                               **INDEX_ARGS))
ON_H100 = run(*MODEL, deviceProperties=[H100])
UNKNOWN_GPU = run(*MODEL, deviceProperties=[{"id": 0, "name": "A GPU not in the table"}])
ON_CPU = run(cpu("aten::mul", 0, 20, **MUL_ARGS))

GEMM_FLOPS = 2 * 141 * 512 * 512 + 141 * 512  # the product and the bias added to each output
GEMM_BYTES = 2 * (512 + 141 * 512 + 512 * 512 + 141 * 512)  # bf16: the bias, both inputs read, the output written
MUL_BYTES = 2 * 3 * 1000 * 1000  # two inputs read, one output written
BF16_PEAK, BANDWIDTH = 1979 / 2, 3.35  # H100 SXM: the datasheet's sparse BF16 halved, TFLOP/s; TB/s
GEMM_TFLOPS = GEMM_FLOPS / 10e-6 / 1e12
GEMM_FRACTION = GEMM_TFLOPS / min(BF16_PEAK, BANDWIDTH * GEMM_FLOPS / GEMM_BYTES)
MUL_FRACTION = MUL_BYTES / 5e-6 / 1e12 / BANDWIDTH  # memory-bound at so low an intensity
GEMM_LOST, MUL_LOST = 20 * (1 - GEMM_FRACTION), 5 * (1 - MUL_FRACTION)

ANSWERS = [
    Answer("calls", ON_H100, OpRoofline("aten::addmm", "calls"), 2),
    Answer("flops-a-call", ON_H100, OpRoofline("aten::addmm", "flops a call", ADDMM), GEMM_FLOPS),
    Answer("bytes-a-call", ON_H100, OpRoofline("aten::addmm", "bytes a call"), GEMM_BYTES),
    Answer("time-a-call", ON_H100, OpRoofline("aten::addmm", "device time a call"), 10),
    Answer("tflops", ON_H100, OpRoofline("aten::addmm", "tflops"), GEMM_TFLOPS),
    Answer("tb-per-s", ON_H100, OpRoofline("aten::mul", "tb/s"), MUL_BYTES / 5e-6 / 1e12),
    Answer("intensity", ON_H100, OpRoofline("aten::addmm", "intensity"), GEMM_FLOPS / GEMM_BYTES),
    Answer("peak", ON_H100, OpRoofline("aten::addmm", "peak"), BF16_PEAK),
    Answer("ridge", ON_H100, OpRoofline("aten::addmm", "ridge"), BF16_PEAK / BANDWIDTH),
    # Not a matrix op: the FP32 vector peak whatever its type.
    Answer("elementwise-ridge", ON_H100, OpRoofline("aten::mul", "ridge"), 67 / BANDWIDTH),
    Answer("roof", ON_H100, OpRoofline("aten::addmm", "roof"), BANDWIDTH * GEMM_FLOPS / GEMM_BYTES),
    Answer("fraction", ON_H100, OpRoofline("aten::addmm", "fraction"), GEMM_FRACTION),
    Answer("memory-bound", ON_H100, OpRoofline("aten::mul", "memory-bound"), 1),
    Answer("lost-share", ON_H100, OpRoofline("aten::addmm", "lost share"), 1 - GEMM_FRACTION),
    Answer("no-formula", ON_H100, OpRoofline("aten::index", "calls"), None),
    Answer("other-shapes", ON_H100, OpRoofline("aten::addmm", "calls", "[[1, 2]]"), None),
    Answer("rates-without-a-roof", UNKNOWN_GPU, OpRoofline("aten::addmm", "tflops"), GEMM_TFLOPS),
    Answer("no-roof", UNKNOWN_GPU, OpRoofline("aten::addmm", "fraction"), None),
    Answer("no-ridge", UNKNOWN_GPU, OpRoofline("aten::addmm", "ridge"), None),
    Answer("no-bound", UNKNOWN_GPU, OpRoofline("aten::addmm", "memory-bound"), None),
    Answer("modelled", ON_H100, RooflineShare("modelled"), 25 / 30),
    Answer("modelled-gemms", ON_H100, RooflineShare("modelled", "GEMM"), 20 / 30),
    # The GEMM at about 4 % of its roof, the mul at about 36 % of the bandwidth: neither near its roof.
    Answer("near-the-roof", ON_H100, RooflineShare("near the roof"), 0),
    Answer("memory-bound-share", ON_H100, RooflineShare("memory-bound"), 1),
    Answer("with-a-roof", ON_H100, RooflineShare("with a roof"), 1),
    Answer("without-a-roof", UNKNOWN_GPU, RooflineShare("with a roof"), 0),
    Answer("no-gpu-work", ON_CPU, RooflineShare("modelled"), None),
    Answer("no-such-family", ON_H100, RooflineShare("near the roof", "attention"), None),
    Answer("highest", ON_H100, HighestFraction(), max(GEMM_FRACTION, MUL_FRACTION)),
    Answer("highest-elementwise", ON_H100, HighestFraction("elementwise"), MUL_FRACTION),
    Answer("no-roof-no-fraction", UNKNOWN_GPU, HighestFraction(), None),
    Answer("furthest-first", ON_H100, FurthestBelow("aten::addmm" if GEMM_LOST > MUL_LOST else "aten::mul"), 1),
    Answer("furthest-second", ON_H100, FurthestBelow("aten::mul" if GEMM_LOST > MUL_LOST else "aten::addmm"), 2),
    Answer("not-modelled", ON_H100, FurthestBelow("aten::index"), None),
    Answer("nothing-lost-without-a-roof", UNKNOWN_GPU, FurthestBelow("aten::addmm"), None),
    # FOOTPRINTS' flash kernel holds a 48 KiB tile within the default limit, limited by registers: expected.
    Answer("flash-expected", FOOTPRINTS, FootprintNoted("flash", "expected: holds a tile in shared memory"), 1),
    # Its GEMM uses more shared memory than the default a block: the column reads 0 without measuring it.
    Answer("gemm-not-measured", FOOTPRINTS, FootprintNoted("sm90", "column not measured"), 1),
    Answer("flash-measured", FOOTPRINTS, FootprintNoted("flash", "column not measured"), 0),
    Answer("no-such-kernel", FOOTPRINTS, FootprintNoted("absent", "grid smaller than the GPU"), None),
    Answer("no-footprint-recorded", ROCM, FootprintNoted("attn", "grid smaller than the GPU"), None),
]


@answers(ANSWERS)
def test_known_answer(answer, tmp_path):
    known(answer, tmp_path)


def test_the_notes_are_those_footprint_writes():
    assert set(FootprintNote.__args__) == {footprint.EXPECTED, footprint.SMALL_GRID, footprint.NOT_MEASURED}

