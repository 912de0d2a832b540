"""Timelines: CPU thread lanes with nested ops, GPU stream lanes, launch arrows, brackets and callouts."""

from collections.abc import Collection, Iterable, Sequence

import numpy as np

from profguide.analysis.intervals import Floats, Mask, Window
from profguide.analysis.select import Indices, activity_window, kinds_mask, nesting_depths
from profguide.figures.svg import (
    AXIS_HEIGHT,
    BRACKET_ROW,
    LABEL_WIDTH,
    LANE_GAP,
    ROW_GAP,
    ROW_HEIGHT,
    STYLE,
    WIDTH,
    Scale,
    axis_svg,
    fit_label,
    legend_svg,
    svg_document,
    xml_text,
)
from profguide.text import format_duration, kernel_name, printable
from profguide.trace.model import HOST_KINDS, Lane, Slice, Trace

Box = tuple[float, float, float]  # (x, y, width) of a drawn slice
BoxKey = str | tuple[str, bool, int]  # a slice's name, or ("correlation", on the GPU, its correlation id)

GPU_DRAWN = frozenset({"kernel", "memcpy", "memset"})
MAX_DEPTH = 8
MAX_ARROWS = 300
SVG_BUDGET = 120_000  # bytes of slices in one timeline: figures stay under 150 KB
SLICE_BYTES = 190  # a slice's markup without its name, which appears in the tooltip and maybe the label
MIN_DRAWN_WIDTH = 0.25  # px: narrower slices are left out (zoom in with a window to see them)
MAX_LANES = 40  # the busiest lanes; a trace of thousands of threads or streams would not fit a page


def display_name(s: Slice) -> str:
    """What a slice's label says: kernels lose their C++ decoration; the tooltip keeps the full name."""
    return printable(kernel_name(s.name) if s.kind == "kernel" else s.name)


def lane_label(pid: object, tid: object, on_gpu: bool) -> str:
    """A lane's name, printable: a trace may give a pid or tid as any string."""
    return printable(f"GPU {pid} · stream {tid}" if on_gpu else f"CPU · tid {tid}")


def slice_box(s: Slice, depth: int, scale: Scale, top: float, end: float) -> Box:
    """(x0, y, width) of a slice clipped to the scale's window."""
    x0 = scale.x(max(s.ts, scale.start))
    x1 = scale.x(min(s.end, end))
    return x0, top + depth * (ROW_HEIGHT + ROW_GAP), max(x1 - x0, 1.0)


def slice_svg(s: Slice, box: Box, highlighted: bool) -> str:
    x0, y, width = box
    fill, ink, kind_label = STYLE[s.kind]
    tooltip = f"{printable(s.name)}\n{format_duration(s.dur)} · {kind_label}"
    parts = [
        f'<g><title>{xml_text(tooltip)}</title>'
        f'<rect x="{x0:.1f}" y="{y}" width="{width:.1f}" height="{ROW_HEIGHT}" fill="{fill}"/>'
    ]
    label = fit_label(display_name(s), width)
    if label:
        parts.append(f'<text x="{x0 + 3:.1f}" y="{y + ROW_HEIGHT - 6}" fill="{ink}">{xml_text(label)}</text>')
    if highlighted:
        parts.append(
            f'<rect class="pg-mark" x="{x0 - 1:.1f}" y="{y - 1}" width="{width + 2:.1f}" height="{ROW_HEIGHT + 2}"/>'
        )
    parts.append("</g>")
    return "".join(parts)


def bracket_svg(scale: Scale, top: float, start: float, end: float, label: str) -> str:
    """A bracket over [start, end] with its label centred above it."""
    x0, x1 = scale.x(start), scale.x(end)
    y = top + BRACKET_ROW - 6
    return (
        f'<path class="pg-rule" d="M{x0:.1f},{y + 5} V{y} H{x1:.1f} V{y + 5}"/>'
        f'<text class="pg-ink" x="{(x0 + x1) / 2:.1f}" y="{y - 5}" text-anchor="middle">{xml_text(label)}</text>'
    )


def callout_svg(number: int, x: float, y: float) -> str:
    return (
        f'<circle class="pg-callout" cx="{x:.1f}" cy="{y:.1f}" r="8"/>'
        f'<text class="pg-callout-text" x="{x:.1f}" y="{y + 4.5:.1f}" text-anchor="middle" '
        f'font-size="12">{number}</text>'
    )


