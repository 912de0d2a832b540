"""Measures of the host: its syncs, its launches and their delays, what its time goes to."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from profguide.analysis.vocabulary import CpuActivity
from profguide.site.measures import (
    Event,
    NamePart,
)
from profguide.site.recordings import Measure, RunId

if TYPE_CHECKING:
    from profguide.site.recordings import Run


@dataclass(frozen=True)
class SyncOverKernels(Measure):
    """The longest host synchronisation over the total time of the kernels."""

    def describe(self) -> str:
        return "longest host sync / kernel time"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.launches import synchronisations
        from profguide.analysis.select import kernel_durations

        kernel_us = float(kernel_durations(run.trace).sum())
        longest = synchronisations(run.trace)["longest"]
        if not kernel_us or not longest:
            return None
        return longest[0]["dur_us"] / kernel_us


@dataclass(frozen=True)
class SyncsPerStep(Measure):
    """The fewest host synchronisation calls in any one ``ProfilerStep``."""

    def describe(self) -> str:
        return "fewest host sync calls in a ProfilerStep"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.select import syncs_by_step

        counts = [len(syncs) for _, syncs in syncs_by_step(run.trace)]
        return float(min(counts)) if counts else None


@dataclass(frozen=True)
class SyncOverStep(Measure):
    """The longest host synchronisation over the median ``ProfilerStep``."""

    def describe(self) -> str:
        return "longest host sync / median ProfilerStep"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.launches import synchronisations
        from profguide.analysis.select import median_step

        step, longest = median_step(run.trace), synchronisations(run.trace)["longest"]
        return longest[0]["dur_us"] / step if step and longest else None


@dataclass(frozen=True)
class SyncInsideStep(Measure):
    """The longest host synchronisation that starts inside a ``ProfilerStep``, over that step's duration: the
    largest such share over the steps."""

    def describe(self) -> str:
        return "longest host sync inside a ProfilerStep / that step"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.select import host_syncs, syncs_by_step

        shares = [syncs.max(initial=0) / step["dur_us"] for step, syncs in syncs_by_step(run.trace)
                  if step["dur_us"] > 0]
        return float(max(shares)) if shares and len(host_syncs(run.trace)) else None


@dataclass(frozen=True)
class LongestSyncAfterSteps(Measure):
    """1 when the trace's longest host synchronisation starts after the last ``ProfilerStep`` has ended (the
    profiler's own sync when it stops), else 0."""

    def describe(self) -> str:
        return "the longest host sync starts after the last ProfilerStep (1 yes, 0 no)"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.launches import synchronisations
        from profguide.analysis.select import profiler_steps

        steps, longest = profiler_steps(run.trace), synchronisations(run.trace)["longest"]
        if not steps or not longest:
            return None
        return 1.0 if longest[0]["start_us"] >= max(step["start_us"] + step["dur_us"] for step in steps) else 0.0


@dataclass(frozen=True)
class SyncBusyShare(Measure):
    """The GPU's busy time during the longest host synchronisation over that synchronisation's duration."""

    def describe(self) -> str:
        return "GPU busy during the longest host sync / its duration"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.launches import synchronisations

        longest = synchronisations(run.trace)["longest"]
        if not longest or longest[0]["dur_us"] <= 0:
            return None
        return longest[0]["gpu_busy_during_us"] / longest[0]["dur_us"]


@dataclass(frozen=True)
class QueueingOverLaunch(Measure):
    """The median queueing (op behind earlier work) over the median launch delay (runtime API, stream empty)."""

    def describe(self) -> str:
        return "median queueing / median launch delay"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.launches import launch_delays

        found = launch_delays(run.trace)
        delay, queueing = found["launch_delay_us"].get("runtime"), found["queueing_us"]
        return queueing["p50"] / delay["p50"] if delay and queueing and delay["p50"] > 0 else None


@dataclass(frozen=True)
class LaunchGap(Measure):
    """The median time from a launch call's end to the start of its GPU op, for the ops that met an empty stream
    (``"launch delay"``, runtime API launches) or queued behind earlier work (``"queueing"``): in µs, or with
    ``per_step`` over the median ``ProfilerStep``."""

    kind: Literal["launch delay", "queueing"]
    per_step: bool = False

    def describe(self) -> str:
        return f"median {self.kind}" + (" / median ProfilerStep" if self.per_step else ", µs")

    def value(self, run: Run) -> float | None:
        from profguide.analysis.launches import launch_delays
        from profguide.analysis.select import median_step

        found = launch_delays(run.trace)
        gaps = found["launch_delay_us"].get("runtime") if self.kind == "launch delay" else found["queueing_us"]
        if not gaps:
            return None
        if not self.per_step:
            return gaps["p50"]
        step = median_step(run.trace)
        return gaps["p50"] / step if step else None


@dataclass(frozen=True)
class HostShare(Measure):
    """The share of the recorded steps that the thread running them spent in ``activity`` (a key of
    ``profguide.analysis.host.CPU_ACTIVITIES``), on a recording without GPU work."""

    activity: CpuActivity

    def describe(self) -> str:
        return f"host time in {self.activity} / recorded steps"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.host import host_breakdown

        host = host_breakdown(run.trace)
        return host["by_activity"][self.activity]["us"] / host["dur_us"] if host and host["dur_us"] else None


