"""Measures of what ``profguide explain`` and ``profguide diff`` report: the window's busy and idle time, device
set-up, the verdict, the rules that fire, what changed between two runs."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from profguide.analysis.vocabulary import Cause, RuleId, Verdict
from profguide.site.measures import (
    DiffField,
    DiffKey,
    DiffRow,
    DiffRowKind,
    Event,
)
from profguide.site.recordings import Measure

if TYPE_CHECKING:
    from profguide.analysis.summary import Summary
    from profguide.site.recordings import Run


# HolisticTraceAnalysis's own temporal breakdown of every real trace, by file name, with the HTA version and the
# command that obtained it (benchmarks/hta_reference.py, run where HTA is installed): HTA is no dependency.
HTA_REFERENCE = "benchmarks/results/hta_temporal_breakdown.json"


def htas_idle_share(root: Path, file_name: str) -> float | None:
    """The GPU idle share HTA reported for the trace ``file_name`` (its idle time over its window, unrounded),
    from the reference under ``root``; None for a trace the reference does not hold or HTA could not analyse."""
    found = json.loads((Path(root) / HTA_REFERENCE).read_text())["traces"].get(file_name, {})
    exact = found.get("idle_pct_exact")
    return None if exact is None else float(exact) / 100


@dataclass(frozen=True)
class ExplainBusyShare(Measure):
    """GPU busy time over the window ``profguide explain`` measures (its ``gpu_busy_pct``): on a trace of steps,
    the GPU ops launched in the last ``ProfilerStep`` left out, as HolisticTraceAnalysis does."""

    def describe(self) -> str:
        return "GPU busy time / explain's window"

    def value(self, run: Run) -> float | None:
        busy_pct = run.summary["gpu_busy_pct"]
        return None if busy_pct is None else busy_pct / 100


@dataclass(frozen=True)
class IdleShare(Measure):
    """GPU idle time of one cause (a key of ``profguide.analysis.idle.IDLE_CAUSES``) over the window
    ``profguide explain`` measures."""

    cause: Cause

    def describe(self) -> str:
        return f"GPU idle time, cause {self.cause} / explain's window"

    def value(self, run: Run) -> float | None:
        """Idle time of one cause over the window ``profguide explain`` measures (None without GPU work)."""
        from profguide.analysis.idle import idle_breakdown
        from profguide.analysis.select import on_a_stream
        from profguide.analysis.summarise import measured_window

        if not on_a_stream(run.trace).any():
            return None
        ops, window, _, _ = measured_window(run.trace)
        cause = idle_breakdown(run.trace, window, ops)["by_cause"].get(self.cause)
        length = window[1] - window[0]
        return cause["idle_us"] / length if cause and length > 0 else None


@dataclass(frozen=True)
class DeviceSetupShare(Measure):
    """The host's time in device set-up over the window ``profguide explain`` measures."""

    def describe(self) -> str:
        return "device set-up / explain's window"

    def value(self, run: Run) -> float | None:
        setup = run.summary["device_setup"]
        return None if setup is None else setup["pct"] / 100


@dataclass(frozen=True)
class DeviceSetupCall(Measure):
    """The host's time in the device set-up calls named ``call`` over all its time in device set-up, over the
    window ``profguide explain`` measures: each the union over threads (the time when some thread was in such a
    call), so the share is at most 1 even where set-up calls on two threads overlap."""

    call: Event

    def describe(self) -> str:
        return f"device set-up in {self.call} / all device set-up"

    def value(self, run: Run) -> float | None:
        """The union over threads of the set-up calls named ``call`` over that of every set-up call, in explain's
        window: both the same kind of time, so the share is at most 1 however the calls overlap across threads (the
        report's ``top`` adds overlapping calls' times, which the union of all of them does not)."""
        from profguide.analysis.startup import setup_call_us

        setup, window = run.summary["device_setup"], run.summary["window"]
        if not setup or not setup["us"] or window is None:
            return None
        us = setup_call_us(run.trace, self.call, (window["start_us"], window["end_us"]))
        return None if us is None else us / setup["us"]


