"""snippets/torch_compile/cost.py: which calls compile, as the shapes change, and what compile_times() reports.

Dynamo decides when to compile, whatever the backend: the tests use the eager backend, which compiles in
milliseconds, so that no test waits for Inductor.
"""

import json

import pytest

from profguide.analysis.compiled_calls import compiled_calls
from profguide.trace import load
from snippets.torch_compile.cost import profile_calls
from tests.helpers import ROOT, run_script

SCRIPT = ROOT / "snippets" / "torch_compile" / "cost.py"


def calls(tmp_path, dynamic):
    path = tmp_path / "trace.json"
    found = profile_calls(rows=(4, 4, 6, 8), features=8, dynamic=dynamic, device="cpu",
                          on_trace_ready=lambda prof: prof.export_chrome_trace(str(path)))
    json.dumps(found)  # plain values: the recorder writes them as results.json
    return found, compiled_calls(load(path), "call")


@pytest.mark.parametrize(("dynamic", "compiling"), [(None, [1, 0, 1, 0]), (False, [1, 0, 1, 1]),
                                                    (True, [1, 0, 0, 0])])
def test_a_new_shape_compiles_again_unless_dynamic(tmp_path, eager_backend, dynamic, compiling):
    found, seen = calls(tmp_path, dynamic)
    assert [call["compiles"] for call in seen] == compiling
    assert len(found["compile_times"]["_compile.compile_inner"]) == sum(compiling)
    for call in seen:
        assert len(call["graphs"]) == 1
        assert (call["compile_us"] > 0) == bool(call["compiles"]) and call["compile_us"] <= call["dur_us"]
    # A call that compiled runs the graph it compiled: the recompilation number goes up by one each time.
    assert [call["graphs"][0] for call in seen if call["compiles"]] == [f"0/{n}" for n in range(sum(compiling))]


@pytest.mark.slow
def test_the_script_runs(tmp_path):
    done = run_script(SCRIPT, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "_compile.compile_inner 2"  # 8 rows, then 12: a recompilation
