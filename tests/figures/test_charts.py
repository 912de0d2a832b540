"""profguide.figures.charts: two timelines on one scale, spreads, breakdowns."""

import re

import pytest

from profguide.figures import charts
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


def test_spread_has_a_dot_per_value_and_marks_median_and_p95():
    svg = charts.spread_svg("aten::mm", [10, 20, 30, 40, 1000])
    assert svg.count("<circle") == 5
    assert f">median {format_duration(30)}<" in svg and ">p95 " in svg


def test_breakdown_bars_split_in_proportion():
    svg = charts.breakdown_svg([("step", {"busy": 75, "host": 25})])
    widths = [float(w) for w in re.findall(r'<rect x="[\d.]+" y="[\d.]+" width="([\d.]+)" height="20"', svg)]
    assert widths[0] == pytest.approx(3 * widths[1])
