"""profguide.figures.charts: two timelines on one scale, spreads, breakdowns."""

import re

import pytest

from profguide.figures import charts
from profguide.figures.svg import CHAR_WIDTH, WIDTH
from profguide.text import format_duration
from tests.figures.svg_tree import rect_of
from tests.helpers import event as op
from tests.helpers import make_trace


def test_comparison_draws_both_panels_on_one_scale():
    t = make_trace(op("ProfilerStep#0", 0, 300, kind="annotation"), op("ProfilerStep#1", 1000, 100, kind="annotation"))
    svg = charts.comparison_svg([("first", t, (0, 300)), ("second", t, (1000, 1100))])
    first, second = rect_of(svg, "ProfilerStep#0"), rect_of(svg, "ProfilerStep#1")
    assert float(first.get("width")) == pytest.approx(3 * float(second.get("width")), rel=0.01)
    assert float(first.get("x")) == pytest.approx(float(second.get("x")))


def test_spread_has_a_dot_per_value_and_marks_median_mean_and_p95():
    svg = charts.spread_svg("aten::mm", [10, 20, 30, 40, 1000])
    assert svg.count("<circle") == 5
    assert f">median {format_duration(30)}<" in svg and f">mean {format_duration(220)}<" in svg and ">p95 " in svg
    assert svg.count('stroke-dasharray="4 3"') == 1  # the mean, dashed


def test_breakdown_bars_split_in_proportion():
    svg = charts.breakdown_svg([("step", {"busy": 75, "host": 25})])
    widths = [float(w) for w in re.findall(r'<rect x="[\d.]+" y="[\d.]+" width="([\d.]+)" height="20"', svg)]
    assert widths[0] == pytest.approx(3 * widths[1])


def label_boxes(svg):
    """(left, right, y) of each marker label, from its position, anchor and length."""
    boxes = []
    label = r'<text class="pg-ink" x="([\d.]+)" y="(\d+)"( text-anchor="end")?>((?:median|mean|p95)[^<]*)<'
    for match in re.finditer(label, svg):
        x, width = float(match[1]), len(match[4]) * CHAR_WIDTH
        boxes.append((x - width, x, int(match[2])) if match[3] else (x, x + width, int(match[2])))
    return boxes


@pytest.mark.parametrize("values", [[100.0, 100.5, 101.0, 101.2], [10, 20, 30, 40, 1000], [5.0] * 6])
def test_marker_labels_never_overlap_and_stay_inside(values):
    boxes = label_boxes(charts.spread_svg("aten::mm", values))
    assert len(boxes) == 3
    for index, (left_a, right_a, y_a) in enumerate(boxes):
        for left_b, right_b, y_b in boxes[index + 1:]:
            assert y_a != y_b or right_a <= left_b or right_b <= left_a
        assert left_a >= 0 and right_a <= WIDTH


def test_scaling_draws_a_line_and_a_dot_per_point_with_the_points_in_tooltips():
    svg = charts.scaling_svg([("explain", [(100_000, 0.5), (1_000_000, 2.0)]), ("decode", [(100_000, 0.3)])])
    assert svg.count("<circle") == 3 and svg.count('stroke-width="2"') == 2
    assert "explain: 1,000,000 events, 2.00 s" in svg
    colours = {m.group(1) for m in re.finditer(r'<circle cx="[\d.]+" cy="[\d.]+" r="4" fill="(#\w+)"', svg)}
    assert len(colours) == 2  # one colour per series


def test_communication_bars_split_each_step_in_proportion_with_a_legend_entry_per_part():
    row = {"step": 3, "window_us": 100, "compute_only_us": 40, "overlapped_us": 10, "exposed_us": 20,
           "neither_us": 30}
    svg = charts.communication_svg([row])
    assert "ProfilerStep#3" in svg and "communication exposed: 20.0 µs (20.0%)" in svg
    widths = [float(w) for w in re.findall(r'<rect x="[\d.]+" y="[\d.]+" width="([\d.]+)" height="20"', svg)]
    assert widths[0] == pytest.approx(4 * widths[1]) and widths[2] == pytest.approx(2 * widths[1])
    assert "neither: the GPU idle" in svg
