"""The recordings of Part 5, Inside a model: causal attention by hand, masking out of place and in place, and
F.scaled_dot_product_attention with each backend pinned; and the real GPU traces that show what the CPU stand-ins
cannot: SDPA's flash backend in BERT on an H100 and on an MI300X, the flash kernel's footprint in Qwen, and a B200's
attention from vLLM, with what the trace's occupancy column says of its driver-launched kernels."""

from functools import partial

from profguide.site.parts import TRACELENS, tracelens_trace
from profguide.site.recordings import (
    Claim,
    ColumnShare,
    CpuShare,
    DiffRows,
    DiffValue,
    Figure,
    KernelFootprint,
    KernelsDecoded,
    KernelsInside,
    KernelsPerCall,
    LaunchedBy,
    NestedIn,
    OccupancyLimit,
    OccupancyReadsZero,
    OpsInRegion,
    OpsPerCall,
    RealTrace,
    Recording,
    RowValue,
)
from profguide.site.recordings import exactly as exact_claim

PAGE = "inside-a-model/attention.md"
ATTENTION = "snippets.inside_a_model.attention"
SIZES = {"batch": 4, "heads": 16, "tokens": 1024, "head_dim": 64, "dtype": "bfloat16"}
# One intra-op thread on the CPU: on a small shared machine, the math backend's parallel ops (a tril, an upcast)
# each waited milliseconds for a second thread, and the call trees would show that wait as their time.
SIZES_ON_CPU = {"batch": 2, "heads": 4, "tokens": 128, "threads": 1}
REGION = "attention"
SDPA = "aten::scaled_dot_product_attention"
BY_HAND = ("masked_fill", "masked_fill_")
OUT_OF_PLACE, MATH = "model-attention-masked-fill", "model-attention-sdpa-math"
# The CPU has no efficient or cuDNN backend: their stand-ins run its only fused one.
ON_CPU_INSTEAD = {"efficient": "flash", "cudnn": "flash"}
WHOLE_REGION = Figure(trees=(REGION,), region=REGION)


def attention_run(variant, claims, compared_with="", figure=WHOLE_REGION):
    """One variant of the attention (``masked_fill``, ``masked_fill_`` or a backend), in a process of its own."""
    recording_id = {"masked_fill": OUT_OF_PLACE, "masked_fill_": OUT_OF_PLACE + "-inplace"}.get(
        variant, f"model-attention-sdpa-{variant}")
    instead = {"variant": ON_CPU_INSTEAD[variant]} if variant in ON_CPU_INSTEAD else {}
    # The two written by hand record memory too: what the copy allocates.
    memory = {"profile_memory": True} if variant in BY_HAND else {}
    return Recording(
        id=recording_id,
        module=ATTENTION,
        function="profile_attention",
        params={"variant": variant, "steps": 5, **SIZES, **memory},
        cpu_params={**SIZES_ON_CPU, **instead},
        title="Causal attention, {variant}, on {batch} × {heads} heads × {tokens} tokens × {head_dim} ({dtype}): "
              "{steps} steps",
        figure=figure,
        claims=claims,
        compared_with=compared_with,
    )


exactly = partial(exact_claim, PAGE)  # exactly(words, measure, value, device=None): a claim of this page


