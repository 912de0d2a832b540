"""Measures of what profiling a server costs it besides each step's slowdown (``StepTimeRatio`` measures that):
the stall that handing a finished profile over puts on the serving thread, and the size of the written trace, as
``snippets/serving_a_model/profiling_a_server.py`` returns them (``results.json``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from profguide.site.measures.results import ratio, row_ratio, rows_by_name
from profguide.site.recordings import Measure

if TYPE_CHECKING:
    from profguide.site.recordings import Run

# How the snippet handed a finished profile over: kept and not written (what is left is the profiler's own stop),
# written by ``on_trace_ready`` on the serving thread, or handed to a writer thread.
HandOver = Literal["not written", "written on the serving thread", "written on another thread"]
# The profiler options the snippet exported a trace with.
TracedWith = Literal["defaults", "with_stack"]
TraceSize = Literal["bytes", "events"]


@dataclass(frozen=True)
class StallRatio(Measure):
    """The longest step of a generation whose profile was handed over the ``part`` way, over that of ``whole``
    (``results.json``: ``{"hand_over": [{"name", "longest_step_us", "median_step_us"}, …]}``)."""

    part: HandOver
    whole: HandOver

    def describe(self) -> str:
        return f"longest step, trace {self.part} / {self.whole}"

    def value(self, run: Run) -> float | None:
        return row_ratio(run, "hand_over", self.part, self.whole, "longest_step_us")


@dataclass(frozen=True)
class StallInSteps(Measure):
    """The longest step of a generation whose profile was handed over the ``hand_over`` way, in median steps
    (``results.json``, as ``StallRatio``)."""

    hand_over: HandOver

    def describe(self) -> str:
        return f"longest step / median step, trace {self.hand_over}"

    def value(self, run: Run) -> float | None:
        row = (rows_by_name(run, "hand_over") or {}).get(self.hand_over)
        return ratio(row["longest_step_us"], row["median_step_us"]) if row else None


@dataclass(frozen=True)
class TraceSizeRatio(Measure):
    """The ``size`` (bytes of the exported file, or events) of the trace recorded with ``part`` over that of the
    same steps recorded with ``whole`` (``results.json``: ``{"trace_sizes": [{"name", "bytes", "events"}, …]}``)."""

    part: TracedWith
    whole: TracedWith
    size: TraceSize

    def describe(self) -> str:
        return f"trace {self.size}, {self.part} / {self.whole}"

    def value(self, run: Run) -> float | None:
        return row_ratio(run, "trace_sizes", self.part, self.whole, self.size)
