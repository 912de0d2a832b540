"""Known answers of the measures of a serving engine's trace (``profguide.site.measures.serving``)."""

from profguide.site.measures.serving import (
    FamilyTimeShare,
    KernelsNamed,
    PhaseBusyShare,
    PhaseSpanOverSteps,
    PhaseVerdictIs,
    ServingEngineIs,
    ServingSteps,
    WaitingHostShare,
)
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.site.measures import Answer, answers, known, run

GEMM = "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_32x5_tn"  # a GEMM by its name
ATTENTION = "flash_fwd_kernel"  # an attention kernel by its name
PREFILL = "execute_context_1(888_788544)_generation_0(0)"  # vLLM: one request in prefill, 888 query tokens
MIXED = "execute_8192_context_9(sq8155sk8430)_generation_37(sq37sk34489)"  # vLLM: 9 in prefill, 37 decoding


def launch(correlation, ts):
    return cpu("cudaLaunchKernel", ts, 2, kind="runtime", correlation=correlation)


def annotation(name, ts, dur):
    return cpu(name, ts, dur, kind="annotation")


# A prefill step annotated from 0 to 100 µs on the host; it launches a GEMM at 10 (it runs 20 to 60) and an
# attention kernel at 90 (100 to 140). The GPU work spans 20 to 140: 120 µs, busy 80 of them, longer than the
# annotation's 100. The gap from 60 to 100 waits for the host: in the region, outside any op, but for the launch
# call from 90 to 92 (running ops).
HOST_LATE = run(annotation(PREFILL, 0, 100), launch(1, 10), launch(2, 90), gpu(GEMM, 20, 40, correlation=1),
                gpu(ATTENTION, 100, 40, correlation=2))
# The same step with both GEMMs launched at once: they run back to back from 20 to 100, the GPU busy throughout.
BACK_TO_BACK = run(annotation(PREFILL, 0, 100), launch(1, 10), launch(2, 12), gpu(GEMM, 20, 40, correlation=1),
                   gpu(GEMM, 60, 40, correlation=2))
# SGLang runs vLLM's layers, so its trace can carry vLLM's annotation around its own: an EXTEND step of 15
# requests and 15,360 tokens, then a DECODE step of the same 15 requests, one token each.
SGLANG = run(annotation("execute_15360_context_15(sq15360sk15360)_generation_0(sq0sk0)", 0, 300),
             annotation("step[EXTEND bs=15 toks=15360]", 10, 100), annotation("step[DECODE bs=15 toks=15]", 150, 50),
             launch(1, 20), gpu(GEMM, 30, 40, correlation=1))
# One vLLM step that mixes 9 requests in prefill with 37 decoding, 8,192 tokens in all.
MIXED_STEP = run(annotation(MIXED, 0, 100), launch(1, 10), gpu(GEMM, 20, 40, correlation=1))
# An SGLang decode step whose annotation gives no token count.
NO_TOKENS = run(annotation("step[DECODE bs=4]", 0, 100), launch(1, 10), gpu(GEMM, 20, 40, correlation=1))
NO_ENGINE = run(annotation("generate", 0, 100), launch(1, 10), gpu(GEMM, 20, 40, correlation=1))
NO_GPU = run(cpu("aten::mm", 0, 5))

ANSWERS = [
    Answer("vllms", HOST_LATE, ServingEngineIs("vLLM"), 1),
    Answer("sglangs-wins-over-vllms", SGLANG, ServingEngineIs("SGLang"), 1),
    Answer("not-vllms-then", SGLANG, ServingEngineIs("vLLM"), 0),
    Answer("no-engine", NO_ENGINE, ServingEngineIs("vLLM"), None),
    Answer("every-step", SGLANG, ServingSteps(), 2),
    Answer("the-decode-steps", SGLANG, ServingSteps(phase="decode"), 1),
    Answer("no-mixed-step", SGLANG, ServingSteps(phase="mixed"), 0),
    Answer("tokens-of-the-prefill", SGLANG, ServingSteps("tokens", "prefill"), 15360),
    Answer("tokens-of-every-step", SGLANG, ServingSteps("tokens"), 15360 + 15),
    Answer("batch-of-every-step", SGLANG, ServingSteps("batch"), 15 + 15),
    Answer("sglang-does-not-split-the-batch", SGLANG, ServingSteps("prefill_requests"), None),
    Answer("vllms-prefill-requests", MIXED_STEP, ServingSteps("prefill_requests", "mixed"), 9),
    Answer("vllms-decode-requests", MIXED_STEP, ServingSteps("decode_requests", "mixed"), 37),
    Answer("vllms-batch-adds-them", MIXED_STEP, ServingSteps("batch"), 9 + 37),
    Answer("tokens-after-execute", MIXED_STEP, ServingSteps("tokens"), 8192),
    Answer("tokens-from-the-parentheses", HOST_LATE, ServingSteps("tokens"), 888),
    Answer("a-step-without-tokens", NO_TOKENS, ServingSteps("tokens"), None),
    Answer("no-engine", NO_ENGINE, ServingSteps(), None),
    Answer("busy-throughout", BACK_TO_BACK, PhaseVerdictIs("prefill", "compute-bound"), 1),
    Answer("waiting-for-the-host", HOST_LATE, PhaseVerdictIs("prefill", "compute-bound"), 0),
    Answer("no-such-phase", HOST_LATE, PhaseVerdictIs("decode", "compute-bound"), None),
    Answer("busy-80-of-120", HOST_LATE, PhaseBusyShare("prefill"), 80 / 120),
    Answer("no-such-phase", HOST_LATE, PhaseBusyShare("mixed"), None),
    Answer("gpu-work-outlasts-the-annotation", HOST_LATE, PhaseSpanOverSteps("prefill"), 120 / 100),
    Answer("gpu-work-inside-the-annotation", BACK_TO_BACK, PhaseSpanOverSteps("prefill"), 80 / 100),
    Answer("no-engine", NO_ENGINE, PhaseSpanOverSteps("prefill"), None),
    Answer("gemms-half", HOST_LATE, FamilyTimeShare("gemm"), 40 / 80),
    Answer("gemms-all", BACK_TO_BACK, FamilyTimeShare("gemm"), 1),
    Answer("no-attention", BACK_TO_BACK, FamilyTimeShare("attention"), 0),
    Answer("no-kernels", NO_GPU, FamilyTimeShare("gemm"), None),
    Answer("in-the-region", HOST_LATE, WaitingHostShare("region"), 38 / 120),
    Answer("launching", HOST_LATE, WaitingHostShare("ops"), 2 / 120),
    Answer("never-waited", BACK_TO_BACK, WaitingHostShare("region"), 0),
    Answer("no-gpu-work", NO_GPU, WaitingHostShare("region"), None),
    Answer("two-of-a-name", BACK_TO_BACK, KernelsNamed("s16816gemm"), 2),
    Answer("as-written", BACK_TO_BACK, KernelsNamed("S16816GEMM"), 0),
    Answer("no-kernels", NO_GPU, KernelsNamed("gemm"), 0),
]


@answers(ANSWERS)
def test_known_answer(answer, tmp_path):
    known(answer, tmp_path)
