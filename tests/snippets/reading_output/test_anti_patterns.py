"""snippets/reading_output/anti_patterns.py: the loop with the matcher's anti-patterns, and the same loop with each
fixed."""

import pytest

from profguide.analysis.regions import ops_in_region
from profguide.analysis.select import profiler_steps
from profguide.patterns import GEMM_OPS
from snippets.reading_output.anti_patterns import convnet, profile_anti_patterns
from tests.helpers import ROOT, one_cycle_trace, run_script

SCRIPT = ROOT / "snippets" / "reading_output" / "anti_patterns.py"
SMALL = {"batch_size": 4, "image": 4, "hidden": 20, "classes": 8, "wait": 0, "warmup": 1, "active": 2,
         "device": "cpu"}
STEP = "Optimizer.step#SGD.step"
ZERO_GRAD = "Optimizer.zero_grad#SGD.zero_grad"


@pytest.mark.parametrize(("fixed", "bias", "hidden"), [(False, True, 12), (True, False, 16)])
def test_the_fixed_model_drops_the_bias_and_rounds_the_hidden_size_up_to_8(fixed, bias, hidden):
    model = convnet(fixed, hidden=12)
    assert (model[0].bias is not None) == bias
    assert model[5].out_features == hidden


def recorded(tmp_path, fixed):
    return one_cycle_trace(tmp_path, profile_anti_patterns, fixed=fixed, **SMALL)


@pytest.mark.parametrize("fixed", [False, True])
def test_each_way_the_optimizer_and_zero_grad_show_what_was_asked(tmp_path, fixed):
    loaded = recorded(tmp_path, fixed)
    assert [step["step"] for step in profiler_steps(loaded)] == [1, 2]
    parameters = len(list(convnet(fixed).parameters()))
    # foreach=False updates each parameter by itself; foreach=True does it in one op per group
    assert (ops_in_region(loaded, STEP, "aten::_foreach_add_") > 0) == fixed
    # set_to_none=False zeroes every gradient; set_to_none=True leaves zero_grad without ops
    assert ops_in_region(loaded, ZERO_GRAD, "aten::zero_") == (0 if fixed else parameters)


@pytest.mark.parametrize("fixed", [False, True])
def test_the_matrix_multiplies_run_in_bf16_with_the_shapes_recorded(tmp_path, fixed):
    loaded = recorded(tmp_path, fixed)
    shapes = [inputs for index, inputs in loaded.shapes.items() if loaded.names[loaded.name[index]] in GEMM_OPS]
    assert shapes and all(types[0] == "c10::BFloat16" or types[1] == "c10::BFloat16" for _, types, *_ in shapes)
    dims = {dim for matrices, *_ in shapes for shape in matrices for dim in shape}
    assert (20 in dims) == (not fixed) and (24 in dims) == fixed


@pytest.mark.slow
def test_the_script_prints_the_ops_of_both_ways(tmp_path):
    done = run_script(SCRIPT, tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == ["fixed=False", "fixed=True"]
    assert lines[1].endswith("in zero_grad: [0, 0, 0]")
