"""The real traces of Serving a model, *A serving engine's trace*: vLLM on a B200 (tensor parallel 8, a mixture of
experts, one prefill step), vLLM on an MI300X (one step mixing prefill and decode, replayed from piecewise graphs),
and SGLang on an MI300X (one prefill step); and the table of each trace's serving steps, which only this page shows."""

from __future__ import annotations

from typing import TYPE_CHECKING

from profguide.site.measures.communication import CommunicationHidden
from profguide.site.measures.host import CallCount
from profguide.site.measures.kernels import KernelsDecoded
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
from profguide.site.measures.summary import ExplainBusyShare, VerdictIs
from profguide.site.measures.timing import Encloses
from profguide.site.parts import TRACELENS, tracelens_trace
from profguide.site.recordings import Claim, RealTrace

if TYPE_CHECKING:
    from profguide.site.fragment_run import Maker
    from profguide.site.parts import Bounds
    from profguide.site.recordings import Run

PAGE = "serving-a-model/serving-engine.md"
ONE: Bounds = {"at_least": 1, "at_most": 1}  # a count of one; a share of all; a yes
NONE: Bounds = {"at_least": 0, "at_most": 0}
# SGLang's step, and vLLM's annotation of the same forward pass around it (SGLang runs vLLM's layers).
SGLANG_STEP = "step[EXTEND bs=15 toks=15360]"
VLLM_IN_SGLANG = "execute_15360_context_15(sq15360sk15360sqsq15728640sqsk15728640)_generation_0(sq0sk0sqsq0sqsk0)"
SGLANG_SOURCE = "/sgl-workspace/sglang/python/sglang/srt/"
# vLLM's logits processor gathers each rank's share of the vocabulary's logits.
GATHER_LOGITS = "vllm/model_executor/layers/logits_processor.py(71): _gather_logits"
B200_STEP = "execute_context_1(888_788544)_generation_0(0)"
MI300X_STEP = ("execute_8192_context_9(sq8155sk8430sqsq7475785sqsk7671310)"
               "_generation_37(sq37sk34489sqsq37sqsk34489)")

