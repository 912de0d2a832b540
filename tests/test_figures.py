"""profguide.figures and profguide.text: geometry, names, escaping, themes, sizes, determinism."""

import gzip
import json
import re
import xml.etree.ElementTree as ElementTree

import pytest

from profguide import cli, figures, trace
from profguide.text import format_duration, format_tick, kernel_name
from tests.helpers import ROOT, make_trace
from tests.helpers import event as op
from tests.helpers import gpu_event as gpu

SVG = "{http://www.w3.org/2000/svg}"
SHARED = ROOT.parent / "shared" / "traces"


def groups_by_tooltip(svg):
    root = ElementTree.fromstring(svg)
    found = {}
    for group in root.iter(f"{SVG}g"):
        title, rect = group.find(f"{SVG}title"), group.find(f"{SVG}rect")
        if title is not None and rect is not None:
            found.setdefault(title.text.split("\n")[0], (rect, group))
    return found


def rect_of(svg, name):
    return groups_by_tooltip(svg)[name][0]


def test_a_slice_lands_where_its_time_says():
    t = make_trace(op("first", 0, 100), op("middle", 250, 500), op("last", 900, 100))
    svg = figures.timeline_svg(t, window=(0, 1000))
    pad = 1000 * 0.01
    scale = (figures.WIDTH - figures.LABEL_WIDTH - figures.RIGHT_MARGIN) / (1000 + 2 * pad)
    middle = rect_of(svg, "middle")
    assert float(middle.get("x")) == pytest.approx(figures.LABEL_WIDTH + (250 + pad) * scale, abs=0.1)
    assert float(middle.get("width")) == pytest.approx(500 * scale, abs=0.1)
    assert float(rect_of(svg, "last").get("x")) > float(middle.get("x")) + float(middle.get("width"))


def test_nested_ops_go_one_row_down_and_gpu_lanes_follow_cpu_lanes():
    t = make_trace(op("outer", 0, 100), op("inner", 10, 50), gpu("kernel", 20, 30))
    svg = figures.timeline_svg(t)
    outer, inner, kernel = (float(rect_of(svg, n).get("y")) for n in ("outer", "inner", "kernel"))
    assert inner == outer + figures.ROW_HEIGHT + figures.ROW_GAP
    assert kernel > inner
    assert "GPU 0 · stream 7" in svg


def test_tooltips_carry_the_full_name_labels_the_short_one():
    long_name = "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl<Add>>(int, Add)"
    svg = figures.timeline_svg(make_trace(gpu(long_name, 0, 1000)))
    rect, group = groups_by_tooltip(svg)[long_name]
    assert group.find(f"{SVG}title").text == f"{long_name}\n1.00 ms · GPU kernel"
    assert group.find(f"{SVG}text").text == "elementwise_kernel"


@pytest.mark.parametrize(
    ("name", "short"),
    [
        ("volta_sgemm_64x64_nn", "volta_sgemm_64x64_nn"),
        ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float>, "
         "unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float>, unsigned int, "
         "float, 4>)", "reduce_kernel"),
        ("void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::launch_clamp_scalar"
         "(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::"
         "operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2> >"
         "(int, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, "
         "c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::"
         "operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>)", "vectorized_elementwise_kernel"),
        ("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
         "ncclKernel_AllReduce_RING_LL_Sum_float"),
        ("at::cuda::(anonymous namespace)::spin_kernel(long)", "spin_kernel"),
        ("void cutlass_cudnn_train::Kernel<cutlass_cudnn_train::reduction::kernel::ReduceSplitK<float> >(Params)",
         "cutlass_cudnn_train::Kernel"),
        ("triton_poi_fused_add_cos_sin_0", "triton_poi_fused_add_cos_sin_0"),
    ],
)
def test_kernel_names_lose_their_cpp_decoration(name, short):
    assert kernel_name(name) == short


def test_every_real_kernel_name_gets_a_short_readable_name():
    names = set()
    for path in SHARED.glob("*.json.gz"):
        events = json.loads(gzip.decompress(path.read_bytes()))["traceEvents"]
        names |= {e["name"] for e in events if isinstance(e, dict) and e.get("cat") in ("kernel", "Kernel")}
    assert len(names) > 100
    for name in names:
        short = kernel_name(name)
        assert short and len(short) <= max(len(name), 1)
        assert not re.search(r"[<>(){}]", short), (name, short)


def test_names_from_the_trace_are_escaped_and_the_svg_stays_valid():
    hostile = '<script>alert("x")</script>&\x1b[31m'
    svg = figures.timeline_svg(make_trace(op(hostile, 0, 10000)), title=hostile)
    assert "<script>" not in svg and "\x1b" not in svg
    ElementTree.fromstring(svg)


def test_rendering_is_deterministic():
    t = make_trace(op("a", 0, 10), op("b", 2, 3), gpu("k", 4, 4))
    assert figures.timeline_svg(t) == figures.timeline_svg(t)


