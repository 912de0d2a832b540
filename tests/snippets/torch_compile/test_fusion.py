"""snippets/torch_compile/fusion.py: the MLP eager and compiled, a few tiny steps each; compiling leaves fewer ops."""

import pytest

from profguide import trace
from profguide.analysis.compile import step_counts
from snippets.torch_compile.fusion import make_mlp, profile_mlp

TINY = {"width": 8, "hidden": 16, "batch": 2}


def ops_per_step(tmp_path, compiled):
    path = tmp_path / f"{compiled}.json"
    profile_mlp(compiled=compiled, steps=2, warmup_calls=1, device="cpu", **TINY,
                on_trace_ready=lambda p: p.export_chrome_trace(str(path)))
    loaded = trace.load(path)
    return loaded, [row["aten_ops"] for row in step_counts(loaded)]


# Inductor compiles in this process, and its compile_fx raises sys.getrecursionlimit() to 2000 unless its cache
# already holds the graph (a fresh machine's does not): the fixture puts the limit back (tests/interpreter_state.py).
# Slow: a process's first C++ compile with a cold cache first builds a program for each vector ISA the CPU may have,
# about 8 s on two cores, which any test that compiles C++ outside the slow ones would pay.
@pytest.mark.slow
@pytest.mark.usefixtures("compiles_in_process")
def test_the_compiled_steps_run_fewer_aten_ops_inside_a_compiled_region(tmp_path):
    _, eager = ops_per_step(tmp_path, False)
    loaded, compiled = ops_per_step(tmp_path, True)
    assert len(eager) == len(compiled) == 2  # the warm-up step is not recorded
    assert max(compiled) < min(eager)
    assert any(name.startswith("Torch-Compiled Region") for name in loaded.names)
    assert "aten::gelu" not in loaded.names  # fused into generated code, which records no op


def test_the_model_is_linear_gelu_linear_layernorm():
    model, inputs = make_mlp(**TINY)
    assert [type(layer).__name__ for layer in model] == ["Linear", "GELU", "Linear", "LayerNorm"]
    assert model(inputs).shape == (2, 8)