REAL_TRACES = (
    tracelens_trace(
        "serving-b200-vllm", "b200-vllm",
        claims=(
            Claim(PAGE, "vLLM's own annotation names the step", ServingEngineIs("vLLM"), **ONE),
            Claim(PAGE, "The B200's trace holds one step", ServingSteps(), **ONE),
            Claim(PAGE, "a prefill: one request in its context", ServingSteps("prefill_requests", "prefill"),
                  **ONE),
            Claim(PAGE, "none generating", ServingSteps("decode_requests"), **NONE),
            Claim(PAGE, "888 tokens of prompt", ServingSteps("tokens", "prefill"), at_least=888, at_most=888),
            Claim(PAGE, "the GPU's work ends before the step's annotation does", PhaseSpanOverSteps("prefill"),
                  at_least=0.8, at_most=1),
            Claim(PAGE, "busy about a seventh of it", PhaseBusyShare("prefill"), at_least=0.12, at_most=0.16),
            Claim(PAGE, "no CUDA graph replays its layers", CallCount("cudaGraphLaunch"), **NONE),
            Claim(PAGE, "explain judges the prefill python-bound", PhaseVerdictIs("prefill", "python-bound"), **ONE),
            Claim(PAGE, "in Python outside any op for nearly half of the window",
                  WaitingHostShare("python"), at_least=0.4, at_most=0.5),
            Claim(PAGE, "running ops and launching their kernels for well over a third",
                  WaitingHostShare("ops"), at_least=0.35, at_most=0.42),
            Claim(PAGE, "36 attention kernels", KernelsDecoded("attention"), at_least=36, at_most=36),
            Claim(PAGE, "called from vLLM's FlashInfer backend",
                  Encloses(B200_STEP, "vllm/v1/attention/backends/flashinfer.py(1064): forward"), **ONE),
            Claim(PAGE, "FlashInfer's `trtllm_fp4_block_scale_moe_op`",
                  Encloses(B200_STEP, "flashinfer/fused_moe/core.py(1633): trtllm_fp4_block_scale_moe_op"), **ONE),
            Claim(PAGE, "every one of them trtllm-gen's", KernelsDecoded("attention", "backend", "trtllm-gen"),
                  **ONE),
            Claim(PAGE, "18 of them have `SlidingOrChunked` in the name",
                  KernelsNamed("PagedKvSlidingOrChunkedCausal"), at_least=18, at_most=18),
            Claim(PAGE, "attention takes under a twentieth of the B200's kernel time", FamilyTimeShare("attention"),
                  at_least=0.02, at_most=0.05),
            Claim(PAGE, "72 GEMMs whose names decode as trtllm-gen's",
                  KernelsDecoded("gemm", "library", "trtllm-gen", count=True), at_least=72, at_most=72),
            Claim(PAGE, "all 72 in fp4", KernelsDecoded("gemm", "precision", "fp4", count=True), at_least=72,
                  at_most=72),
            Claim(PAGE, "GEMMs take over half of the kernel time", FamilyTimeShare("gemm"), at_least=0.5,
                  at_most=0.6),
            Claim(PAGE, "73 all-reduces through symmetric memory",
                  KernelsDecoded("communication", "library", "symmetric memory", count=True), at_least=73,
                  at_most=73),
            Claim(PAGE, "a single NCCL all-gather", KernelsDecoded("communication", "kind", "all-gather", count=True),
                  **ONE),
            Claim(PAGE, "a single NCCL all-gather", KernelsDecoded("communication", "library", "NCCL", count=True),
                  **ONE),
            Claim(PAGE, "under vLLM's `_gather_logits`", Encloses(GATHER_LOGITS, "nccl:_all_gather_base"), **ONE),
            Claim(PAGE, "Communication takes about a fifth of the kernel time", FamilyTimeShare("communication"),
                  at_least=0.17, at_most=0.23),
            Claim(PAGE, "none of it hidden behind computation", CommunicationHidden(), at_least=0, at_most=0.01),
            Claim(PAGE, "36 times on the B200", KernelsNamed("reshape_and_cache_flash_kernel"), at_least=36,
                  at_most=36),
        ),
    ),
    RealTrace(
        id="serving-mi300x-vllm",
        file="docs/traces/mi300x_vllm_piecewise_graph_execution.json.gz",
        title="vLLM on an MI300X: one step of 46 requests, 9 in prefill and 37 decoding, replayed from piecewise "
              "graphs",
        **TRACELENS,
        claims=(
            Claim(PAGE, "The MI300X's vLLM trace holds one step", ServingSteps(), **ONE),
            Claim(PAGE, "a mixed one", ServingSteps(phase="mixed"), **ONE),
            Claim(PAGE, "9 requests in prefill", ServingSteps("prefill_requests"), at_least=9, at_most=9),
            Claim(PAGE, "37 decoding", ServingSteps("decode_requests"), at_least=37, at_most=37),
            Claim(PAGE, "8,192 tokens in all", ServingSteps("tokens"), at_least=8192, at_most=8192),
            Claim(PAGE, "replayed by 25 calls of `hipGraphLaunch`", CallCount("hipGraphLaunch"), at_least=25,
                  at_most=25),
            Claim(PAGE, "the GPU's work lasts about six times as long as the annotation",
                  PhaseSpanOverSteps("mixed"), at_least=5.5, at_most=6.5),
            Claim(PAGE, "busy nearly all of it", PhaseBusyShare("mixed"), at_least=0.99, at_most=1),
            Claim(PAGE, "explain judges the mixed step compute-bound", PhaseVerdictIs("mixed", "compute-bound"),
                  **ONE),
            Claim(PAGE, "AITER's `unified_attention`",
                  Encloses(MI300X_STEP, "aiter/ops/triton/attention/unified_attention.py(103): unified_attention"),
                  **ONE),
            Claim(PAGE, "24 `kernel_unified_attention_2d`", KernelsNamed("kernel_unified_attention_2d"),
                  at_least=24, at_most=24),
            Claim(PAGE, "24 `reshape_and_cache_flash_kernel`", KernelsNamed("reshape_and_cache_flash_kernel"),
                  at_least=24, at_most=24),
            Claim(PAGE, "Attention takes a few hundredths of the kernel time", FamilyTimeShare("attention"),
                  at_least=0.02, at_most=0.05),
            Claim(PAGE, "48 `_matmul_ogs_` kernels", KernelsNamed("_matmul_ogs_"), at_least=48, at_most=48),
            Claim(PAGE, "Triton's, in fp4", KernelsDecoded("gemm", "library", "Triton", count=True), at_least=48,
                  at_most=48),
            Claim(PAGE, "Triton's, in fp4", KernelsDecoded("gemm", "precision", "fp4", count=True), at_least=48,
                  at_most=48),
            Claim(PAGE, "Half of them end in `_swiglu`", KernelsNamed("_swiglu"), at_least=24, at_most=24),
            Claim(PAGE, "GEMMs take about nine tenths of the kernel time", FamilyTimeShare("gemm"), at_least=0.85,
                  at_most=0.93),
            Claim(PAGE, "no communication kernel", FamilyTimeShare("communication"), **NONE),
        ),
    ),
    RealTrace(
        id="serving-mi300x-sglang",
        file="docs/traces/mi300x_sglang_qwen3_8b_prefill_decode.json.gz",
        title="SGLang serving Qwen3-8B on an MI300X: one prefill step of 15 requests",
        **TRACELENS,
        claims=(
            Claim(PAGE, "SGLang's annotation names the step", ServingEngineIs("SGLang"), **ONE),
            Claim(PAGE, "vLLM's annotation is there too, around SGLang's", Encloses(VLLM_IN_SGLANG, SGLANG_STEP),
                  **ONE),
            Claim(PAGE, "spanning the batch's preparation as well", Encloses(VLLM_IN_SGLANG, "hipMemcpyWithStream"),
                  **ONE),
            Claim(PAGE, "The SGLang trace holds one step", ServingSteps(), **ONE),
            Claim(PAGE, "no decode step", ServingSteps(phase="decode"), **NONE),
            Claim(PAGE, "15 requests", ServingSteps("batch", "prefill"), at_least=15, at_most=15),
            Claim(PAGE, "15,360 tokens", ServingSteps("tokens", "prefill"), at_least=15360, at_most=15360),
            Claim(PAGE, "explain's verdict over the whole trace is sync-bound", VerdictIs("sync-bound"), **ONE),
            Claim(PAGE, "the GPU busy about half of the window", ExplainBusyShare(), at_least=0.45, at_most=0.55),
            Claim(PAGE, "blocked in a synchronisation for about half of the window", WaitingHostShare("sync"),
                  at_least=0.45, at_most=0.55),
            Claim(PAGE, "in SGLang's `ForwardBatch.init_new`",
                  Encloses(SGLANG_SOURCE + "model_executor/forward_batch_info.py(443): init_new",
                           "hipMemcpyWithStream"), **ONE),
            Claim(PAGE, "before the step's annotation opens", Encloses(SGLANG_STEP, "hipMemcpyWithStream"), **NONE),
            Claim(PAGE, "inside the scheduler's `_run_batch_inner`",
                  Encloses(SGLANG_SOURCE + "managers/scheduler.py(2919): _run_batch_inner", SGLANG_STEP), **ONE),
            Claim(PAGE, "the prefill's own verdict is compute-bound", PhaseVerdictIs("prefill", "compute-bound"),
                  **ONE),
            Claim(PAGE, "the GPU busy nearly all of its span", PhaseBusyShare("prefill"), at_least=0.99, at_most=1),
            Claim(PAGE, "over fifteen times as long as the annotation", PhaseSpanOverSteps("prefill"), at_least=15,
                  at_most=20),
            Claim(PAGE, "36 `FmhaBatchPrefillWithPagedKVCache` kernels",
                  KernelsNamed("FmhaBatchPrefillWithPagedKVCache"), at_least=36, at_most=36),
            Claim(PAGE, "SGLang's AITER attention backend (`forward_extend`)",
                  Encloses(SGLANG_STEP, SGLANG_SOURCE + "layers/attention/aiter_backend.py(2039): forward_extend"),
                  **ONE),
            Claim(PAGE, "AITER's `tuned_gemm`", Encloses(SGLANG_STEP, "aiter/tuned_gemm.py(552): mm"), **ONE),
            Claim(PAGE, "145 of AITER's `add_rmsnorm_quant_kernel`", KernelsNamed("add_rmsnorm_quant_kernel"),
                  at_least=145, at_most=145),
            Claim(PAGE, "attention's share of the kernel time is a few hundredths here too",
                  FamilyTimeShare("attention"), at_least=0.02, at_most=0.05),
            Claim(PAGE, "GEMMs take over four fifths of the kernel time", FamilyTimeShare("gemm"), at_least=0.8,
                  at_most=0.9),
        ),
    ),
)


