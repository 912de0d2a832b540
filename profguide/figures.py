"""SVG figures drawn from traces: timelines, two timelines on one scale, spreads and breakdowns.

Every figure follows the page's colour scheme when it sits inline in a
Material page (its text, rules and lane bands use Material's colour
variables, with light fallbacks for a standalone file), uses the Okabe–Ito
palette for what it draws (distinguishable with the common colour-vision
deficiencies), escapes every string that comes from a trace, and gives the
same bytes for the same input.
"""

from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from profguide import analysis
from profguide.text import count_of, format_duration, format_tick, kernel_name, printable
from profguide.trace import HOST_KINDS

# Each kind: (fill, text colour on that fill, legend label).
STYLE = {
    "annotation": ("#CC79A7", "#000000", "record_function region"),
    "cpu_op": ("#0072B2", "#FFFFFF", "CPU op (aten::…)"),
    "runtime": ("#E69F00", "#000000", "CUDA runtime call"),
    "driver": ("#D55E00", "#FFFFFF", "CUDA driver call"),
    "python": ("#999999", "#000000", "Python function"),
    "kernel": ("#009E73", "#FFFFFF", "GPU kernel"),
    "memcpy": ("#F0E442", "#000000", "GPU memcpy"),
    "memset": ("#56B4E9", "#000000", "GPU memset"),
}
IDLE_STYLE = {
    "busy": ("#009E73", "GPU busy"),
    "host": ("#E69F00", "idle: waiting for a launch"),
    "sync": ("#D55E00", "idle: host in a sync"),
    "queued": ("#56B4E9", "idle: next op queued"),
    "other": ("#999999", "idle: unexplained"),
}
GPU_DRAWN = frozenset({"kernel", "memcpy", "memset"})
WIDTH = 800
LABEL_WIDTH = 150
RIGHT_MARGIN = 16
ROW_HEIGHT = 20
ROW_GAP = 2
LANE_GAP = 12
LEGEND_ROW = 20
BRACKET_ROW = 26
AXIS_HEIGHT = 34
FONT_SIZE = 13  # 800 px wide in a ~690 px column: still 11 px on the page
CHAR_WIDTH = 7.6  # average advance of the 13 px sans-serif face, for fitting labels
MAX_DEPTH = 8
MAX_ARROWS = 300
SVG_BUDGET = 120_000  # bytes of slices in one timeline: figures stay under 150 KB
SLICE_BYTES = 190  # a slice's markup without its name, which appears in the tooltip and maybe the label
MIN_DRAWN_WIDTH = 0.25  # px: narrower slices are left out (zoom in with a window to see them)
THEME = (
    "<style>"
    ".pg-fig{--pg-ink:var(--md-default-fg-color,#1f1f24);--pg-soft:var(--md-default-fg-color--light,#5d5d68);"
    "--pg-band:var(--md-default-fg-color--lightest,#00000010);--pg-bg:var(--md-default-bg-color,#ffffff)}"
    ".pg-fig .pg-bg{fill:var(--pg-bg)}.pg-fig .pg-band{fill:var(--pg-band)}"
    ".pg-fig .pg-ink{fill:var(--pg-ink)}.pg-fig .pg-soft{fill:var(--pg-soft)}"
    ".pg-fig .pg-rule{stroke:var(--pg-soft);fill:none}.pg-fig .pg-arrow{stroke:var(--pg-soft);fill:none;opacity:.8}"
    ".pg-fig .pg-head{fill:var(--pg-soft)}.pg-fig .pg-mark{stroke:var(--pg-ink);stroke-width:2;fill:none}"
    ".pg-fig .pg-callout{fill:var(--pg-ink)}.pg-fig .pg-callout-text{fill:var(--pg-bg);font-weight:700}"
    "</style>"
)


@dataclass(frozen=True)
class Scale:
    """Maps µs in [start, start + span] onto x in [left, right]."""

    start: float
    span: float
    left: float = LABEL_WIDTH
    right: float = WIDTH - RIGHT_MARGIN

    def x(self, ts):
        return self.left + (ts - self.start) * (self.right - self.left) / max(self.span, 1e-9)


def svg_document(width, height, title, body):
    title = printable(title)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="pg-fig" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label={quoteattr(title)} '
        f'font-family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif" font-size="{FONT_SIZE}">'
        f"<title>{escape(title)}</title>{THEME}"
        f'<rect class="pg-bg" width="{width}" height="{height}" rx="6"/>' + body + "</svg>\n"
    )


def fit_label(name, width):
    """``name`` cut to fit ``width`` pixels, with an ellipsis; '' if nothing useful fits."""
    room = int((width - 6) / CHAR_WIDTH)
    if room >= len(name):
        return name
    if room < 4:
        return ""
    return name[: room - 1] + "…"


