"""The roofline: each op a circle at its arithmetic intensity and achieved TFLOP/s, sized by its device time,
under the device's roofs (the memory roof, sloped at its bandwidth, and a flat roof per compute peak), on
log–log axes (Williams, Waterman and Patterson, https://doi.org/10.1145/1498765.1498785)."""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from profguide.analysis.intervals import Window
from profguide.analysis.peaks import Roof
from profguide.analysis.roofline import roofline, roofline_rows
from profguide.errors import UsageError
from profguide.figures.svg import CHAR_WIDTH, FONT_SIZE, fit_label, legend_svg, svg_document, xml_text
from profguide.text import count_of, cut, format_duration, three_figures
from profguide.trace.model import Trace

# Narrower than the timelines (800): a phone's column shrinks it by less, and a roofline is about as tall as wide.
ROOFLINE_WIDTH = 600
PLOT_LEFT = 64  # room for the y ticks and the axis's name
PLOT_RIGHT = ROOFLINE_WIDTH - 28  # room for half the last x tick's label
PLOT_HEIGHT = 340
HEADING_HEIGHT = 26
X_AXIS_HEIGHT = 46
LARGEST_RADIUS = 22.0  # the op with the most device time
SMALLEST_RADIUS = 3.0  # so that a tiny op stays visible (its area then no longer follows its time)
LABELLED = 5  # the ops with the most device time get a label beside their circle
LABEL_CHARACTERS = 40
ROOF_HEADROOM = 1.5  # axes reach at least this factor past the data, so that no roof lies on the plot's edge
RIDGE_RUN = 8.0  # the flat roofs run on this factor past the ridge, room for their labels
# The families of opwork's formulas (Okabe–Ito, then Paul Tol's wine for the ninth), in the legend's order.
FAMILY_COLOURS = {
    "GEMM": "#0072B2",
    "convolution": "#56B4E9",
    "attention": "#CC79A7",
    "softmax": "#E69F00",
    "normalization": "#F0E442",
    "elementwise": "#D55E00",
    "reduction": "#009E73",
    "copy": "#999999",
    "embedding": "#AA4499",
}
OTHER_COLOUR = "#BBBBBB"
# A label's halo in the page's background colour keeps it readable over a circle or a roof; a circle's outline
# in it keeps overlapping circles apart.
ROOFLINE_STYLE = (
    "<style>.pg-fig .pg-halo{stroke:var(--pg-bg);stroke-width:3px;stroke-linejoin:round;paint-order:stroke}"
    ".pg-fig .pg-dot{stroke:var(--pg-bg);stroke-width:1px}.pg-fig .pg-grid{stroke:var(--pg-soft);opacity:.25}"
    ".pg-fig .pg-roof{stroke:var(--pg-ink);stroke-width:2px;fill:none}</style>"
)
NO_OPS = "no op with a positive FLOPs per byte, TFLOP/s and device time"
NO_ROOFS = "the device's memory bandwidth or its compute peaks are not known"


class RooflinePoint(NamedTuple):
    label: str  # op and shape, e.g. "aten::addmm [141, 512]x[512, 512]"
    family: str  # "GEMM", "attention", "elementwise", ...: its colour
    intensity: float  # FLOP per byte
    tflops: float  # achieved TFLOP/s
    device_us: float  # its device time: the circle's area grows with it
    roof: Roof | None = None  # the flat roof of its kind of work; None: the highest of the figure's


@dataclass(frozen=True)
class LogScale:
    """Maps values in [10^low, 10^high] onto pixels from ``start`` to ``end`` (end < start for a y axis)."""

    low: int
    high: int
    start: float
    end: float

    def at(self, value: float) -> float:
        return self.start + (math.log10(value) - self.low) / (self.high - self.low) * (self.end - self.start)


def decades(smallest: float, largest: float) -> tuple[int, int]:
    """The whole decades around [smallest, largest], with room past both ends; at least one decade."""
    low = math.floor(math.log10(smallest / ROOF_HEADROOM))
    return low, max(math.floor(math.log10(largest * ROOF_HEADROOM)) + 1, low + 1)


SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def decade_label(exponent: int) -> str:
    """0.001 to 10,000 written out, 10⁻⁵ and 10⁶ beyond."""
    if -3 <= exponent <= 4:
        return f"{10.0**exponent:,.{max(0, -exponent)}f}"
    return "10" + str(exponent).translate(SUPERSCRIPTS)


def valid(point: RooflinePoint) -> bool:
    return all(math.isfinite(v) and v > 0 for v in (point.intensity, point.tflops, point.device_us))


def merged_roofs(roofs: Sequence[Roof]) -> list[Roof]:
    """The roofs with a positive peak, highest first, roofs of the same peak one roof with both names in
    alphabetical order (the caller's roofs come from a set: the figure must not change with its order)."""
    by_peak: dict[float, list[str]] = {}
    for roof in roofs:
        if math.isfinite(roof.tflops) and roof.tflops > 0:
            by_peak.setdefault(roof.tflops, []).append(roof.name)
    return [Roof(", ".join(sorted(labels)), peak) for peak, labels in sorted(by_peak.items(), reverse=True)]


def radius(device_us: float, most_us: float) -> float:
    """A circle's radius: its area in proportion to its device time, never under SMALLEST_RADIUS."""
    return max(SMALLEST_RADIUS, LARGEST_RADIUS * math.sqrt(device_us / most_us))


Box = tuple[float, float, float, float]  # left, top, right, bottom


def text_box(x: float, baseline: float, text: str, anchor: str) -> Box:
    width = len(text) * CHAR_WIDTH
    left = {"start": x, "middle": x - width / 2, "end": x - width}[anchor]
    return left, baseline - FONT_SIZE + 2, left + width, baseline + 3


def overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def inside(box: Box, area: Box) -> bool:
    return area[0] <= box[0] and area[1] <= box[1] and box[2] <= area[2] and box[3] <= area[3]


def placed_text(text: str, candidates: Sequence[tuple[float, float, str]], taken: list[Box], area: Box,
                css: str = "pg-ink pg-halo", avoid: Sequence[Box] = (), needed: bool = False) -> str:
    """``text`` at the first of ``candidates`` (x, baseline, anchor) that stays in ``area`` and clear of the boxes
    ``taken`` and ``avoid`` (the chosen box joins ``taken``); where none does, at the first candidate inside
    ``area`` if the text is ``needed``, else ''."""
    fits = [c for c in candidates if inside(text_box(c[0], c[1], text, c[2]), area)]
    clear = [c for c in fits if not any(overlaps(text_box(c[0], c[1], text, c[2]), other)
                                        for other in [*taken, *avoid])]
    chosen = clear[:1] or (fits[:1] if needed else [])
    for x, baseline, anchor in chosen:
        taken.append(text_box(x, baseline, text, anchor))
        return (f'<text class="{css}" x="{x:.1f}" y="{baseline:.1f}" text-anchor="{anchor}">'
                f"{xml_text(text)}</text>")
    return ""


def roof_at(intensity: float, flat: Roof, tb_per_s: float) -> tuple[float, str]:
    """(TFLOP/s, which roof) ``flat`` and the memory roof allow at ``intensity``: the memory roof left of its
    ridge."""
    memory = intensity * tb_per_s
    if memory < flat.tflops:
        return memory, f"memory, {three_figures(tb_per_s)} TB/s"
    return flat.tflops, f"{flat.name}, {three_figures(flat.tflops)} TFLOP/s"


def tooltip(point: RooflinePoint, roofs: Sequence[Roof], tb_per_s: float) -> str:
    roof, which = roof_at(point.intensity, point.roof or roofs[0], tb_per_s)
    above = "\nabove the roof: a wrong formula, peak or dtype?" if point.tflops > roof else ""
    return (f"{point.label}\n{point.family}: {three_figures(point.tflops)} TFLOP/s at "
            f"{three_figures(point.intensity)} FLOP/byte, {format_duration(point.device_us)} on the device\n"
            f"{100 * point.tflops / roof:.0f}% of the roof here ({which}){above}")


