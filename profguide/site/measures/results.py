"""Measures of what a recording holds besides its trace: its summary table and extra tables, and what its
snippet returned (``results.json``: configurations, torch's log, the Timer, exported stacks, execution-trace nodes)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from profguide.site.measures import (
    Column,
    Configuration,
    Event,
    LogMessage,
    PythonFunction,
    TableName,
)
from profguide.site.recordings import Measure

if TYPE_CHECKING:
    from profguide.analysis.stacks import Stack
    from profguide.site.recordings import Run


def table_row_names(text: str) -> list[str]:
    """The names in the first column of a table ``key_averages().table()`` printed (right-aligned to its width)."""
    lines = text.splitlines()
    rule = next((line for line in lines if line.startswith("-")), None)
    if rule is None:
        return []
    width = len(rule.split("  ")[0])
    rules = [i for i, line in enumerate(lines) if line.startswith("-")]
    body = lines[rules[1] + 1:rules[2]] if len(rules) >= 3 else []
    return [line[:width].strip() for line in body if line[:width].strip()]


def row_value(run: Run, name: str, column: Column) -> float | None:
    """The number in ``column`` of the summary-table row ``name`` (rank 0's ``averages.json``); None without it."""
    row = next((row for row in run.rows if row["name"] == name), None)
    value = row.get(column) if row else None
    return float(value) if isinstance(value, (int, float)) else None


def from_results(run: Run, *keys: str | int, read: Callable[[Any], Any] | None = None) -> Any:
    """The entry of the run's ``results.json`` that ``keys`` lead to (``"timer", "median_us"``: the Timer's median),
    passed through ``read`` when given; None where the run wrote no ``results.json``, the entry is not there, or
    it is not what ``read`` takes. The measures read ``results.json`` through this, and ``fragments.results_of``
    too."""
    from profguide.errors import RecordingError

    try:
        found = run.results
        for key in keys:
            found = found[key]
        return found if read is None else read(found)
    except (RecordingError, KeyError, IndexError, TypeError):
        return None


def logged_messages(run: Run) -> list[str] | None:
    """From ``results.json``: ``{"logged": [message, …]}``, what the snippet kept of torch's log; None without it."""
    found: list[str] | None = from_results(run, "logged", read=list)
    return found


def exported_stacks(run: Run, which: Literal["verbose", "plain"] = "verbose") -> list[Stack] | None:
    """The stacks ``export_stacks`` wrote in the run (``results.json``), parsed; None without them."""
    from profguide.analysis.stacks import folded

    key = "stacks" if which == "verbose" else "stacks_without_option"
    found: list[Stack] | None = from_results(run, key, read=folded)
    return found


def rows_by_name(run: Run, key: str) -> dict[str, dict[str, Any]] | None:
    """The rows of the list ``key`` of the run's ``results.json``, by their names; None without it."""
    found: dict[str, dict[str, Any]] | None = from_results(run, key, read=lambda rows: {row["name"]: row
                                                                                         for row in rows})
    return found


def ratio(part: Any, whole: Any) -> float | None:
    """``part / whole`` where both are positive numbers; None otherwise."""
    numbers = isinstance(part, (int, float)) and isinstance(whole, (int, float))
    return float(part / whole) if numbers and part > 0 and whole > 0 else None


def row_ratio(run: Run, key: str, part: str, whole: str, field: str) -> float | None:
    """``field`` of the row named ``part`` over that of the row named ``whole``, in the list ``key`` of the run's
    ``results.json``; None where a row or a positive number is missing."""
    rows = rows_by_name(run, key) or {}
    if part not in rows or whole not in rows:
        return None
    return ratio(rows[part].get(field), rows[whole].get(field))


@dataclass(frozen=True)
class CpuShare(Measure):
    """``part``'s CPU time (its self time, or its total) over ``whole``'s CPU total, from the summary table."""

    part: Event
    whole: Event
    self_time: bool = True

    def describe(self) -> str:
        kind = "self" if self.self_time else "total"
        return f"{self.part} {kind} CPU time / {self.whole} CPU total"

    def value(self, run: Run) -> float | None:
        rows = {row["name"]: row for row in run.rows}
        if self.part not in rows or self.whole not in rows or not rows[self.whole]["cpu_total_us"]:
            return None
        part: float = rows[self.part]["self_cpu_us" if self.self_time else "cpu_total_us"]
        whole: float = rows[self.whole]["cpu_total_us"]
        return part / whole


@dataclass(frozen=True)
class RowValue(Measure):
    """One number of one summary-table row (``averages.json``): ``count``, ``self_cpu_memory_bytes``…"""

    name: Event
    column: Column

    def describe(self) -> str:
        return f"{self.name} {self.column}"

    def value(self, run: Run) -> float | None:
        return row_value(run, self.name, self.column)


@dataclass(frozen=True)
class ColumnShare(Measure):
    """``part``'s value in one column of the summary table over ``whole``'s value in the same column."""

    part: Event
    whole: Event
    column: Column

    def describe(self) -> str:
        return f"{self.part} {self.column} / {self.whole} {self.column}"

    def value(self, run: Run) -> float | None:
        part, whole = row_value(run, self.part, self.column), row_value(run, self.whole, self.column)
        return part / whole if part is not None and whole else None


@dataclass(frozen=True)
class TableRows(Measure):
    """How many rows named ``name`` an extra table (``Table``) of the recording prints."""

    table: TableName
    name: Event

    def describe(self) -> str:
        return f"rows of {self.name} in table {self.table}"

    def value(self, run: Run) -> float | None:
        from profguide.site.recordings import Table

        path = run.folder / Table(self.table).file
        if not path.is_file():
            return None
        return float(table_row_names(path.read_text()).count(self.name))


@dataclass(frozen=True)
class StepTimeRatio(Measure):
    """The median step time of configuration ``part`` over that of ``whole``, from the recording's results."""

    part: Configuration
    whole: Configuration

    def describe(self) -> str:
        return f"median step time, {self.part} / {self.whole}"

    def value(self, run: Run) -> float | None:
        """From ``results.json``: ``{"configurations": [{"name", "median_step_us"}, …]}``."""
        return row_ratio(run, "configurations", self.part, self.whole, "median_step_us")


@dataclass(frozen=True)
class TimesLogged(Measure):
    """How many times the run logged ``message``, as the snippet kept torch's log in its results
    (``results.json``: ``{"logged": [message, …]}``)."""

    message: LogMessage

    def describe(self) -> str:
        return f"times the run logged {self.message!r}"

    def value(self, run: Run) -> float | None:
        logged = logged_messages(run)
        return None if logged is None else float(logged.count(self.message))


@dataclass(frozen=True)
class TimerRatio(Measure):
    """The median duration of the op ``op`` in the trace over the median of ``torch.utils.benchmark``'s Timer
    for the same op, in the same process (``results.json``: ``{"timer": {"median_us": …}}``)."""

    op: Event

    def describe(self) -> str:
        return f"median {self.op} in the trace / the Timer's median"

    def value(self, run: Run) -> float | None:
        """The median of the op's events as ``occurrences`` takes them (ops and regions of that name), over the
        Timer's; the page's timer fragment prints this value."""
        from profguide.analysis.select import occurrences
        from profguide.stats import median

        durations = occurrences(run.trace, self.op)
        timer_us = from_results(run, "timer", "median_us")
        return float(median(durations) / timer_us) if len(durations) and timer_us else None


@dataclass(frozen=True)
class StackLines(Measure):
    """How many lines ``export_stacks`` wrote, after a profile with ``experimental_config=_ExperimentalConfig(
    verbose=True)`` (``verbose``) or without it (``plain``) (``results.json``: ``{"stacks": [line, …],
    "stacks_without_option": [line, …]}``)."""

    which: Literal["verbose", "plain"]

    def describe(self) -> str:
        return f"lines export_stacks wrote ({self.which} profile)"

    def value(self, run: Run) -> float | None:
        found = exported_stacks(run, self.which)
        return None if found is None else float(len(found))


@dataclass(frozen=True)
class StackTime(Measure):
    """The time of the exported stacks that pass through a frame whose function is ``frame`` (its whole name:
    ``block`` for ``snippets/x.py(12):_block``), over that of the stacks through ``over`` (all of them when empty)
    (``results.json``, as ``StackLines``)."""

    frame: PythonFunction
    over: PythonFunction = ""

    def describe(self) -> str:
        return f"stack time under {self.frame} / under {self.over or 'any frame'}"

    def value(self, run: Run) -> float | None:
        from profguide.analysis import stacks

        found = exported_stacks(run)
        whole = stacks.time_under(found, self.over) if found else 0
        return stacks.time_under(found, self.frame) / whole if found and whole else None


@dataclass(frozen=True)
class ExecutionTraceCovers(Measure):
    """The share of the trace's ops and ``record_function`` regions that the execution trace recorded beside it
    holds a node of the same name for, name by name and call by call (``results.json``:
    ``{"nodes_by_name": {name: count}}``)."""

    def describe(self) -> str:
        return "ops and regions with an execution-trace node / ops and regions in the trace"

    def value(self, run: Run) -> float | None:
        from collections import Counter

        from profguide.analysis.select import host_events_by_name

        nodes = from_results(run, "nodes_by_name", read=Counter)
        if nodes is None:
            return None
        events = host_events_by_name(run.trace)
        total = sum(events.values())
        return sum((events & nodes).values()) / total if total else None
