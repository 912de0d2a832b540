"""The recordings of torch.compile, *Fusion*: an MLP eager and compiled, and the two taking turns; and BERT's GEMMs
on an H100, which add their own bias."""

from profguide.site.parts import tracelens_trace
from profguide.site.recordings import (
    Claim,
    DiffRows,
    Figure,
    KernelsInside,
    MedianStepRatio,
    OpMedianInRegions,
    OpMedianOver,
    PerStepFall,
    Recording,
)

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
            Claim(PAGE, "On the CPU, the compiled step took two to four times as long as the eager one",
                  MedianStepRatio("compile-fusion-eager"), at_least=2, at_most=4, device="cpu"),
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
