"""Measures of the GPU's kernels: their time, their names decoded, the calls that launched them, their footprint."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, cast

from profguide.site.measures import (
    DeviceKey,
    Event,
    FamilyField,
    FamilyValue,
    GemmShapes,
    KernelFamily,
    LeastOrMost,
    Module,
    NamePart,
)
from profguide.site.recordings import Measure

if TYPE_CHECKING:
    from profguide.analysis.kernel_resources import Fit, Launch, Limit
    from profguide.site.recordings import Run


def footprints(run: Run, kernels: str = "") -> list[tuple[Launch, Fit]]:
    """The kernel launches of the run's trace with their footprint (``profguide.analysis.kernel_resources``), of the
    kernels whose name holds ``kernels`` in lower case: [(launch, fit)], those whose fit can be worked out."""
    from profguide.analysis.kernel_resources import fit, kernel_launches

    found = [(launch, fit(launch)) for launch in kernel_launches(run.trace_path())
             if kernels.lower() in launch.name.lower()]
    return [(launch, fitted) for launch, fitted in found if fitted is not None]


FootprintValue = Literal["registers", "shared memory", "threads", "blocks", "blocks by registers",
                         "blocks by shared memory", "blocks by warps", "theoretical", "recorded"]
OccupancyLimitKind = Literal["registers", "shared memory", "warps", "blocks"]


def footprint_value(quantity: FootprintValue, launch: Launch, fit: Fit) -> float | None:
    """One number of a launch's footprint (``KernelFootprint``)."""
    if quantity.startswith("blocks by "):
        # FootprintValue's "blocks by <limit>" members each name a Limit.
        found: int | None = fit.by[cast("Limit", quantity.removeprefix("blocks by "))]
        return found
    return {"registers": launch.registers, "shared memory": launch.shared, "threads": launch.threads,
            "blocks": fit.blocks, "theoretical": fit.theoretical, "recorded": launch.recorded}[quantity]


@dataclass(frozen=True)
class DeviceShare(Measure):
    """GPU time of the kernels the op ``part`` launched over the GPU time of all kernels."""

    part: Event

    def describe(self) -> str:
        return f"{self.part} kernel time / all kernel time"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.ops import op_launched_share

        return op_launched_share(run.trace, self.part)


@dataclass(frozen=True)
class GpuBusyShare(Measure):
    """GPU busy time over the window from the first GPU op's start to the last one's end."""

    def describe(self) -> str:
        return "GPU busy time / GPU window"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.idle import busy_intervals
        from profguide.analysis.intervals import union_length
        from profguide.analysis.select import gpu_window

        window = gpu_window(run.trace)
        if window is None or window[1] <= window[0]:
            return None
        return union_length(*busy_intervals(run.trace, window)) / (window[1] - window[0])


@dataclass(frozen=True)
class MeanOverMedian(Measure):
    """The mean duration of the kernel with the most total time over its median."""

    def describe(self) -> str:
        return "top kernel's mean duration / its median"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.kernels import top_kernels

        top = top_kernels(run.trace, limit=1)
        return top[0]["mean"] / top[0]["p50"] if top and top[0]["p50"] > 0 else None


@dataclass(frozen=True)
class PeakShare(Measure):
    """Achieved TFLOP/s of the matrix multiply with the most kernel time over the datasheet's peak for the
    device and input type."""

    def describe(self) -> str:
        return "achieved TFLOP/s / datasheet peak"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.kernels import gemm_throughput

        rows = gemm_throughput(run.trace)
        return rows[0]["pct_of_peak"] / 100 if rows and rows[0]["pct_of_peak"] is not None else None


@dataclass(frozen=True)
class KernelSpread(Measure):
    """Over the kernels whose name holds ``name_contains``, each name on its own, ``statistic`` (``"p95"`` or
    ``"mean"``) of its durations over their median: the largest when ``which`` is "most", the smallest when
    "least"."""

    name_contains: NamePart
    statistic: Literal["mean", "p95", "max"]
    which: LeastOrMost

    def describe(self) -> str:
        return f"{self.statistic} / median of a kernel named *{self.name_contains}*, the {self.which} over them"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.kernels import kernel_rows_named

        ratios = [row[self.statistic] / row["p50"] for row in kernel_rows_named(run.trace, self.name_contains)
                  if row["p50"] > 0]
        if not ratios:
            return None
        return max(ratios) if self.which == "most" else min(ratios)


