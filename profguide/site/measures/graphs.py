"""Measures of graphs: which compiled graph each call of a region runs, and CUDA graphs captured in one trace and
replayed in another (``profguide.analysis.graphs``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from profguide.site.measures import Event, NamePart
from profguide.site.recordings import Measure

if TYPE_CHECKING:
    from profguide.site.recordings import Run


@dataclass(frozen=True)
class CallsHolding(Measure):
    """How many calls of the op or region ``region`` hold, at any depth, an op or a runtime or driver call whose
    name starts with ``prefix``: the decode steps that ran one compiled graph (``Torch-Compiled Region: 0/1``), or
    that replayed a CUDA graph (``cudaGraphLaunch``, a runtime call)."""

    region: Event
    prefix: NamePart

    def describe(self) -> str:
        return f"calls of {self.region} holding {self.prefix}…"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.regions import ops_in_each_call

        counts = ops_in_each_call(run.trace, self.region, self.prefix, ("cpu_op", "runtime", "driver"))
        return float(sum(count > 0 for count in counts)) if counts else None


@dataclass(frozen=True)
class GraphUse(Measure):
    """One number of ``profguide explain``'s ``graphs``: the stream captures and the launch calls they recorded,
    the graph launches and the GPU ops they replayed; ``replayed_share``, the replayed ops' share of the GPU ops'
    time in the window."""

    key: Literal["captures", "captured_calls", "launches", "replayed_ops", "replayed_share"]

    def describe(self) -> str:
        return f"explain's graphs: {self.key}"

    def value(self, run: Run) -> float | None:
        graphs = run.summary["graphs"]
        if graphs is None:
            return None
        if self.key == "replayed_share":
            return None if graphs["replayed_pct"] is None else graphs["replayed_pct"] / 100
        return float(graphs[self.key])


@dataclass(frozen=True)
class CapturedByShare(Measure):
    """A replay beside the capture of its graphs (the run it is ``compared_with``), joined by ``captured_by``: the
    share of the replayed GPU time whose op was captured by the op ``op``; without ``op``, the share of the replayed
    ops that the capture matched to an op at all."""

    op: Event = ""

    def describe(self) -> str:
        if self.op:
            return f"replayed GPU time captured by {self.op} / all replayed GPU time"
        return "replayed ops matched to a capturing op / all replayed ops"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.graphs import captured_by

        rows = captured_by(run.trace, run.compared_run.trace)
        if not rows:
            return None
        if not self.op:
            return sum(row["captured_by"] is not None for row in rows) / len(rows)
        total = sum(row["dur_us"] for row in rows)
        return sum(row["dur_us"] for row in rows if row["captured_by"] == self.op) / total if total else None
