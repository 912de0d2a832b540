"""The recordings of Part 4, torch.compile: fusion, and overhead against when compiling pays."""

from profguide.site.recordings import Claim, PerStepFall, Recording, StepTimeRatio

FUSION_PAGE = "torch-compile/fusion.md"
PAYS_PAGE = "torch-compile/when-it-pays.md"
FUSION = "snippets.compile.fusion"
OVERHEAD = "snippets.compile.overhead"
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
        claims=(
            Claim(FUSION_PAGE, "The compiled step records fewer ops than the eager one",
                  PerStepFall("ops", "compile-fusion-eager"), at_least=1.2),
            Claim(FUSION_PAGE, "fewer than half as many of them are `aten::` ops",
                  PerStepFall("aten_ops", "compile-fusion-eager"), at_least=2),
            Claim(FUSION_PAGE, "On a GPU, the compiled step launches no more kernels than the eager one",
                  PerStepFall("kernels", "compile-fusion-eager"), at_least=1, device="cuda"),
        ),
    ),
    Recording(
        id="compile-pays-small",
        module=OVERHEAD,
        function="time_eager_and_compiled",
        params={"width": 64, "hidden": 256, "batch": 8, "steps": 5, "rounds": 20},
        title="Eager against compiled, small MLP ({width} → {hidden} → {width}, batch {batch})",
        claims=(
            Claim(PAYS_PAGE,
                  "At the small size, compiling did not pay: the compiled step was slower than the eager one",
                  StepTimeRatio("compiled", "eager"), at_least=1),
        ),
    ),
    Recording(
        id="compile-pays-large",
        module=OVERHEAD,
        function="time_eager_and_compiled",
        params={"width": 4096, "hidden": 16384, "batch": 512, "steps": 5, "rounds": 20},
        cpu_params={"width": 1024, "hidden": 4096, "batch": 256, "rounds": 10},
        title="Eager against compiled, large MLP ({width} → {hidden} → {width}, batch {batch})",
        claims=(
            Claim(PAYS_PAGE, "On the CPU, compiling did not make the large step meaningfully faster either",
                  StepTimeRatio("compiled", "eager"), at_least=0.9, device="cpu"),
            Claim(PAYS_PAGE, "On a GPU, the compiled large step is faster than the eager one",
                  StepTimeRatio("compiled", "eager"), at_most=1, device="cuda"),
        ),
    ),
)
REAL_TRACES = ()
