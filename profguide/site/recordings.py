"""What a recording is, and the claims a page makes about one: plain data, no behaviour.

The recordings themselves are listed by part in ``profguide.site.parts`` and
gathered in ``profguide.site.catalogue``. A recording names a function in one of the snippet packages under
``snippets/``, the parameters to call it with, how many processes run it,
how to annotate its timeline, and the sentences of the guide that describe
what it shows. Each recording runs in fresh processes, as a reader's script
would; ``profguide.site.launch`` starts them. Each claim is checked against
the recording's data by ``profguide.site.claims`` whenever the site is built.

Standard library only: ``profguide record`` imports this on a bare GPU machine.
"""

from dataclasses import asdict, dataclass, field


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


@dataclass(frozen=True)
class Table:
    """A summary table the recorder prints besides the default one, into ``table-<name>.txt``.

    The arguments are those of ``key_averages(...)`` and ``.table(...)``, so a
    page can show the call that printed the table it includes.
    """

    name: str
    sort_by: str = "cpu_time_total"
    row_limit: int = 10
    group_by_input_shape: bool = False
    group_by_stack_n: int = 0

    @property
    def file(self):
        return f"table-{self.name}.txt"


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
        tables: summary tables to print besides ``table.txt`` (grouped by input shape, by stack, sorted otherwise).
        memory_timeline: write ``memory-timeline.json`` with ``export_memory_timeline`` (the snippet must
            profile with ``profile_memory``, ``record_shapes`` and ``with_stack``).

    A snippet function that returns a dict of plain values (rather than the
    profiler) has it written as ``results.json``: what it measured besides the trace.
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
    tables: tuple[Table, ...] = ()
    memory_timeline: bool = False

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

    def exports(self):
        """What the recorder writes besides the trace and the default table, as plain data for its process."""
        return {"tables": [asdict(table) for table in self.tables], "memory_timeline": self.memory_timeline}