def arrow_svg(x0: float, y0: float, x1: float, y1: float) -> str:
    """A launch → kernel arrow: a line and a small head, no markers (figures share a page)."""
    return (
        f'<line class="pg-arrow" x1="{x0:.1f}" y1="{y0:.1f}" x2="{x1:.1f}" y2="{y1:.1f}"/>'
        f'<path class="pg-head" d="M{x1:.1f},{y1:.1f} l-3,-6 h6 z"/>'
    )


def drawable(trace: Trace, window: Window, px_per_us: float) -> tuple[Indices, Mask]:
    """Indices of the events a timeline can show in the window: host work on CPU lanes, GPU work on GPU
    lanes, each at least MIN_DRAWN_WIDTH wide (narrower ones never enclose wider ones, so depths hold)."""
    start, end = window
    gpu = kinds_mask(trace, GPU_DRAWN)
    on_gpu_lane = np.zeros(len(trace.lanes), dtype=bool)
    on_gpu_lane[np.unique(trace.lane[gpu])] = True
    right_kind = np.where(on_gpu_lane[trace.lane], gpu, kinds_mask(trace, HOST_KINDS))
    width = (np.minimum(trace.end, end) - np.maximum(trace.ts, start)) * px_per_us
    return np.flatnonzero(right_kind & (trace.end >= start) & (trace.ts <= end) & (width >= MIN_DRAWN_WIDTH)), \
        on_gpu_lane


def within_budget(trace: Trace, indices: Indices, widths: Floats, budget: int) -> Indices:
    """The widest of ``indices`` whose estimated SVG fits in ``budget`` bytes, in their original order."""
    name_bytes = np.array([len(name) for name in trace.names]) + SLICE_BYTES
    cost = name_bytes[trace.name[indices]]
    if cost.sum() <= budget:
        return indices
    order = np.lexsort((np.arange(len(indices)), -widths))
    fits = np.cumsum(cost[order]) <= budget
    return np.sort(indices[order[fits]])


def lanes_to_draw(trace: Trace, window: Window, px_per_us: float,
                  budget: int) -> list[tuple[Lane, bool, list[tuple[int, int]]]]:
    """[(lane, on GPU, [(index, depth), …])] in drawing order (CPU lanes first), at most MAX_LANES of them.

    Linear in events and lanes: each event is looked at once, grouped by lane with one sort.
    """
    start, end = window
    candidates, on_gpu_lane = drawable(trace, window, px_per_us)
    lane_codes = trace.lane[candidates]
    order = np.lexsort((candidates, lane_codes))
    candidates, lane_codes = candidates[order], lane_codes[order]
    bounds = np.flatnonzero(np.diff(lane_codes)) + 1
    kept: list[tuple[Indices, Indices]] = []
    for group in np.split(candidates, bounds) if len(candidates) else []:
        depths = nesting_depths(trace.ts[group], trace.end[group])
        kept.append((group[depths < MAX_DEPTH], depths[depths < MAX_DEPTH]))
    if not kept:
        return []
    # The lanes that hold the most drawn time, in the order the trace first uses them.
    drawn_time = [float((np.minimum(trace.end[g], end) - np.maximum(trace.ts[g], start)).sum()) for g, _ in kept]
    busiest = sorted(sorted(range(len(kept)), key=lambda i: -drawn_time[i])[:MAX_LANES],
                     key=lambda i: (on_gpu_lane[trace.lane[kept[i][0][0]]], kept[i][0][0]))
    indices = np.concatenate([kept[i][0] for i in busiest])
    widths = (np.minimum(trace.end[indices], end) - np.maximum(trace.ts[indices], start)) * px_per_us
    chosen = set(within_budget(trace, indices, widths, budget).tolist())
    lanes: list[tuple[Lane, bool, list[tuple[int, int]]]] = []
    for i in busiest:
        group, depths = kept[i]
        rows = [(int(index), int(depth)) for index, depth in zip(group, depths, strict=True) if int(index) in chosen]
        if rows:
            lane = int(trace.lane[group[0]])
            lanes.append((trace.lanes[lane], bool(on_gpu_lane[lane]), rows))
    return lanes


