"""Measures of memory: the memory timeline's categories, the allocator's events, the summary table's columns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from profguide.site.measures import (
    Event,
    FirstOrLast,
    MemoryCategory,
    Time,
)
from profguide.site.measures.results import row_value
from profguide.site.recordings import Measure

if TYPE_CHECKING:
    from profguide.analysis.intervals import Floats
    from profguide.site.recordings import Run


def memory_sizes(run: Run) -> dict[str, Floats] | None:
    """The recording's memory timeline by category (``memory-timeline.json``), or None when it has none."""
    from profguide.analysis.memory import memory_timeline
    from profguide.errors import RecordingError

    try:
        return memory_timeline(run.json_file("memory-timeline.json"))[1]
    except (RecordingError, ValueError):
        return None


@dataclass(frozen=True)
class MemoryLeftAtEnd(Measure):
    """The bytes memory category ``category`` holds at the end of the memory timeline over its peak."""

    category: MemoryCategory

    def describe(self) -> str:
        return f"{self.category} at the end of the memory timeline / its peak"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.memory import left_at_end

        sizes = memory_sizes(run)
        return left_at_end(sizes, self.category) if sizes else None


@dataclass(frozen=True)
class MemoryRatioAtEnd(Measure):
    """The bytes of memory category ``part`` over those of ``whole``, at the end of the memory timeline."""

    part: MemoryCategory
    whole: MemoryCategory

    def describe(self) -> str:
        return f"{self.part} / {self.whole} at the end of the memory timeline"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.memory import ratio_at_end

        sizes = memory_sizes(run)
        return ratio_at_end(sizes, self.part, self.whole) if sizes else None


@dataclass(frozen=True)
class FreesInRegion(Measure):
    """How many frees the trace's memory events record inside the first or the last occurrence of the region
    ``region`` (``which``: "first" or "last"), on its thread."""

    region: Event
    which: FirstOrLast

    def describe(self) -> str:
        return f"frees recorded in the {self.which} {self.region}"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.memory import frees_in_region

        counts = frees_in_region(run.trace, self.region)
        return float(counts[0 if self.which == "first" else -1]) if counts else None


@dataclass(frozen=True)
class FreedInside(Measure):
    """What the row ``name`` frees outside its ops over what the ops inside it allocate, from the summary table's
    CPU (``memory="cpu"``) or device memory columns: minus its self memory over its memory less its self memory.
    1 when a region frees, between its ops, all that they allocated."""

    name: Event
    memory: Time = "cpu"

    def describe(self) -> str:
        return f"{self.name}'s frees / its ops' allocations, {self.memory} memory"

    def value(self, run: Run) -> float | None:
        own = row_value(run, self.name, "self_cpu_memory_bytes" if self.memory == "cpu" else "self_device_memory_bytes")
        everything = row_value(run, self.name, "cpu_memory_bytes" if self.memory == "cpu" else "device_memory_bytes")
        if own is None or everything is None or everything <= own:
            return None
        return -own / (everything - own)


@dataclass(frozen=True)
class FreedOutsideOps(Measure):
    """Over the calls of the region ``region``: the memory that the allocator's events on its thread record on
    the CPU (``memory="cpu"``) or on a GPU (``"device"``) outside every op, freed, over what they record inside
    its ops. 1 when a region frees between its ops all that they allocated: ``FreedInside`` from the trace's own
    events, where a real trace has no summary table."""

    region: Event
    memory: Literal["cpu", "device"] = "device"

    def describe(self) -> str:
        return f"{self.region}'s frees outside its ops / its ops' allocations, {self.memory} memory, from the events"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.memory import freed_outside_ops

        return freed_outside_ops(run.trace, self.region, 0 if self.memory == "cpu" else 1)  # c10's DeviceType
