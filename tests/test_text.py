"""profguide.text: durations and kernel names for people."""

import gzip
import json
import re

import pytest

from profguide.text import (
    cell,
    clocks_note,
    code,
    code_cell,
    cut,
    format_duration,
    format_size,
    kernel_name,
    markdown_table,
    printable,
    shown,
    three_figures,
)
from tests.helpers import TRACES


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
    for path in TRACES.glob("*.json.gz"):
        events = json.loads(gzip.decompress(path.read_bytes()))["traceEvents"]
        names |= {e["name"] for e in events if isinstance(e, dict) and e.get("cat") in ("kernel", "Kernel")}
    assert len(names) > 100
    for name in names:
        short = kernel_name(name)
        assert short and len(short) <= max(len(name), 1)
        assert not re.search(r"[<>(){}]", short), (name, short)


@pytest.mark.parametrize(("us", "text"), [(0.25, "250 ns"), (12.34, "12.3 µs"), (512, "512 µs"), (4560, "4.56 ms"),
                                          (1_200_000, "1.20 s")])
def test_format_duration(us, text):
    assert format_duration(us) == text


def test_sizes_round_to_one_decimal_and_drop_a_trailing_zero():
    assert format_size(527_360) == "515 KiB" and format_size(526_848) == "514.5 KiB"
    assert format_size(32 << 20) == "32 MiB" and format_size(512) == "512 bytes"
    assert format_size(-8_355_808) == "−8 MiB" and format_size(-512) == "−512 bytes"


def test_code_keeps_stars_and_underscores_from_turning_into_emphasis():
    assert code("f(ncclDevComm*, ncclWork*)") == "<code>f(ncclDevComm&#42;, ncclWork&#42;)</code>"
    assert code("__next__<T>") == "<code>&#95;&#95;next&#95;&#95;&lt;T&gt;</code>"


def test_a_cell_holds_pipes_backticks_newlines_and_html_as_text():
    assert cell("a|b `c`\n<d>") == "a&#124;b &#96;c&#96; &lt;d&gt;"
    # The guide's own Markdown keeps its code spans and emphasis; only what would break the cell goes.
    assert cell("every `x_y` *is*|\nok", markdown=True) == "every `x_y` *is*&#124; ok"


def test_a_long_code_name_is_cut_in_its_cell_with_the_full_name_in_a_tooltip():
    name = "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_tn_align4>(T1::Params)"
    shortened = code_cell(name, width=30)
    assert shortened.startswith('<span title="void cutlass::Kernel&lt;cutlass&#95;80') and name not in shortened
    assert shortened.endswith("<code>void cutlass::Kernel&lt;cutlass&#95;…</code></span>")
    assert code_cell("aten::mm", width=30) == "<code>aten::mm</code>"


def test_a_markdown_table_aligns_each_column_as_asked():
    table = markdown_table(("Name", "Count"), [("a", 1), ("b", 22)], "lr")
    assert table == "| Name | Count |\n|---|---:|\n| a | 1 |\n| b | 22 |\n"


@pytest.mark.parametrize(("us", "text"), [(-586.672, "-587 µs"), (-0.25, "-250 ns"), (-12.34, "-12.3 µs"),
                                          (-4560, "-4.56 ms"), (-1_200_000, "-1.20 s"), (-0.0001, "0 ns")])
def test_a_negative_duration_is_in_the_unit_of_its_size(us, text):
    assert format_duration(us) == text


def test_the_clocks_are_named_where_a_time_from_host_to_gpu_is_below_zero():
    assert clocks_note(3.0, 5.0) == "" and clocks_note() == ""
    assert clocks_note(-1.5, 5.0) == " (below zero, the GPU op started before its launch call ended: the host's and " \
                                     "the GPU's clocks differ)"


# C1 controls (U+009B CSI, U+0085 NEL among them) and the marks that reorder text: bidi embeddings and overrides
# (U+202A–U+202E), isolates (U+2066–U+2069), the left-to-right, right-to-left and Arabic letter marks.
REORDERING = [chr(c) for c in (*range(0x80, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F,
                               0x061C)]


@pytest.mark.parametrize("char", [chr(c) for c in (*range(32), 127)] + REORDERING)
def test_nothing_a_terminal_acts_on_is_printed(char):
    name = f"aten::{char}mm"
    assert printable(name) == cut(name) == "aten::?mm"
    assert shown(f"/tmp/{char}.json") == "/tmp/?.json"


def test_what_a_terminal_shows_as_it_is_stays():
    name = "µs · é — 😀 \u00a0 × 日本 \u00a9"
    assert printable(name) == name


def test_a_cell_makes_no_link_of_brackets():
    assert cell("[x](javascript:alert(1))") == "&#91;x&#93;(javascript:alert(1))"
    assert code("[x]") == "<code>&#91;x&#93;</code>"



@pytest.mark.parametrize(("value", "text"), [(0.012345, "0.0123"), (4.5678, "4.57"), (789.4, "789"),
                                            (1234.5, "1,234"), (0, "0"), (-0.5, "-0.500")])
def test_three_significant_figures_without_an_exponent(value, text):
    assert three_figures(value) == text