def display_name(s):
    """What a slice's label says: kernels lose their C++ decoration; the tooltip keeps the full name."""
    return printable(kernel_name(s.name) if s.kind == "kernel" else s.name)


def lane_label(pid, tid, on_gpu):
    return f"GPU {pid} · stream {tid}" if on_gpu else f"CPU · tid {tid}"


def lane_rows(trace, lane, kinds, start, end):
    """The slices of one lane inside the window, each with its nesting depth."""
    mask = trace.lane_mask([lane]) & analysis.kinds_mask(trace, kinds)
    slices = trace.slices(start, end, mask)
    return list(zip(slices, analysis.nesting_depths(slices), strict=True))


def slice_box(s, depth, scale, top, end):
    """(x0, y, width) of a slice clipped to the scale's window."""
    x0 = scale.x(max(s.ts, scale.start))
    x1 = scale.x(min(s.end, end))
    return x0, top + depth * (ROW_HEIGHT + ROW_GAP), max(x1 - x0, 1.0)


def slice_svg(s, box, highlighted):
    x0, y, width = box
    fill, ink, kind_label = STYLE[s.kind]
    tooltip = f"{printable(s.name)}\n{format_duration(s.dur)} · {kind_label}"
    parts = [
        f'<g><title>{escape(tooltip)}</title>'
        f'<rect x="{x0:.1f}" y="{y}" width="{width:.1f}" height="{ROW_HEIGHT}" fill="{fill}"/>'
    ]
    label = fit_label(display_name(s), width)
    if label:
        parts.append(f'<text x="{x0 + 3:.1f}" y="{y + ROW_HEIGHT - 6}" fill="{ink}">{escape(label)}</text>')
    if highlighted:
        parts.append(
            f'<rect class="pg-mark" x="{x0 - 1:.1f}" y="{y - 1}" width="{width + 2:.1f}" height="{ROW_HEIGHT + 2}"/>'
        )
    parts.append("</g>")
    return "".join(parts)


def axis_svg(scale, top):
    step = nice_tick_step(scale.span)
    parts = [f'<line class="pg-rule" x1="{scale.left}" y1="{top}" x2="{scale.right}" y2="{top}"/>']
    tick = 0.0
    while tick <= scale.span + step * 1e-6:
        x = scale.x(scale.start + tick)
        parts.append(f'<line class="pg-rule" x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + 5}"/>')
        parts.append(
            f'<text class="pg-soft" x="{x:.1f}" y="{top + 18}" text-anchor="middle">{escape(format_tick(tick))}</text>'
        )
        tick += step
    return "".join(parts)


def nice_tick_step(span, target_ticks=6):
    """A 1, 2 or 5 × 10^k step giving about ``target_ticks`` ticks over ``span``."""
    raw = max(span, 1e-9) / target_ticks
    magnitude = 10 ** np.floor(np.log10(raw))
    for factor in (1, 2, 5, 10):
        if factor * magnitude >= raw:
            return float(factor * magnitude)
    return float(10 * magnitude)


def legend_svg(items, top=8):
    """A legend of (colour, label) items, wrapped into rows; returns (svg, bottom y)."""
    parts = []
    x, y = LABEL_WIDTH, top
    for fill, label in items:
        item_width = 16 + int(len(label) * CHAR_WIDTH) + 18
        if x + item_width > WIDTH and x > LABEL_WIDTH:
            x, y = LABEL_WIDTH, y + LEGEND_ROW
        parts.append(f'<rect x="{x}" y="{y}" width="12" height="12" fill="{fill}"/>')
        parts.append(f'<text class="pg-ink" x="{x + 16}" y="{y + 10}">{escape(label)}</text>')
        x += item_width
    return "".join(parts), y + LEGEND_ROW


def bracket_svg(scale, top, start, end, label):
    """A bracket over [start, end] with its label centred above it."""
    x0, x1 = scale.x(start), scale.x(end)
    y = top + BRACKET_ROW - 6
    return (
        f'<path class="pg-rule" d="M{x0:.1f},{y + 5} V{y} H{x1:.1f} V{y + 5}"/>'
        f'<text class="pg-ink" x="{(x0 + x1) / 2:.1f}" y="{y - 5}" text-anchor="middle">{escape(label)}</text>'
    )


def callout_svg(number, x, y):
    return (
        f'<circle class="pg-callout" cx="{x:.1f}" cy="{y:.1f}" r="8"/>'
        f'<text class="pg-callout-text" x="{x:.1f}" y="{y + 4.5:.1f}" text-anchor="middle" '
        f'font-size="12">{number}</text>'
    )


