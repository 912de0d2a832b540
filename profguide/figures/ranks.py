"""The ranks of a job drawn one above the other on one time axis, each rank's clock shifted so that one
collective they all ran ends at the same x: its main CPU thread, the threads or streams its collectives ran
on and its busiest GPU streams, the collectives outlined."""

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from profguide.analysis.host import main_lane
from profguide.analysis.intervals import Mask, Window
from profguide.analysis.ranks import collectives, label, ranks_to_show
from profguide.analysis.select import gpu_work
from profguide.analysis.summary import Job, RankRow
from profguide.errors import TraceError
from profguide.figures.svg import (
    AXIS_HEIGHT,
    STYLE,
    WIDTH,
    Scale,
    axis_svg,
    fit_label,
    legend_svg,
    svg_document,
    xml_text,
)
from profguide.figures.timeline import SVG_BUDGET, padded, timeline_lanes
from profguide.text import format_duration, kernel_name, shown
from profguide.trace.model import Trace

GPU_LANES_DRAWN = 2  # per rank, the GPU streams with the most work besides those of its collectives
PANEL_HEADER = 24
Panel = tuple[str, Trace, Window, set[str]]  # (heading, the rank's trace, its window, its collectives' names)
RANKS_DRAWN = 8  # a job of more ranks: the straggler and the ranks that waited longest for it
NOTHING_TO_DRAW = "no rank has events a timeline draws (ops, regions, runtime calls, kernels, copies)"


def lanes_drawn(trace: Trace, collectives: Mask) -> list[int]:
    """The lane codes a rank's panel draws: its main thread, the lanes of its collectives (gloo's worker
    threads, NCCL's streams) and its busiest GPU streams."""
    keep = set(np.unique(trace.lane[collectives]).tolist())
    main = main_lane(trace)
    if main is not None:
        keep.add(main)
    work = gpu_work(trace)
    if work.any():
        busy = np.bincount(trace.lane[work], weights=trace.dur[work], minlength=len(trace.lanes))
        keep.update(int(lane) for lane in np.argsort(-busy, kind="stable")[:GPU_LANES_DRAWN] if busy[lane] > 0)
    return sorted(keep)


def drawn_part(trace: Trace, window: Window, collectives: Mask) -> Trace:
    """The part of ``trace`` a panel draws: the events of ``lanes_drawn`` that overlap ``window``, as a Trace
    of their own, so that a job of many ranks keeps only what it draws."""
    keep = np.isin(trace.lane, lanes_drawn(trace, collectives)) & (trace.end >= window[0]) & (trace.ts <= window[1])
    columns = ("ts", "dur", "kind", "name", "lane", "correlation", "external_id", "sequence", "bytes", "occupancy",
               "recorded_shapes", "shape", "graph_id", "graph_node")
    return replace(trace, **{column: getattr(trace, column)[keep] for column in columns}, shapes={}, comm_args={})


def ranks_svg(panels: Sequence[Panel], aligned_at: float, aligned_on: str,
              title: str = "The ranks of a job on one time axis") -> str:
    """The panels one above the other on one time axis.

    ``panels`` are (label, trace, window, collective names), every window as long as the others, with the
    collective the ranks are aligned on ending ``aligned_at`` µs after the window's start; ``aligned_on``
    names that collective for the figure's note.
    """
    sections, kinds = list[tuple[str, Scale, str, float, float]](), set[str]()
    for heading, trace, window, names in panels:
        low, high = padded(window)
        scale = Scale(low, high - low)
        lanes, bottom, drawn = timeline_lanes(trace, window, scale, 0, highlight=names, arrows=False,
                                              budget=SVG_BUDGET // len(panels))
        sections.append((heading, scale, lanes, bottom, window[0] + aligned_at))
        kinds |= drawn
    if not kinds:
        raise TraceError(NOTHING_TO_DRAW)
    legend, y = legend_svg([(STYLE[k][0], STYLE[k][2]) for k in STYLE if k in kinds])
    notes = ("Each rank's clock is shifted so that one collective ends at the dashed line on every rank:",
             fit_label(f"{aligned_on}. Collectives are outlined.", WIDTH - 16))
    parts = [legend] + [f'<text class="pg-soft" x="8" y="{y + 12 + 18 * row}">{xml_text(note)}</text>'
                        for row, note in enumerate(notes)]
    y += 42
    top = y
    for heading, _, lanes, bottom, _ in sections:
        parts.append(f'<text class="pg-ink" x="8" y="{y + 14}" font-weight="700">{xml_text(heading)}</text>')
        y += PANEL_HEADER
        parts.append(f'<g transform="translate(0,{y})">{lanes}</g>')
        y += bottom + 4
    scale, anchor = sections[0][1], sections[0][4]
    x = scale.x(anchor)
    parts.append(f'<line class="pg-rule" x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{y}" stroke-dasharray="5 4"/>')
    parts.append(axis_svg(scale, y))
    return svg_document(WIDTH, y + AXIS_HEIGHT, title, "".join(parts))


def panel_label(job: Job, index: int) -> str:
    row = job["ranks"][index]
    name = shown(label(row))  # a rank named by its file: bytes of the name that are not UTF-8 as \xNN
    if index == job["straggler"]:
        return f"{name} · the straggler"
    if row["wait_us"] is not None:
        return f"{name} · waited {format_duration(row['wait_us'])} for the straggler"
    return name


def job_svg(job: Job, load: Callable[[RankRow], Trace], limit: int = RANKS_DRAWN,
            title: str = "The ranks of a job on one time axis") -> tuple[str, int]:
    """(SVG, ranks drawn) of a job (``job_summary``'s, with each rank's ``file``): the ranks ``shown_ranks``
    picks, each loaded with ``load(row)`` and cut to what it draws before the next is loaded, over the span
    of their windows, aligned on the collective the job names (or, without one, on their windows' starts).
    A TraceError when no rank has anything a timeline draws."""
    rows = job["ranks"]
    windows = {index: measured for index in ranks_to_show(job, limit) if (measured := rows[index]["window"])}
    chosen = list(windows)
    if not chosen:
        raise TraceError(NOTHING_TO_DRAW)
    aligned = job["aligned_on"]
    anchors = {i: aligned["end_us"][i] if aligned else windows[i]["start_us"] for i in chosen}
    before = min(windows[i]["start_us"] - anchors[i] for i in chosen)
    after = max(windows[i]["end_us"] - anchors[i] for i in chosen)
    panels: list[Panel] = []
    for i in chosen:
        loaded = load(rows[i])
        mask, _ = collectives(loaded)
        window = (anchors[i] + before, anchors[i] + after)
        part = drawn_part(loaded, window, mask)
        names = {loaded.names[code] for code in np.unique(loaded.name[mask]).tolist()}
        del loaded
        panels.append((panel_label(job, i), part, window, names))
    stream = f" on stream {aligned['stream']}" if aligned and aligned["stream"] is not None else ""
    what = (f"{kernel_name(aligned['name'])} #{aligned['occurrence'] + 1}{stream}" if aligned
            else "the start of its window (no collective is shared by every rank)")
    return ranks_svg(panels, -before, what, title), len(panels)
