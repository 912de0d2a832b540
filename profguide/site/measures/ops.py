"""Measures of ops, ``record_function`` regions and modules: their rows in the op view, what their calls hold."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, cast, get_args

from profguide.site.measures import (
    Event,
    Module,
    NamePart,
    Time,
)
from profguide.site.recordings import Measure

if TYPE_CHECKING:
    from profguide.analysis.ops import RegionRow
    from profguide.site.recordings import Run
    from profguide.trace.model import Trace


OpColumn = Literal["calls", "cpu_us", "self_cpu_us", "device_us", "self_device_us"]


def op_totals(trace: Trace, op: str) -> dict[OpColumn, float] | None:
    """The op view's rows of the op ``op`` (one a set of input shapes) added up, by column; None without such an
    op."""
    from profguide.analysis.ops import op_rows

    rows = [row for row in op_rows(trace) if row["name"] == op]
    if not rows:
        return None
    return {column: float(sum(cast("dict[str, float]", row)[column] for row in rows)) for column in get_args(OpColumn)}


def pass_times(row: RegionRow, time: Time) -> tuple[float, float]:
    """A region row's (forward, backward) time on the CPU or of the GPU ops launched inside them."""
    if time == "cpu":
        return row["cpu_us"], row["backward_cpu_us"]
    return row["device_us"], row["backward_device_us"]


@dataclass(frozen=True)
class RegionShare(Measure):
    """The calls of the ``record_function`` region ``region``, with the backward functions joined to them by
    sequence number (``passes="both"``), or one pass alone (``"forward"``, ``"backward"``): their CPU time over the
    ProfilerSteps' (``time="cpu"``), or the GPU time launched inside them over all that the trace joins to an op or
    region (``"device"``). ``among`` set: 1 when this share is the largest of those regions' shares, else 0."""

    region: Event
    time: Time = "cpu"
    passes: Literal["forward", "backward", "both"] = "both"
    among: tuple[Event, ...] = ()

    def describe(self) -> str:
        what = f"{self.region} {self.passes} {self.time} time / all steps'"
        return f"{what}, the largest of {', '.join(self.among)} (1 yes, 0 no)" if self.among else what

    def value(self, run: Run) -> float | None:
        from profguide.analysis.ops import joined_device_us, region_rows
        from profguide.analysis.select import steps_total_us

        rows = {row["name"]: row for row in region_rows(run.trace)}

        def share(region: str) -> float | None:
            row = rows.get(region)
            if row is None:
                return None
            forward, backward = pass_times(row, self.time)
            passes = {"forward": forward, "backward": backward}
            return passes.get(self.passes, forward + backward) / whole

        if self.time == "cpu":
            whole = steps_total_us(run.trace)
        else:
            whole = joined_device_us(run.trace)
        if not whole:
            return None
        found = share(self.region)
        if found is None or not self.among:
            return found
        return 1.0 if all(found >= (share(other) or 0.0) for other in self.among) else 0.0


@dataclass(frozen=True)
class RegionCount(Measure):
    """How many calls of the ``record_function`` region ``region`` the trace holds (0 when none)."""

    region: Event

    def describe(self) -> str:
        return f"calls of the region {self.region}"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.ops import region_rows

        return float(next((row["calls"] for row in region_rows(run.trace) if row["name"] == self.region), 0))


@dataclass(frozen=True)
class BackwardOverForward(Measure):
    """The backward functions joined to the region ``region``: their CPU (or device) time over its calls'."""

    region: Event
    time: Time = "cpu"

    def describe(self) -> str:
        return f"{self.region} backward {self.time} time / its forward's"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.ops import region_rows

        row = next((row for row in region_rows(run.trace) if row["name"] == self.region), None)
        forward, backward = pass_times(row, self.time) if row else (0.0, 0.0)
        return backward / forward if forward else None


@dataclass(frozen=True)
class KernelsPerCall(Measure):
    """The GPU ops (kernels, copies, sets) launched inside the calls of the region ``region`` (the forward alone),
    or of the modules of the class ``module``, per call."""

    region: Event = ""
    module: Module = ""

    def describe(self) -> str:
        return f"GPU ops launched per call of {self.region or 'module ' + self.module}"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.ops import module_rows, region_rows

        rows = region_rows(run.trace) if self.region else module_rows(run.trace)
        row = next((row for row in rows if row["name"] == (self.region or self.module)), None)
        return row["kernels"] / row["calls"] if row and row["calls"] else None


@dataclass(frozen=True)
class ModuleShare(Measure):
    """The GPU time launched inside the forward calls of the modules of the class ``module`` (``nn.Module: …``
    events) over all the GPU time that the trace joins to an op or region; with ``ops``, that of the ops so named
    inside those calls over the modules' own."""

    module: Module
    ops: tuple[Event, ...] = ()

    def describe(self) -> str:
        if self.ops:
            return f"device time of {', '.join(self.ops)} inside {self.module} / {self.module}'s"
        return f"{self.module} device time / all device time joined to an op"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.ops import joined_device_us, module_op_device, module_rows

        if self.ops:
            inside = module_op_device(run.trace, self.module)
            whole = sum(inside.values())
            return sum(inside.get(op, 0.0) for op in self.ops) / whole if whole else None
        row = next((row for row in module_rows(run.trace) if row["name"] == self.module), None)
        whole = joined_device_us(run.trace)
        return row["device_us"] / whole if row and whole else None


