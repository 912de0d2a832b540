"""The roofline in words: explain's lines and the op view's table."""

from profguide import trace
from profguide.analysis.op_view import ops_view
from profguide.analysis.roofline import roofline
from profguide.render import ops as ops_render
from profguide.render.roofline import roofline_lines
from tests.helpers import TRACES

BERT = TRACES / "h100_bert_small_inference.json.gz"


def test_explain_names_the_peaks_the_coverage_and_the_ops_furthest_below_their_roof():
    found = roofline(trace.load(BERT))
    assert found is not None
    lines = roofline_lines(found)
    assert lines[0].startswith(f"Roofline against the {found['peaks_model']}'s datasheet")
    below = [line for line in lines if line.startswith("Below its roof: ")]
    assert len(below) == min(3, len(found["furthest"])) > 0
    assert below[0].startswith(f"Below its roof: {found['furthest'][0]['name']} ")
    assert all(" roof; " in line and " lost over " in line for line in below)


def test_a_gpu_missing_from_the_table_is_named_and_gets_no_roof():
    found = roofline(trace.load(TRACES / "mi300x_vllm_piecewise_graph_execution.json.gz"))
    assert found is not None and found["peaks_model"] is None
    lines = roofline_lines(found)
    assert lines[0].startswith("Roofline: no peaks for this GPU")
    assert not any("Below its roof" in line for line in lines)


def test_a_cpu_trace_has_no_roofline_lines():
    assert roofline_lines(roofline(trace.load(TRACES / "cpu_only_gloo.json.gz"))) == []


def test_the_op_view_lists_each_op_with_a_formula_in_text_and_markdown():
    view = ops_view(trace.load(BERT), BERT.name)
    text, markdown = ops_render.to_text(view), ops_render.to_markdown(view)
    heading = next(line for line in text.splitlines() if line.startswith("Roofline, against the"))
    assert f"(all {len(view['roofline_ops'])};" in heading
    assert "| Op | Input shapes | Type | Device | TFLOP/s | TB/s | FLOP/B | Of roof | Bound |" in markdown
    assert text.index("Roofline, against the") < text.index("Kernels: resource footprint")
