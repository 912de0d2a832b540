"""The ranks of a job drawn one above the other, aligned on a collective they share."""

import xml.etree.ElementTree as ElementTree

from profguide.analysis.job import rank_row
from profguide.analysis.ranks import collectives, job_summary
from profguide.figures.ranks import drawn_part, job_svg
from tests.figures.svg_tree import SVG
from tests.helpers import event, make_trace


def gloo_rank(rank, start, wait):
    """A rank whose step starts at ``start`` and whose all-reduce, on worker thread 2, waits ``wait`` µs."""
    return make_trace(
        event("ProfilerStep#1", start, 1000, kind="annotation", tid=1),
        event("aten::mm", start + 10, 200, tid=1),
        event("gloo:all_reduce", start + 300 - wait, 100 + wait, kind="annotation", tid=2),
        event("unrelated", start, 900, tid=9),
        distributedInfo={"rank": rank, "world_size": 2})


def test_the_ranks_are_aligned_on_the_end_of_the_shared_collective():
    # Rank 1's clock runs 5 ms ahead; rank 0 waits 250 µs in the all-reduce. Their ends are one event apart.
    traces = {"a": gloo_rank(0, 0, 250), "b": gloo_rank(1, 5000, 0)}
    job = job_summary([rank_row(name, trace, None) for name, trace in traces.items()])
    svg, drawn = job_svg(job, lambda row: traces[row["file"]])
    assert drawn == 2
    root = ElementTree.fromstring(svg)
    ends = {}
    for group in root.iter(f"{SVG}g"):
        title, rect = group.find(f"{SVG}title"), group.find(f"{SVG}rect")
        if title is not None and title.text.startswith("gloo:all_reduce"):
            ends.setdefault(title.text, []).append(float(rect.get("x")) + float(rect.get("width")))
    assert len(sum(ends.values(), [])) == 2
    first, second = sum(ends.values(), [])
    assert abs(first - second) < 1.0
    dashed = [line for line in root.iter(f"{SVG}line") if line.get("stroke-dasharray")]
    assert len(dashed) == 1 and abs(float(dashed[0].get("x1")) - first) < 1.0
    assert "rank 1 · the straggler" in svg and "rank 0 · waited 250 µs for the straggler" in svg
    assert 'class="pg-mark"' in svg  # the collectives are outlined
    assert "unrelated" not in svg  # a thread with no collective and no loop is left out


def test_a_panel_keeps_only_its_lanes_inside_its_window(real_trace):
    trace = real_trace("a100_nccl_2rank_rank0.json.gz")
    mask, _ = collectives(trace)
    start = float(trace.ts[mask][0])
    part = drawn_part(trace, (start, start + 5000), mask)
    assert 0 < len(part) < len(trace)
    assert part.end.min() >= start and part.ts.max() <= start + 5000
    assert len(set(part.lane.tolist())) <= 4  # the main thread, NCCL's stream, two busiest GPU streams at most


def test_a_rank_named_by_a_file_that_is_not_utf8_shows_its_bytes():
    import os

    from profguide.figures.ranks import panel_label

    job = {"ranks": [{"rank": None, "file": os.fsdecode(b"/logs/trace-\xff\x1b.json"), "wait_us": None}],
           "straggler": None}
    assert panel_label(job, 0) == "/logs/trace-\\xff?.json"
