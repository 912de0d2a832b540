"""Known answers of the measures (``profguide.site.measures``), in the style of Perfetto's diff tests: each test
module here holds one table, ``ANSWERS``, a row an input run, a measure and the value worked out by hand from the
input; ``known`` checks a row. ``SmallRun`` is the input: a run built in the test, read through the ``Run``
protocol as the build reads a recording."""

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from profguide.analysis.diff import TraceDiff, side_of, trace_diff
from profguide.analysis.job import ranks_job
from profguide.analysis.summarise import Facts, facts, summarise
from profguide.analysis.summary import FolderJob, Summary
from profguide.errors import RecordingError
from profguide.site.data import RealTraceData
from profguide.site.recordings import Measure, Run, SummaryRow
from profguide.trace.model import Trace
from tests.helpers import TINY, make_trace
from tests.helpers import event as cpu


@dataclass(frozen=True)
class SmallRun:
    """A run built in a test: its ranks' traces and what a recording holds besides (summary rows, ``results.json``,
    other files), the runs it names (``siblings``, the run it is ``compared`` with). The parts a run lacks raise
    RecordingError, as ``RecordingData``'s do. The files are written where ``placed`` puts the run: rank 0's trace
    (``document``) as ``trace.json`` and each of ``files``; with ``real_file``, it is placed as a real trace of
    that file name (``RealTraceData``)."""

    traces: tuple[Trace, ...]
    document: dict[str, Any] = field(default_factory=dict)
    summary_rows: list[SummaryRow] | None = None
    results_json: Any = None
    files: dict[str, str] = field(default_factory=dict)
    siblings: dict[str, "SmallRun"] = field(default_factory=dict)
    compared: "SmallRun | None" = None
    folder: Path = Path("small-run")
    real_file: str = ""
    device: str = "cpu"
    params: dict[str, Any] = field(default_factory=dict)  # the keyword arguments its snippet would have had

    recording = TINY
    real = False
    kept = False
    title = "a small run"

    def placed(self, folder: Path) -> Run:
        """This run with its files written in ``folder``: a recording's, or with ``real_file`` a real trace's."""
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "trace.json").write_text(json.dumps(self.document))
        for name, text in self.files.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(text)
        if self.real_file:
            spec = SimpleNamespace(id="small-real", file=self.real_file, files=())
            real: Run = RealTraceData.of(spec, folder, folder / "out", traces=self.traces)
            return real
        return dataclasses.replace(self, folder=folder)

    @property
    def ranks(self) -> int:
        return len(self.traces)

    @property
    def meta(self) -> dict[str, Any]:
        return {"device": self.device, "ranks": self.ranks, "recording": self.recording.id}

    @property
    def trace(self) -> Trace:
        return self.traces[0]

    @cached_property
    def facts(self) -> Facts:
        return facts(self.trace)

    @cached_property
    def summary(self) -> Summary:
        return summarise(self.trace)

    @property
    def compared_run(self) -> "SmallRun":
        if self.compared is None:
            raise RecordingError("a small run: compared with no run")
        return self.compared

    @cached_property
    def diff(self) -> TraceDiff:
        before = self.compared_run
        return trace_diff(side_of(before.trace, "before.json"), side_of(self.trace, "after.json"))

    @cached_property
    def job(self) -> FolderJob | None:
        if self.ranks < 2:
            return None
        return ranks_job(((f"trace-rank{rank}.json", loaded) for rank, loaded in enumerate(self.traces)), "ranks")

    @property
    def rows(self) -> list[SummaryRow]:
        if self.summary_rows is None:
            raise RecordingError("a small run: no summary rows")
        return self.summary_rows

    @property
    def results(self) -> Any:
        if self.results_json is None:
            raise RecordingError("a small run: no results.json")
        return self.results_json

    def trace_path(self, rank: int = 0) -> Path:
        return self.folder / "trace.json"

    def json_file(self, name: str) -> Any:
        try:
            return json.loads((self.folder / name).read_text())
        except (OSError, ValueError) as error:
            raise RecordingError(f"{name}: not readable ({error})") from None

    def sibling(self, recording_id: str) -> "SmallRun":
        return self.siblings[recording_id]

    def run_on(self, device: str) -> "SmallRun | None":
        return self if device == self.device else None


def run(*events: dict[str, Any], **parts: Any) -> SmallRun:
    """A one-rank run of these trace events; ``parts`` are ``SmallRun``'s other fields, and any other keyword a
    top-level key of the trace (``deviceProperties``, ``distributedInfo``)."""
    own = {name: parts.pop(name) for name in list(parts) if name in SmallRun.__dataclass_fields__}
    document = {"traceEvents": list(events), **parts}
    return SmallRun(traces=(make_trace(*events, **parts),), document=document, **own)


def ranks(*traces: Trace, **parts: Any) -> SmallRun:
    """A run of several ranks, rank by rank."""
    return SmallRun(traces=tuple(traces), **parts)


def steps(*durations: float) -> list[dict[str, Any]]:
    """ProfilerSteps of these durations one after another, from ProfilerStep#2."""
    start, events = 0.0, []
    for number, duration in enumerate(durations):
        events.append(cpu(f"ProfilerStep#{number + 2}", start, duration, kind="annotation"))
        start += duration
    return events


@dataclass(frozen=True)
class Answer:
    """One row of a table: ``measure`` on ``run`` is ``expected`` (None: the run cannot give it); ``name`` says
    what the row shows, for its test's id."""

    name: str
    run: SmallRun
    measure: Measure
    expected: float | None


def answers(table: Sequence[Answer]) -> pytest.MarkDecorator:
    """The parametrization of a test by a table's rows, each by the measure's kind and the row's name."""
    return pytest.mark.parametrize("answer", table, ids=[f"{type(row.measure).__name__}-{row.name}" for row in table])


def known(answer: Answer, folder: Path) -> None:
    """The row's measure on its run, placed in ``folder``, is the row's value: within 1e-9 of it, or None where
    the row expects None (``pytest.approx`` never equals None, so a row expecting 0 fails on None)."""
    found = answer.measure.value(answer.run.placed(folder))
    said = f"{answer.measure.describe()} = {found}, known to be {answer.expected}"
    if answer.expected is None:
        assert found is None, said
    else:
        assert found == pytest.approx(answer.expected, rel=1e-9, abs=1e-12), said
