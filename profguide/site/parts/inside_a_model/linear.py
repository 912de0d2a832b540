"""The recordings of Part 5, Inside a model: nn.Linear, eager and compiled; and the real GPU trace whose layers
show what the CPU stand-ins predict for a GPU."""

from functools import partial

from profguide.site.measures.compile import PerStepFall
from profguide.site.measures.ops import NamedInRegion, NestedIn, OpShare, OpsInRegion, OpTotal
from profguide.site.measures.results import CpuShare
from profguide.site.measures.summary import DiffRows, DiffValue
from profguide.site.parts import tracelens_trace
from profguide.site.recordings import Claim, Figure, Recording
from profguide.site.recordings import exactly as exact_claim

PAGE = "inside-a-model/linear.md"
LINEAR = "snippets.inside_a_model.linear"
SIZES = {"features_in": 1024, "features_out": 4096, "batch": 8, "tokens": 128}
SIZES_ON_CPU = {"features_in": 256, "features_out": 1024, "batch": 4, "tokens": 32}
FLAT, BATCHED = "2-D input", "3-D input"
EAGER = "model-linear-eager"
# The ops the compiled run no longer records: the layer's own op and the views around its multiply.
EAGER_ONLY = ("aten::linear", "aten::t", "aten::transpose", "aten::view")


def linear_run(compiled: bool, claims: tuple[Claim, ...], compared_with: str = "") -> Recording:
    """The layer on both inputs, eager or compiled; each input's region is taken apart in the chains fragment."""
    return Recording(
        id="model-linear-compiled" if compiled else EAGER,
        module=LINEAR,
        function="profile_linear",
        params={"compiled": compiled, "steps": 5, **SIZES},
        cpu_params=SIZES_ON_CPU,
        title="nn.Linear({features_in}, {features_out}) on {batch} × {tokens} rows, "
              + ("compiled" if compiled else "eager") + ": {steps} steps",
        figure=Figure(trees=(FLAT, BATCHED)),
        claims=claims,
        compared_with=compared_with,
    )


exactly = partial(exact_claim, PAGE)  # exactly(words, measure, value, device=None): a claim of this page


RECORDINGS = (
    linear_run(False, (
        exactly("The 2-D input's region holds one `aten::linear`", OpsInRegion(FLAT, "aten::linear"), 1),
        exactly("and under it one `aten::addmm`", OpsInRegion(FLAT, "aten::addmm"), 1),
        exactly("under `aten::t`, `aten::transpose` ends in one `aten::as_strided`",
                OpsInRegion("aten::t", "aten::as_strided"), 1),
        Claim(PAGE, "On the CPU, `aten::t` took a few hundredths of `aten::linear`'s time at most",
              CpuShare("aten::t", "aten::linear", self_time=False), at_least=0.001, at_most=0.05, device="cpu"),
        exactly("There is no `aten::add` or `aten::add_` in the 2-D input's region", OpsInRegion(FLAT, "aten::add"),
                0),
        exactly("There is no `aten::add` or `aten::add_` in the 2-D input's region",
                OpsInRegion(FLAT, "aten::add_"), 0),
        exactly("On the CPU, `aten::addmm` starts with one `aten::copy_`", OpsInRegion(FLAT, "aten::copy_"), 1,
                device="cpu"),
        exactly("The 3-D input's region holds the same single `aten::addmm`", OpsInRegion(BATCHED, "aten::addmm"),
                1),
        exactly("between two `aten::view` calls", OpsInRegion(BATCHED, "aten::view"), 2),
        exactly("and no `aten::matmul`", OpsInRegion(BATCHED, "aten::matmul"), 0),
        exactly("The 2-D input needs no view of its own", OpsInRegion(FLAT, "aten::view"), 0),
    )),
    linear_run(True, (
        exactly("The compiled run's 2-D region still holds one `aten::addmm`", OpsInRegion(FLAT, "aten::addmm"), 1),
        exactly("called by the compiled graph", NamedInRegion(FLAT, "## Call CompiledFxGraph"), 1),
        exactly("and no `aten::t`", OpsInRegion(FLAT, "aten::t"), 0),
        exactly("`profguide diff` finds four of the eager run's ops gone", DiffRows("ops", "removed"),
                len(EAGER_ONLY)),
        Claim(PAGE, "and a handful of torch.compile's own added", DiffRows("ops", "added"), at_least=4, at_most=9),
        Claim(PAGE, "On the CPU, the compiled step records fewer `aten::` ops than the eager one, but more than "
              "half as many", PerStepFall("aten_ops", EAGER), at_least=1.2, at_most=2, device="cpu"),
        # 1.67 on an Intel Xeon, 1.00 on an AMD EPYC: neither saved a twentieth. The words are open above; the
        # bound only stops a broken run.
        Claim(PAGE, "On the CPU, compiling did not make the step faster by even a twentieth",
              DiffValue("step_us", "ratio"), at_least=0.95, at_most=2.5, device="cpu"),
        exactly("On a GPU, the compiled step should launch as many kernels as the eager one",
                PerStepFall("kernels", EAGER), 1, device="cuda"),
        exactly("no kernel of the eager run should be missing from the compiled one", DiffRows("kernels", "removed"),
                0, device="cuda"),
        exactly("and none should be new", DiffRows("kernels", "added"), 0, device="cuda"),
    ), compared_with=EAGER),
)

IN_A_TRACE = "torch-compile/in-a-trace.md"

REAL_TRACES = (
    tracelens_trace(
        "model-h100-bert-linear", "h100-bert",
        figure=Figure(trees=("aten::linear",)),
        claims=(
            Claim(PAGE, "`aten::t` took about a tenth of `aten::linear`'s host time",
                  OpShare("aten::t", "aten::linear", "cpu_us"), at_least=0.07, at_most=0.13),
            exactly("the calls of `aten::t` launched nothing: no device time", OpTotal("aten::t", "device_us"), 0),
            exactly("nor did those of `aten::view`", OpTotal("aten::view", "device_us"), 0),
            Claim(PAGE, "all the kernel time inside `aten::linear` belongs to `aten::addmm`",
                  OpShare("aten::addmm", "aten::linear", "device_us"), at_least=0.999, at_most=1.001),
            exactly("none of its `aten::addmm` calls makes an `aten::copy_`", NestedIn("aten::addmm", "aten::copy_"),
                    0),
            Claim(IN_A_TRACE, "no `aten::addmm` of the BERT pass holds an `aten::copy_`",
                  NestedIn("aten::addmm", "aten::copy_"), at_least=0, at_most=0),
            Claim(IN_A_TRACE, "nor a `cudaMemcpyAsync`, in any of its calls",
                  NestedIn("aten::addmm", "cudaMemcpyAsync"), at_least=0, at_most=0),
        ),
    ),
)
