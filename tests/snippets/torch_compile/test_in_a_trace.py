"""snippets/torch_compile/in_a_trace.py: what a compiled call leaves in a trace, against the eager one.

One run of the script, as a reader runs it, serves every assertion: each compiled function compiles with
Inductor once, which takes seconds on the CPU.
"""

import pytest

from tests.helpers import ROOT, run_script

SCRIPT = ROOT / "snippets" / "torch_compile" / "in_a_trace.py"
CASES = ("eager", "compiled", "compiled, with a ReLU")


def trees(stdout):
    """Each region the script prints, with the names of the events under it."""
    found = {}
    for line in stdout.splitlines():
        if line.startswith(" "):
            found[next(reversed(found))].append(line.strip())
        else:
            found[line] = []
    return found


@pytest.mark.slow
def test_the_compiled_calls_run_inductors_graph_and_the_eager_one_its_operators(tmp_path):
    done = run_script(SCRIPT, tmp_path)
    assert done.returncode == 0, done.stderr
    found = trees(done.stdout)
    assert list(found) == list(CASES)
    assert "aten::add" in found["eager"] and not any(name.startswith("Torch-Compiled") for name in found["eager"])
    for case in CASES[1:]:
        tree = found[case]
        assert tree[0] == "TorchDynamo Cache Lookup" and tree[1].startswith("Torch-Compiled Region")
        assert sum(name.startswith("## Call CompiledFxGraph") for name in tree) == 1
        assert "aten::addmm" in tree and "aten::add" not in tree and "aten::matmul" not in tree
    assert "aten::relu" not in found["compiled, with a ReLU"]  # generated code: no event of its own