def axes_svg(x: LogScale, y: LogScale) -> str:
    """Decade grid lines and labels on both axes, minor ticks between, and the axes' names."""
    top, bottom = y.end, y.start
    parts = [f'<rect class="pg-band" x="{x.start}" y="{top}" width="{x.end - x.start}" height="{bottom - top}"/>']
    for exponent in range(x.low, x.high + 1):
        at = x.at(10.0**exponent)
        parts.append(f'<line class="pg-grid" x1="{at:.1f}" y1="{top}" x2="{at:.1f}" y2="{bottom}"/>'
                     f'<text class="pg-soft" x="{at:.1f}" y="{bottom + 18}" text-anchor="middle">'
                     f"{decade_label(exponent)}</text>")
        parts += [f'<line class="pg-rule" x1="{x.at(m * 10.0**exponent):.1f}" y1="{bottom}" '
                  f'x2="{x.at(m * 10.0**exponent):.1f}" y2="{bottom + 4}"/>' for m in range(2, 10)
                  if exponent < x.high]
    for exponent in range(y.low, y.high + 1):
        at = y.at(10.0**exponent)
        parts.append(f'<line class="pg-grid" x1="{x.start}" y1="{at:.1f}" x2="{x.end}" y2="{at:.1f}"/>'
                     f'<text class="pg-soft" x="{x.start - 6}" y="{at + 4:.1f}" text-anchor="end">'
                     f"{decade_label(exponent)}</text>")
        parts += [f'<line class="pg-rule" x1="{x.start - 4}" y1="{y.at(m * 10.0**exponent):.1f}" '
                  f'x2="{x.start}" y2="{y.at(m * 10.0**exponent):.1f}"/>' for m in range(2, 10)
                  if exponent < y.high]
    parts.append(f'<path class="pg-rule" d="M{x.start},{top} V{bottom} H{x.end}"/>')
    parts.append(f'<text class="pg-soft" x="{(x.start + x.end) / 2:.1f}" y="{bottom + 38}" text-anchor="middle">'
                 "arithmetic intensity (FLOP per byte moved)</text>")
    middle = (top + bottom) / 2
    parts.append(f'<text class="pg-soft" x="14" y="{middle:.1f}" text-anchor="middle" '
                 f'transform="rotate(-90 14 {middle:.1f})">achieved TFLOP/s</text>')
    return "".join(parts)


def roofs_svg(roofs: Sequence[Roof], tb_per_s: float, x: LogScale, y: LogScale, taken: list[Box],
              circles: Sequence[Box]) -> str:
    """The memory roof up to the highest roof's ridge, each flat roof from its own ridge, each labelled, and the
    highest roof's ridge marked down to the x axis."""
    area = (x.start, y.end, x.end, y.start)
    lowest, ridge = 10.0**y.low, roofs[0].tflops / tb_per_s
    start = max(10.0**x.low, lowest / tb_per_s)  # where the sloped roof enters the plot
    memory = f"memory {three_figures(tb_per_s)} TB/s"
    x1, y1, x2, y2 = x.at(start), y.at(start * tb_per_s), x.at(ridge), y.at(roofs[0].tflops)
    parts = [f'<g><title>{xml_text(memory)}: TFLOP/s = FLOP per byte × {three_figures(tb_per_s)}</title>'
             f'<line class="pg-roof" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}"/></g>',
             f'<line class="pg-rule" x1="{x2:.1f}" y1="{y2:.1f}" x2="{x2:.1f}" y2="{y.start}" stroke-dasharray="4 3"/>']
    for roof in roofs:
        left = x.at(max(roof.tflops / tb_per_s, 10.0**x.low))
        height = y.at(roof.tflops)
        text = f"{roof.name} {three_figures(roof.tflops)} TFLOP/s"
        parts.append(f'<g><title>{xml_text(text)}</title><line class="pg-roof" x1="{left:.1f}" y1="{height:.1f}" '
                     f'x2="{x.end}" y2="{height:.1f}"/></g>')
        # Best left of the roof's ridge, above the sloped roof, where no op can be; else on the roof, clear of
        # the circles where it can be.
        spots = [(left - 10, height + 4, "end"), (x.end - 4, height - 5, "end"), (x.end - 4, height + 15, "end"),
                 (left + 4, height - 5, "start"), (left + 4, height + 15, "start")]
        parts.append(placed_text(cut(text, LABEL_CHARACTERS), spots, taken, area, avoid=circles, needed=True))
    parts.append(placed_text(f"ridge {three_figures(ridge)} FLOP/byte",
                             [(x2 + 4, y.start - 6, "start"), (x2 - 4, y.start - 6, "end")], taken, area, "pg-soft"))
    # The memory roof's name along its slope, a third of the way up.
    angle = math.degrees(math.atan2(y2 - y1, x2 - x1))
    along = (x1 + (x2 - x1) / 3, y1 + (y2 - y1) / 3)
    width = len(memory) * CHAR_WIDTH
    if math.hypot(x2 - x1, y2 - y1) / 3 * 2 > width:
        parts.append(f'<text class="pg-ink pg-halo" x="{along[0]:.1f}" y="{along[1] - 5:.1f}" '
                     f'transform="rotate({angle:.1f} {along[0]:.1f} {along[1]:.1f})">{xml_text(memory)}</text>')
    return "".join(parts)


