"""profguide.figures.host_steps: a bar per step, its segments by host activity, every run on one time scale."""

import xml.etree.ElementTree as ElementTree

import pytest

from profguide.figures.host_steps import ACTIVITY_FILLS, host_steps_svg
from tests.figures.svg_tree import SVG

GROUPS = [
    ("num_workers=0", [("ProfilerStep#2", {"data loading": 600.0, "ops": 200.0, "backward": 200.0}),
                       ("ProfilerStep#3", {"data loading": 500.0, "ops": 250.0, "backward": 250.0})]),
    ("num_workers=2", [("ProfilerStep#2", {"data loading": 50.0, "ops": 200.0, "backward": 250.0})]),
]


def bars(svg):
    """Each bar's segments as (fill, x, width), bar by bar, from the drawn rectangles with a tooltip."""
    rows, last_y = [], None
    for group in ElementTree.fromstring(svg).iter(f"{SVG}g"):
        rect = group.find(f"{SVG}rect")
        if group.find(f"{SVG}title") is None or rect is None:
            continue
        if rect.get("y") != last_y:
            rows.append([])
            last_y = rect.get("y")
        rows[-1].append((rect.get("fill"), float(rect.get("x")), float(rect.get("width"))))
    return rows


def test_every_step_is_a_bar_on_one_scale_loading_first():
    drawn = bars(host_steps_svg(GROUPS))
    assert len(drawn) == 3
    assert all(bar[0][0] == ACTIVITY_FILLS["data loading"] for bar in drawn)
    widths = [sum(width for _, _, width in bar) for bar in drawn]
    # The same scale for every run: a 500 µs step is half as wide as a 1,000 µs one.
    assert widths[0] == pytest.approx(widths[1], abs=0.2) and widths[2] == pytest.approx(widths[0] / 2, abs=0.2)
    assert drawn[2][0][2] == pytest.approx(widths[0] / 20, abs=0.2)
    for bar in drawn:  # segments follow each other without gaps or overlaps
        assert all(a[1] + a[2] == pytest.approx(b[1], abs=0.15) for a, b in zip(bar, bar[1:], strict=False))


def test_the_legend_names_only_what_is_drawn_and_names_are_escaped():
    svg = host_steps_svg([("<run & co>", [("step", {"data loading": 1.0, "python": 1.0})])])
    assert "loading data" in svg and "Python outside ops" in svg and "optimizer" not in svg
    assert "&lt;run &amp; co&gt;" in svg
    ElementTree.fromstring(svg)  # well-formed