@dataclass(frozen=True)
class IdleBelowHtas(Measure):
    """How much lower explain's GPU idle share of a real trace is than the one HolisticTraceAnalysis reported for
    it, which leaves out the ops launched before the trace began (percentage points of the window, over 100)."""

    def describe(self) -> str:
        return "GPU idle share HTA reported − explain's"

    def value(self, run: Run) -> float | None:
        """HTA's own idle share of a real trace less explain's: only a real trace has HTA's answer at hand."""
        from profguide.site.data import RealTraceData

        summary = run.summary
        htas = htas_idle_share(run.root, run.trace_path().name) if isinstance(run, RealTraceData) else None
        if htas is None or summary["gpu_idle_pct"] is None:
            return None
        return htas - summary["gpu_idle_pct"] / 100


@dataclass(frozen=True)
class VerdictIs(Measure):
    """1 when ``profguide explain`` gives the recording's trace the verdict ``verdict``, else 0."""

    verdict: Verdict

    def describe(self) -> str:
        return f"explain's verdict is {self.verdict} (1 yes, 0 no)"

    def value(self, run: Run) -> float | None:
        return 1.0 if run.summary["verdict"] == self.verdict else 0.0


def fires(rule: RuleId, summary: Summary) -> bool:
    return any(row["rule"] == rule for row in summary["findings"])


@dataclass(frozen=True)
class RuleFires(Measure):
    """1 when the rule ``rule`` fires on the run, else 0."""

    rule: RuleId

    def describe(self) -> str:
        return f"rule {self.rule} fires (1 yes, 0 no)"

    def value(self, run: Run) -> float | None:
        return float(fires(self.rule, run.summary))


@dataclass(frozen=True)
class RuleFixed(Measure):
    """1 when the rule ``rule`` fires on the run this one is compared with and not on this one, else 0."""

    rule: RuleId

    def describe(self) -> str:
        return f"rule {self.rule} fires on the run compared with and not on this one (1 yes, 0 no)"

    def value(self, run: Run) -> float | None:
        return 1.0 if fires(self.rule, run.compared_run.summary) and not fires(self.rule, run.summary) else 0.0


@dataclass(frozen=True)
class DiffValue(Measure):
    """A number of ``profguide diff`` from the run this one is compared with (``compared_with``) to this one: the
    ``part`` (before, after, change, ratio or change_pct) of the diff's ``field`` (step_us, gpu_busy_pct,
    launches…; for a field by key, such as host_pct, the entry ``key``)."""

    field: DiffField
    part: Literal["before", "after", "change", "ratio", "change_pct"] = "ratio"
    key: DiffKey = ""

    def describe(self) -> str:
        what = f"{self.field} of {self.key}" if self.key else self.field
        return f"diff from the run compared with: {what}, {self.part}"

    def value(self, run: Run) -> float | None:
        found = cast("dict[str, Any]", run.diff)[self.field]
        value: float | None = (found[self.key] if self.key else found)[self.part]
        return value


@dataclass(frozen=True)
class DiffRows(Measure):
    """How many rows of ``profguide diff``'s ``rows`` (kernels or ops) have ``status`` (added, removed, changed,
    same), from the run this one is compared with to this one."""

    rows: DiffRowKind
    status: Literal["added", "removed", "changed", "same"]

    def describe(self) -> str:
        return f"diff from the run compared with: {self.rows} {self.status}"

    def value(self, run: Run) -> float | None:
        return float(sum(row["status"] == self.status for row in run.diff[self.rows]))


@dataclass(frozen=True)
class DiffRowRatio(Measure):
    """The row ``name`` of ``profguide diff``'s ``rows`` (kernels or ops), from the run this one is compared with to
    this one: its time per step after over before."""

    rows: DiffRowKind
    name: DiffRow

    def describe(self) -> str:
        return f"diff from the run compared with: {self.rows} {self.name}, time after / before"

    def value(self, run: Run) -> float | None:
        row = next((row for row in run.diff[self.rows] if row["name"] == self.name), None)
        return row["after_us"] / row["before_us"] if row and row["before_us"] else None
