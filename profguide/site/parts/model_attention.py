"""The recordings of Part 5, Inside a model: causal attention by hand, masking out of place and in place, and
F.scaled_dot_product_attention with each backend pinned."""

from functools import partial

from profguide.site.recordings import (
    Claim,
    DiffRows,
    Figure,
    KernelsDecoded,
    LaunchedBy,
    OpsInRegion,
    PerStepFall,
    Recording,
)
from profguide.site.recordings import exactly as exact_claim

PAGE = "inside-a-model/attention.md"
ATTENTION = "snippets.model.attention"
SIZES = {"batch": 4, "heads": 16, "tokens": 1024, "head_dim": 64, "dtype": "bfloat16"}
# One intra-op thread on the CPU: on a small shared machine, the math backend's parallel ops (a tril, an upcast)
# each waited milliseconds for a second thread, and the call trees would show that wait as their time.
SIZES_ON_CPU = {"batch": 2, "heads": 4, "tokens": 128, "threads": 1}
REGION = "attention"
OUT_OF_PLACE, MATH = "model-attention-masked-fill", "model-attention-sdpa-math"
# The CPU has no efficient or cuDNN backend: their stand-ins run its only fused one.
ON_CPU_INSTEAD = {"efficient": "flash", "cudnn": "flash"}
WHOLE_REGION = Figure(trees=(REGION,))


def attention_run(variant, claims, compared_with="", figure=WHOLE_REGION):
    """One variant of the attention (``masked_fill``, ``masked_fill_`` or a backend), in a process of its own."""
    recording_id = {"masked_fill": OUT_OF_PLACE, "masked_fill_": OUT_OF_PLACE + "-inplace"}.get(
        variant, f"model-attention-sdpa-{variant}")
    instead = {"variant": ON_CPU_INSTEAD[variant]} if variant in ON_CPU_INSTEAD else {}
    return Recording(
        id=recording_id,
        module=ATTENTION,
        function="profile_attention",
        params={"variant": variant, "steps": 5, **SIZES},
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
        exactly("On a GPU, each step should launch one copy kernel", KernelsDecoded("copy"), 5, device="cuda"),
    ), figure=Figure(trees=("aten::masked_fill",))),
    attention_run("masked_fill_", (
        exactly("The in-place run's region holds no `aten::clone`", OpsInRegion(REGION, "aten::clone"), 0),
        exactly("and no `aten::masked_fill`", OpsInRegion(REGION, "aten::masked_fill"), 0),
        exactly("only the one `aten::masked_fill_`", OpsInRegion(REGION, "aten::masked_fill_"), 1),
        exactly("`profguide diff` finds four ops gone", DiffRows("ops", "removed"), 4),
        exactly("and none added", DiffRows("ops", "added"), 0),
        exactly("On the CPU, the in-place region still holds one `aten::copy_`", OpsInRegion(REGION, "aten::copy_"), 1,
                device="cpu"),
        exactly("On a GPU, the in-place run should launch no copy kernel", KernelsDecoded("copy"), 0, device="cuda"),
        exactly("the diff should find that one kernel gone", DiffRows("kernels", "removed"), 1, device="cuda"),
        exactly("and none new", DiffRows("kernels", "added"), 0, device="cuda"),
        exactly("five kernels a step where the out-of-place run launched six", PerStepFall("kernels", OUT_OF_PLACE),
                1.2, device="cuda"),
    ), compared_with=OUT_OF_PLACE, figure=Figure(trees=("aten::masked_fill_",))),
    attention_run("math", (
        exactly("The math backend's region holds one `aten::_scaled_dot_product_attention_math`",
                OpsInRegion(REGION, "aten::_scaled_dot_product_attention_math"), 1),
        exactly("builds the causal mask with one `aten::ones`", OpsInRegion(REGION, "aten::ones"), 1),
        exactly("and one `aten::tril`", OpsInRegion(REGION, "aten::tril"), 1),
        exactly("converts with `aten::_to_copy` seven times", OpsInRegion(REGION, "aten::_to_copy"), 7, device="cpu"),
        exactly("On a GPU, none of the math backend's GEMMs should run on tensor cores",
                KernelsDecoded("gemm", "tensor_cores", "yes", count=True), 0, device="cuda"),
        exactly("all of them should be fp32 GEMMs", KernelsDecoded("gemm", "precision", "fp32"), 1, device="cuda"),
    )),
    attention_run("flash", (
        exactly("On the CPU, the flash backend's region holds one `aten::_scaled_dot_product_flash_attention_for_cpu`",
                OpsInRegion(REGION, "aten::_scaled_dot_product_flash_attention_for_cpu"), 1, device="cpu"),
        exactly("no `aten::ones`", OpsInRegion(REGION, "aten::ones"), 0),
        exactly("and no `aten::_to_copy`", OpsInRegion(REGION, "aten::_to_copy"), 0),
        exactly("`profguide diff` finds two dozen of the math backend's ops gone", DiffRows("ops", "removed"), 24,
                device="cpu"),
        exactly("and two added", DiffRows("ops", "added"), 2, device="cpu"),
        exactly("On a GPU, the region should hold one `aten::_scaled_dot_product_flash_attention`",
                OpsInRegion(REGION, "aten::_scaled_dot_product_flash_attention"), 1, device="cuda"),
        exactly("every attention kernel should be flash's", KernelsDecoded("attention", "backend", "flash"), 1,
                device="cuda"),
        Claim(PAGE, "one kernel a step for every dozen or more that the math backend launches",
              PerStepFall("kernels", MATH), at_least=12, at_most=30, device="cuda"),
    ), compared_with=MATH),
    attention_run("efficient", (
        exactly("the efficient backend's region should hold one `aten::_scaled_dot_product_efficient_attention`",
                OpsInRegion(REGION, "aten::_scaled_dot_product_efficient_attention"), 1, device="cuda"),
        exactly("whose kernels should all decode as memory-efficient attention",
                KernelsDecoded("attention", "backend", "memory-efficient"), 1, device="cuda"),
    )),
    attention_run("cudnn", (
        exactly("the cuDNN backend's region should hold one `aten::_scaled_dot_product_cudnn_attention`",
                OpsInRegion(REGION, "aten::_scaled_dot_product_cudnn_attention"), 1, device="cuda"),
        exactly("and no `aten::transpose`", OpsInRegion(REGION, "aten::transpose"), 0, device="cuda"),
        exactly("its kernels should decode as cuDNN's", KernelsDecoded("attention", "backend", "cuDNN"), 1,
                device="cuda"),
        exactly("every one of them launched by `cuLaunchKernelEx`", LaunchedBy(("cuLaunchKernelEx",), "cudnn"), 1,
                device="cuda"),
    )),
)