def arrow_svg(x0, y0, x1, y1):
    """A launch → kernel arrow: a line and a small head, no markers (figures share a page)."""
    return (
        f'<line class="pg-arrow" x1="{x0:.1f}" y1="{y0:.1f}" x2="{x1:.1f}" y2="{y1:.1f}"/>'
        f'<path class="pg-head" d="M{x1:.1f},{y1:.1f} l-3,-6 h6 z"/>'
    )


def within_budget(lanes, px_per_us, window, budget):
    """Keep the widest slices whose estimated SVG fits in ``budget`` bytes, in their original order."""
    start, end = window
    entries = [(lane, s, d) for lane, rows in lanes for s, d in rows]
    widths = [(min(s.end, end) - max(s.ts, start)) * px_per_us for _, s, _ in entries]
    cost = [SLICE_BYTES + len(s.name) for _, s, _ in entries]
    if sum(cost) <= budget:
        return lanes
    kept, spent = set(), 0
    for index in sorted(range(len(entries)), key=lambda i: (-widths[i], i)):
        if spent + cost[index] > budget:
            break
        kept.add(index)
        spent += cost[index]
    grouped = {}
    for index in sorted(kept):
        lane, s, d = entries[index]
        grouped.setdefault(lane, []).append((s, d))
    return [(lane, grouped[lane]) for lane, _ in lanes if lane in grouped]


