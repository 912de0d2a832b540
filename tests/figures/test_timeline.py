"""profguide.figures.timeline: geometry, names, escaping, themes, sizes, determinism."""

import re
import xml.etree.ElementTree as ElementTree

import pytest

from profguide.figures import timeline
from profguide.figures.svg import LABEL_WIDTH, RIGHT_MARGIN, ROW_GAP, ROW_HEIGHT, WIDTH
from tests.figures.svg_tree import SVG, groups_by_tooltip, rect_of
from tests.helpers import ROOT, TRACES, make_trace
from tests.helpers import event as op
from tests.helpers import gpu_event as gpu


def test_a_slice_lands_where_its_time_says():
    t = make_trace(op("first", 0, 100), op("middle", 250, 500), op("last", 900, 100))
    svg = timeline.timeline_svg(t, window=(0, 1000))
    pad = 1000 * 0.01
    scale = (WIDTH - LABEL_WIDTH - RIGHT_MARGIN) / (1000 + 2 * pad)
    middle = rect_of(svg, "middle")
    assert float(middle.get("x")) == pytest.approx(LABEL_WIDTH + (250 + pad) * scale, abs=0.1)
    assert float(middle.get("width")) == pytest.approx(500 * scale, abs=0.1)
    assert float(rect_of(svg, "last").get("x")) > float(middle.get("x")) + float(middle.get("width"))


def test_nested_ops_go_one_row_down_and_gpu_lanes_follow_cpu_lanes():
    t = make_trace(op("outer", 0, 100), op("inner", 10, 50), gpu("kernel", 20, 30))
    svg = timeline.timeline_svg(t)
    outer, inner, kernel = (float(rect_of(svg, n).get("y")) for n in ("outer", "inner", "kernel"))
    assert inner == outer + ROW_HEIGHT + ROW_GAP
    assert kernel > inner
    assert "GPU 0 · stream 7" in svg


def test_tooltips_carry_the_full_name_labels_the_short_one():
    long_name = "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl<Add>>(int, Add)"
    svg = timeline.timeline_svg(make_trace(gpu(long_name, 0, 1000)))
    rect, group = groups_by_tooltip(svg)[long_name]
    assert group.find(f"{SVG}title").text == f"{long_name}\n1.00 ms · GPU kernel"
    assert group.find(f"{SVG}text").text == "elementwise_kernel"


def test_names_from_the_trace_are_escaped_and_the_svg_stays_valid():
    hostile = '<script>alert("x")</script>&\x1b[31m'
    svg = timeline.timeline_svg(make_trace(op(hostile, 0, 10000)), title=hostile)
    assert "<script>" not in svg and "\x1b" not in svg
    ElementTree.fromstring(svg)


def test_rendering_is_deterministic():
    t = make_trace(op("a", 0, 10), op("b", 2, 3), gpu("k", 4, 4))
    assert timeline.timeline_svg(t) == timeline.timeline_svg(t)


def test_figures_follow_the_pages_colour_scheme():
    svg = timeline.timeline_svg(make_trace(op("a", 0, 10)))
    assert 'class="pg-fig"' in svg and "var(--md-default-fg-color" in svg and "var(--md-default-bg-color" in svg
    assert 'fill="#FFFFFF"' not in svg.split("<style>")[0]  # the background comes from the theme


def test_launch_arrows_join_launch_and_kernel():
    t = make_trace(op("cudaLaunchKernel", 0, 2, kind="runtime", correlation=1),
                   op("cudaLaunchKernel", 5, 2, kind="runtime", correlation=2),
                   gpu("k1", 10, 5, correlation=1), gpu("k2", 20, 5, correlation=2), gpu("k3", 30, 5))
    assert timeline.timeline_svg(t).count('class="pg-arrow"') == 2
    assert timeline.timeline_svg(t, arrows=False).count('class="pg-arrow"') == 0


def test_annotations_bracket_highlight_callouts():
    t = make_trace(op("region", 0, 100, kind="annotation"), op("aten::mm", 10, 50), op("aten::add", 70, 10))
    svg = timeline.timeline_svg(t, highlight=("aten::mm",), brackets=[(0, 100, "region: 100 µs")],
                               callouts=[(1, "aten::mm"), (2, "aten::add"), (3, "absent")])
    assert svg.count('class="pg-mark"') == 1
    assert ">region: 100 µs</text>" in svg
    assert re.findall(r'class="pg-callout-text"[^>]*>(\d)<', svg) == ["1", "2"]


@pytest.mark.parametrize("path", sorted(TRACES.glob("*.json.gz")), ids=lambda p: p.name)
def test_whole_real_traces_draw_under_150_kb(path, real_trace):
    svg = timeline.timeline_svg(real_trace(path.name), title=path.name)
    assert len(svg.encode()) <= 150_000
    ElementTree.fromstring(svg)


def test_every_committed_figure_is_valid_and_under_150_kb():
    svgs = sorted((ROOT / "docs" / "generated").glob("*/*.svg"))
    assert len(svgs) >= 5
    for path in svgs:
        assert path.stat().st_size <= 150_000, path
        ElementTree.fromstring(path.read_text())
