"""snippets/reading_output/footprint_python_calls.py: a step under with_stack, its ops and Python calls in each
region."""

import pytest

from profguide import trace
from profguide.analysis.regions import python_calls_by_region
from snippets.reading_output.footprint_python_calls import profile_python_calls
from tests.helpers import ROOT, run_script

SCRIPT = ROOT / "snippets" / "reading_output" / "footprint_python_calls.py"


def test_a_step_under_with_stack_records_python_calls_in_each_region_of_it(tmp_path):
    path = tmp_path / "trace.json"
    profile_python_calls(warmup_steps=1, on_trace_ready=lambda prof: prof.export_chrome_trace(str(path)))
    rows = {row["region"]: row for row in python_calls_by_region(trace.load(path))}
    assert set(rows) == {"forward", "backward", "Optimizer.step#Adam.step", "Optimizer.zero_grad#Adam.zero_grad"}
    assert all(row["python_calls"] > 0 for row in rows.values())
    assert rows["Optimizer.zero_grad#Adam.zero_grad"]["ops"] == 0  # set_to_none: Python calls, no op


@pytest.mark.slow
def test_the_script_writes_the_trace(tmp_path):
    done = run_script(SCRIPT, tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "python_calls.json").stat().st_size > 0
