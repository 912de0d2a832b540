"""The recordings behind the guide's figures and tables, and the claims its pages make about them.

A recording names a function in one of the snippet packages under
``snippets/``, the parameters to call it with, how many processes run it,
how to annotate its timeline, and the sentences of the guide that describe
what it shows. Each recording runs in fresh processes, as a reader's script
would; ``profguide.site.launch`` starts them. Each claim is checked against
the recording's data by ``profguide.site.claims`` whenever the site is built.

Standard library only: ``profguide record`` imports this on a bare GPU machine.
"""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Figure:
    """How to annotate a recording's timeline.

    Attributes:
        brackets: names of events to measure with a bracket above the lanes (the first of each, where present).
        highlight: names of events to outline.
        callouts: names of events to number in this order (the first of each, where present).
        spread: the op whose durations the spread chart plots when the recording has no kernels.
        region: the ``record_function`` region whose calls the calls table compares.
    """

    brackets: tuple[str, ...] = ()
    highlight: tuple[str, ...] = ()
    callouts: tuple[str, ...] = ()
    spread: str | None = None
    region: str | None = None


# What a claim measures. Each is plain data; profguide.site.claims computes it from the recording.


@dataclass(frozen=True)
class FirstOverRest:
    """The first occurrence of ``region`` over the slowest of the others (``ProfilerStep`` means every step)."""

    region: str

    def describe(self):
        return f"first {self.region} / slowest later {self.region}"


@dataclass(frozen=True)
class SlowestOverFastest:
    """The slowest occurrence of ``region`` over the fastest."""

    region: str

    def describe(self):
        return f"slowest {self.region} / fastest {self.region}"


@dataclass(frozen=True)
class CpuShare:
    """``part``'s CPU time (its self time, or its total) over ``whole``'s CPU total, from the summary table."""

    part: str
    whole: str
    self_time: bool = True

    def describe(self):
        kind = "self" if self.self_time else "total"
        return f"{self.part} {kind} CPU time / {self.whole} CPU total"


@dataclass(frozen=True)
class OutsideOps:
    """The share of the calls of ``region`` after the first spent in no op, over their total duration."""

    region: str

    def describe(self):
        return f"time in no op / duration, {self.region} calls after the first"


@dataclass(frozen=True)
class DeviceShare:
    """GPU time of the kernels the op ``part`` launched over the GPU time of all kernels."""

    part: str

    def describe(self):
        return f"{self.part} kernel time / all kernel time"


@dataclass(frozen=True)
class StepCount:
    """How many ``ProfilerStep#N`` the recording holds."""

    def describe(self):
        return "recorded ProfilerSteps"


@dataclass(frozen=True)
class StepNumber:
    """The number of the first or the last recorded ``ProfilerStep#N``."""

    which: str  # "first" or "last"

    def describe(self):
        return f"{self.which} recorded ProfilerStep number"


@dataclass(frozen=True)
class Encloses:
    """1 when the first ``inner`` event lies inside the first ``outer`` one, else 0."""

    outer: str
    inner: str

    def describe(self):
        return f"{self.outer} encloses {self.inner} (1 yes, 0 no)"


@dataclass(frozen=True)
class GpuBusyShare:
    """GPU busy time over the window from the first GPU op's start to the last one's end."""

    def describe(self):
        return "GPU busy time / GPU window"


@dataclass(frozen=True)
class SyncOverKernels:
    """The longest host synchronisation over the total time of the kernels."""

    def describe(self):
        return "longest host sync / kernel time"


Measure = (FirstOverRest | SlowestOverFastest | OutsideOps | CpuShare | DeviceShare | StepCount | StepNumber | Encloses
           | GpuBusyShare | SyncOverKernels)