RECORDINGS = (
    attention_run("masked_fill", (
        exactly("`aten::masked_fill` holds one `aten::clone`", OpsInRegion("aten::masked_fill", "aten::clone"), 1),
        exactly("which ends in one `aten::copy_`", OpsInRegion("aten::masked_fill", "aten::copy_"), 1),
        exactly("then one `aten::masked_fill_` fills the copy", OpsInRegion("aten::masked_fill", "aten::masked_fill_"),
                1),
        exactly("the clone should launch one `Memcpy DtoD`", KernelsInside(op="aten::clone", named="Memcpy DtoD"), 1,
                device="cuda"),
        exactly("and nothing else", KernelsInside(op="aten::clone"), 1, device="cuda"),
        exactly("the out-of-place `aten::masked_fill` allocates as much as the scaling's `aten::mul`",
                ColumnShare("aten::masked_fill", "aten::mul", "cpu_memory_bytes"), 1, device="cpu"),
        exactly("the out-of-place run should launch six GPU operations a call", KernelsPerCall(region=REGION), 6,
                device="cuda"),
    ), figure=Figure(trees=("aten::masked_fill",), region=REGION)),
    attention_run("masked_fill_", (
        exactly("The in-place run's region holds no `aten::clone`", OpsInRegion(REGION, "aten::clone"), 0),
        exactly("and no `aten::masked_fill`", OpsInRegion(REGION, "aten::masked_fill"), 0),
        exactly("only the one `aten::masked_fill_`", OpsInRegion(REGION, "aten::masked_fill_"), 1),
        exactly("`profguide diff` finds four ops gone", DiffRows("ops", "removed"), 4, device="cpu"),
        exactly("and none added", DiffRows("ops", "added"), 0),
        exactly("On the CPU, the in-place region still holds one `aten::copy_`", OpsInRegion(REGION, "aten::copy_"), 1,
                device="cpu"),
        exactly("`aten::masked_fill_` allocates nothing", RowValue("aten::masked_fill_", "cpu_memory_bytes"), 0,
                device="cpu"),
        exactly("the diff finds the same peak of allocated memory in both runs",
                DiffValue("memory_peak_bytes", "ratio", key="cpu"), 1, device="cpu"),
        exactly("the in-place run five", KernelsPerCall(region=REGION), 5, device="cuda"),
        exactly("the diff should find no kernel gone", DiffRows("kernels", "removed"), 0, device="cuda"),
        exactly("and none new", DiffRows("kernels", "added"), 0, device="cuda"),
    ), compared_with=OUT_OF_PLACE, figure=Figure(trees=("aten::masked_fill_",), region=REGION)),
    attention_run("math", (
        exactly("The math backend's region holds one `aten::_scaled_dot_product_attention_math`",
                OpsInRegion(REGION, "aten::_scaled_dot_product_attention_math"), 1),
        exactly("builds the causal mask with one `aten::ones`", OpsInRegion(REGION, "aten::ones"), 1),
        exactly("and one `aten::tril`", OpsInRegion(REGION, "aten::tril"), 1),
        exactly("converts with `aten::_to_copy` seven times", OpsInRegion(REGION, "aten::_to_copy"), 7, device="cpu"),
        Claim(PAGE, "a call of the math backend holds about eighty `aten::` ops", OpsPerCall(REGION), at_least=76,
              at_most=84, device="cpu"),
        Claim(PAGE, "it should launch between fifteen and twenty-five kernels a call", KernelsPerCall(region=REGION),
              at_least=15, at_most=25, device="cuda"),
        exactly("all of them should be fp32 GEMMs", KernelsDecoded("gemm", "precision", "fp32"), 1, device="cuda"),
        Claim(PAGE, "The math backend's `aten::_scaled_dot_product_attention_math` spends next to none of it in its "
                    "own", CpuShare("aten::_scaled_dot_product_attention_math", SDPA), at_least=0, at_most=0.05,
              device="cpu"),
    )),
    attention_run("flash", (
        exactly("On the CPU, the flash backend's region holds one `aten::_scaled_dot_product_flash_attention_for_cpu`",
                OpsInRegion(REGION, "aten::_scaled_dot_product_flash_attention_for_cpu"), 1, device="cpu"),
        exactly("no `aten::ones`", OpsInRegion(REGION, "aten::ones"), 0),
        exactly("and no `aten::_to_copy`", OpsInRegion(REGION, "aten::_to_copy"), 0),
        exactly("`profguide diff` finds two dozen of the math backend's ops gone", DiffRows("ops", "removed"), 24,
                device="cpu"),
        exactly("and two added", DiffRows("ops", "added"), 2, device="cpu"),
        exactly("a call of the CPU's flash backend holds nineteen `aten::` ops", OpsPerCall(REGION), 19, device="cpu"),
        Claim(PAGE, "Flash's `aten::_scaled_dot_product_flash_attention_for_cpu` spends nearly all of its SDPA call's "
                    "time in its own code", CpuShare("aten::_scaled_dot_product_flash_attention_for_cpu", SDPA),
              at_least=0.9, at_most=1, device="cpu"),
    ), compared_with=MATH),
    attention_run("efficient", (
        exactly("the efficient backend's region should hold one `aten::_scaled_dot_product_efficient_attention`",
                OpsInRegion(REGION, "aten::_scaled_dot_product_efficient_attention"), 1, device="cuda"),
        exactly("whose kernels should all decode as memory-efficient attention",
                KernelsDecoded("attention", "backend", "memory-efficient"), 1, device="cuda"),
        exactly("one kernel a call", KernelsPerCall(region=REGION), 1, device="cuda"),
        exactly("in bfloat16", KernelsDecoded("attention", "precision", "bf16"), 1, device="cuda"),
    )),
    attention_run("cudnn", (
        exactly("the cuDNN backend's region should hold one `aten::_scaled_dot_product_cudnn_attention`",
                OpsInRegion(REGION, "aten::_scaled_dot_product_cudnn_attention"), 1, device="cuda"),
        exactly("and no `aten::transpose` at all", OpsInRegion(REGION, "aten::transpose"), 0, device="cuda"),
        exactly("its kernels should decode as cuDNN's", KernelsDecoded("attention", "backend", "cuDNN"), 1,
                device="cuda"),
        exactly("launched by `cuLaunchKernelEx`", LaunchedBy(("cuLaunchKernelEx",), "cudnn"), 1, device="cuda"),
    )),
)

