"""snippets/reading_output/dispatch.py: the operators each way of multiplying becomes, under its own region."""

import pytest

from snippets.reading_output.dispatch import multiply_cases, op_tree, profile_cases
from tests.helpers import ROOT, run_script

SCRIPT = ROOT / "snippets" / "reading_output" / "dispatch.py"


def trees(size=16):
    prof = profile_cases(size=size, device="cpu")
    names = set(multiply_cases(2, "cpu"))
    return {event.name: [line.strip() for line in op_tree(event)[1:]] for event in prof.events() if event.name in names}


@pytest.mark.slow
def test_the_script_prints_one_tree_per_case(tmp_path):
    done = run_script(SCRIPT, tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line for line in lines if not line.startswith(" ")] == list(multiply_cases(2, "cpu"))


def test_each_case_reaches_its_own_operator():
    found = trees()
    assert len(found) == 6
    assert found["x @ w, 2-D"][:2] == ["aten::matmul", "aten::mm"]
    assert "aten::mm" in found["x @ w, 3-D by 2-D"] and "aten::bmm" not in found["x @ w, 3-D by 2-D"]
    assert "aten::bmm" in found["x @ y, 3-D by 3-D"]
    assert found["nn.Linear"][0] == "aten::linear" and "aten::addmm" in found["nn.Linear"]
    transposed = found["nn.Linear, transposed 3-D input"]
    assert "aten::copy_" in transposed and "aten::add_" in transposed and "aten::addmm" not in transposed
    strided = found["x[:, ::2] @ w, strided"]
    assert strided.index("aten::mm") < strided.index("aten::copy_")  # the copy happens inside mm
    assert "aten::copy_" not in found["x @ w, 2-D"]