def steps_table(data: Run) -> dict[str, str]:
    """Each serving step that ``profguide explain`` finds in the trace, from the engine's own annotation: its phase,
    requests and tokens, its length on the host; then the span of GPU work its phase is judged over, the GPU's busy
    share there and the verdict."""
    from profguide.render.fragments import percent
    from profguide.site.fragment_run import FragmentError, source_note
    from profguide.text import code_cell, format_duration, markdown_table

    serving = data.summary["serving"]
    if serving is None:
        raise FragmentError("no serving engine's step annotation in the trace")
    judged = {phase["phase"]: phase for phase in serving["phases"]}

    def number(value: int | None) -> str:
        return "–" if value is None else f"{value:,}"

    def busy(pct: float | None) -> str:
        return "–" if pct is None else percent(pct, 100)

    rows = []
    for step in serving["steps"]:
        phase = judged[step["phase"]]
        requests = (number(step["batch"]) if step["prefill_requests"] is None else
                    f"{step['batch']:,} ({step['prefill_requests']:,} prefill, {step['decode_requests']:,} decode)")
        rows.append((code_cell(step["name"]), step["phase"], requests, number(step["tokens"]),
                     format_duration(step["dur_us"]), format_duration(phase["window"]["dur_us"]),
                     busy(phase["gpu_busy_pct"]), phase["verdict"]))
    table = markdown_table(("Step (its annotation)", "Phase", "Requests", "Tokens", "On the host",
                            "GPU work, first start to last end", "GPU busy", "Verdict"), rows, "lllrrrrl")
    return {"serving-steps.md": f'<div class="pg-reflow" markdown>\n\n{table}\n</div>\n'
            f"\n{serving['engine']}'s annotations, as `profguide explain` reads them.\n" + source_note(data)}


FRAGMENTS: dict[str, Maker] = {"serving-steps.md": steps_table}
