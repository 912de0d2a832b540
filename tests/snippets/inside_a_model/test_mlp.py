"""snippets/inside_a_model/mlp.py: a GeGLU MLP is three mm chains and two pointwise ops, eager; compiled, the mms stay
and the pointwise ops become one generated kernel, which a CPU trace names only with Inductor's kernel-profile
option."""

import pytest
import torch
import torch.nn.functional as F

from profguide import trace
from profguide.analysis.regions import region_tree
from snippets.inside_a_model.mlp import REGION, make_mlp, profile_mlp
from tests.helpers import ROOT, run_script

SCRIPT = ROOT / "snippets" / "inside_a_model" / "mlp.py"
TINY = {"width": 8, "hidden": 32, "batch": 2, "tokens": 3}


def recorded(tmp_path, compiled):
    path = tmp_path / f"{compiled}.json"
    torch._dynamo.reset()  # the option acts when the block compiles: no code compiled by an earlier test may be reused
    profile_mlp(compiled=compiled, steps=2, warmup_calls=1, device="cpu", **TINY,
                on_trace_ready=lambda p: p.export_chrome_trace(str(path)))
    return trace.load(path)


def ops_under(loaded):
    return [entry["name"] for entry in region_tree(loaded, REGION)[1:]]


def test_the_block_is_gelu_of_the_gate_times_up_projected_down():
    model, x = make_mlp(**TINY)
    assert x.shape == (2, 3, 8) and model.gate.bias is None and model.down.weight.shape == (8, 32)
    expected = (F.gelu(x @ model.gate.weight.T, approximate="tanh") * (x @ model.up.weight.T)) @ model.down.weight.T
    torch.testing.assert_close(model(x), expected)


def test_eager_three_mm_chains_and_two_pointwise_ops(tmp_path):
    names = ops_under(recorded(tmp_path, compiled=False))
    for op in ("aten::linear", "aten::matmul", "aten::mm", "aten::t", "aten::reshape", "aten::_unsafe_view"):
        assert names.count(op) == 3, op
    assert names.count("aten::gelu") == names.count("aten::mul") == 1
    assert "aten::addmm" not in names  # no bias: nothing for the multiply to add
    assert names.index("aten::gelu") < names.index("aten::mul")


# Inductor compiles in this process and raises sys.getrecursionlimit(): the fixture puts it back. Slow, as every test
# that compiles C++ in this process: the first such compile with a cold cache builds a program for each vector ISA the
# CPU may have, about 8 s on two cores (tests/snippets/torch_compile/test_fusion.py).
@pytest.mark.slow
@pytest.mark.usefixtures("compiles_in_process")
def test_compiled_the_mms_stay_and_the_pointwise_ops_fuse_into_one_named_kernel(tmp_path):
    names = ops_under(recorded(tmp_path, compiled=True))
    assert names.count("aten::mm") == 3
    fused = [name for name in names if "cpp_fused" in name]
    assert len(fused) == 1 and "gelu" in fused[0] and "mul" in fused[0]
    assert not {"aten::linear", "aten::matmul", "aten::gelu", "aten::mul", "aten::view"} & set(names)


@pytest.mark.slow
@pytest.mark.usefixtures("compiles_in_process")
def test_without_the_kernel_profile_option_the_generated_kernel_records_nothing():
    # Why the snippet sets the option: without it, the fused C++ kernel leaves no event (checked on this torch).
    model, x = make_mlp(**TINY)
    torch._dynamo.reset()  # compile anew, with the option off
    run = torch.compile(model)
    # Nor from Inductor's on-disk cache, which another test's run (the option on) may have filled.
    with torch._inductor.config.patch({"cpp.enable_kernel_profile": False, "fx_graph_cache": False}), \
            torch.no_grad():
        run(x)
        with torch.profiler.profile() as prof:
            run(x)
    names = [event.name for event in prof.events()]
    assert names.count("aten::mm") == 3
    assert not [name for name in names if "cpp_fused" in name]


@pytest.mark.slow
def test_the_script_prints_the_ops_under_the_eager_and_the_compiled_region(tmp_path):
    done = run_script(SCRIPT, tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    eager, compiled = "\n".join(lines).split("compiled:")
    assert eager.count("  aten::linear\n") == 3 and "aten::gelu" in eager
    assert compiled.count("aten::mm") == 3 and "cpp_fused" in compiled and "aten::gelu" not in compiled
