"""profguide.render: geometry, escaping, determinism and the Markdown it writes."""

import re
import xml.etree.ElementTree as ElementTree

import pytest

from profguide import render
from tests.helpers import event as op
from tests.helpers import make_trace as make

SVG = "{http://www.w3.org/2000/svg}"


def rects_by_tooltip(svg):
    root = ElementTree.fromstring(svg)
    found = {}
    for group in root.iter(f"{SVG}g"):
        title = group.find(f"{SVG}title")
        rect = group.find(f"{SVG}rect")
        if title is not None and rect is not None:
            found[title.text.split("\n")[0]] = rect
    return found


def test_a_slice_lands_where_its_time_says():
    t = make(op("first", 0, 100), op("middle", 250, 500), op("last", 900, 100))
    rects = rects_by_tooltip(render.timeline_svg(t, window=(0, 1000)))
    pad = 1000 * 0.01
    scale = (render.WIDTH - render.LABEL_WIDTH - render.RIGHT_MARGIN) / (1000 + 2 * pad)
    x = float(rects["middle"].get("x"))
    width = float(rects["middle"].get("width"))
    assert x == pytest.approx(render.LABEL_WIDTH + (250 + pad) * scale, abs=0.1)
    assert width == pytest.approx(500 * scale, abs=0.1)
    assert float(rects["last"].get("x")) > x + width


def test_nested_ops_go_one_row_down_and_gpu_lanes_follow_cpu_lanes():
    t = make(op("outer", 0, 100), op("inner", 10, 50), op("kernel", 20, 30, kind="kernel", pid=0, tid=7))
    rects = rects_by_tooltip(render.timeline_svg(t))
    assert float(rects["inner"].get("y")) == float(rects["outer"].get("y")) + render.ROW_HEIGHT + render.ROW_GAP
    assert float(rects["kernel"].get("y")) > float(rects["inner"].get("y"))
    assert "GPU 0 · stream 7" in render.timeline_svg(t)


def test_every_slice_has_a_tooltip_with_name_duration_and_kind():
    svg = render.timeline_svg(make(op("aten::mm", 0, 1500)))
    assert "<title>aten::mm\n1.50 ms · CPU op (aten::…)</title>" in svg


def test_names_from_the_trace_are_escaped():
    hostile = '<script>alert("x")</script>&'
    svg = render.timeline_svg(make(op(hostile, 0, 10000)), title=hostile)
    assert "<script>" not in svg
    ElementTree.fromstring(svg)  # still well-formed XML
    table = render.averages_table([
        {"name": hostile + "|`", "count": 1, "self_cpu_us": 1, "cpu_total_us": 1,
         "self_device_us": 0, "device_total_us": 0},
    ])
    assert "<script>" not in table and "|`" not in table


def test_rendering_is_deterministic():
    t = make(op("a", 0, 10), op("b", 2, 3), op("k", 4, 4, kind="kernel", pid=0, tid=7))
    assert render.timeline_svg(t) == render.timeline_svg(t)


def test_axis_ticks_are_round_numbers():
    svg = render.timeline_svg(make(op("a", 0, 2400)), window=(0, 2400))
    labels = re.findall(r'text-anchor="middle" fill="#333">([^<]+)<', svg)
    assert labels[:4] == ["0", "500 µs", "1 ms", "1.5 ms"]


@pytest.mark.parametrize(
    ("us", "text"),
    [(0.25, "250 ns"), (12.34, "12.3 µs"), (512, "512 µs"), (4560, "4.56 ms"), (1_200_000, "1.20 s")],
)
def test_format_duration(us, text):
    assert render.format_duration(us) == text


def test_labels_are_cut_to_fit_or_left_out():
    assert render.fit_label("aten::mm", 200) == "aten::mm"
    assert render.fit_label("aten::matmul_with_a_long_name", 80).endswith("…")
    assert len(render.fit_label("aten::matmul_with_a_long_name", 80)) * render.CHAR_WIDTH <= 80
    assert render.fit_label("aten::mm", 20) == ""


ROWS = [
    {"name": "aten::add", "count": 1, "self_cpu_us": 5, "cpu_total_us": 5, "self_device_us": 2,
     "device_total_us": 2},
    {"name": "aten::mm", "count": 1, "self_cpu_us": 9, "cpu_total_us": 10, "self_device_us": 80,
     "device_total_us": 80},
]


def test_averages_table_sorts_by_device_time_when_there_is_some():
    table = render.averages_table(ROWS)
    assert "Device total" in table
    assert table.index("aten::mm") < table.index("aten::add")


def test_averages_table_without_device_time_has_no_device_columns():
    cpu_rows = [{**row, "self_device_us": 0, "device_total_us": 0} for row in ROWS]
    table = render.averages_table(cpu_rows)
    assert "Device" not in table
    assert table.index("aten::mm") < table.index("aten::add")  # by CPU total


def test_steps_table_compares_with_the_fastest():
    table = render.steps_table([{"step": 0, "dur_us": 300, "start_us": 0}, {"step": 1, "dur_us": 100,
                                                                           "start_us": 300}])
    assert "| 0 | 300 µs | 3.00 |" in table and "| 1 | 100 µs | 1.00 |" in table


META = {"device_name": "Some CPU", "torch": "2.13.0", "cuda": None, "python": "3.11.7",
        "recorded_at": "2026-11-29T16:00:00+00:00", "cpu_standin": True}
FACTS = {"window_us": 1000, "cpu_lanes": 1, "gpu_lanes": 0, "cpu_ops": 4, "kernel_count": 0,
         "kernel_time_us": 0, "top_kernels": [], "longest_sync": None}


def test_standin_figure_says_so_and_names_the_cpu():
    fragment = render.figure_fragment("rec", "t", META, FACTS)
    assert fragment.startswith('!!! warning "CPU stand-in"')
    assert "t, over 1.00 ms: 1 CPU thread lane, no GPU stream lanes. 4 CPU ops and no GPU kernels." in fragment
    assert "Recorded on Some CPU · torch 2.13.0 · Python 3.11.7 · 2026-11-29" in fragment
    assert "(/generated/rec/trace.json.gz)" in fragment and "(/generated/rec/timeline.svg)" in fragment


def test_gpu_figure_has_no_standin_notice_and_names_cuda():
    meta = {**META, "cpu_standin": False, "device_name": "NVIDIA H200", "cuda": "12.8"}
    facts = {**FACTS, "gpu_lanes": 1, "kernel_count": 2, "kernel_time_us": 30,
             "top_kernels": [{"name": "gemm", "total_us": 20}],
             "longest_sync": {"name": "cudaDeviceSynchronize", "dur_us": 40}}
    fragment = render.figure_fragment("rec", "t", meta, facts)
    assert "stand-in" not in fragment
    assert "NVIDIA H200 · torch 2.13.0 · CUDA 12.8" in fragment
    assert "2 kernels ran for 30.0 µs in all" in fragment and "<code>cudaDeviceSynchronize</code>" in fragment