def test_figures_follow_the_pages_colour_scheme():
    svg = figures.timeline_svg(make_trace(op("a", 0, 10)))
    assert 'class="pg-fig"' in svg and "var(--md-default-fg-color" in svg and "var(--md-default-bg-color" in svg
    assert 'fill="#FFFFFF"' not in svg.split("<style>")[0]  # the background comes from the theme


def test_launch_arrows_join_launch_and_kernel():
    t = make_trace(op("cudaLaunchKernel", 0, 2, kind="runtime", correlation=1),
                   op("cudaLaunchKernel", 5, 2, kind="runtime", correlation=2),
                   gpu("k1", 10, 5, correlation=1), gpu("k2", 20, 5, correlation=2), gpu("k3", 30, 5))
    assert figures.timeline_svg(t).count('class="pg-arrow"') == 2
    assert figures.timeline_svg(t, arrows=False).count('class="pg-arrow"') == 0


def test_annotations_bracket_highlight_callouts():
    t = make_trace(op("region", 0, 100, kind="annotation"), op("aten::mm", 10, 50), op("aten::add", 70, 10))
    svg = figures.timeline_svg(t, highlight=("aten::mm",), brackets=[(0, 100, "region: 100 µs")],
                               callouts=[(1, "aten::mm"), (2, "aten::add"), (3, "absent")])
    assert svg.count('class="pg-mark"') == 1
    assert ">region: 100 µs</text>" in svg
    assert re.findall(r'class="pg-callout-text"[^>]*>(\d)<', svg) == ["1", "2"]


def test_comparison_draws_both_panels_on_one_scale():
    t = make_trace(op("ProfilerStep#0", 0, 300, kind="annotation"), op("ProfilerStep#1", 1000, 100, kind="annotation"))
    svg = figures.comparison_svg([("first", t, (0, 300)), ("second", t, (1000, 1100))])
    first, second = rect_of(svg, "ProfilerStep#0"), rect_of(svg, "ProfilerStep#1")
    assert float(first.get("width")) == pytest.approx(3 * float(second.get("width")), rel=0.01)
    assert float(first.get("x")) == pytest.approx(float(second.get("x")))


def test_spread_has_a_dot_per_value_and_marks_median_and_p95():
    svg = figures.spread_svg("aten::mm", [10, 20, 30, 40, 1000])
    assert svg.count("<circle") == 5
    assert f">median {format_duration(30)}<" in svg and ">p95 " in svg


def test_breakdown_bars_split_in_proportion():
    svg = figures.breakdown_svg([("step", {"busy": 75, "host": 25})])
    widths = [float(w) for w in re.findall(r'<rect x="[\d.]+" y="[\d.]+" width="([\d.]+)" height="20"', svg)]
    assert widths[0] == pytest.approx(3 * widths[1])


@pytest.mark.parametrize(("us", "text"), [(0.25, "250 ns"), (12.34, "12.3 µs"), (512, "512 µs"), (4560, "4.56 ms"),
                                          (1_200_000, "1.20 s")])
def test_format_duration(us, text):
    assert format_duration(us) == text


def test_axis_ticks_are_round_numbers():
    assert [format_tick(t) for t in (0, 500, 1000, 1500)] == ["0", "500 µs", "1 ms", "1.5 ms"]
    assert figures.nice_tick_step(2400) == 500


@pytest.mark.parametrize("path", sorted(SHARED.glob("*.json.gz")), ids=lambda p: p.name)
def test_whole_real_traces_draw_under_150_kb(path):
    svg = figures.timeline_svg(trace.load(path), title=path.name)
    assert len(svg.encode()) <= 150_000
    ElementTree.fromstring(svg)


def test_every_committed_figure_is_valid_and_under_150_kb():
    svgs = sorted((ROOT / "docs" / "generated").glob("*/*.svg"))
    assert len(svgs) >= 5
    for path in svgs:
        assert path.stat().st_size <= 150_000, path
        ElementTree.fromstring(path.read_text())


def test_draw_command(tmp_path, capsys):
    out = tmp_path / "t.svg"
    source = SHARED / "a100_nccl_2rank_rank0.json.gz"
    assert cli.main(["draw", str(source), "--out", str(out), "--step", "5"]) == 0
    assert capsys.readouterr().out.startswith(f"wrote {out} (")
    whole = out.read_text()
    assert "ProfilerStep#5" in whole and "ProfilerStep#4" not in whole
    assert cli.main(["draw", str(source), "--out", str(out), "--window", "0:2ms"]) == 0
    assert cli.main(["draw", str(source), "--out", str(out), "--window", "2ms:1ms"]) == 2
    assert capsys.readouterr().err.endswith("END must come after START\n")
    assert not list(tmp_path.glob("*.tmp"))
