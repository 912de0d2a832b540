"""profguide.figures.roofline: ops as circles under the device's roofs, on log-log axes."""

import math
import re
import xml.etree.ElementTree as ElementTree

import pytest

from profguide.analysis.peaks import Roof
from profguide.figures.roofline import (
    LARGEST_RADIUS,
    ROOFLINE_WIDTH,
    SMALLEST_RADIUS,
    RooflinePoint,
    decade_label,
    op_name,
    roofline_svg,
)
from profguide.figures.svg import CHAR_WIDTH, FONT_SIZE
from tests.figures.svg_tree import SVG, groups_by_tooltip

TB_PER_S = 3.35
ROOFS = [Roof("BF16 tensor", 989.0), Roof("FP32", 67.0)]


def point(label, intensity, tflops, device_us, family="GEMM"):
    return RooflinePoint(label, family, intensity, tflops, device_us)


def draw(points, roofs=ROOFS, tb_per_s=TB_PER_S):
    svg = roofline_svg(points, roofs, tb_per_s, "NVIDIA H100 80GB HBM3")
    ElementTree.fromstring(svg)  # well-formed XML, whatever the labels hold
    return svg


def circle(svg, label):
    element, _ = groups_by_tooltip(svg, "circle")[label]
    return float(element.get("cx")), float(element.get("cy")), float(element.get("r"))


def roof_line(svg, label):
    element, _ = groups_by_tooltip(svg, "line")[label]
    return tuple(float(element.get(name)) for name in ("x1", "y1", "x2", "y2"))


def test_a_point_on_the_memory_roof_lies_on_the_sloped_line_and_one_on_a_flat_roof_on_that_roof():
    svg = draw([point("on the slope", 2.0, 2.0 * TB_PER_S, 100), point("on FP32", 1000.0, 67.0, 100)])
    x1, y1, x2, y2 = roof_line(svg, f"memory {TB_PER_S} TB/s: TFLOP/s = FLOP per byte × {TB_PER_S}")
    cx, cy, _ = circle(svg, "on the slope")
    assert x1 < cx < x2
    assert cy == pytest.approx(y1 + (cx - x1) * (y2 - y1) / (x2 - x1), abs=0.2)  # coordinates are rounded to 0.1
    left, height, right, _ = roof_line(svg, "FP32 67.0 TFLOP/s")
    cx, cy, _ = circle(svg, "on FP32")
    assert cy == pytest.approx(height) and left < cx < right
    assert left == pytest.approx(x1 + (height - y1) * (x2 - x1) / (y2 - y1), abs=0.2)  # FP32's ridge: on the slope


def test_the_memory_roof_ends_at_the_highest_roofs_ridge_which_is_marked():
    svg = draw([point("a", 1.0, 1.0, 10)])
    _, _, x2, y2 = roof_line(svg, f"memory {TB_PER_S} TB/s: TFLOP/s = FLOP per byte × {TB_PER_S}")
    left, height, _, _ = roof_line(svg, "BF16 tensor 989 TFLOP/s")
    assert (x2, y2) == pytest.approx((left, height))
    assert f">ridge {989 / TB_PER_S:.0f} FLOP/byte<" in svg


def test_a_circles_area_follows_its_device_time_down_to_a_least_size():
    svg = draw([point("most", 10, 10, 400), point("quarter", 1, 1, 100), point("tiny", 0.1, 0.1, 0.001)])
    _, _, most = circle(svg, "most")
    _, _, quarter = circle(svg, "quarter")
    _, _, tiny = circle(svg, "tiny")
    assert most == pytest.approx(LARGEST_RADIUS)
    assert most**2 / quarter**2 == pytest.approx(400 / 100, rel=1e-3)
    assert tiny == SMALLEST_RADIUS


