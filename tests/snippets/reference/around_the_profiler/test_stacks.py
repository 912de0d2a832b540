"""snippets/reference/around_the_profiler/stacks.py: export_stacks writes the workload's stacks with the option, nothing
without."""

import pytest

from profguide.analysis.stacks import folded, function_of, time_under
from snippets.reference.around_the_profiler.stacks import profile_stacks
from tests.helpers import ROOT, run_script

SCRIPT = ROOT / "snippets" / "reference" / "around_the_profiler" / "stacks.py"


def test_the_stacks_name_the_workload_and_the_plain_profile_writes_none():
    handed = []
    found = profile_stacks(tokens=4, width=8, hidden=16, calls=2, on_trace_ready=handed.append)
    assert len(handed) == 1  # only the first profile is the recording's
    stacks = folded(found["stacks"])
    assert len(stacks) == len(found["stacks"]) > 0
    assert time_under(stacks, "attention") > 0 and time_under(stacks, "feed_forward") > 0
    for frames, _ in stacks:  # and each stack through them goes through the block that calls them
        functions = [function_of(frame) for frame in frames]
        for called in {"attention", "feed_forward"} & set(functions):
            assert "block" in functions[:functions.index(called)], frames
    assert found["stacks_without_option"] == []  # pytorch/pytorch#100253, as the page says


@pytest.mark.slow
def test_the_script_writes_the_stacks_file(tmp_path):
    done = run_script(SCRIPT, tmp_path)
    assert done.returncode == 0, done.stderr
    lines = (tmp_path / "profiler_stacks.txt").read_text().splitlines()
    assert lines and f"with experimental_config: {len(lines)} lines" in done.stdout
    assert "without it: 0 lines" in done.stdout