@dataclass(frozen=True)
class HostShareFall(Measure):
    """The ``baseline`` recording's ``HostShare`` of ``activity`` over this recording's."""

    activity: CpuActivity
    baseline: RunId

    def describe(self) -> str:
        return f"share of the steps in {self.activity}, {self.baseline} / this recording"

    def value(self, run: Run) -> float | None:
        share = HostShare(self.activity)
        here, baseline = share.value(run), share.value(run.sibling(self.baseline))
        return baseline / here if here and baseline is not None else None


@dataclass(frozen=True)
class HostLead(Measure):
    """Host time in ``activity`` over the largest other activity, in the recorded step where it leads least."""

    activity: CpuActivity

    def describe(self) -> str:
        return f"{self.activity} / the largest other host activity, least over the steps"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.host import host_breakdown

        host = host_breakdown(run.trace)
        leads = []
        for row in host["windows"] if host else []:
            others = max(us for activity, us in row["by_activity_us"].items() if activity != self.activity)
            leads.append(row["by_activity_us"][self.activity] / others if others else float("inf"))
        return min(leads, default=None)


@dataclass(frozen=True)
class RankHostShare(Measure):
    """The share of rank ``rank``'s recorded steps that its main thread spent in ``activity`` (a key of
    ``profguide.analysis.host.CPU_ACTIVITIES``), on a recording without GPU work; with ``label``, only the
    activity's time under that name (a region's, among the activity's three largest)."""

    rank: int
    activity: CpuActivity
    label: Event = ""

    def describe(self) -> str:
        under = f", under {self.label}" if self.label else ""
        return f"rank {self.rank}'s host time in {self.activity}{under} / its recorded steps"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.host import host_breakdown

        if self.rank >= len(run.traces):
            return None
        host = host_breakdown(run.traces[self.rank])
        if not host or not host["dur_us"]:
            return None
        spent = host["by_activity"][self.activity]
        us = dict(spent["top"]).get(self.label) if self.label else spent["us"]
        return None if us is None else us / host["dur_us"]


@dataclass(frozen=True)
class CallCount(Measure):
    """How many runtime or driver calls whose name starts with ``prefix`` the trace holds."""

    prefix: NamePart

    def describe(self) -> str:
        return f"runtime and driver calls named {self.prefix}…"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.launches import calls_named

        return float(calls_named(run.trace, self.prefix))


@dataclass(frozen=True)
class LaunchedBy(Measure):
    """Of the kernels whose name holds ``kernels`` (in any case) and whose launch call the trace holds, the share
    that one of the calls named ``calls`` launched (``cuLaunchKernel``, ``cudaGraphLaunch``…)."""

    calls: tuple[Event, ...]
    kernels: NamePart = "triton"

    def describe(self) -> str:
        return f"kernels named *{self.kernels}* launched by {' or '.join(self.calls)} / all such kernels launched"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.launches import launching_calls

        calls = launching_calls(run.trace, self.kernels)
        return sum(call in self.calls for call in calls) / len(calls) if calls else None


@dataclass(frozen=True)
class QueriesInside(Measure):
    """The share of the occupancy queries (``cudaOccupancy…`` calls) made inside an op whose name holds ``op``."""

    op: NamePart

    def describe(self) -> str:
        return f"occupancy queries inside an op named *{self.op}* / all queries"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.launches import queries_inside_ops

        inside = queries_inside_ops(run.trace, self.op)
        return sum(inside) / len(inside) if inside else None


@dataclass(frozen=True)
class OccupancyQueries(Measure):
    """Occupancy queries against launches of one kernel family (``gemm``, ``elementwise``, ``other``):
    ``of="queries"``, the share of queries whose next launch is of the family; ``of="launches"``, the share
    of the family's launches (those whose kernel name holds ``name_contains``) that come right after a query."""

    family: Literal["gemm", "elementwise", "other"]
    of: Literal["queries", "launches"]
    name_contains: NamePart = ""

    def describe(self) -> str:
        if self.of == "queries":
            return f"occupancy queries followed by a {self.family} launch / all queries"
        which = f"{self.family} launches" + (f" of kernels named *{self.name_contains}*" if self.name_contains else "")
        return f"{which} right after an occupancy query / all such launches"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.launches import occupancy_queries

        found = occupancy_queries(run.trace)
        if self.of == "queries":
            return found["next"][self.family] / found["queries"] if found["queries"] else None
        after = [after for name, family, after in found["launched"]
                 if family == self.family and self.name_contains in name]
        return sum(after) / len(after) if after else None


@dataclass(frozen=True)
class OverheadEvents(Measure):
    """How many events of the profiler's own work (an ``Activity Buffer Request``, a ``Buffer Flush``) the
    trace holds."""

    def describe(self) -> str:
        return "events of the profiler's own overhead"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.launches import profiler_overhead

        return float(profiler_overhead(run.trace)["events"])