def test_the_legend_names_each_family_once_and_each_family_has_one_colour():
    points = [point("mm", 100, 100, 10), point("bmm", 50, 50, 10), point("add", 0.1, 0.2, 10, "elementwise"),
              point("gelu", 0.2, 0.3, 10, "elementwise"), point("my_op", 1, 1, 10, "custom")]
    svg = draw(points)
    assert [svg.count(f">{family}</text>") for family in ("GEMM", "elementwise", "custom")] == [1, 1, 1]
    fills = {label: groups_by_tooltip(svg, "circle")[label][0].get("fill") for label in ("mm", "bmm", "add", "gelu")}
    assert fills["mm"] == fills["bmm"] != fills["add"] == fills["gelu"]


def test_a_point_above_every_roof_is_drawn_ringed_and_said_to_be_above_in_its_tooltip():
    svg = draw([point("fine", 1, 1, 10), point("too fast", 1, 2000, 10)])
    element, group = groups_by_tooltip(svg, "circle")["too fast"]
    assert "above the roof" in group.find(f"{SVG}title").text
    assert group.find(f"{SVG}circle[@class='pg-mark']") is not None
    assert "above the roof" not in groups_by_tooltip(svg, "circle")["fine"][1].find(f"{SVG}title").text


def test_the_tooltip_gives_the_time_the_rates_and_the_fraction_of_the_roof_here():
    svg = draw([point("aten::add [4096, 4096]", 0.5, 0.5 * TB_PER_S / 4, 12.3, "elementwise"),
                point("aten::mm", 1000, 989 / 2, 80)])
    _, group = groups_by_tooltip(svg, "circle")["aten::add [4096, 4096]"]
    text = group.find(f"{SVG}title").text
    assert "0.419 TFLOP/s at 0.500 FLOP/byte, 12.3 µs on the device" in text  # 0.5 × 3.35 / 4 = 0.41875
    assert "25% of the roof here (memory, 3.35 TB/s)" in text
    _, group = groups_by_tooltip(svg, "circle")["aten::mm"]
    assert "50% of the roof here (BF16 tensor, 989 TFLOP/s)" in group.find(f"{SVG}title").text


def axis_labels(svg):
    """(x, y, text) of the tick labels (pg-soft, no rotation), left to right."""
    tick = r'<text class="pg-soft" x="([\d.]+)" y="([\d.]+)" text-anchor="\w+">([\d.,⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)</text>'
    labels = re.findall(tick, svg)
    return [(float(x), float(y), text) for x, y, text in labels]


def test_ticks_are_decades_evenly_spaced_and_the_axes_reach_past_the_data_and_the_roofs():
    svg = draw([point("a", 0.05, 0.02, 10), point("b", 300, 500, 10)])
    bottom = max(y for _, y, _ in axis_labels(svg))
    x_ticks = [(x, text) for x, y, text in axis_labels(svg) if y == bottom]
    assert [text for _, text in x_ticks] == ["0.01", "0.1", "1", "10", "100", "1,000", "10,000"]
    gaps = [b[0] - a[0] for a, b in zip(x_ticks, x_ticks[1:], strict=False)]
    assert max(gaps) - min(gaps) < 0.2
    y_ticks = [text for x, _, text in axis_labels(svg) if x == min(x for x, _, _ in axis_labels(svg))]
    assert y_ticks[0] == "0.01" and y_ticks[-1] == "10,000"  # below 0.02, above the 989 roof


@pytest.mark.parametrize(("exponent", "label"), [(-5, "10⁻⁵"), (-3, "0.001"), (0, "1"), (4, "10,000"), (6, "10⁶")])
def test_a_decade_is_written_out_near_one_and_as_a_power_far_from_it(exponent, label):
    assert decade_label(exponent) == label


def text_boxes(svg):
    """(left, top, right, bottom, text) of every unrotated label, from its position, anchor and length."""
    boxes = []
    for element in ElementTree.fromstring(svg).iter(f"{SVG}text"):
        if element.get("transform") or element.get("x") is None:
            continue
        x, y, text = float(element.get("x")), float(element.get("y")), element.text
        width = len(text) * CHAR_WIDTH
        left = {"start": x, "middle": x - width / 2, "end": x - width}[element.get("text-anchor", "start")]
        boxes.append((left, y - FONT_SIZE + 2, left + width, y + 3, text))
    return boxes


