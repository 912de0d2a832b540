"""snippets/reading_output/table.py: the table's columns, its groupings, and the stacks that need verbose."""

import pytest

from snippets.reading_output.table import profile_forward, profile_with_stacks
from tests.helpers import ROOT, run_script

SCRIPT = ROOT / "snippets" / "reading_output" / "table.py"


@pytest.mark.slow
def test_the_script_prints_the_table_three_ways(tmp_path):
    done = run_script(SCRIPT, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("Self CPU time total") == 3
    assert "Input Shapes" in done.stdout and "[[64, 512], [1024, 512], [1024]]" in done.stdout
    assert "Self CPU Mem" in done.stdout


def test_each_batch_size_and_layer_gets_its_own_row_by_shape():
    prof = profile_forward(batches=(2, 2, 8), device="cpu")
    rows = {row.key: row for row in prof.key_averages()}
    assert rows["forward"].count == 3 and rows["aten::addmm"].count == 6
    shapes = sorted(tuple(row.input_shapes[1]) for row in prof.key_averages(group_by_input_shape=True)
                    if row.key == "aten::addmm")
    assert shapes == [(2, 512), (2, 1024), (8, 512), (8, 1024)]
    assert rows["aten::linear"].self_cpu_memory_usage == 0 < rows["aten::addmm"].self_cpu_memory_usage
    assert rows["forward"].self_cpu_memory_usage < 0  # the intermediates are freed inside the region


def test_the_verbose_option_fills_the_stacks_by_module():
    prof = profile_with_stacks()
    addmm = [row for row in prof.key_averages(group_by_stack_n=4) if row.key == "aten::addmm"]
    assert len(addmm) == 2
    assert sorted(next(frame for frame in row.stack if frame.startswith("nn.Module")) for row in addmm) == [
        "nn.Module: Linear_0", "nn.Module: Linear_1"]
