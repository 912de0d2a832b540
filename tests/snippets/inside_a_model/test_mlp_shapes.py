"""snippets/inside_a_model/mlp_shapes.py: the compiled block on sequences of a changing length compiles again for a new
length, once with the default and for each length with dynamic=False.

Dynamo decides when to compile, whatever the backend: the fast test uses the eager backend, which compiles in
milliseconds; the script runs Inductor, in a process of its own.
"""

import json

import pytest

from profguide.analysis.compiled_calls import compiled_calls
from profguide.trace import load
from snippets.inside_a_model.mlp_shapes import profile_lengths
from tests.helpers import ROOT, run_script

SCRIPT = ROOT / "snippets" / "inside_a_model" / "mlp_shapes.py"
TINY = {"width": 8, "hidden": 32, "batch": 2}


@pytest.mark.parametrize(("dynamic", "compiling"), [(None, [1, 0, 1, 0, 0]), (False, [1, 0, 1, 0, 1])])
def test_a_new_length_compiles_again_and_the_default_then_serves_any_length(tmp_path, eager_backend, dynamic,
                                                                             compiling):
    path = tmp_path / "trace.json"
    found = profile_lengths(tokens=(3, 3, 5, 5, 7), dynamic=dynamic, device="cpu", **TINY,
                            on_trace_ready=lambda prof: prof.export_chrome_trace(str(path)))
    json.dumps(found)  # plain values: the recorder writes them as results.json
    assert found == {"rows": [3, 3, 5, 5, 7], "rows_are": "Tokens per sequence", "dynamic": dynamic}
    assert [call["compiles"] for call in compiled_calls(load(path), "call")] == compiling


@pytest.mark.slow
def test_the_script_counts_the_graphs_each_setting_compiled(tmp_path):
    done = run_script(SCRIPT, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["dynamic=None: 2 graphs compiled", "dynamic=False: 3 graphs compiled"]
