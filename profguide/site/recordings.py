"""What a recording is, and the claims a page makes about one: plain data, no behaviour.

The recordings themselves are listed by part in ``profguide.site.parts`` and
gathered in ``profguide.site.catalogue``. A recording names a function in one of the snippet packages under
``snippets/``, the parameters to call it with, how many processes run it,
how to annotate its timeline, and the sentences of the guide that describe
what it shows (what each claim measures is in ``profguide.site.measures``). Each
recording runs in fresh processes, as a reader's script would; ``profguide.site.launch`` starts them. Each
claim is checked against the recording's data by ``profguide.site.claims`` whenever the site is built.

Standard library only: ``profguide record`` imports this on a bare GPU machine.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Protocol, get_type_hints

if TYPE_CHECKING:  # the analyses' types, named for the checker only: numpy and msgspec may be missing here
    from profguide.analysis.diff import TraceDiff
    from profguide.analysis.summarise import Facts
    from profguide.analysis.summary import FolderJob, Summary
    from profguide.trace.model import Trace

RunId = Annotated[str, "run"]  # the id of a recording or a real trace of the guide's


@dataclass(frozen=True)
class Measure:
    """What a claim measures on a run: each kind subclasses this as a frozen dataclass."""

    def describe(self) -> str:
        """What it measures, in words (the guide's Markdown)."""
        raise NotImplementedError

    def value(self, run: Run) -> float | None:
        """Its value on ``run``, or None when the run cannot give one."""
        raise NotImplementedError


@dataclass(frozen=True)
class Figure:
    """How to annotate a recording's timeline.

    Attributes:
        brackets: names of events to measure with a bracket above the lanes (the first of each, where present).
        highlight: names of events to outline.
        callouts: names of events to number in this order (the first of each, where present).
        spread: the op whose durations the spread chart plots when the recording has no kernels.
        region: the ``record_function`` region whose calls the calls table compares.
        step: the ``ProfilerStep#N`` the timeline draws, with the GPU work it launched; None draws the whole trace.
        trees: events whose call tree (their first occurrence) the chains fragment prints; without them, it
            prints every ``record_function`` region's.
    """

    brackets: tuple[str, ...] = ()
    highlight: tuple[str, ...] = ()
    callouts: tuple[str, ...] = ()
    spread: str | None = None
    region: str | None = None
    step: int | None = None
    trees: tuple[str, ...] = ()


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
    def file(self) -> str:
        return f"table-{self.name}.txt"


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

    def bound(self) -> str:
        """The bound in words: '0.5 to 0.9', '= 3', or, open on one side, '≥ 2' or '≤ 0.5'."""
        if self.at_least is not None and self.at_least == self.at_most:
            return f"= {self.at_least:g}"
        if self.at_least is not None and self.at_most is not None:
            return f"{self.at_least:g} to {self.at_most:g}"
        parts = []
        if self.at_least is not None:
            parts.append(f"≥ {self.at_least:g}")
        if self.at_most is not None:
            parts.append(f"≤ {self.at_most:g}")
        return " and ".join(parts)


def runs_compared(claim: Claim, recording: Recording | RealTrace) -> set[str]:
    """The ids of the other runs a claim of ``recording`` reads: those its measure names (its fields annotated
    ``RunId``), and the run ``recording`` is compared with."""
    hints = get_type_hints(type(claim.measure), include_extras=True)
    named: set[str] = {getattr(claim.measure, item.name) for item in fields(claim.measure) if hints[item.name] == RunId}
    return named | ({recording.compared_with} if recording.compared_with else set())


def exactly(page: str, says: str, measure: Measure, value: float, device: str | None = None) -> Claim:
    """A claim that ``measure`` is ``value``, no more and no less."""
    return Claim(page, says, measure, at_least=value, at_most=value, device=device)


@dataclass(frozen=True)
class Recording:
    """One profiler run that the guide shows.

    Attributes:
        id: folder name under ``docs/generated/``.
        module: the snippet module, importable from the project root (``snippets.basics.index``).
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
        compared_with: the run this one is the after of, for ``profguide diff`` (its ``diff.md`` fragment and
            ``Diff…`` claims): a recording's or a real trace's id.

    A snippet function that returns a dict of plain values (rather than the
    profiler) has it written as ``results.json``: what it measured besides the trace.
    """

    id: str
    module: str
    function: str
    title: str
    params: dict[str, Any] = field(default_factory=dict)
    cpu_params: dict[str, Any] = field(default_factory=dict)
    device: str = "cuda"
    ranks: int = 1
    timeout_s: int = 600
    figure: Figure = Figure()
    claims: tuple[Claim, ...] = ()
    tables: tuple[Table, ...] = ()
    memory_timeline: bool = False
    compared_with: str = ""

    @property
    def snippet(self) -> str:
        """The snippet's path, relative to the project root."""
        return self.module.replace(".", "/") + ".py"

    def params_on(self, device: str) -> dict[str, Any]:
        """The parameters a recording made on ``device`` uses."""
        if self.device == "cuda" and device == "cpu":
            return {**self.params, **self.cpu_params}
        return dict(self.params)

    def title_with(self, params: dict[str, Any]) -> str:
        return self.title.format(**params)

    def exports(self) -> dict[str, Any]:
        """What the recorder writes besides the trace and the default table, as plain data for its process."""
        return {"tables": [asdict(table) for table in self.tables], "memory_timeline": self.memory_timeline}


@dataclass(frozen=True)
class RealTrace:
    """A trace from a machine this project does not own, shown on a page with its source, licence and device.

    It is never recorded and never stale: the build renders the fragments
    pages include from it and checks its claims, as for a recording. Its
    provenance names the file, the source and the licence given here, and the
    device the trace's own ``deviceProperties`` name.

    Attributes:
        id: folder name under ``docs/generated/`` for its rendered fragments.
        file: the trace, relative to the project root, under ``docs/`` so that the site serves it.
        title: what the trace shows.
        source: who published it, in words (a link's text).
        source_url: where they published it.
        licence: the licence it is distributed under.
        figure: how to annotate its timeline (``step`` picks the step to draw).
        claims: what the guide's pages say about it (their ``device`` does not apply: the trace is what it is).
        files: for the ranks of one job, every rank's trace in rank order (``file`` is then the first):
            fragments of several ranks read them all.
        compared_with: the run this one is the after of, for ``profguide diff`` (as ``Recording``'s).
    """

    id: str
    file: str
    title: str
    source: str
    source_url: str
    licence: str
    figure: Figure = Figure()
    claims: tuple[Claim, ...] = ()
    files: tuple[str, ...] = ()
    compared_with: str = ""


SummaryRow = dict[str, Any]  # a row of ``averages.json``: its ``name``, the ``TIMES`` and the memory columns
# A run's provenance: a recording's ``meta.json`` (``profguide.site.staleness.Meta``), or a real trace's made of its
# source (``profguide.site.data.RealTraceData.meta``); read, never written.
Meta = Mapping[str, Any]


class Run(Protocol):
    """One run of the guide as the build reads it, a recording's or a real trace's, each part loaded once: what a
    measure (``profguide.site.measures``) computes its value from. A part a run does not have (a real trace's
    summary rows, a run compared with none) raises RecordingError."""

    @property
    def recording(self) -> Recording | RealTrace: ...
    @property
    def real(self) -> bool: ...  # a real trace from another machine, not a recording this guide made
    @property
    def kept(self) -> bool: ...  # the CPU run kept beside a recording's CUDA run
    @property
    def folder(self) -> Path: ...
    @property
    def ranks(self) -> int: ...
    @property
    def meta(self) -> Meta: ...
    @property
    def traces(self) -> tuple[Trace, ...]: ...
    @property
    def trace(self) -> Trace: ...  # rank 0's
    @property
    def facts(self) -> Facts: ...
    @property
    def summary(self) -> Summary: ...
    @property
    def compared_run(self) -> Run: ...
    @property
    def diff(self) -> TraceDiff: ...
    @property
    def job(self) -> FolderJob | None: ...
    @property
    def rows(self) -> list[SummaryRow]: ...
    @property
    def results(self) -> Any: ...  # parsed JSON
    @property
    def title(self) -> str: ...
    @property
    def params(self) -> dict[str, Any]: ...
    @property
    def files(self) -> Iterable[str]: ...  # the files the run consists of (the rest are rendered)

    def trace_path(self, rank: int = 0) -> Path: ...
    def json_file(self, name: str) -> Any: ...
    def sibling(self, recording_id: str) -> Run: ...
    def run_on(self, device: str) -> Run | None: ...
