"""Memory over time: bytes held by each of torch's memory categories, stacked, with the steps marked."""

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from profguide.analysis.intervals import Floats
from profguide.figures.svg import (
    AXIS_HEIGHT,
    WIDTH,
    Scale,
    axis_svg,
    legend_svg,
    nice_tick_step,
    svg_document,
    xml_text,
)
from profguide.text import format_size

# Okabe–Ito colours, each close to the colour torch's own memory plot gives the category.
CATEGORY_COLOURS = {
    "PARAMETER": "#009E73",
    "OPTIMIZER_STATE": "#E69F00",
    "INPUT": "#F0E442",
    "TEMPORARY": "#CC79A7",
    "ACTIVATION": "#D55E00",
    "GRADIENT": "#0072B2",
    "AUTOGRAD_DETAIL": "#56B4E9",
    "Unknown": "#999999",
}
PLOT_HEIGHT = 240


def thinned(times: Floats, totals: Floats, columns: npt.NDArray[np.int_]) -> npt.NDArray[np.int_]:
    """At most one moment per pixel column, the one with the most memory, so that no peak is lost."""
    kept: dict[int, int] = {}
    for index, column in enumerate(columns):
        if column not in kept or totals[index] > totals[kept[column]]:
            kept[column] = index
    return np.array(sorted(kept.values()), dtype=int)


def step_path(xs: Floats, lower: Floats, upper: Floats) -> str:
    """An SVG path for the band between two step functions: memory holds its value until the next change."""
    right = np.append(xs[1:], xs[-1])
    top = " ".join(f"L{a:.1f},{y:.1f} L{b:.1f},{y:.1f}" for a, b, y in zip(xs, right, upper, strict=True))
    bottom = " ".join(f"L{b:.1f},{y:.1f} L{a:.1f},{y:.1f}"
                      for a, b, y in reversed(list(zip(xs, right, lower, strict=True))))
    return "M" + (top + " " + bottom)[1:] + " Z"


def bytes_step(most: float) -> float:
    """A tick step of bytes that prints round: 1, 2 or 5 × 10^k of the largest unit (KiB, MiB, GiB) that fits."""
    unit = next((unit for unit in (1 << 30, 1 << 20, 1 << 10) if most >= 2 * unit), 1)
    return max(nice_tick_step(most / unit, 4) * unit, 1.0)


def bytes_axis(most: float, top: float, left: float) -> str:
    """Ticks of bytes up the left side of the plot."""
    parts, step = [], bytes_step(most)
    tick = 0.0
    while tick <= most:
        y = top + PLOT_HEIGHT - tick / most * PLOT_HEIGHT
        parts.append(f'<line class="pg-rule" x1="{left - 5}" y1="{y:.1f}" x2="{left}" y2="{y:.1f}"/>'
                     f'<text class="pg-soft" x="{left - 8}" y="{y + 4:.1f}" text-anchor="end">'
                     f"{xml_text(format_size(int(tick)))}</text>")
        tick += step
    return "".join(parts)


def memory_timeline_svg(times: Floats, sizes: Mapping[str, Floats],
                        steps: Sequence[tuple[str, float]] = (), title: str = "Memory by category over time") -> str:
    """Stacked bands of bytes by category against time, with a dashed line where each step starts.

    ``times`` are µs, ``sizes`` maps each category (in stacking order, bottom first) to its bytes at each
    time, ``steps`` are (label, start µs) on the same clock. Categories that never hold memory are left out.
    """
    held = {category: np.asarray(values, dtype=float) for category, values in sizes.items()
            if np.asarray(values).max(initial=0) > 0}
    if not held or not len(times):
        raise ValueError("no memory to draw: every category is empty")
    times = np.asarray(times, dtype=float)
    # From the first step's start when it comes before the first allocation: every step line is drawn.
    start = min([float(times.min())] + [float(step_start) for _, step_start in steps])
    span = float(times.max() - start) or 1.0
    scale = Scale(start, span)
    stacked = np.cumsum(np.vstack(list(held.values())), axis=0)
    most = float(stacked[-1].max()) * 1.08
    legend, top = legend_svg([(CATEGORY_COLOURS.get(c, "#999999"), c) for c in held])
    top += 8
    xs = np.array([scale.x(t) for t in times])
    kept = thinned(times, stacked[-1], np.round(xs).astype(int))
    xs, stacked = xs[kept], stacked[:, kept]

    def y(values: Floats) -> Floats:
        return top + PLOT_HEIGHT - values / most * PLOT_HEIGHT

    parts = [legend, f'<rect class="pg-band" x="{scale.left}" y="{top}" width="{scale.right - scale.left}" '
                     f'height="{PLOT_HEIGHT}"/>', bytes_axis(most, top, scale.left)]
    below = np.zeros(stacked.shape[1])
    for category, upper in zip(held, stacked, strict=True):
        peak = float(held[category].max())
        parts.append(f'<g><title>{xml_text(category)}: peak {xml_text(format_size(int(peak)))}</title>'
                     f'<path d="{step_path(xs, y(below), y(upper))}" fill="{CATEGORY_COLOURS.get(category, "#999999")}"'
                     ' fill-opacity=".85"/></g>')
        below = upper
    for label, step_start in steps:
        x = scale.x(step_start)
        if scale.left <= x <= scale.right:
            parts.append(f'<line class="pg-rule" x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + PLOT_HEIGHT}" '
                         f'stroke-dasharray="4 3"/><text class="pg-soft" x="{x + 3:.1f}" y="{top + 14}">'
                         f"{xml_text(label)}</text>")
    parts.append(axis_svg(scale, top + PLOT_HEIGHT))
    return svg_document(WIDTH, top + PLOT_HEIGHT + AXIS_HEIGHT, title, "".join(parts))