@dataclass(frozen=True)
class Claim:
    """A sentence of the guide about a recording, and the measurement that must back it.

    Attributes:
        page: the page that says it, relative to ``docs/``.
        says: the words as the page writes them (line breaks aside); the check finds them there.
        measure: what to measure on the recording.
        at_least: the measured value must be at least this, when given.
        at_most: the measured value must be at most this, when given.
        device: ``"cpu"`` or ``"cuda"`` for a claim about runs on that device only; None for any.
    """

    page: str
    says: str
    measure: Measure
    at_least: float | None = None
    at_most: float | None = None
    device: str | None = None

    def bound(self):
        """The bound in words: '≥ 2', '≤ 0.5', both, or '= 3'."""
        if self.at_least is not None and self.at_least == self.at_most:
            return f"= {self.at_least:g}"
        parts = []
        if self.at_least is not None:
            parts.append(f"≥ {self.at_least:g}")
        if self.at_most is not None:
            parts.append(f"≤ {self.at_most:g}")
        return " and ".join(parts)


@dataclass(frozen=True)
class Recording:
    """One profiler run that the guide shows.

    Attributes:
        id: folder name under ``docs/generated/``.
        module: the snippet module, importable from the project root (``snippets.basics.first_profile``).
        function: the snippet function that runs the workload under the profiler and returns it.
        title: what the recording shows; ``{name}`` fields are filled from the parameters used.
        params: keyword arguments for ``function``.
        cpu_params: overrides for a recording meant for CUDA that is made on the CPU as a stand-in
            (a CPU multiplies hundreds of times slower than a GPU: the stand-in uses smaller sizes).
        device: the device the recording is meant for, ``"cuda"`` or ``"cpu"``.
        ranks: how many processes run the function together (one trace each).
        timeout_s: how long the processes may run.
        figure: how to annotate its timeline.
        claims: what the guide's pages say about it.
    """

    id: str
    module: str
    function: str
    title: str
    params: dict = field(default_factory=dict)
    cpu_params: dict = field(default_factory=dict)
    device: str = "cuda"
    ranks: int = 1
    timeout_s: int = 600
    figure: Figure = Figure()
    claims: tuple[Claim, ...] = ()

    @property
    def snippet(self):
        """The snippet's path, relative to the project root."""
        return self.module.replace(".", "/") + ".py"

    def params_on(self, device):
        """The parameters a recording made on ``device`` uses."""
        if self.device == "cuda" and device == "cpu":
            return {**self.params, **self.cpu_params}
        return dict(self.params)

    def title_with(self, params):
        return self.title.format(**params)


FIRST_PROFILE = "snippets.basics.first_profile"
FIRST_PROFILE_FIGURE = Figure(
    brackets=("matmul_bias", "cudaDeviceSynchronize"),
    highlight=("aten::mm",),
    callouts=("matmul_bias", "aten::mm", "cudaLaunchKernel", "aten::add", "cudaDeviceSynchronize"),
    region="matmul_bias",
)
TRAINING_STEPS = "snippets.basics.training_steps"
STEPS_CPU_PARAMS = {"size": 256}