@dataclass(frozen=True)
class BusiestGemmSpread(Measure):
    """The calls of the matrix multiply (op, input shapes, input type) with the most kernel time, the first row of
    the TFLOP/s table: ``statistic`` of each call's kernel time over their median. The same work every call, so
    the spread is the GPU's own."""

    statistic: Literal["p95", "max"]

    def describe(self) -> str:
        return f"{self.statistic} / median kernel time of a call, the busiest matrix multiply's calls"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.kernels import busiest_gemm_times, distribution

        found = distribution(busiest_gemm_times(run.trace))
        if found is None or found["count"] < 2 or found["p50"] <= 0:
            return None
        return found[self.statistic] / found["p50"]


@dataclass(frozen=True)
class GemmCallsNamed(Measure):
    """The share of the calls of the matrix multiply ``op`` on inputs of the shapes ``shapes`` whose GEMM kernels
    all hold ``contains`` in their names (a tile, ``MT128x224x64``): the kernel a library picked for one shape."""

    op: Event
    shapes: GemmShapes
    contains: NamePart

    def describe(self) -> str:
        return f"calls of {self.op} on {self.shapes} whose GEMM kernels are named *{self.contains}* / all of them"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.kernels import calls_on, gemm_kernels_named

        calls = calls_on(run.trace, self.op, self.shapes)
        if not calls:
            return None
        return sum(gemm_kernels_named(call, self.contains) for call in calls) / len(calls)


@dataclass(frozen=True)
class GemmCallRatio(Measure):
    """The median kernel time of a call of the matrix multiply ``op`` on inputs of the shapes ``shapes`` over that
    of a call of ``op`` on ``other``: two multiplies of one trace, such as two of the same FLOPs in other shapes."""

    op: Event
    shapes: GemmShapes
    other: GemmShapes

    def describe(self) -> str:
        return f"median kernel time of a call of {self.op} on {self.shapes} / on {self.other}"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.kernels import calls_on
        from profguide.stats import median

        one, other = (calls_on(run.trace, self.op, shapes) for shapes in (self.shapes, self.other))
        if not one or not other:
            return None
        above, below = median([call.kernel_us for call in one]), median([call.kernel_us for call in other])
        return above / below if above is not None and below is not None and below > 0 else None


@dataclass(frozen=True)
class KernelsDecoded(Measure):
    """The kernels (launches) of ``family`` as their names decode (``profguide.analysis.families.kernel_family``):
    with no ``field``, how many there are; with one, the share of them whose ``field`` ``reads`` (as the
    family splits write it: ``yes``/``no`` for tensor cores, ``unknown`` where the name does not say), or with
    ``count`` how many of them."""

    family: KernelFamily
    field: FamilyField = ""
    reads: FamilyValue = ""
    count: bool = False

    def describe(self) -> str:
        if not self.field:
            return f"{self.family} kernels"
        said = f"{self.family} kernels whose names say {self.field} {self.reads}"
        return said if self.count else f"{said} / all {self.family} kernels"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.families import decoded_kernels, split_label

        of_family = [(found, count) for found, count in decoded_kernels(run.trace) if found.family == self.family]
        total = sum(count for _, count in of_family)
        if not self.field:
            return float(total)
        said = sum(count for found, count in of_family if split_label(getattr(found, self.field)) == self.reads)
        if self.count:
            return float(said)
        return said / total if total else None


@dataclass(frozen=True)
class KernelsJoined(Measure):
    """The share of the kernels whose ``External id`` is that of an op: those the trace joins to the op that
    launched them; ``before``: of the others, the share that start before the first joined one."""

    before: bool = False

    def describe(self) -> str:
        if self.before:
            return "kernels joined to no op that start before the first joined one / all kernels joined to no op"
        return "kernels joined to an op by External id / all kernels"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.ops import joined_kernel_share, unjoined_before_share

        return unjoined_before_share(run.trace) if self.before else joined_kernel_share(run.trace)


