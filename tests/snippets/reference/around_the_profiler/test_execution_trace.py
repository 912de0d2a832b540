"""snippets/reference/around_the_profiler/execution_trace.py: an execution trace beside the profiler's, with a node for
each op."""

from collections import Counter

import pytest

from profguide import trace
from snippets.reference.around_the_profiler.execution_trace import execution_trace_summary, record_execution_trace
from tests.helpers import ROOT, run_script

SCRIPT = ROOT / "snippets" / "reference" / "around_the_profiler" / "execution_trace.py"


def test_every_op_and_region_of_the_profile_has_a_node(tmp_path):
    path = tmp_path / "trace.json"
    found = execution_trace_summary(width=4, batch=2, on_trace_ready=lambda p: p.export_chrome_trace(str(path)))
    events = Counter(s.name for s in trace.load(path).slices() if s.kind in ("cpu_op", "annotation"))
    assert events and not events - Counter(found["nodes_by_name"])
    assert found["schema"] and found["example"]["name"] == "aten::addmm"
    assert "dur" not in found["example"]  # an execution trace holds no times


def test_the_file_is_left_where_it_was_asked_for(tmp_path):
    written = record_execution_trace(tmp_path / "et.json", width=4, batch=2)
    assert (tmp_path / "et.json").is_file() and written["nodes"]


@pytest.mark.slow
def test_the_script_writes_both_traces(tmp_path):
    done = run_script(SCRIPT, tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "execution_trace.json").is_file() and (tmp_path / "kineto_trace.json").is_file()
    assert "nodes, schema" in done.stdout