def timeline_lanes(trace: Trace, window: Window, scale: Scale, top: float, highlight: Collection[str] = (),
                   callouts: Iterable[tuple[int, str]] = (), arrows: bool = True,
                   budget: int = SVG_BUDGET) -> tuple[str, float, set[str]]:
    """The lanes of one timeline from y=top: (svg, bottom y, kinds drawn).

    Slices narrower than MIN_DRAWN_WIDTH are left out; so are, when the rest
    would not fit in ``budget`` bytes, the narrowest of them, and lanes beyond
    the MAX_LANES busiest.
    """
    end = window[1]
    px_per_us = (scale.right - scale.left) / max(scale.span, 1e-9)
    body, kinds, boxes = list[str](), set[str](), dict[BoxKey, Box]()
    y = top
    for lane, on_gpu, drawn in lanes_to_draw(trace, window, px_per_us, budget):
        rows = [(trace.slice(index), depth) for index, depth in drawn]
        height = (max(d for _, d in rows) + 1) * (ROW_HEIGHT + ROW_GAP)
        body.append(
            f'<rect class="pg-band" x="0" y="{y - 4}" width="{WIDTH}" height="{height + 8}"/>'
            f'<text class="pg-ink" x="8" y="{y + ROW_HEIGHT - 6}" font-weight="600">'
            f"{xml_text(fit_label(lane_label(lane[0], lane[1], on_gpu), LABEL_WIDTH - 8))}</text>"
        )
        for s, depth in rows:
            box = slice_box(s, depth, scale, y, end)
            boxes.setdefault(s.name, box)
            if s.correlation is not None:
                boxes[("correlation", s.kind in GPU_DRAWN, s.correlation)] = box
            body.append(slice_svg(s, box, s.name in highlight))
            kinds.add(s.kind)
        y += height + LANE_GAP
    if arrows:
        body.extend(launch_arrows(boxes))
    for number, name in callouts:
        if name in boxes:
            x0, y0, _ = boxes[name]
            body.append(callout_svg(number, x0, y0))
    return "".join(body), y, kinds


def launch_arrows(boxes: dict[BoxKey, Box]) -> list[str]:
    """Arrows from each launch call to the GPU op it launched, both drawn, at most MAX_ARROWS."""
    arrows = []
    for key, (x0, y0, _) in boxes.items():
        if isinstance(key, tuple) and key[1] and ("correlation", False, key[2]) in boxes:
            lx, ly, _ = boxes[("correlation", False, key[2])]
            arrows.append(arrow_svg(lx, ly + ROW_HEIGHT, x0, y0))
    return arrows[:MAX_ARROWS]


def padded(window: Window) -> Window:
    start, end = window
    pad = (end - start) * 0.01
    return start - pad, end + pad


def timeline_svg(trace: Trace, window: Window | None = None, title: str = "Profiler timeline",
                 highlight: Collection[str] = (), brackets: Sequence[tuple[float, float, str]] = (),
                 callouts: Iterable[tuple[int, str]] = (), arrows: bool = True) -> str:
    """An SVG timeline: CPU thread lanes with nested ops, GPU stream lanes, launch arrows, a time axis.

    ``window`` is (start, end) in the trace's µs, by default the whole activity.
    ``highlight`` names slices to outline; ``brackets`` are (start, end, label)
    intervals to measure; ``callouts`` are (number, slice name) pairs placed on
    the first slice of that name.
    """
    window = window or activity_window(trace)
    low, high = padded(window)
    scale = Scale(low, high - low)
    lanes, bottom, kinds = timeline_lanes(trace, window, scale, 0, highlight, callouts, arrows)
    legend, y = legend_svg([(STYLE[k][0], STYLE[k][2]) for k in STYLE if k in kinds])
    marks = "".join(bracket_svg(scale, y + i * BRACKET_ROW, *b) for i, b in enumerate(brackets))
    y += len(brackets) * BRACKET_ROW + 4
    body = legend + marks + f'<g transform="translate(0,{y})">{lanes}</g>' + axis_svg(scale, y + bottom)
    return svg_document(WIDTH, y + bottom + AXIS_HEIGHT, title, body)
