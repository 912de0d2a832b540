"""The recordings of Part 5, Inside a model: nn.Linear, eager and compiled."""

from functools import partial

from profguide.site.recordings import (
    Claim,
    CpuShare,
    DeviceShare,
    DiffRows,
    DiffValue,
    Figure,
    NamedInRegion,
    OpsInRegion,
    PerStepFall,
    Recording,
    RowValue,
)
from profguide.site.recordings import exactly as exact_claim

PAGE = "inside-a-model/linear.md"
LINEAR = "snippets.model.linear"
SIZES = {"features_in": 1024, "features_out": 4096, "batch": 8, "tokens": 128}
SIZES_ON_CPU = {"features_in": 256, "features_out": 1024, "batch": 4, "tokens": 32}
FLAT, BATCHED = "2-D input", "3-D input"
EAGER = "model-linear-eager"
# The ops the compiled run no longer records: the layer's own op and the views around its multiply.
EAGER_ONLY = ("aten::linear", "aten::t", "aten::transpose", "aten::view")


def linear_run(compiled, claims, compared_with=""):
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
        Claim(PAGE, "should be a larger part of `aten::linear`'s time, though less than half of it",
              CpuShare("aten::t", "aten::linear", self_time=False), at_least=0.05, at_most=0.5, device="cuda"),
        exactly("On a GPU, the row of `aten::t` should show no device time", RowValue("aten::t", "device_total_us"),
                0, device="cuda"),
        exactly("nor should the row of `aten::view`", RowValue("aten::view", "device_total_us"), 0, device="cuda"),
        Claim(PAGE, "all the kernel time should belong to `aten::addmm`", DeviceShare("aten::addmm"),
              at_least=0.95, at_most=1, device="cuda"),
        exactly("There is no `aten::add` in the 2-D input's region", OpsInRegion(FLAT, "aten::add"), 0),
        exactly("On the CPU, `aten::addmm` starts with one `aten::copy_`", OpsInRegion(FLAT, "aten::copy_"), 1,
                device="cpu"),
        exactly("On a GPU, `aten::addmm` should make no copy", OpsInRegion(FLAT, "aten::copy_"), 0, device="cuda"),
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
        Claim(PAGE, "On the CPU, the compiled step took longer than the eager one, up to about twice as long",
              DiffValue("step_us", "ratio"), at_least=1.05, at_most=2.3, device="cpu"),
        exactly("On a GPU, the compiled step should launch as many kernels as the eager one",
                PerStepFall("kernels", EAGER), 1, device="cuda"),
        exactly("no kernel of the eager run should be missing from the compiled one", DiffRows("kernels", "removed"),
                0, device="cuda"),
        exactly("and none should be new", DiffRows("kernels", "added"), 0, device="cuda"),
    ), compared_with=EAGER),
)