FLASH_KERNEL = "flash_fwd"  # pytorch_flash::flash_fwd_kernel<…>, SDPA's flash backend on NVIDIA GPUs
FLASH_OP = "aten::_scaled_dot_product_flash_attention"
FLASH_FORWARD = "aten::_flash_attention_forward"
VLLM_ATTENTION = "vllm::unified_attention_with_output"  # vLLM's attention op, around FlashInfer's call

REAL_TRACES = (
    tracelens_trace(
        "model-h100-bert-attention", "h100-bert",
        figure=Figure(trees=(SDPA,)),
        claims=(
            exactly("each `aten::scaled_dot_product_attention` of the BERT pass holds one "
                    "`aten::_scaled_dot_product_flash_attention`", NestedIn(SDPA, FLASH_OP), 1),
            exactly("every attention kernel of the trace is flash's", KernelsDecoded("attention", "backend", "flash"),
                    1),
            exactly("each flash call launches one kernel", KernelsInside(op=FLASH_OP), 1),
            exactly("each flash call of the BERT pass holds four `aten::transpose`",
                    NestedIn(FLASH_OP, "aten::transpose"), 4),
            exactly("which the runtime's `cudaLaunchKernel` launches", LaunchedBy(("cudaLaunchKernel",), FLASH_KERNEL),
                    1),
            exactly("where the H100's holds no `aten::permute`", NestedIn(FLASH_FORWARD, "aten::permute"), 0),
        ),
    ),
    RealTrace(
        id="model-mi300x-bert-attention",
        file="docs/traces/mi300x_bert_small_inference.json.gz",
        title="BERT-small fill-mask inference on an MI300X, one sequence of 141 tokens, bf16",
        **TRACELENS,
        figure=Figure(trees=(SDPA,)),
        claims=(
            exactly("each `aten::scaled_dot_product_attention` holds the same "
                    "`aten::_scaled_dot_product_flash_attention` as on the H100", NestedIn(SDPA, FLASH_OP), 1),
            exactly("which launches one kernel a call", KernelsInside(op=FLASH_OP), 1),
            exactly("a Triton kernel", KernelsDecoded("attention", "backend", "Triton"), 1),
            exactly("launched by `hipModuleLaunchKernel`", LaunchedBy(("hipModuleLaunchKernel",), "attn_fwd"), 1),
            exactly("ATen's flash forward holds four `aten::permute` on the MI300X", NestedIn(FLASH_FORWARD,
                                                                                             "aten::permute"), 4),
        ),
    ),
    tracelens_trace(
        "model-h100-qwen-attention", "h100-qwen",
        claims=(
            exactly("each `aten::contiguous` of the H100's Qwen pass holds one `aten::clone`",
                    NestedIn("aten::contiguous", "aten::clone"), 1),
            exactly("each `aten::clone` of the H100's Qwen pass launches one copy kernel",
                    KernelsInside(op="aten::clone", family="copy"), 1),
            exactly("and no `Memcpy DtoD`", KernelsInside(op="aten::clone", named="Memcpy DtoD"), 0),
            exactly("the one FP32 GEMM of the H100's Qwen pass runs on the CUDA cores",
                    KernelsDecoded("gemm", "tensor_cores", "no", count=True), 1),
            exactly("Registers are what limits the flash kernel", OccupancyLimit(FLASH_KERNEL, "registers"), 1),
            exactly("two of its blocks fit on an SM", KernelFootprint(FLASH_KERNEL, "blocks"), 2),
            exactly("its shared memory alone would let four fit", KernelFootprint(FLASH_KERNEL,
                                                                                   "blocks by shared memory"), 4),
            exactly("an eighth of the warps an SM can hold", KernelFootprint(FLASH_KERNEL, "theoretical"), 0.125),
            Claim(PAGE, "the trace's own column reads about an eighth too", KernelFootprint(FLASH_KERNEL, "recorded"),
                  at_least=0.12, at_most=0.14),
            exactly("cuBLASLt's GEMMs beside it fit one block an SM", KernelFootprint("sm90_xmma", "blocks"), 1),
            exactly("the H100's cuBLASLt GEMMs, launched by the runtime's `cudaLaunchKernelExC`, read 0 % in the "
                    "column", OccupancyReadsZero(calls=("cudaLaunchKernelExC",), kernels="sm90_xmma"), 1),
        ),
    ),
    tracelens_trace(
        "model-b200-vllm", "b200-vllm",
        figure=Figure(trees=(VLLM_ATTENTION,)),
        claims=(
            exactly("each `vllm::unified_attention_with_output` launches one attention kernel",
                    KernelsInside(op=VLLM_ATTENTION, family="attention"), 1),
            exactly("the one `aten::masked_fill_` of the B200's trace launches a single kernel",
                    KernelsInside(op="aten::masked_fill_"), 1),
            exactly("and holds no `aten::copy_`", NestedIn("aten::masked_fill_", "aten::copy_"), 0),
            exactly("each `vllm::all_reduce` of the B200's trace holds two `aten::copy_`",
                    NestedIn("vllm::all_reduce", "aten::copy_"), 2),
            exactly("which launch two `Memcpy DtoD`", KernelsInside(op="vllm::all_reduce", named="Memcpy DtoD"), 2),
            exactly("the B200's cuBLAS GEMMs (`nvjet_…`) are all launched by `cuLaunchKernelEx`",
                    LaunchedBy(("cuLaunchKernelEx",), "nvjet"), 1),
            exactly("and so are its attention kernels (`fmhaSm100aKernel_…`)", LaunchedBy(("cuLaunchKernelEx",),
                                                                                        "fmha"), 1),
            exactly("every kernel of the B200's trace whose blocks use more shared memory than the default limit "
                    "reads 0 %", OccupancyReadsZero(shared_memory="above default"), 1),
            exactly("none of those within the limit whose grid gives every SM a block does",
                    OccupancyReadsZero(shared_memory="within default", full_grid=True), 0),
            exactly("Its attention kernels, which `cuLaunchKernelEx` launched too, read above 0 %",
                    OccupancyReadsZero(calls=("cuLaunchKernelEx",), kernels="fmha"), 0),
        ),
    ),
)
