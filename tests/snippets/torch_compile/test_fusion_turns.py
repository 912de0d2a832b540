"""snippets/torch_compile/fusion_turns.py: eager and compiled take turns in one process, each call in a region named
after its version, so that the multiply they share can be timed in both.

Dynamo's wrappers and the regions do not depend on the backend: the fast tests use the eager backend, which
compiles in milliseconds; the script runs Inductor, in a process of its own.
"""


import pytest

from profguide import trace
from profguide.analysis.ops import op_durations_inside
from profguide.analysis.regions import region_calls
from snippets.torch_compile.fusion_turns import profile_taking_turns
from tests.helpers import ROOT, run_script

SCRIPT = ROOT / "snippets" / "torch_compile" / "fusion_turns.py"
TINY = {"width": 8, "hidden": 16, "batch": 2}


def test_each_round_calls_eager_then_compiled_and_both_call_the_multiply(tmp_path, eager_backend):
    path = tmp_path / "trace.json"
    profile_taking_turns(rounds=3, warmup_calls=1, device="cpu", **TINY,
                         on_trace_ready=lambda prof: prof.export_chrome_trace(str(path)))
    loaded = trace.load(path)
    eager, compiled = region_calls(loaded, "eager"), region_calls(loaded, "compiled")
    assert len(eager) == len(compiled) == 3  # the warm-up round is not recorded
    starts = sorted([(call["start_us"], "eager") for call in eager] + [(call["start_us"], "compiled")
                                                                        for call in compiled])
    assert [name for _, name in starts] == ["eager", "compiled"] * 3
    # Two Linear layers: two multiplies a call, in each version.
    assert len(op_durations_inside(loaded, "aten::addmm", "eager")) == 6
    assert len(op_durations_inside(loaded, "aten::addmm", "compiled")) == 6
    assert any(name.startswith("Torch-Compiled Region") for name in loaded.names)


@pytest.mark.slow
def test_the_script_prints_the_multiply_median_of_each_version(tmp_path):
    done = run_script(SCRIPT, tmp_path)
    assert done.returncode == 0, done.stderr
    assert [line.split(":")[0] for line in done.stdout.splitlines()] == ["eager", "compiled"]
