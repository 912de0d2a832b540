"""The recordings of torch.compile, *Fusion*: an MLP eager and compiled, and the two taking turns; and BERT's GEMMs
on an H100, which add their own bias."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from profguide.site.measures.compile import PerStepFall
from profguide.site.measures.kernels import KernelsInside
from profguide.site.measures.summary import DiffRows
from profguide.site.measures.timing import MedianStepRatio, OpMedianInRegions, OpMedianOver
from profguide.site.parts import tracelens_trace
from profguide.site.recordings import Claim, Figure, Recording

if TYPE_CHECKING:
    from profguide.site.fragment_run import Maker
    from profguide.site.recordings import Run

PAGE = "torch-compile/fusion.md"
FUSION = "snippets.torch_compile.fusion"
TURNS = "snippets.torch_compile.fusion_turns"
MLP = {"width": 512, "hidden": 2048, "batch": 64}
MLP_ON_CPU = {"width": 128, "hidden": 512, "batch": 16}

RECORDINGS = (
    Recording(
        id="compile-fusion-eager",
        module=FUSION,
        function="profile_mlp",
        params={"compiled": False, "steps": 5, **MLP},
        cpu_params=MLP_ON_CPU,
        title="The MLP ({width} → {hidden} → {width}, batch {batch}), eager: {steps} steps",
    ),
    Recording(
        id="compile-fusion-compiled",
        module=FUSION,
        function="profile_mlp",
        params={"compiled": True, "steps": 5, **MLP},
        cpu_params=MLP_ON_CPU,
        title="The MLP ({width} → {hidden} → {width}, batch {batch}), compiled: {steps} steps",
        compared_with="compile-fusion-eager",
        claims=(
            # "some": at least one row (an op by name and input shapes), and far from all of the eager run's
            Claim(PAGE, "Some of the eager run's ops are gone from the compiled one", DiffRows("ops", "removed"),
                  at_least=1, at_most=12),
            Claim(PAGE, "the compiled one has ops of its own that the eager one lacks",
                  DiffRows("ops", "added"), at_least=1, at_most=12),
            Claim(PAGE, "The compiled step records fewer ops than the eager one, but more than half as many",
                  PerStepFall("ops", "compile-fusion-eager"), at_least=1.1, at_most=2),
            Claim(PAGE, "about two fifths as many of them are `aten::` ops",
                  PerStepFall("aten_ops", "compile-fusion-eager"), at_least=2, at_most=3.4),
            Claim(PAGE, "On a GPU, the compiled step should launch about as many kernels as the eager one, "
                  "and no more", PerStepFall("kernels", "compile-fusion-eager"), at_least=1, at_most=1.5,
                  device="cuda"),
            # 3.0 on an Intel Xeon, 1.9 on an AMD EPYC; the words are open above, the bound only stops a broken run.
            Claim(PAGE, "On the CPU, the compiled step took more than one and a half times as long as the eager one",
                  MedianStepRatio("compile-fusion-eager"), at_least=1.5, at_most=4, device="cpu"),
            Claim(PAGE, "`aten::addmm`, the same library call in both runs, took about twice as long in the "
                  "compiled one", OpMedianOver("aten::addmm", "compile-fusion-eager"), at_least=1.6, at_most=2.5,
                  device="cpu"),
        ),
    ),
    Recording(
        id="compile-fusion-turns",
        module=TURNS,
        function="profile_taking_turns",
        params={"rounds": 20, **MLP},
        cpu_params=MLP_ON_CPU,
        title="The MLP ({width} → {hidden} → {width}, batch {batch}), eager and compiled taking turns in one "
              "process: {rounds} calls each",
        figure=Figure(trees=("eager", "compiled")),
        claims=(
            Claim(PAGE, "`aten::addmm` took about as long in the compiled calls as in the eager ones",
                  OpMedianInRegions("aten::addmm", "compiled", "eager"), at_least=0.8, at_most=1.25, device="cpu"),
        ),
    ),
)

REAL_TRACES = (
    # Eager's GEMM already adds a Linear's bias: what the fusion page's GPU prediction rests on.
    tracelens_trace(
        "compile-h100-bert-addmm", "h100-bert",
        claims=(
            Claim(PAGE, "each `aten::addmm` launches one GPU op", KernelsInside(op="aten::addmm"),
                  at_least=1, at_most=1),
            Claim(PAGE, "a GEMM", KernelsInside(op="aten::addmm", family="gemm"), at_least=1, at_most=1),
        ),
    ),
)


# The fragments only this page's recordings give (the generic ones: profguide.site.fragments). Their imports
# are inside them: `profguide record` imports this module on a bare GPU machine, with the standard library only.


def fusion(data: Run) -> dict[str, str]:
    """The eager and the compiled run of one model side by side: ops (and kernels) per step, median step, then
    each op's (and kernel's) count per step."""
    from profguide.analysis import compile as compile_analysis
    from profguide.render import fragments as render
    from profguide.site.fragment_run import FragmentError, snippet_runs
    from profguide.stats import median
    from profguide.text import cell, code_cell, count_of, format_duration, kernel_name, markdown_table

    if data.real:
        raise FragmentError("a real trace has no eager run to compare with")
    runs = sorted(snippet_runs(data, RECORDINGS), key=lambda run: bool(run.params.get("compiled")))
    rows = [(run, compile_analysis.step_counts(run.trace)) for run in runs]
    if len(runs) != 2 or not all(counts for _, counts in rows):
        raise FragmentError("fusion compares an eager and a compiled recording, each with ProfilerSteps")
    kernels = any(row["kernels"] for _, counts in rows for row in counts)

    def per_step(counts: list[dict[str, float]], key: str) -> float:
        return cast(float, median([row[key] for row in counts]))  # every run has a step (checked above)

    counted = ("ops", "aten_ops", *(("kernels",) if kernels else ()))
    headings = ("Run", "Ops per step", "`aten::` ops per step", *(("Kernels per step",) if kernels else ()),
                "Median step")
    table = markdown_table(headings, [(cell(run.title), *(f"{per_step(counts, key):g}" for key in counted),
                                       format_duration(per_step(counts, "dur_us"))) for run, counts in rows],
                           "l" + "r" * (len(headings) - 1))
    names = [compile_analysis.names_per_step(run.trace, "cpu_op") for run in runs]
    if kernels:
        names += [compile_analysis.names_per_step(run.trace, "kernel") for run in runs]
    by_name = [(code_cell(shorten(name)), f"{eager.get(name, 0):g}", f"{compiled.get(name, 0):g}")
               for (eager, compiled), shorten in ((names[:2], str), (names[2:], kernel_name))[:1 + kernels]
               for name in sorted(set(eager) | set(compiled), key=lambda n: (-eager.get(n, 0), -compiled.get(n, 0), n))]
    sentence = (f"Each run recorded {count_of(len(rows[0][1]), 'step')} after warm-up calls, in a process of "
                "its own; a count per step is the median over its steps, or, by name, the mean.")
    notes = "\n".join(render.provenance_note(run.meta) for run in runs)
    return {"fusion.md": render.standin_notice(data.meta) + table + "\n"
            + markdown_table(("Op or kernel", "Eager, per step", "Compiled, per step"), by_name, "lrr") + "\n"
            + sentence + "\n\n" + notes}


FRAGMENTS: dict[str, Maker] = {"fusion.md": fusion}