def op_name(label: str) -> str:
    """A point's label without its shapes: "aten::addmm [141, 512]x[512, 512]" is "aten::addmm"."""
    return label.split(" [", 1)[0]


class Circle(NamedTuple):
    point: RooflinePoint
    cx: float
    cy: float
    r: float

    def box(self) -> Box:
        return self.cx - self.r, self.cy - self.r, self.cx + self.r, self.cy + self.r


def circles(points: Sequence[RooflinePoint], x: LogScale, y: LogScale) -> list[Circle]:
    """Each point's circle, the one with the most device time first."""
    most_us = max(point.device_us for point in points)
    return [Circle(point, x.at(point.intensity), y.at(point.tflops), radius(point.device_us, most_us))
            for point in sorted(points, key=lambda p: -p.device_us)]


def points_svg(drawn: Sequence[Circle], roofs: Sequence[Roof], tb_per_s: float, area: Box, taken: list[Box]) -> str:
    """The circles, the largest first so that none hides a smaller one, a dashed ring round any above its roof,
    and the largest few labelled where a label fits."""
    parts, labels = [], []
    for rank, (point, cx, cy, r) in enumerate(drawn):
        roof, _ = roof_at(point.intensity, point.roof or roofs[0], tb_per_s)
        ring = (f'<circle class="pg-mark" cx="{cx:.1f}" cy="{cy:.1f}" r="{r + 4:.1f}" stroke-dasharray="3 2"/>'
                if point.tflops > roof else "")
        parts.append(f'<g><title>{xml_text(tooltip(point, roofs, tb_per_s))}</title><circle class="pg-dot" '
                     f'cx="{cx:.1f}" cy="{cy:.1f}" r="{r:.2f}" fill="{FAMILY_COLOURS.get(point.family, OTHER_COLOUR)}"'
                     f' fill-opacity=".8"/>{ring}</g>')
        if rank < LABELLED:
            gap = r + 4
            spots = [(cx + gap, cy + 4, "start"), (cx - gap, cy + 4, "end"), (cx, cy - gap - 2, "middle"),
                     (cx, cy + gap + 11, "middle"), (cx + r, cy - gap - 2, "end"), (cx - r, cy - gap - 2, "start"),
                     (cx + r, cy + gap + 11, "end"), (cx - r, cy + gap + 11, "start")]
            # Where the whole label finds no room, the op's name alone may.
            shorter = (cut(text, LABEL_CHARACTERS) for text in dict.fromkeys([point.label, op_name(point.label)]))
            labels.append(next(filter(None, (placed_text(text, spots, taken, area) for text in shorter)), ""))
    return "".join(parts + labels)


def nothing_svg(reason: str, title: str) -> str:
    """A figure that says there is nothing to draw, and why."""
    return svg_document(ROOFLINE_WIDTH, 60, title, '<text class="pg-ink" x="12" y="24" font-weight="700">Nothing to '
                        f'draw</text><text class="pg-soft" x="12" y="44">{xml_text(reason)}</text>')


