"""Measures of compile."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, cast

from profguide.site.measures import (
    CompileKey,
    Event,
)
from profguide.site.recordings import Measure, RunId

if TYPE_CHECKING:
    from profguide.site.recordings import Run


@dataclass(frozen=True)
class CallsThatCompile(Measure):
    """How many occurrences of the region ``region`` hold a torch.compile compilation."""

    region: Event

    def describe(self) -> str:
        return f"{self.region} occurrences that compiled"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.compiled_calls import compiled_calls

        calls = compiled_calls(run.trace, self.region)
        return float(sum(call["compiles"] > 0 for call in calls)) if calls else None


@dataclass(frozen=True)
class CompileMarker(Measure):
    """One number ``profguide explain`` reports of what torch.compile left in the trace: a key of
    ``profguide.analysis.compile.compile_markers`` (``cuda_graph_launches``, ``triton_kernels``…)."""

    key: CompileKey

    def describe(self) -> str:
        return f"explain's compile {self.key}"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.compile import compile_markers

        value = dict(compile_markers(run.trace)).get(self.key)
        return None if value is None else float(cast(float, value))


@dataclass(frozen=True)
class CompileShare(Measure):
    """The first occurrence of the region ``region``: the time of the compilations inside it over its duration."""

    region: Event

    def describe(self) -> str:
        return f"compiling / duration, the first {self.region}"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.compiled_calls import compiled_calls

        calls = compiled_calls(run.trace, self.region)
        return calls[0]["compile_us"] / calls[0]["dur_us"] if calls and calls[0]["dur_us"] > 0 else None


@dataclass(frozen=True)
class PerStepFall(Measure):
    """The ``baseline`` recording's median ``count`` per ProfilerStep over this recording's: ``ops`` (every op),
    ``aten_ops`` (ops named ``aten::``) or ``kernels`` (by their launch call's start)."""

    count: Literal["ops", "aten_ops", "kernels"]
    baseline: RunId

    def describe(self) -> str:
        return f"{self.count} per step, {self.baseline} / this recording"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.compile import step_counts
        from profguide.stats import median

        def median_count(run: Run) -> float | None:
            found: float | None = median([row[self.count] for row in step_counts(run.trace)])
            return found

        here, baseline = median_count(run), median_count(run.sibling(self.baseline))
        return baseline / here if here and baseline is not None else None
