"""Steps of a run without GPU work, each a bar of the host's time split by activity, all on one time scale."""

from collections.abc import Mapping, Sequence

from profguide.analysis.host import CPU_LABELS
from profguide.analysis.vocabulary import CpuActivity
from profguide.figures.svg import (
    AXIS_HEIGHT,
    ROW_HEIGHT,
    WIDTH,
    Scale,
    axis_svg,
    legend_svg,
    svg_document,
    xml_text,
)
from profguide.text import format_duration

# In the order a training step runs them, loading data first: the bars read left to right like the step.
ACTIVITY_FILLS: dict[CpuActivity, str] = {
    "data loading": "#E69F00",
    "ops": "#0072B2",
    "backward": "#56B4E9",
    "optimizer": "#009E73",
    "region": "#CC79A7",
    "python": "#999999",
}
HEADING_HEIGHT = 24
GROUP_GAP = 10


def host_steps_svg(groups: Sequence[tuple[str, Sequence[tuple[str, Mapping[CpuActivity, float]]]]],
                   title: str = "Each step's host time by activity") -> str:
    """``groups`` are (heading, [(label, {activity: µs}), …]): a heading per run, a bar per step, one scale."""
    span = max((sum(spent.values()) for _, rows in groups for _, spent in rows), default=0.0) or 1.0
    scale = Scale(0.0, span)
    present = {activity for _, rows in groups for _, spent in rows for activity, us in spent.items() if us > 0}
    legend, y = legend_svg([(fill, CPU_LABELS[a]) for a, fill in ACTIVITY_FILLS.items() if a in present])
    parts = [legend]
    for heading, rows in groups:
        parts.append(f'<text class="pg-ink" x="8" y="{y + 16}" font-weight="700">{xml_text(heading)}</text>')
        y += HEADING_HEIGHT
        for label, spent in rows:
            parts.append(f'<text class="pg-ink" x="8" y="{y + 15}">{xml_text(label)}</text>')
            parts.append(bar(scale, y, spent))
            y += ROW_HEIGHT + 6
        y += GROUP_GAP
    parts.append(axis_svg(scale, y))
    return svg_document(WIDTH, y + AXIS_HEIGHT, title, "".join(parts))


def bar(scale: Scale, y: float, spent: Mapping[CpuActivity, float]) -> str:
    """One step's bar: a segment per activity, in ACTIVITY_FILLS order, each with its time on hover."""
    total, start, segments = sum(spent.values()), 0.0, []
    for activity, fill in ACTIVITY_FILLS.items():
        us = spent.get(activity, 0.0)
        if us <= 0:
            continue
        x, width = scale.x(start), scale.x(start + us) - scale.x(start)
        segments.append(f'<g><title>{xml_text(CPU_LABELS[activity])}: {format_duration(us)} '
                        f'({100 * us / total:.1f}%)</title><rect x="{x:.1f}" y="{y}" width="{width:.1f}" '
                        f'height="{ROW_HEIGHT}" fill="{fill}"/></g>')
        start += us
    return "".join(segments)
