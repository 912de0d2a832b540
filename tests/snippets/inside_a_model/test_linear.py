"""snippets/inside_a_model/linear.py: nn.Linear is one addmm under views, eager; compiled, the addmm stays and the views
go."""

import pytest

from profguide import trace
from profguide.analysis.regions import ops_in_region, region_tree
from snippets.inside_a_model.linear import make_linear, profile_linear
from tests.helpers import ROOT, run_script

SCRIPT = ROOT / "snippets" / "inside_a_model" / "linear.py"
TINY = {"features_in": 8, "features_out": 16, "batch": 2, "tokens": 3}


def recorded(tmp_path, compiled):
    path = tmp_path / f"{compiled}.json"
    profile_linear(compiled=compiled, steps=2, warmup_calls=1, device="cpu", **TINY,
                   on_trace_ready=lambda p: p.export_chrome_trace(str(path)))
    return trace.load(path)


def ops_under(loaded, region):
    return [entry["name"] for entry in region_tree(loaded, region)[1:]]


def test_the_inputs_hold_the_same_numbers_in_two_and_three_dimensions():
    layer, inputs = make_linear(**TINY)
    flat, batched = inputs["2-D input"], inputs["3-D input"]
    assert flat.shape == (6, 8) and batched.shape == (2, 3, 8)
    assert batched.reshape(6, 8).equal(flat)
    assert layer(batched).reshape(6, 16).equal(layer(flat))


def test_eager_each_region_is_one_addmm_under_linear_with_no_add(tmp_path):
    loaded = recorded(tmp_path, compiled=False)
    for region in ("2-D input", "3-D input"):
        names = ops_under(loaded, region)
        assert names.count("aten::linear") == names.count("aten::addmm") == 1
        assert names.index("aten::linear") < names.index("aten::t") < names.index("aten::addmm")
        assert "aten::add" not in names and "aten::matmul" not in names
    # A contiguous 3-D input is folded into rows by a view and the result viewed back: two views, no copy of it.
    assert ops_in_region(loaded, "3-D input", "aten::view") == 2
    assert ops_in_region(loaded, "2-D input", "aten::view") == 0


# Inductor compiles in this process and raises sys.getrecursionlimit(): the fixture puts it back.
@pytest.mark.usefixtures("compiles_in_process")
def test_compiled_the_addmm_stays_and_the_views_go(tmp_path):
    loaded = recorded(tmp_path, compiled=True)
    for region in ("2-D input", "3-D input"):
        names = ops_under(loaded, region)
        assert names.count("aten::addmm") == 1
        assert any(name.startswith("Torch-Compiled Region") for name in names)
        assert not {"aten::linear", "aten::t", "aten::transpose", "aten::view"} & set(names)


@pytest.mark.slow
def test_the_script_prints_the_ops_under_each_region(tmp_path):
    done = run_script(SCRIPT, tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line for line in lines if not line.startswith(" ")] == ["2-D input", "3-D input"]
    assert lines.count("  aten::linear") == 2 and lines.count("    aten::addmm") == 2