def roofline_svg(points: Sequence[RooflinePoint], roofs: Sequence[Roof], tb_per_s: float, device: str,
                 title: str = "Roofline: each op's TFLOP/s against its FLOPs per byte") -> str:
    """The roofline of ``points`` under ``roofs`` and the memory roof of ``tb_per_s`` TB/s on ``device``; a
    figure that says there is nothing to draw when no point, no roof or no bandwidth is positive."""
    drawn = [point for point in points if valid(point)]
    ceilings = merged_roofs(roofs)
    if not drawn:
        return nothing_svg(NO_OPS, title)
    if not ceilings or not (math.isfinite(tb_per_s) and tb_per_s > 0):
        return nothing_svg(NO_ROOFS, title)
    heading = fit_label(f"{device}: {count_of(len(drawn), 'op')}, each circle's area its device time",
                        ROOFLINE_WIDTH - PLOT_LEFT)
    legend, top = legend_svg([(FAMILY_COLOURS.get(f, OTHER_COLOUR), f) for f in families(drawn)],
                             top=HEADING_HEIGHT + 4, left=PLOT_LEFT, right=ROOFLINE_WIDTH)
    top += 6
    ridge = ceilings[0].tflops / tb_per_s
    x = LogScale(*decades(min(p.intensity for p in drawn), max(max(p.intensity for p in drawn), ridge * RIDGE_RUN)),
                 PLOT_LEFT, PLOT_RIGHT)
    y = LogScale(*decades(min(min(p.tflops for p in drawn), ceilings[-1].tflops),
                          max(max(p.tflops for p in drawn), ceilings[0].tflops)), top + PLOT_HEIGHT, top)
    taken: list[Box] = []
    placed = circles(drawn, x, y)
    body = (ROOFLINE_STYLE + f'<text class="pg-ink" x="{PLOT_LEFT}" y="18" font-weight="600">'
            f"{xml_text(heading)}</text>" + legend + axes_svg(x, y)
            + roofs_svg(ceilings, tb_per_s, x, y, taken, [c.box() for c in placed])
            + points_svg(placed, ceilings, tb_per_s, (x.start, y.end, x.end, y.start), taken))
    return svg_document(ROOFLINE_WIDTH, top + PLOT_HEIGHT + X_AXIS_HEIGHT, title, body)


def families(points: Sequence[RooflinePoint]) -> list[str]:
    """The families drawn, each once: opwork's in their order, then any other in alphabetical order."""
    present = {point.family for point in points}
    return [f for f in FAMILY_COLOURS if f in present] + sorted(present - FAMILY_COLOURS.keys())


def trace_roofline_svg(trace: Trace, window: Window | None = None, title: str | None = None) -> str:
    """The roofline of a trace's ops with a formula (``profguide.analysis.roofline``) that start in ``window``,
    under the roofs of the kinds of work they do; an UsageError where there is no roof to draw under."""
    found = roofline(trace, window)
    if found is None:
        raise UsageError("no GPU work in this trace: a CPU trace is not set against a GPU's roofline")
    if found["peaks_model"] is None or found["tb_per_s"] is None:
        raise UsageError(f"no peaks for {found['device'] or 'this GPU (its deviceProperties name none)'} in "
                         "profguide's table: no roof to draw under (explain --ops gives the ops' TFLOP/s and TB/s)")
    rows = roofline_rows(trace, window)
    roof_of = {id(row): Roof(row["peak_name"], row["peak_tflops"]) for row in rows
               if row["peak_name"] is not None and row["peak_tflops"] is not None}
    points = [RooflinePoint(f"{row['name']} {row['shapes']}", row["family"], row["intensity"] or 0.0,
                            row["tflops"] or 0.0, row["device_us"], roof_of.get(id(row))) for row in rows]
    roofs = set(roof_of.values())
    device = f"{found['device']} (peaks of the {found['peaks_model']})"
    return roofline_svg(points, sorted(roofs, key=lambda roof: -roof.tflops), found["tb_per_s"], device,
                        **({"title": title} if title else {}))