@dataclass(frozen=True)
class OpTotal(Measure):
    """One column of the op view (``profguide explain --ops``) for the op ``op``, its calls of every input shape
    added up: how many ``calls``, their CPU time (``cpu_us``, ``self_cpu_us``), or the time of the GPU ops
    launched inside them (``device_us``) or by them alone (``self_device_us``). From the trace, where
    ``RowValue`` reads a recording's summary table, which a real trace does not have."""

    op: Event
    column: OpColumn

    def describe(self) -> str:
        return f"{self.op} {self.column}, every call"

    def value(self, run: Run) -> float | None:
        totals = op_totals(run.trace, self.op)
        return None if totals is None else totals[self.column]


@dataclass(frozen=True)
class OpShare(Measure):
    """``part``'s value in one column of the op view over ``whole``'s (``OpTotal``'s columns)."""

    part: Event
    whole: Event
    column: OpColumn

    def describe(self) -> str:
        return f"{self.part} {self.column} / {self.whole} {self.column}, every call"

    def value(self, run: Run) -> float | None:
        part, whole = op_totals(run.trace, self.part), op_totals(run.trace, self.whole)
        return part[self.column] / whole[self.column] if part and whole and whole[self.column] else None


@dataclass(frozen=True)
class OpsWithShapes(Measure):
    """The share of the trace's ops that carry their input shapes (the ``Input Dims`` that ``record_shapes``
    adds)."""

    def describe(self) -> str:
        return "ops with input shapes / all ops"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.ops import shapes_recorded_share

        return shapes_recorded_share(run.trace)


@dataclass(frozen=True)
class OpsInRegion(Measure):
    """How many ``op`` events the first occurrence of the region ``region`` holds, at any depth; with ``under``,
    only those nested, at any depth, in an ``under`` event of it."""

    region: Event
    op: Event
    under: Event = ""

    def describe(self) -> str:
        nested = f" under {self.under}" if self.under else ""
        return f"{self.op}{nested} in {self.region}"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.regions import ops_in_region, ops_under

        if self.under:
            found = ops_under(run.trace, self.region, self.op, self.under)
        else:
            found = ops_in_region(run.trace, self.region, self.op)
        return None if found is None else float(found)


@dataclass(frozen=True)
class NamedInRegion(Measure):
    """How many events whose name starts with ``prefix`` (and holds ``containing``) the first occurrence of the
    region ``region`` holds, at any depth: for names that carry a hash or a number (``## Call CompiledFxGraph
    <hash> ##``)."""

    region: Event
    prefix: NamePart
    containing: NamePart = ""

    def describe(self) -> str:
        holding = f" holding {self.containing}" if self.containing else ""
        return f"{self.prefix}…{holding} in {self.region}"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.regions import region_tree

        tree = region_tree(run.trace, self.region)
        return float(sum(entry["name"].startswith(self.prefix) and self.containing in entry["name"]
                         for entry in tree[1:])) if tree else None


@dataclass(frozen=True)
class OpsPerCall(Measure):
    """How many ops whose names start with ``prefix`` lie wholly inside a call of the op or region ``region`` (start
    and end inside it), on its thread and at any depth: the median over its calls."""

    region: Event
    prefix: NamePart = "aten::"

    def describe(self) -> str:
        return f"{self.prefix}… ops inside a call of {self.region}, median over its calls"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.regions import ops_in_each_call
        from profguide.stats import median

        return median(ops_in_each_call(run.trace, self.region, self.prefix))  # None where there are no calls


@dataclass(frozen=True)
class PythonCallsInRegion(Measure):
    """The first occurrence of the ``record_function`` region ``region``: how many Python calls (``"calls"``: the
    ``python_function`` events that ``with_stack`` records) or ops (``"ops"``) lie wholly inside it on its thread
    (start and end inside it: the ``__exit__`` that closes the region, which returns after its end, is left out),
    or the first over the second (``"calls per op"``)."""

    region: Event
    count: Literal["calls", "ops", "calls per op"]

    def describe(self) -> str:
        what = {"calls": "Python calls", "ops": "ops", "calls per op": "Python calls / ops"}[self.count]
        return f"{what} in the first {self.region}"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.regions import python_calls_by_region

        row = next((row for row in python_calls_by_region(run.trace) if row["region"] == self.region), None)
        if row is None:
            return None
        if self.count == "calls per op":
            return row["python_calls"] / row["ops"] if row["ops"] else None
        return float(row["python_calls"] if self.count == "calls" else row["ops"])


@dataclass(frozen=True)
class NestedIn(Measure):
    """How many events named ``inner`` (ops, regions, runtime or driver calls) start inside a call of the op or
    region ``outer`` on its thread (where they end does not matter), per call of ``outer``, over every call of
    it."""

    outer: Event
    inner: Event

    def describe(self) -> str:
        return f"{self.inner} inside {self.outer}, per call of {self.outer}"

    def value(self, run: Run) -> float | None:
        """Each call of ``outer`` counts the ``inner`` events that start at or after its start and before its end, on
        its thread (a call inside another call of ``outer`` counts them again)."""
        from profguide.analysis.regions import nested_per_call

        return nested_per_call(run.trace, self.outer, self.inner)
