"""snippets/torch_compile/graph_breaks.py: a graph break is two compiled regions with eager code between them."""

import pytest

from snippets.reading_output.dispatch import op_tree
from snippets.torch_compile.graph_breaks import profile_graph_break
from tests.helpers import ROOT, run_script

SCRIPT = ROOT / "snippets" / "torch_compile" / "graph_breaks.py"


def test_each_call_runs_two_regions_with_the_item_between(eager_backend):
    # Dynamo breaks the graph whatever the backend; the eager one compiles in milliseconds.
    prof = profile_graph_break(size=8, calls=2, device="cpu")
    trees = [[line.strip() for line in op_tree(event)[1:]] for event in prof.events() if event.name == "call"]
    assert len(trees) == 2
    for tree in trees:
        regions = [index for index, name in enumerate(tree) if name.startswith("Torch-Compiled Region")]
        assert len(regions) == 2
        assert regions[0] < tree.index("aten::item") < regions[1]


@pytest.mark.slow
def test_the_script_explains_the_break(tmp_path):
    done = run_script(SCRIPT, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "2 graphs, 1 graph break"
    assert "item()" in done.stdout.splitlines()[1]