@dataclass(frozen=True)
class KernelsInside(Measure):
    """The GPU ops (kernels, copies, sets) launched inside the calls of the op ``op`` or of the modules of the
    class ``module``, by them or by anything under them, per call: those whose owner (the innermost op or region
    open at the launch) starts inside the call on its thread; with ``family``, only those whose names decode to it
    (``profguide.analysis.families.kernel_family``); with ``named``, only those whose names hold it."""

    op: Event = ""
    module: Module = ""
    family: KernelFamily = ""
    named: NamePart = ""

    def describe(self) -> str:
        kind = f"{self.family} GPU ops" if self.family else "GPU ops"
        kind += f" named *{self.named}*" if self.named else ""
        return f"{kind} launched per call of {self.op or 'module ' + self.module}"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.ops import gpu_ops_per_call

        return gpu_ops_per_call(run.trace, self.op, self.module, self.family, self.named)


@dataclass(frozen=True)
class KernelFootprint(Measure):
    """Over the launches of the kernels whose name holds ``kernels`` (in lower case), the median of one number of
    their footprint as the trace records it (``profguide.analysis.kernel_resources``): ``registers`` a thread,
    ``shared memory`` a block, ``threads`` a block; how many ``blocks`` fit on one SM of the GPU the trace's
    ``deviceProperties`` describe (or fit by one limit: ``blocks by registers``…); the ``theoretical`` occupancy
    those blocks give; or the trace's own ``est. achieved occupancy %`` (``recorded``), both as fractions."""

    kernels: NamePart
    quantity: FootprintValue

    def describe(self) -> str:
        return f"median {self.quantity} of the kernels named *{self.kernels}*"

    def value(self, run: Run) -> float | None:
        from profguide.stats import median

        values = [footprint_value(self.quantity, launch, fit) for launch, fit in footprints(run, self.kernels)]
        return median([value for value in values if value is not None])  # None where there is none


@dataclass(frozen=True)
class OccupancyLimit(Measure):
    """Of the launches of the kernels whose name holds ``kernels``, the share whose blocks on one SM are limited
    by ``limit`` (``registers``, ``shared memory``, ``warps``, ``blocks``), alone or with another limit."""

    kernels: NamePart
    limit: OccupancyLimitKind

    def describe(self) -> str:
        return f"launches of *{self.kernels}* limited by {self.limit} / all its launches"

    def value(self, run: Run) -> float | None:
        found = footprints(run, self.kernels)
        return sum(self.limit in fit.limited_by for _, fit in found) / len(found) if found else None


@dataclass(frozen=True)
class OccupancyReadsZero(Measure):
    """Of a trace's kernel launches whose occupancy column and footprint it records, the share whose column
    (``est. achieved occupancy %``) reads 0. Only the launches made by one of ``calls``, of kernels whose name
    holds ``kernels``, whose blocks use more shared memory than the GPU's default per-block limit (``above
    default``) or no more (``within default``), and, with ``full_grid``, whose grid gives every SM a block."""

    calls: tuple[Event, ...] = ()
    kernels: NamePart = ""
    shared_memory: Literal["", "above default", "within default"] = ""
    full_grid: bool = False

    def describe(self) -> str:
        which = [f"launched by {' or '.join(self.calls)}"] if self.calls else []
        which += [f"named *{self.kernels}*"] if self.kernels else []
        which += [f"with shared memory {self.shared_memory} a block"] if self.shared_memory else []
        which += ["with a block for every SM"] if self.full_grid else []
        return f"kernel launches reading 0 % occupancy / all{' ' + ', '.join(which) if which else ''}"

    def value(self, run: Run) -> float | None:
        from profguide.analysis import kernel_resources

        above = {"above default": True, "within default": False}.get(self.shared_memory)
        found = [launch for launch, _ in footprints(run, self.kernels)
                 if launch.recorded is not None and (not self.calls or launch.call in self.calls)
                 and (above is None or kernel_resources.above_default(launch) is above)
                 and (not self.full_grid or kernel_resources.fills_the_gpu(launch))]
        return sum(launch.recorded == 0 for launch in found) / len(found) if found else None


@dataclass(frozen=True)
class DeviceProperty(Measure):
    """A number the trace's ``deviceProperties`` give its first GPU: ``numSms`` (its SMs, or an AMD GPU's compute
    units), ``totalGlobalMem`` (bytes)…"""

    key: DeviceKey

    def describe(self) -> str:
        return f"the first GPU's {self.key}"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.kernels import device_numbers

        return device_numbers(run.trace).get(self.key)
