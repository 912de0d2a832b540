"""Measures of how long things take: steps, regions and ops, their first calls against the later ones."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from profguide.site.measures import (
    Event,
    FirstOrLast,
    NamePart,
)
from profguide.site.recordings import Measure, RunId

if TYPE_CHECKING:
    from profguide.site.recordings import Run


@dataclass(frozen=True)
class FirstOverRest(Measure):
    """The first occurrence of ``region`` over the slowest of the others (``ProfilerStep`` means every step)."""

    region: Event

    def describe(self) -> str:
        return f"first {self.region} / slowest later {self.region}"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.select import occurrences

        durations = occurrences(run.trace, self.region)
        return float(durations[0] / durations[1:].max()) if len(durations) > 1 else None


@dataclass(frozen=True)
class SlowestOverFastest(Measure):
    """The slowest occurrence of ``region`` over the fastest."""

    region: Event

    def describe(self) -> str:
        return f"slowest {self.region} / fastest {self.region}"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.select import occurrences

        durations = occurrences(run.trace, self.region)
        return float(durations.max() / durations.min()) if len(durations) > 1 and durations.min() > 0 else None


@dataclass(frozen=True)
class FirstOverMedian(Measure):
    """The first occurrence of ``region`` over the median of the others."""

    region: Event

    def describe(self) -> str:
        return f"first {self.region} / median later {self.region}"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.select import occurrences
        from profguide.stats import median

        durations = occurrences(run.trace, self.region)
        return float(durations[0] / median(durations[1:])) if len(durations) > 1 else None


@dataclass(frozen=True)
class StepCount(Measure):
    """How many ``ProfilerStep#N`` the recording holds."""

    def describe(self) -> str:
        return "recorded ProfilerSteps"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.select import profiler_steps

        return float(len(profiler_steps(run.trace)))


@dataclass(frozen=True)
class StepNumber(Measure):
    """The number of the first or the last recorded ``ProfilerStep#N``."""

    which: FirstOrLast

    def describe(self) -> str:
        return f"{self.which} recorded ProfilerStep number"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.select import profiler_steps

        steps = profiler_steps(run.trace)
        if not steps:
            return None
        return float(steps[0 if self.which == "first" else -1]["step"])


@dataclass(frozen=True)
class Encloses(Measure):
    """1 when the first ``inner`` event lies inside the first ``outer`` one, else 0."""

    outer: Event
    inner: Event

    def describe(self) -> str:
        return f"{self.outer} encloses {self.inner} (1 yes, 0 no)"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.select import encloses

        inside = encloses(run.trace, self.outer, self.inner)
        return None if inside is None else float(inside)


@dataclass(frozen=True)
class OutsideOps(Measure):
    """The share of the calls of ``region`` after the first spent in no op, over their total duration."""

    region: Event

    def describe(self) -> str:
        return f"time in no op / duration, {self.region} calls after the first"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.regions import region_calls

        later = region_calls(run.trace, self.region)[1:]
        total = sum(call["dur_us"] for call in later)
        return sum(call["dur_us"] - call["in_ops_us"] for call in later) / total if total else None


@dataclass(frozen=True)
class MedianStepRatio(Measure):
    """This recording's median ``ProfilerStep`` over the ``baseline`` recording's."""

    baseline: RunId

    def describe(self) -> str:
        return f"median ProfilerStep, this recording / {self.baseline}"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.select import median_step

        here, baseline = median_step(run.trace), median_step(run.sibling(self.baseline).trace)
        return here / baseline if here and baseline else None


@dataclass(frozen=True)
class OpMedianOver(Measure):
    """The median duration of the op ``op`` here over its median duration in the recording ``baseline``."""

    op: Event
    baseline: RunId

    def describe(self) -> str:
        return f"median {self.op}, this trace / {self.baseline}"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.select import occurrences
        from profguide.stats import median

        here, there = occurrences(run.trace, self.op), occurrences(run.sibling(self.baseline).trace, self.op)
        above, below = median(here), median(there)  # None where there are no occurrences
        if above is None or below is None or below <= 0:
            return None
        return float(above / below)


@dataclass(frozen=True)
class OpMedianInRegions(Measure):
    """The median duration of the op ``op`` where it starts inside an occurrence of the region ``region`` (on its
    thread; where it ends does not matter), over the same inside the occurrences of ``other``: one op in two kinds
    of call of one run."""

    op: Event
    region: Event
    other: Event

    def describe(self) -> str:
        return f"median {self.op} inside {self.region} / inside {self.other}"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.ops import op_durations_inside
        from profguide.stats import median

        above = median(op_durations_inside(run.trace, self.op, self.region))  # None where there are none
        below = median(op_durations_inside(run.trace, self.op, self.other))
        return float(above / below) if above is not None and below is not None and below > 0 else None


@dataclass(frozen=True)
class OpOverKernelMedian(Measure):
    """The median duration of the op ``op`` over the median duration of the trace's kernels: the host's time for
    one op against the GPU's for one kernel, both from one trace."""

    op: Event

    def describe(self) -> str:
        return f"median {self.op} / median kernel"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.select import kernel_durations, occurrences
        from profguide.stats import median

        op, kernel = median(occurrences(run.trace, self.op)), median(kernel_durations(run.trace))  # None for none
        if op is None or kernel is None or kernel <= 0:
            return None
        return float(op / kernel)


@dataclass(frozen=True)
class RegionTimeRatio(Measure):
    """The first occurrence of the region ``region``: its duration (``part="in all"``), its time in the ops
    directly under it (``"in ops"``) or in no op (``"outside ops"``), over the most of the occurrences of ``other``
    that start after it."""

    region: Event
    other: Event
    part: Literal["in all", "in ops", "outside ops"]

    def describe(self) -> str:
        return f"first {self.region}'s time {self.part} / the most of a later {self.other}'s"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.regions import region_calls

        def spent(call: dict[str, float]) -> float:
            return {"in all": call["dur_us"], "in ops": call["in_ops_us"],
                    "outside ops": call["dur_us"] - call["in_ops_us"]}[self.part]

        first = region_calls(run.trace, self.region)
        later = [spent(call) for call in region_calls(run.trace, self.other)
                 if first and call["start_us"] > first[0]["start_us"]]
        return spent(first[0]) / max(later) if later and max(later) > 0 else None


@dataclass(frozen=True)
class SelfTimeRatio(Measure):
    """The self time (the part no event under it covers) of the first event whose name starts with ``prefix``
    inside the first ``region``, over the same inside the first ``other``."""

    prefix: NamePart
    region: Event
    other: Event

    def describe(self) -> str:
        return f"self time of {self.prefix}…, in {self.region} / in {self.other}"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.regions import self_time

        here = self_time(run.trace, self.region, self.prefix)
        there = self_time(run.trace, self.other, self.prefix)
        return here / there if here is not None and there else None


@dataclass(frozen=True)
class OpsInStep(Measure):
    """How many ops ran inside the first or the last recorded ``ProfilerStep#N``."""

    which: FirstOrLast

    def describe(self) -> str:
        return f"ops in the {self.which} recorded ProfilerStep"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.select import ops_started_in, profiler_steps

        steps = profiler_steps(run.trace)
        return float(ops_started_in(run.trace, steps[0 if self.which == "first" else -1])) if steps else None