def timeline_lanes(trace, window, scale, top, highlight=(), callouts=(), arrows=True, budget=SVG_BUDGET):
    """The lanes of one timeline from y=top: (svg, bottom y, kinds drawn).

    Slices narrower than MIN_DRAWN_WIDTH are left out, and, when the rest would
    not fit in ``budget`` bytes, the narrowest of them too.
    """
    start, end = window
    px_per_us = (scale.right - scale.left) / max(scale.span, 1e-9)
    specs = [((lane, False), HOST_KINDS) for lane in analysis.cpu_lanes(trace)]
    specs += [((lane, True), GPU_DRAWN) for lane in analysis.gpu_lanes(trace)]
    lanes = []
    for key, lane_kinds in specs:
        rows = [(s, d) for s, d in lane_rows(trace, key[0], lane_kinds, start, end)
                if d < MAX_DEPTH and (min(s.end, end) - max(s.ts, start)) * px_per_us >= MIN_DRAWN_WIDTH]
        if rows:
            lanes.append((key, rows))
    body, kinds, boxes = [], set(), {}
    y = top
    for (lane, on_gpu), rows in within_budget(lanes, px_per_us, window, budget):
        height = (max(d for _, d in rows) + 1) * (ROW_HEIGHT + ROW_GAP)
        body.append(
            f'<rect class="pg-band" x="0" y="{y - 4}" width="{WIDTH}" height="{height + 8}"/>'
            f'<text class="pg-ink" x="8" y="{y + ROW_HEIGHT - 6}" font-weight="600">'
            f"{escape(fit_label(lane_label(lane[0], lane[1], on_gpu), LABEL_WIDTH - 8))}</text>"
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


def launch_arrows(boxes):
    """Arrows from each launch call to the GPU op it launched, both drawn, at most MAX_ARROWS."""
    arrows = []
    for key, (x0, y0, _) in boxes.items():
        if isinstance(key, tuple) and key[1] and ("correlation", False, key[2]) in boxes:
            lx, ly, _ = boxes[("correlation", False, key[2])]
            arrows.append(arrow_svg(lx, ly + ROW_HEIGHT, x0, y0))
    return arrows[:MAX_ARROWS]


def padded(window):
    start, end = window
    pad = (end - start) * 0.01
    return start - pad, end + pad


def timeline_svg(trace, window=None, title="Profiler timeline", highlight=(), brackets=(), callouts=(),
                 arrows=True):
    """An SVG timeline: CPU thread lanes with nested ops, GPU stream lanes, launch arrows, a time axis.

    ``window`` is (start, end) in the trace's µs, by default the whole activity.
    ``highlight`` names slices to outline; ``brackets`` are (start, end, label)
    intervals to measure; ``callouts`` are (number, slice name) pairs placed on
    the first slice of that name.
    """
    window = window or analysis.activity_window(trace)
    low, high = padded(window)
    scale = Scale(low, high - low)
    lanes, bottom, kinds = timeline_lanes(trace, window, scale, 0, highlight, callouts, arrows)
    legend, y = legend_svg([(STYLE[k][0], STYLE[k][2]) for k in STYLE if k in kinds])
    marks = "".join(bracket_svg(scale, y + i * BRACKET_ROW, *b) for i, b in enumerate(brackets))
    y += len(brackets) * BRACKET_ROW + 4
    body = legend + marks + f'<g transform="translate(0,{y})">{lanes}</g>' + axis_svg(scale, y + bottom)
    return svg_document(WIDTH, y + bottom + AXIS_HEIGHT, title, body)


def comparison_svg(panels, title="Two timelines on one scale"):
    """Timelines stacked on one time scale, each from its own start: ``panels`` are (label, trace, window)."""
    span = max(end - start for _, _, (start, end) in panels)
    parts, kinds, y = [], set(), 0
    sections = []
    for label, trace, window in panels:
        scale = Scale(window[0], span)
        lanes, bottom, drawn = timeline_lanes(trace, window, scale, 0, arrows=True, budget=SVG_BUDGET // len(panels))
        sections.append((label, scale, lanes, bottom))
        kinds |= drawn
    legend, y = legend_svg([(STYLE[k][0], STYLE[k][2]) for k in STYLE if k in kinds])
    parts.append(legend)
    for label, scale, lanes, bottom in sections:
        parts.append(f'<text class="pg-ink" x="8" y="{y + 14}" font-weight="700">{escape(printable(label))}</text>')
        y += 24
        parts.append(f'<g transform="translate(0,{y})">{lanes}</g>')
        parts.append(axis_svg(scale, y + bottom))
        y += bottom + AXIS_HEIGHT + 8
    return svg_document(WIDTH, y, title, "".join(parts))


def spread_svg(name, values, title=None, unit_label="per step"):
    """The spread of one op's durations: a dot per occurrence, with the median and 95th percentile marked."""
    values = np.asarray(values, dtype=float)
    scale = Scale(0.0, float(values.max()) * 1.05 if len(values) else 1.0, left=40, right=WIDTH - RIGHT_MARGIN)
    top, height = 36, 90
    parts = [f'<text class="pg-ink" x="40" y="22" font-weight="600">{escape(printable(name))} · '
             f'{escape(count_of(len(values), "occurrence"))} {escape(unit_label)}</text>',
             f'<rect class="pg-band" x="40" y="{top}" width="{scale.right - 40}" height="{height}"/>']
    for index, value in enumerate(values):
        jitter = (index * 37 % 11) / 10  # deterministic spread of dots that would overlap
        parts.append(
            f'<g><title>{escape(format_duration(value))}</title><circle cx="{scale.x(value):.1f}" '
            f'cy="{top + 15 + jitter * (height - 30):.1f}" r="4" fill="#0072B2" fill-opacity=".75"/></g>'
        )
    if len(values):
        for label, value in (("median", np.median(values)), ("p95", np.percentile(values, 95))):
            x = scale.x(value)
            parts.append(f'<line class="pg-rule" x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" y2="{top + height}"/>'
                         f'<text class="pg-ink" x="{x + 3:.1f}" y="{top + 10}">{label} {format_duration(value)}</text>')
    parts.append(axis_svg(scale, top + height + 6))
    return svg_document(WIDTH, top + height + 6 + AXIS_HEIGHT, title or f"Spread of {name}", "".join(parts))


def breakdown_svg(rows, title="GPU time: busy and idle by cause"):
    """A bar per row (a step, a rank): its window split into GPU busy time and idle time by cause.

    ``rows`` are (label, {"busy": µs, "host": µs, "sync": µs, "queued": µs, "other": µs}).
    """
    legend, y = legend_svg([(fill, label) for fill, label in IDLE_STYLE.values()])
    parts = [legend]
    y += 6
    for label, parts_us in rows:
        total = sum(parts_us.get(k, 0.0) for k in IDLE_STYLE) or 1.0
        x = float(LABEL_WIDTH)
        parts.append(f'<text class="pg-ink" x="8" y="{y + 15}">{escape(printable(label))}</text>')
        for key, (fill, name) in IDLE_STYLE.items():
            share = parts_us.get(key, 0.0) / total
            width = share * (WIDTH - RIGHT_MARGIN - LABEL_WIDTH)
            if width <= 0:
                continue
            parts.append(f'<g><title>{escape(name)}: {format_duration(parts_us[key])} ({100 * share:.1f}%)</title>'
                         f'<rect x="{x:.1f}" y="{y}" width="{width:.1f}" height="{ROW_HEIGHT}" fill="{fill}"/></g>')
            x += width
        y += ROW_HEIGHT + 8
    return svg_document(WIDTH, y + 8, title, "".join(parts))


def step_breakdowns(trace):
    """(label, busy and idle-by-cause µs) for each profiler step, measured over the step's window."""
    rows = []
    for step in analysis.profiler_steps(trace):
        window = analysis.step_window(trace, step["step"])
        idle = analysis.idle_breakdown(trace, window, analysis.on_a_stream(trace))
        rows.append((f"ProfilerStep#{step['step']}",
                     {"busy": idle["busy_us"], **{c: row["idle_us"] for c, row in idle["by_cause"].items()}}))
    return rows


def op_durations(trace, name):
    """Durations of every event named ``name``, in trace order."""
    if name not in trace.names:
        return np.empty(0)
    return trace.dur[trace.name == trace.names.index(name)]
