"""Measures of a decoder's cache of keys and values: what its steps allocate, set against what one token's keys and
values take by the recording's parameters, and what its copies cost."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from profguide.site.measures import Event, MemoryCategory
from profguide.site.recordings import Measure

if TYPE_CHECKING:
    from profguide.site.recordings import Run

# The bytes of one element of each dtype a recording's ``dtype`` parameter may name.
ELEMENT_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2}


def token_bytes(run: Run) -> int | None:
    """One token's keys and values by the run's parameters (``layers``, ``width``, ``batch``, ``dtype``); None when
    it has not all of them."""
    from profguide.analysis.memory import kv_bytes_per_token

    params = run.params
    if not {"layers", "width", "batch"} <= params.keys() or params.get("dtype") not in ELEMENT_BYTES:
        return None
    return kv_bytes_per_token(params["layers"], params["width"], params["batch"], ELEMENT_BYTES[params["dtype"]])


def device_type(run: Run) -> int:
    """c10's DeviceType of the memory the run's cache lives in: 1 (CUDA) for a GPU recording, else 0 (the CPU)."""
    return 1 if run.meta["device"] == "cuda" else 0


@dataclass(frozen=True)
class OpAllocationGrowth(Measure):
    """How much more the calls of the op ``op`` allocate in one call of the region ``region`` than in the call before
    (the median over consecutive calls), over one token's keys and values by the run's parameters: 1 when each
    decode step's ``aten::cat`` allocates the cache again, one token longer."""

    op: Event
    region: Event

    def describe(self) -> str:
        return f"growth of {self.op}'s allocations from one {self.region} to the next / one token's keys and values"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.memory import memory_in_calls
        from profguide.stats import median

        token = token_bytes(run)
        allocated = [done for done, _ in memory_in_calls(run.trace, self.region, device_type(run), self.op)]
        growth = median([later - earlier for earlier, later in zip(allocated, allocated[1:], strict=False)])
        return growth / token if growth is not None and token else None


@dataclass(frozen=True)
class HeldPerCall(Measure):
    """What a call of the region ``region`` leaves allocated (what the allocator handed out inside it less what it
    took back; the median over its calls, or its first call's), over one token's keys and values by the run's
    parameters: 1 when each decode step keeps one more token's keys and values, near 0 when it keeps nothing,
    negative when it frees more than it allocates."""

    region: Event
    call: Literal["median", "first"] = "median"

    def describe(self) -> str:
        return f"bytes the {self.call} {self.region} leaves allocated / one token's keys and values"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.memory import memory_in_calls
        from profguide.stats import median

        token = token_bytes(run)
        calls = [done - undone for done, undone in memory_in_calls(run.trace, self.region, device_type(run))]
        held = median(calls if self.call == "median" else calls[:1])
        return held / token if held is not None and token else None


@dataclass(frozen=True)
class OpShareOfRegion(Measure):
    """The time of the ``op`` events that start inside the calls of the region ``region`` (on its thread) over the
    time of those calls: the share of a decode step that the cache's ``aten::cat`` takes."""

    op: Event
    region: Event

    def describe(self) -> str:
        return f"{self.op} inside {self.region} / {self.region}, CPU time"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.ops import op_durations_inside
        from profguide.analysis.select import occurrences

        whole = float(occurrences(run.trace, self.region).sum())
        return float(op_durations_inside(run.trace, self.op, self.region).sum()) / whole if whole > 0 else None


@dataclass(frozen=True)
class CategoryInTokens(Measure):
    """The bytes the memory timeline's category ``category`` holds at its last moment, in tokens' keys and values by
    the run's parameters: how many tokens a cache filed under that category holds when the generation ends."""

    category: MemoryCategory

    def describe(self) -> str:
        return f"{self.category} at the end of the memory timeline / one token's keys and values"

    def value(self, run: Run) -> float | None:
        from profguide.site.measures.memory import memory_sizes

        sizes, token = memory_sizes(run), token_bytes(run)
        if not sizes or self.category not in sizes or not token:
            return None
        return float(sizes[self.category][-1]) / token
