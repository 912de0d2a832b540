"""The recordings of Part 5, Inside a model: a GeGLU MLP, eager and compiled."""

from functools import partial

from profguide.site.recordings import (
    Claim,
    CpuShare,
    DeviceShare,
    DiffRows,
    Figure,
    KernelsDecoded,
    NamedInRegion,
    OccupancyQueries,
    OpsInRegion,
    PerStepFall,
    Recording,
    RowValue,
)
from profguide.site.recordings import exactly as exact_claim

PAGE = "inside-a-model/mlp.md"
MLP = "snippets.model.mlp"
STEPS = 5
SIZES = {"width": 768, "hidden": 3072, "batch": 8, "tokens": 128}
SIZES_ON_CPU = {"width": 256, "hidden": 1024, "batch": 4, "tokens": 32}
REGION = "GeGLU MLP"
EAGER = "model-mlp-eager"
# The ops the compiled run no longer records: each projection's chain down to its multiply, and the two pointwise ops.
EAGER_ONLY = ("aten::linear", "aten::t", "aten::transpose", "aten::as_strided", "aten::matmul", "aten::reshape",
              "aten::view", "aten::_unsafe_view", "aten::gelu", "aten::mul")
# Inductor's C++ kernel, named after the ops it fused; the graph's number comes first.
CPP_KERNEL = "graph_0_cpp_fused_"


def mlp_run(compiled, claims, compared_with=""):
    """The block on one batch, eager or compiled; its first forward is taken apart in the chains fragment."""
    return Recording(
        id="model-mlp-compiled" if compiled else EAGER,
        module=MLP,
        function="profile_mlp",
        params={"compiled": compiled, "steps": STEPS, **SIZES},
        cpu_params=SIZES_ON_CPU,
        title="A GeGLU MLP ({width} → {hidden} → {width}) on {batch} × {tokens} tokens, "
              + ("compiled" if compiled else "eager") + ": {steps} steps",
        figure=Figure(trees=(REGION,)),
        claims=claims,
        compared_with=compared_with,
    )


exactly = partial(exact_claim, PAGE)  # exactly(words, measure, value, device=None): a claim of this page


def no_device_time(page_words, op):
    return exactly(page_words, RowValue(op, "device_total_us"), 0, device="cuda")


RECORDINGS = (
    mlp_run(False, (
        exactly("The forward's region holds three `aten::linear`", OpsInRegion(REGION, "aten::linear"), 3),
        exactly("each with one `aten::mm` under it", OpsInRegion(REGION, "aten::mm"), 3),
        exactly("and no `aten::addmm`", OpsInRegion(REGION, "aten::addmm"), 0),
        exactly("one `aten::gelu`", OpsInRegion(REGION, "aten::gelu"), 1),
        exactly("and one `aten::mul`", OpsInRegion(REGION, "aten::mul"), 1),
        exactly("each `aten::linear` goes through one `aten::matmul`", OpsInRegion(REGION, "aten::matmul"), 3),
        exactly("three `aten::reshape`, each with an `aten::view` under it", OpsInRegion(REGION, "aten::view"), 3),
        exactly("three `aten::_unsafe_view`", OpsInRegion(REGION, "aten::_unsafe_view"), 3),
        exactly("three `aten::as_strided`, one under each `aten::t`", OpsInRegion(REGION, "aten::as_strided"), 3),
        Claim(PAGE, "On the CPU, nearly all of each `aten::linear`'s time went to its `aten::mm`",
              CpuShare("aten::mm", "aten::linear", self_time=False), at_least=0.9, at_most=1, device="cpu"),
        Claim(PAGE, "`aten::t` took a few hundredths of it at most",
              CpuShare("aten::t", "aten::linear", self_time=False), at_least=0.001, at_most=0.05, device="cpu"),
        no_device_time("On a GPU, the rows of `aten::t`", "aten::t"),
        no_device_time("`aten::reshape`", "aten::reshape"),
        no_device_time("and `aten::_unsafe_view` should show no device time", "aten::_unsafe_view"),
        exactly("fifteen GEMM kernels over the five steps", KernelsDecoded("gemm"), 3 * STEPS, device="cuda"),
        exactly("and ten elementwise ones", KernelsDecoded("elementwise"), 2 * STEPS, device="cuda"),
        Claim(PAGE, "most of the kernel time should belong to the three `aten::mm`", DeviceShare("aten::mm"),
              at_least=0.5, at_most=1, device="cuda"),
        exactly("every occupancy query should come right before a GEMM's launch", OccupancyQueries("gemm", "queries"),
                1, device="cuda"),
        exactly("no elementwise kernel should come right after one", OccupancyQueries("elementwise", "launches"), 0,
                device="cuda"),
    )),
    mlp_run(True, (
        exactly("The compiled forward still holds three `aten::mm`", OpsInRegion(REGION, "aten::mm"), 3),
        exactly("each called by the graph that Inductor compiled", NamedInRegion(REGION, "## Call CompiledFxGraph"), 1),
        exactly("no `aten::linear`", OpsInRegion(REGION, "aten::linear"), 0),
        exactly("no `aten::gelu`", OpsInRegion(REGION, "aten::gelu"), 0),
        exactly("and no `aten::mul`", OpsInRegion(REGION, "aten::mul"), 0),
        exactly("On the CPU, between the second and the third `aten::mm` sits one event named "
                "`graph_0_cpp_fused__unsafe_view_gelu_mul_0`", NamedInRegion(REGION, CPP_KERNEL), 1, device="cpu"),
        exactly("`profguide diff` finds ten of the eager run's ops gone", DiffRows("ops", "removed"), len(EAGER_ONLY)),
        Claim(PAGE, "and a handful added", DiffRows("ops", "added"), at_least=4, at_most=9),
        Claim(PAGE, "On the CPU, the compiled forward records about a quarter as many `aten::` ops as the eager one",
              PerStepFall("aten_ops", EAGER), at_least=3.5, at_most=4.5, device="cpu"),
        exactly("On a GPU, the compiled step should launch four kernels for every five of the eager one",
                PerStepFall("kernels", EAGER), 1.25, device="cuda"),
        exactly("the two elementwise kernels of the eager run should be gone", DiffRows("kernels", "removed"), 2,
                device="cuda"),
        exactly("and one generated kernel new", DiffRows("kernels", "added"), 1, device="cuda"),
        exactly("one generated Triton kernel a forward", KernelsDecoded("triton"), STEPS, device="cuda"),
    ), compared_with=EAGER),
)
