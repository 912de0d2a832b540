"""Charts: two timelines on one scale, the spread of one op's durations, busy and idle time by cause."""

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from profguide.analysis.idle import idle_breakdown
from profguide.analysis.intervals import Floats, Window
from profguide.analysis.select import on_a_stream, profiler_steps, step_window
from profguide.figures.svg import (
    AXIS_HEIGHT,
    CHAR_WIDTH,
    COMMUNICATION_STYLE,
    IDLE_STYLE,
    LABEL_WIDTH,
    LEGEND_ROW,
    RIGHT_MARGIN,
    ROW_HEIGHT,
    STYLE,
    WIDTH,
    Scale,
    axis_svg,
    legend_svg,
    nice_tick_step,
    svg_document,
    xml_text,
)
from profguide.figures.timeline import SVG_BUDGET, timeline_lanes
from profguide.stats import median
from profguide.text import count_of, format_duration
from profguide.trace.model import Trace


def comparison_svg(panels: Sequence[tuple[str, Trace, Window]], title: str = "Two timelines on one scale") -> str:
    """Timelines stacked on one time scale, each from its own start: ``panels`` are (label, trace, window)."""
    span = max(end - start for _, _, (start, end) in panels)
    parts, kinds = list[str](), set[str]()
    sections = []
    for label, trace, window in panels:
        scale = Scale(window[0], span)
        lanes, bottom, drawn = timeline_lanes(trace, window, scale, 0, arrows=True, budget=SVG_BUDGET // len(panels))
        sections.append((label, scale, lanes, bottom))
        kinds |= drawn
    legend, y = legend_svg([(STYLE[k][0], STYLE[k][2]) for k in STYLE if k in kinds])
    parts.append(legend)
    for label, scale, lanes, bottom in sections:
        parts.append(f'<text class="pg-ink" x="8" y="{y + 14}" font-weight="700">{xml_text(label)}</text>')
        y += 24
        parts.append(f'<g transform="translate(0,{y})">{lanes}</g>')
        parts.append(axis_svg(scale, y + bottom))
        y += bottom + AXIS_HEIGHT + 8
    return svg_document(WIDTH, y, title, "".join(parts))


def spread_svg(name: str, values: npt.ArrayLike, title: str | None = None, unit_label: str = "in the recording") -> str:
    """The spread of one op's durations: a dot per occurrence, with the median, the mean (dashed: a few slow
    occurrences pull it away from the typical one) and the 95th percentile marked."""
    values = np.asarray(values, dtype=float)
    scale = Scale(0.0, float(values.max()) * 1.05 if len(values) else 1.0, left=40, right=WIDTH - RIGHT_MARGIN)
    top, height = 36, 90
    parts = [f'<text class="pg-ink" x="40" y="22" font-weight="600">{xml_text(name)} · '
             f'{xml_text(count_of(len(values), "occurrence"))} {xml_text(unit_label)}</text>',
             f'<rect class="pg-band" x="40" y="{top}" width="{scale.right - 40}" height="{height}"/>']
    for index, value in enumerate(values):
        jitter = (index * 37 % 11) / 10  # deterministic spread of dots that would overlap
        parts.append(
            f'<g><title>{xml_text(format_duration(value))}</title><circle cx="{scale.x(value):.1f}" '
            f'cy="{top + 15 + jitter * (height - 30):.1f}" r="4" fill="#0072B2" fill-opacity=".75"/></g>'
        )
    if len(values):
        # Each marker's label on a row of its own, so that close values never print over each other.
        markers = (("median", median(values), ""), ("mean", values.mean(), ' stroke-dasharray="4 3"'),
                   ("p95", np.percentile(values, 95), ""))
        for row, (label, value, dash) in enumerate(markers):
            x = scale.x(value)
            parts.append(f'<line class="pg-rule" x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" y2="{top + height}"{dash}/>'
                         + marker_label(f"{label} {format_duration(value)}", x, top + 12 + row * LEGEND_ROW,
                                        scale.right))
    parts.append(axis_svg(scale, top + height + 6))
    return svg_document(WIDTH, top + height + 6 + AXIS_HEIGHT, title or f"Spread of {name}", "".join(parts))


def marker_label(text: str, x: float, y: float, right: float) -> str:
    """A label beside a vertical marker at ``x``: to its right, or to its left where it would pass ``right``."""
    if x + 3 + len(text) * CHAR_WIDTH <= right:
        return f'<text class="pg-ink" x="{x + 3:.1f}" y="{y}">{xml_text(text)}</text>'
    return f'<text class="pg-ink" x="{x - 3:.1f}" y="{y}" text-anchor="end">{xml_text(text)}</text>'


def breakdown_svg(rows: Iterable[tuple[str, Mapping[str, float]]], title: str = "GPU time: busy and idle by cause",
                  style: Mapping[str, tuple[str, str]] = IDLE_STYLE) -> str:
    """A bar per row (a step, a rank): its window split into parts, each drawn as its share of the row.

    ``rows`` are (label, {part: µs}) with the parts of ``style`` ({part: (fill, name)}, in drawing order):
    by default GPU busy time and idle time by cause ({"busy", "host", "sync", "queued", "other"}).
    """
    legend, y = legend_svg([(fill, label) for fill, label in style.values()])
    parts = [legend]
    y += 6
    for label, parts_us in rows:
        total = sum(parts_us.get(k, 0.0) for k in style) or 1.0
        x = float(LABEL_WIDTH)
        parts.append(f'<text class="pg-ink" x="8" y="{y + 15}">{xml_text(label)}</text>')
        for key, (fill, name) in style.items():
            share = parts_us.get(key, 0.0) / total
            width = share * (WIDTH - RIGHT_MARGIN - LABEL_WIDTH)
            if width <= 0:
                continue
            parts.append(f'<g><title>{xml_text(name)}: {format_duration(parts_us[key])} ({100 * share:.1f}%)</title>'
                         f'<rect x="{x:.1f}" y="{y}" width="{width:.1f}" height="{ROW_HEIGHT}" fill="{fill}"/></g>')
            x += width
        y += ROW_HEIGHT + 8
    return svg_document(WIDTH, y + 8, title, "".join(parts))


def step_breakdowns(trace: Trace) -> list[tuple[str, dict[str, float]]]:
    """(label, busy and idle-by-cause µs) for each profiler step, measured over the step's window."""
    rows: list[tuple[str, dict[str, float]]] = []
    for step in profiler_steps(trace):
        window = step_window(trace, step["step"])
        idle = idle_breakdown(trace, window, on_a_stream(trace))
        rows.append((f"ProfilerStep#{step['step']}",
                     {"busy": idle["busy_us"], **{c: row["idle_us"] for c, row in idle["by_cause"].items()}}))
    return rows


def op_durations(trace: Trace, name: str) -> Floats:
    """Durations of every event named ``name``, in trace order."""
    if name not in trace.names:
        return np.empty(0)
    durations: Floats = trace.dur[trace.name == trace.names.index(name)]
    return durations


SERIES_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7")


def scaling_svg(series: Sequence[tuple[str, Sequence[tuple[int, float]]]],
                title: str = "Time against the size of the trace") -> str:
    """Lines of seconds against events, one per series: ``series`` are (label, [(events, seconds), …])."""
    points = [point for _, values in series for point in values]
    most_events = max((events for events, _ in points), default=1) * 1.05
    most_seconds = max((seconds for _, seconds in points), default=1.0) * 1.1
    left, top, height = 70, 40, 220
    x = Scale(0.0, most_events, left=left, right=WIDTH - RIGHT_MARGIN - 150)

    def y(seconds: float) -> float:
        return top + height - seconds / most_seconds * height

    legend, _ = legend_svg([(colour, label) for colour, (label, _) in zip(SERIES_COLOURS, series, strict=False)], top=8)
    parts = [legend, f'<rect class="pg-band" x="{left}" y="{top}" width="{x.right - left}" height="{height}"/>']
    step = nice_tick_step(most_seconds, 5)
    tick = 0.0
    while tick <= most_seconds:
        parts.append(f'<line class="pg-rule" x1="{left - 5}" y1="{y(tick):.1f}" x2="{left}" y2="{y(tick):.1f}"/>'
                     f'<text class="pg-soft" x="{left - 8}" y="{y(tick) + 4:.1f}" text-anchor="end">{tick:g} s</text>')
        tick += step
    event_step = nice_tick_step(most_events, 5)
    tick = 0.0
    while tick <= most_events:
        parts.append(f'<line class="pg-rule" x1="{x.x(tick):.1f}" y1="{top + height}" x2="{x.x(tick):.1f}" '
                     f'y2="{top + height + 5}"/><text class="pg-soft" x="{x.x(tick):.1f}" y="{top + height + 20}" '
                     f'text-anchor="middle">{tick / 1e6:g}M</text>')
        tick += event_step
    parts.append(f'<text class="pg-soft" x="{(left + x.right) / 2:.1f}" y="{top + height + 38}" '
                 'text-anchor="middle">events in the trace</text>')
    for colour, (label, values) in zip(SERIES_COLOURS, series, strict=False):
        ordered = sorted(values)
        path = " ".join(f"{'M' if i == 0 else 'L'}{x.x(e):.1f},{y(s):.1f}" for i, (e, s) in enumerate(ordered))
        parts.append(f'<path d="{path}" stroke="{colour}" stroke-width="2" fill="none"/>')
        for events, seconds in ordered:
            parts.append(f'<g><title>{xml_text(label)}: {events:,} events, {seconds:.2f} s</title>'
                         f'<circle cx="{x.x(events):.1f}" cy="{y(seconds):.1f}" r="4" fill="{colour}"/></g>')
        if ordered:
            events, seconds = ordered[-1]
            parts.append(f'<text class="pg-ink" x="{x.x(events) + 8:.1f}" y="{y(seconds) + 4:.1f}">'
                         f'{xml_text(label)}</text>')
    return svg_document(WIDTH, top + height + 48, title, "".join(parts))


def communication_svg(rows: Iterable[Mapping[str, float]]) -> str:
    """Each step's window split into computation alone, communication hidden behind it, communication
    exposed, and neither (``step_communication``'s rows)."""
    return breakdown_svg([(f"ProfilerStep#{row['step']}", row) for row in rows],
                         title="Each step: communication hidden behind computation, and exposed",
                         style=COMMUNICATION_STYLE)
