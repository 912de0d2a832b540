"""snippets/reference/around_the_profiler/on_demand.py: nothing recorded until the file appears, then a warm-up and the
active steps."""

import pytest
from torch.profiler import ProfilerAction

from profguide import trace
from profguide.analysis.select import profiler_steps
from snippets.reference.around_the_profiler.on_demand import OnRequest, train_on_request
from tests.helpers import ROOT, run_script

SCRIPT = ROOT / "snippets" / "reference" / "around_the_profiler" / "on_demand.py"


def test_the_schedule_waits_for_the_file_and_is_asked_again_after_a_cycle(tmp_path):
    flag = tmp_path / "profile-now"
    schedule = OnRequest(flag, active=2)
    assert [schedule(step) for step in range(2)] == [ProfilerAction.NONE] * 2
    flag.touch()
    assert [schedule(step) for step in range(2, 6)] == [
        ProfilerAction.WARMUP, ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE, ProfilerAction.NONE]
    assert not flag.exists()  # the request is taken once
    flag.touch()
    assert schedule(6) == ProfilerAction.WARMUP


def test_the_trace_holds_only_the_requested_steps(tmp_path):
    path = tmp_path / "trace.json"
    train_on_request(steps=12, ask_at=5, active=3, flag=tmp_path / "profile-now",
                     on_trace_ready=lambda prof: prof.export_chrome_trace(str(path)))
    assert [step["step"] for step in profiler_steps(trace.load(path))] == [7, 8, 9]
    assert not (tmp_path / "profile-now").exists()


@pytest.mark.slow
def test_the_script_asks_itself_and_writes_the_trace(tmp_path):
    done = run_script(SCRIPT, tmp_path)
    assert done.returncode == 0, done.stderr
    assert len(profiler_steps(trace.load(tmp_path / "on_demand_trace.json"))) == 3
