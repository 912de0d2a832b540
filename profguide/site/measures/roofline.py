"""Measures of the roofline (``profguide.analysis.roofline``): an op's work, its rates and its place under the roof
of the device it ran on; how much of the GPU's time the formulas cover and how near their roofs; and the notes on
a kernel's footprint that say how to read its occupancy (``profguide.analysis.footprint``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Literal

from profguide.site.measures import Event, NamePart
from profguide.site.recordings import Measure

if TYPE_CHECKING:
    from profguide.analysis.summary import RooflineRow
    from profguide.site.recordings import Run

# An op's input shapes as the roofline's rows write them, on one line ("[[512], [141, 512], [512, 512], [], []]"):
# one of the run's rows (a closed set, ``profguide.site.claims.allowed("op shapes")``).
OpShapes = Annotated[str, "op shapes"]
OpQuantity = Literal["calls", "flops a call", "bytes a call", "device time a call", "tflops", "tb/s", "intensity",
                     "peak", "ridge", "roof", "fraction", "memory-bound", "lost share"]
# opwork's families; "" for every op.
Family = Literal["", "GEMM", "convolution", "attention", "softmax", "normalization", "elementwise", "reduction",
                 "copy", "embedding"]
TimePart = Literal["modelled", "near the roof", "memory-bound", "with a roof"]
# footprint's notes, by the words they start with (footprint.EXPECTED, SMALL_GRID, NOT_MEASURED).
FootprintNote = Literal["expected: holds a tile in shared memory", "grid smaller than the GPU",
                        "column not measured"]


def op_rows(run: Run, op: str, shapes: str = "") -> list[RooflineRow]:
    """The roofline's rows of ``op`` (with ``shapes``, where given), most device time first."""
    from profguide.analysis.roofline import roofline_rows

    return [row for row in roofline_rows(run.trace) if row["name"] == op and shapes in ("", row["shapes"])]


def bandwidth(run: Run) -> float | None:
    """The memory bandwidth, TB/s, of the device of the run's trace in profguide's table; None when not in it."""
    from profguide.analysis.peaks import device_peaks

    properties = run.trace.device_properties
    peaks = device_peaks(properties[0] if properties else None)
    return peaks.tb_per_s if peaks else None


def row_quantity(quantity: OpQuantity, row: RooflineRow, tb_per_s: float | None) -> float | None:
    """One number of a roofline row (``OpRoofline``)."""
    calls = row["calls"]
    if quantity == "ridge":
        peak = row["peak_tflops"]
        return peak / tb_per_s if peak is not None and tb_per_s else None
    if quantity == "memory-bound":
        return None if row["bound"] is None else float(row["bound"] == "memory")
    if quantity == "lost share":
        lost = row["lost_us"]
        return lost / row["device_us"] if lost is not None and row["device_us"] > 0 else None
    found: float | None = {
        "calls": calls, "flops a call": row["flops"] / calls, "bytes a call": row["bytes"] / calls,
        "device time a call": row["device_us"] / calls, "tflops": row["tflops"], "tb/s": row["tb_per_s"],
        "intensity": row["intensity"], "peak": row["peak_tflops"], "roof": row["roof_tflops"],
        "fraction": row["fraction"]}[quantity]
    return found


@dataclass(frozen=True)
class OpRoofline(Measure):
    """Of the counted calls of ``op`` (``profguide.analysis.roofline``) with input shapes ``shapes`` (those with the
    most device time when empty), one number of their row: the ``calls``; the FLOPs, least bytes and device time
    ``a call`` (µs); the achieved ``tflops`` and ``tb/s``; the ``intensity`` (FLOP/byte); the device's ``peak`` for
    the work (TFLOP/s), the ``ridge`` (that peak over the bandwidth, FLOP/byte), the ``roof`` at the op's
    intensity; the ``fraction`` of the roof reached; 1 when ``memory-bound``, else 0; the ``lost share``, the
    time lost below the roof over the device time."""

    op: Event
    quantity: OpQuantity
    shapes: OpShapes = ""

    def describe(self) -> str:
        shapes = f" with inputs {self.shapes}" if self.shapes else ""
        return f"{self.quantity} of the counted calls of {self.op}{shapes} (roofline)"

    def value(self, run: Run) -> float | None:
        rows = op_rows(run, self.op, self.shapes)
        return row_quantity(self.quantity, rows[0], bandwidth(run)) if rows else None


@dataclass(frozen=True)
class RooflineShare(Measure):
    """A share of the GPU time of the run's trace (``profguide.analysis.roofline.roofline``): the ``modelled``
    share, the time of the counted calls (of ``family``'s ops, where given) over all GPU time; or, of those calls'
    time, the share ``near the roof`` (at half their roof or more), ``memory-bound``, or ``with a roof`` (on a
    device in profguide's table)."""

    part: TimePart
    family: Family = ""

    def describe(self) -> str:
        of = f" of the {self.family} ops" if self.family else ""
        return f"{self.part} share of the GPU time{of} (roofline)"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.roofline import NEAR_THE_ROOF, roofline, roofline_rows

        found = roofline(run.trace)
        if found is None:
            return None
        rows = [row for row in roofline_rows(run.trace) if self.family in ("", row["family"])]
        counted_us = sum(row["device_us"] for row in rows)
        if self.part == "modelled":
            return counted_us / found["device_us"] if found["device_us"] > 0 else None
        if self.part == "near the roof":
            kept = [row for row in rows if row["fraction"] is not None and row["fraction"] >= NEAR_THE_ROOF]
        elif self.part == "memory-bound":
            kept = [row for row in rows if row["bound"] == "memory"]
        else:
            kept = [row for row in rows if row["fraction"] is not None]
        return sum(row["device_us"] for row in kept) / counted_us if counted_us > 0 else None


@dataclass(frozen=True)
class HighestFraction(Measure):
    """The highest fraction of its roof that any counted op (of ``family``, where given) reaches; None without
    a roof. Above 1 would be a wrong formula, peak or type."""

    family: Family = ""

    def describe(self) -> str:
        of = f" {self.family}" if self.family else ""
        return f"the highest fraction of its roof of any{of} op (roofline)"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.roofline import roofline_rows

        fractions = [row["fraction"] for row in roofline_rows(run.trace)
                     if row["fraction"] is not None and self.family in ("", row["family"])]
        return max(fractions) if fractions else None


@dataclass(frozen=True)
class FurthestBelow(Measure):
    """Where ``op`` comes among the ops furthest below their roof, by time lost (``roofline``'s ``furthest``,
    1 for the first: its row of most time lost); None when it is not among them."""

    op: Event

    def describe(self) -> str:
        return f"the place of {self.op} among the ops with the most time lost below their roof"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.roofline import roofline

        found = roofline(run.trace)
        names = [row["name"] for row in found["furthest"]] if found else []
        return names.index(self.op) + 1 if self.op in names else None


@dataclass(frozen=True)
class FootprintNoted(Measure):
    """Of the kernels (``profguide.analysis.footprint``'s rows, one a name) whose name holds ``kernels``, the
    share with a ``note`` on reading their occupancy: low by design (``expected: …``), a grid smaller than the
    GPU, or a column that reads 0 without measuring (``column not measured``)."""

    kernels: NamePart
    note: FootprintNote

    def describe(self) -> str:
        return f"kernels named *{self.kernels}* noted {self.note!r} / all of them"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.footprint import footprint_rows

        rows = [row for row in footprint_rows(run.trace_path()) if self.kernels in row["name"]]
        noted = [row for row in rows if any(note.startswith(self.note) for note in row["notes"])]
        return len(noted) / len(rows) if rows else None
