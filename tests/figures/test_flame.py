"""profguide.figures.flame: a bar per frame, as wide as its time, callees on top, coloured by whose code."""

import xml.etree.ElementTree as ElementTree

import pytest

from profguide.analysis.stacks import folded
from profguide.figures import flame
from tests.figures.svg_tree import groups_by_tooltip, rect_of

LINES = ["run.py(3):_main;model.py(10):_block;model.py(4):_attention 30",
         "run.py(3):_main;model.py(10):_block;model.py(7):_feed_forward 90",
         "run.py(3):_main;torch/profiler/profiler.py(1118):___enter__ 0.001"]


def test_each_frame_is_as_wide_as_its_time_and_sits_on_its_caller():
    svg = flame.flame_svg(folded(LINES), ("model.py",), title="t")
    ElementTree.fromstring(svg)
    block, attention = rect_of(svg, "model.py(10):_block"), rect_of(svg, "model.py(4):_attention")
    forward = rect_of(svg, "model.py(7):_feed_forward")
    assert float(forward.get("width")) == pytest.approx(3 * float(attention.get("width")), rel=0.02)
    assert float(attention.get("y")) == float(block.get("y")) - flame.ROW  # callees above their caller
    assert float(attention.get("x")) < float(forward.get("x"))  # in the stacks' order


def test_frames_are_coloured_by_whose_code_and_invisible_ones_left_out():
    svg = flame.flame_svg(folded(LINES), ("model.py",), title="t")
    assert rect_of(svg, "model.py(10):_block").get("fill") == flame.FRAME_STYLE["yours"][0]
    assert rect_of(svg, "run.py(3):_main").get("fill") == flame.FRAME_STYLE["other"][0]
    assert "torch/profiler/profiler.py(1118):___enter__" not in groups_by_tooltip(svg)  # far under a pixel
    assert "PyTorch's Python code" not in svg  # the legend names only what is drawn


def test_a_label_keeps_what_fits():
    assert flame.fitted("attention", " 25%", 200) == "attention 25%"
    assert flame.fitted("attention", " 25%", 80) == "attention"
    assert flame.fitted("feed_forward", " 25%", 60).endswith("…")
    assert flame.fitted("block", "", 20) == ""
