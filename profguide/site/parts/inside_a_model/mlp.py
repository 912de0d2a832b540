"""The recordings of Part 5, Inside a model: a GeGLU MLP, eager and compiled, and compiled for sequences of a
changing length; and the real GPU traces that show what the CPU stand-ins predict for a GPU: Qwen's MLP on an
H100, and the occupancy queries of an A100 job."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from profguide.site.measures.compile import CallsThatCompile, PerStepFall
from profguide.site.measures.host import CallCount, OccupancyQueries
from profguide.site.measures.kernels import GemmCallRatio, GemmCallsNamed, KernelsDecoded, KernelsInside
from profguide.site.measures.ops import ModuleShare, NamedInRegion, OpsInRegion, OpTotal
from profguide.site.measures.results import CpuShare
from profguide.site.measures.summary import DiffRows
from profguide.site.parts import HTA, TRACELENS, tracelens_trace
from profguide.site.recordings import Claim, Figure, RealTrace, Recording
from profguide.site.recordings import exactly as exact_claim

if TYPE_CHECKING:
    from profguide.site.parts import Bounds

PAGE = "inside-a-model/mlp.md"
MLP = "snippets.inside_a_model.mlp"
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


def mlp_run(compiled: bool, claims: tuple[Claim, ...], compared_with: str = "") -> Recording:
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


LENGTHS = "snippets.inside_a_model.mlp_shapes"
# Five calls on three lengths: a length seen before, then a new one, each twice, then a third.
TOKENS = {"tokens": [128, 128, 192, 192, 256]}
TOKENS_ON_CPU = {"tokens": [32, 32, 48, 48, 64]}


def lengths_run(recording_id: str, dynamic: bool | None, claims: tuple[Claim, ...]) -> Recording:
    """The compiled block's calls as the sequences' length changes, compiled with ``dynamic``: one of the runs
    that the page's calls table puts side by side."""
    sizes = {name: SIZES[name] for name in ("width", "hidden", "batch")}
    sizes_on_cpu = {name: SIZES_ON_CPU[name] for name in ("width", "hidden", "batch")}
    return Recording(id=recording_id, module=LENGTHS, function="profile_lengths",
                     params={"dynamic": dynamic, **sizes, **TOKENS}, cpu_params={**sizes_on_cpu, **TOKENS_ON_CPU},
                     title="A GeGLU MLP ({width} → {hidden} → {width}) compiled with dynamic={dynamic}, on sequences "
                           "of a changing length",
                     figure=Figure(region="call"), claims=claims)


def no_device_time(page_words: str, op: str) -> Claim:
    return exactly(page_words, OpTotal(op, "device_us"), 0)


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
    ), compared_with=EAGER),
    lengths_run("model-mlp-lengths", None, (
        exactly("With the default, `dynamic=None`, two of the five calls compiled", CallsThatCompile("call"), 2),
    )),
    lengths_run("model-mlp-lengths-static", False, (
        exactly("with `dynamic=False`, three did, one for each length", CallsThatCompile("call"), 3),
    )),
)

QWEN_MLP = "Qwen2MLP"
# Qwen's MLP projections as the TraceLens traces record their `aten::mm` (16 sequences of 559 tokens, 8,944 rows):
# gate and up widen the model's 1,024 to 2,816, down narrows them back; the same FLOPs in two shapes.
GATE_AND_UP = "[[8944, 1024], [1024, 2816]]"
DOWN = "[[8944, 2816], [2816, 1024]]"
# "About a tenth less time" for a call of down than for one of gate or up.
A_TENTH_LESS: Bounds = {"at_least": 0.88, "at_most": 0.92}

REAL_TRACES = (
    tracelens_trace(
        "model-h100-qwen-mlp", "h100-qwen",
        claims=(
            no_device_time("the calls of `aten::t` launched no GPU work", "aten::t"),
            no_device_time("nor did those of `aten::reshape`", "aten::reshape"),
            no_device_time("nor those of `aten::_unsafe_view`", "aten::_unsafe_view"),
            exactly("each call of `Qwen2MLP` launches three GEMMs", KernelsInside(module=QWEN_MLP, family="gemm"), 3),
            exactly("and two elementwise kernels", KernelsInside(module=QWEN_MLP, family="elementwise"), 2),
            exactly("one of them a `silu_kernel`", KernelsInside(module=QWEN_MLP, named="silu_kernel"), 1),
            exactly("and three memsets, which the decoder counts with the copies",
                    KernelsInside(module=QWEN_MLP, family="copy"), 3),
            exactly("each `aten::mm` of the pass launches one memset beside its GEMM",
                    KernelsInside(op="aten::mm", family="copy"), 1),
            Claim(PAGE, "all but one of the pass's GEMM launches use the same tile, 128×128×64",
                  KernelsDecoded("gemm", "tile", "128x128x64"), at_least=0.99, at_most=0.999),
            Claim(PAGE, "its three `aten::mm` take nearly three quarters of the MLP's device time",
                  ModuleShare(QWEN_MLP, ("aten::mm",)), at_least=0.65, at_most=0.75),
            exactly("the H100's Qwen pass makes no occupancy query at all", CallCount("cudaOccupancy"), 0),
            Claim(PAGE, "on the H100 too, a call of the down projection takes about a tenth less time than a call of "
                  "the gate or up projection", GemmCallRatio("aten::mm", DOWN, GATE_AND_UP), **A_TENTH_LESS),
        ),
    ),
    RealTrace(
        id="model-mi300x-qwen-mlp",
        file="docs/traces/mi300x_qwen1.5_0.5b_inference.json.gz",
        title="Qwen1.5-0.5B-Chat inference on an MI300X, 16 sequences of 559 tokens, bf16",
        **TRACELENS,
        claims=(
            exactly("each call of the gate and up projections runs an `MT128x224x64` tile",
                    GemmCallsNamed("aten::mm", GATE_AND_UP, "MT128x224x64"), 1),
            exactly("each call of the down projection an `MT256x128x64` one",
                    GemmCallsNamed("aten::mm", DOWN, "MT256x128x64"), 1),
            Claim(PAGE, "a call of the down projection takes about a tenth less time than a call of the gate or up "
                  "projection", GemmCallRatio("aten::mm", DOWN, GATE_AND_UP), **A_TENTH_LESS),
        ),
    ),
    RealTrace(
        id="model-a100-2rank-occupancy",
        file="docs/traces/a100_nccl_2rank_rank0.json.gz",
        title="Launches and occupancy queries in a data-parallel training job on two A100s, rank 0",
        **HTA,
        claims=(
            exactly("every occupancy query of the A100 job comes right before the launch of a GEMM",
                    OccupancyQueries("gemm", "queries"), 1),
            exactly("and none of its elementwise kernels comes right after one", OccupancyQueries("elementwise",
                                                                                                 "launches"), 0),
        ),
    ),
)
