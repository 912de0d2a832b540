"""snippets/basics/steps.py keeps the steps its schedule records and names its files by worker."""

import json
import socket

import pytest

from profguide import trace
from profguide.analysis.select import profiler_steps
from snippets.basics.steps import profile_steps
from tests.helpers import ROOT, run_script

SCRIPT = ROOT / "snippets" / "basics" / "steps.py"


@pytest.mark.parametrize(("wait", "warmup", "active", "kept"), [(1, 1, 3, [2, 3, 4]), (0, 0, 2, [0, 1])])
def test_only_the_active_steps_are_kept(tmp_path, wait, warmup, active, kept):
    path = tmp_path / "steps.json"
    calls = []

    def handler(prof):
        calls.append(1)
        prof.export_chrome_trace(str(path))

    profile_steps(size=16, steps=6, wait=wait, warmup=warmup, active=active, device="cpu", on_trace_ready=handler)
    assert calls == [1]  # repeat=1: one cycle, one call
    assert [s["step"] for s in profiler_steps(trace.load(path))] == kept


@pytest.mark.slow
def test_the_script_writes_one_trace_per_worker(tmp_path):
    done = run_script(SCRIPT, tmp_path)
    assert done.returncode == 0, done.stderr
    written = sorted((tmp_path / "profiler_traces").iterdir())
    assert len(written) == 1
    assert written[0].name.startswith(f"{socket.gethostname()}_rank0.")
    assert written[0].name.endswith(".pt.trace.json")
    events = json.loads(written[0].read_text())["traceEvents"]
    assert sum(1 for e in events if str(e.get("name", "")).startswith("ProfilerStep#")) == 3