RECORDINGS = (
    Recording(
        id="basics-matmul-64",
        module=FIRST_PROFILE,
        function="profile_matmul_bias",
        params={"size": 64},
        title="Matmul plus bias add on {size}×{size} inputs",
        figure=FIRST_PROFILE_FIGURE,
        claims=(
            Claim("basics/first-trace.md", "with the small input, most of the region is empty space",
                  CpuShare("matmul_bias", "matmul_bias"), at_least=0.5, device="cpu"),
            Claim("basics/index.md", "the GPU sits idle most of the time", GpuBusyShare(), at_most=0.5,
                  device="cuda"),
        ),
    ),
    Recording(
        id="basics-matmul-64-calls",
        module=FIRST_PROFILE,
        function="profile_matmul_bias",
        params={"size": 64, "calls": 5},
        title="Matmul plus bias add on {size}×{size} inputs, called {calls} times",
        figure=FIRST_PROFILE_FIGURE,
        claims=(
            Claim("basics/index.md", "The first call is many times slower than any later one",
                  FirstOverRest("matmul_bias"), at_least=5),
            Claim("basics/index.md", "a large share of every later call is spent in no operator at all",
                  OutsideOps("matmul_bias"), at_least=0.25),
        ),
    ),
    Recording(
        id="basics-matmul-4096",
        module=FIRST_PROFILE,
        function="profile_matmul_bias",
        params={"size": 4096},
        title="Matmul plus bias add on {size}×{size} inputs",
        figure=FIRST_PROFILE_FIGURE,
        claims=(
            Claim("basics/index.md", "With 4096×4096 inputs, `aten::mm` takes nearly all of the time",
                  CpuShare("aten::mm", "matmul_bias"), at_least=0.8, device="cpu"),
            Claim("basics/index.md", "With 4096×4096 inputs, `aten::mm` takes nearly all of the time",
                  DeviceShare("aten::mm"), at_least=0.8, device="cuda"),
            Claim("basics/index.md", "`aten::matmul` has a small self time and `aten::mm` a large one",
                  CpuShare("aten::matmul", "aten::mm"), at_most=0.25),
            Claim("basics/first-trace.md", "with the large one, `aten::mm` fills nearly all of it",
                  CpuShare("aten::mm", "matmul_bias"), at_least=0.8, device="cpu"),
            Claim("basics/index.md", "on the CPU side that time reappears as `cudaDeviceSynchronize`",
                  SyncOverKernels(), at_least=0.5, device="cuda"),
            Claim("basics/first-trace.md", "for the large input, about as long as the multiply's kernel",
                  SyncOverKernels(), at_least=0.5, device="cuda"),
        ),
    ),
    Recording(
        id="basics-steps-scheduled",
        module=TRAINING_STEPS,
        function="profile_steps",
        params={"size": 4096, "steps": 8, "wait": 1, "warmup": 1, "active": 3},
        cpu_params=STEPS_CPU_PARAMS,
        title="{steps} steps under schedule(wait={wait}, warmup={warmup}, active={active}), size {size}",
        figure=Figure(brackets=("ProfilerStep#3",), callouts=("forward", "reduce")),
        claims=(
            Claim("index.md", "a schedule that records three of them", StepCount(), at_least=3, at_most=3),
            Claim("basics/steps.md", "The table starts at step 2", StepNumber("first"), at_least=2, at_most=2),
            Claim("basics/steps.md", "It ends with step 4", StepNumber("last"), at_least=4, at_most=4),
            Claim("basics/steps.md", "no recorded step is even twice as slow as another",
                  SlowestOverFastest("ProfilerStep"), at_most=2),
        ),
    ),
    Recording(
        id="basics-steps-from-first",
        module=TRAINING_STEPS,
        function="profile_steps",
        params={"size": 4096, "steps": 5, "wait": 0, "warmup": 0, "active": 5},
        cpu_params=STEPS_CPU_PARAMS,
        title="{steps} steps recorded from the very first, size {size}",
        figure=Figure(spread="aten::mm"),
        claims=(
            Claim("basics/steps.md", "the first step is by far the slowest", FirstOverRest("ProfilerStep"),
                  at_least=2),
        ),
    ),
    Recording(
        id="basics-cpu-only",
        module="snippets.basics.cpu_only",
        function="profile_on_cpu",
        params={"size": 1024},
        device="cpu",
        title="Matmul plus bias add on {size}×{size} inputs, CPU only",
        claims=(
            Claim("basics/cpu-only.md", "the region on top, `aten::matmul` and under it `aten::mm`",
                  Encloses("aten::matmul", "aten::mm"), at_least=1),
            Claim("basics/cpu-only.md", "`aten::mm` alone has most of the self CPU time",
                  CpuShare("aten::mm", "matmul_bias"), at_least=0.5),
        ),
    ),
)


def by_id(recording_id, recordings=RECORDINGS):
    """Return the recording named ``recording_id``; raise KeyError with the known ids."""
    for recording in recordings:
        if recording.id == recording_id:
            return recording
    known = ", ".join(r.id for r in recordings)
    raise KeyError(f"no recording named {recording_id!r} (known: {known})")
