"""snippets/reading_output/footprint.py: every configuration timed in one process, one cycle handed over; the phantom
step."""

import json

import pytest

from profguide import trace
from profguide.analysis.select import profiler_steps
from profguide.trace.model import KIND
from snippets.reading_output.footprint import CONFIGURATIONS, profile_short_loop, time_configurations
from tests.helpers import ROOT, run_script

SCRIPT = ROOT / "snippets" / "reading_output" / "footprint.py"


def test_every_configuration_is_timed_and_one_cycle_is_handed_over():
    handed = []
    found = time_configurations(steps=2, rounds=2, warmup_steps=1, width=8, batch=2, device="cpu",
                                on_trace_ready=handed.append)
    assert len(handed) == 1
    rows = found["configurations"]
    assert [row["name"] for row in rows] == list(CONFIGURATIONS)
    assert rows[0]["ratio"] == 1 and all(row["median_step_us"] > 0 for row in rows)
    json.dumps(found)  # plain values: the recorder writes them as results.json


def test_a_loop_that_ends_inside_the_active_phase_leaves_an_empty_last_step(tmp_path):
    path = tmp_path / "trace.json"
    profile_short_loop(steps=3, wait=0, warmup=1, active=4, on_trace_ready=lambda p: p.export_chrome_trace(str(path)))
    loaded = trace.load(path)
    steps = profiler_steps(loaded)
    assert [s["step"] for s in steps] == [1, 2, 3]  # the loop ran steps 0 to 2
    last = steps[-1]
    ops = loaded.ts[loaded.kind == KIND["cpu_op"]]
    assert not ((ops >= last["start_us"]) & (ops < last["start_us"] + last["dur_us"])).any()


@pytest.mark.slow
def test_the_script_prints_a_line_per_configuration(tmp_path):
    done = run_script(SCRIPT, tmp_path)
    assert done.returncode == 0, done.stderr
    assert [line.strip().split("  ")[0] for line in done.stdout.splitlines()] == list(CONFIGURATIONS)