CROWDED = [point(f"aten::op{i} " + "[4096, 4096]" * 5, 10.0**(i % 5 - 1), 10.0**(i % 5 - 1) * 3, 100 - i)
           for i in range(10)] + [point("at the far corner " * 4, 1e5, 900, 99.5)]


@pytest.mark.parametrize(("points", "labelled"), [(CROWDED, 2), ([point("one " * 30, 0.01, 0.001, 5)], 1)])
def test_labels_stay_on_the_canvas_and_never_overlap(points, labelled):
    svg = draw(points)
    height = float(ElementTree.fromstring(svg).get("height"))
    boxes = text_boxes(svg)
    for left, top, right, bottom, text in boxes:
        assert 0 <= left and right <= ROOFLINE_WIDTH and 0 <= top and bottom <= height, text
    placed = [box for box in boxes if box[4].startswith(("aten::op", "at the far", "one", "BF16", "FP32"))]
    assert len(placed) >= 2 + labelled  # the two roofs, and the largest ops where their labels fit
    for index, (left, top, right, bottom, _) in enumerate(placed):
        for other in placed[index + 1:]:
            assert right <= other[0] or other[2] <= left or bottom <= other[1] or other[3] <= top


def test_a_label_too_long_for_the_room_falls_back_to_the_op_name():
    assert op_name("aten::addmm [141, 512]x[512, 512]") == "aten::addmm" and op_name("my_op") == "my_op"


def test_roofs_of_one_peak_are_one_line_with_both_names():
    svg = draw([point("a", 1, 1, 1)], roofs=[Roof("BF16 tensor", 989.0), Roof("FP16 tensor", 989.0)])
    assert "BF16 tensor, FP16 tensor 989 TFLOP/s" in groups_by_tooltip(svg, "line")
    # In either order: the MI300X's FP32 vector and matrix peaks, equal, came from a set in either order.
    swapped = draw([point("a", 1, 1, 1)], roofs=[Roof("FP16 tensor", 989.0), Roof("BF16 tensor", 989.0)])
    assert swapped == svg


@pytest.mark.parametrize(("points", "roofs", "tb_per_s", "reason"), [
    ([], ROOFS, TB_PER_S, "no op"),
    ([point("zero", 0.0, 1, 1), point("nan", 1, math.nan, 1), point("no time", 1, 1, -2)], ROOFS, TB_PER_S, "no op"),
    ([point("a", 1, 1, 1)], [Roof("FP32", 0.0)], TB_PER_S, "peaks are not known"),
    ([point("a", 1, 1, 1)], ROOFS, 0.0, "bandwidth"),
])
def test_nothing_to_draw_is_a_figure_that_says_so(points, roofs, tb_per_s, reason):
    svg = draw(points, roofs, tb_per_s)
    assert ">Nothing to draw</text>" in svg and reason in svg and "<circle" not in svg


def test_a_point_with_a_bad_value_is_left_out_and_the_rest_drawn():
    svg = draw([point("good", 1, 1, 1), point("bad", -1, 1, 1)])
    assert "good" in groups_by_tooltip(svg, "circle") and "bad" not in groups_by_tooltip(svg, "circle")


def test_a_long_device_name_is_cut_to_the_canvas():
    svg = roofline_svg([point("a", 1, 1, 1)], ROOFS, TB_PER_S, "NVIDIA " * 40)
    assert all(right <= ROOFLINE_WIDTH for _, _, right, _, _ in text_boxes(svg))


def test_a_hostile_label_is_escaped():
    svg = draw([point("<script>&\x00\u202e", 1, 1, 1)])
    assert "<script>" not in svg
