"""snippets/serving_a_model/profiling_a_server.py: every option timed, the three hand-overs, the trace's size with and
without with_stack, and a schedule that records a few steps of a long loop once."""

import json
from concurrent.futures import ThreadPoolExecutor

import pytest

from profguide import trace
from profguide.analysis.select import profiler_steps
from snippets.serving_a_model.generation import make_decoder
from snippets.serving_a_model.profiling_a_server import (
    OPTIONS,
    measure_profiler_costs,
    serve,
    steps_around_hand_over,
    write_elsewhere,
    write_here,
)
from tests.helpers import ROOT, run_script

SCRIPT = ROOT / "snippets" / "serving_a_model" / "profiling_a_server.py"
TINY = {"vocabulary": 64, "layers": 1, "width": 16, "heads": 2, "hidden": 32}


def tiny_decoder(new_tokens):
    return make_decoder(**TINY, max_tokens=8 + new_tokens, prompt_tokens=8)


def test_everything_is_measured_and_the_schedule_hands_one_cycle_over():
    handed = []
    found = measure_profiler_costs(new_tokens=8, rounds=2, active=3, requests=4, prompt_tokens=8, **TINY,
                                   device="cpu", on_trace_ready=handed.append)
    assert len(handed) == 1
    assert [row["name"] for row in found["configurations"]] == list(OPTIONS)
    assert all(row["median_step_us"] > 0 for row in found["configurations"])
    stalls = {row["name"]: row for row in found["hand_over"]}
    assert set(stalls) == {"not written", "written on the serving thread", "written on another thread"}
    assert all(row["longest_step_us"] >= row["median_step_us"] > 0 for row in stalls.values())
    sizes = {row["name"]: row for row in found["trace_sizes"]}
    assert sizes["with_stack"]["events"] > sizes["defaults"]["events"]  # its Python calls
    assert sizes["with_stack"]["bytes"] > sizes["defaults"]["bytes"]
    assert found["steps_run"] == 4 * 8
    json.dumps(found)  # plain values: the recorder writes them as results.json


def test_the_schedule_records_its_active_steps_once_after_skipping_waiting_and_warming_up(tmp_path):
    model, prompt = tiny_decoder(new_tokens=6)
    path = tmp_path / "trace.json"
    ran = serve(model, [prompt] * 3, 6, lambda prof: prof.export_chrome_trace(str(path)), "cpu",
                skip_first=4, wait=2, warmup=1, active=2)
    assert ran == 18
    steps = profiler_steps(trace.load(path))
    assert [step["step"] for step in steps] == [7, 8]


@pytest.mark.parametrize("handler", ["here", "elsewhere"])
def test_either_handler_writes_a_trace_that_loads(tmp_path, handler):
    model, prompt = tiny_decoder(new_tokens=5)
    path = str(tmp_path / "trace.json")
    with ThreadPoolExecutor(max_workers=1) as writer:
        on_trace_ready = write_here(path) if handler == "here" else write_elsewhere(path, writer)
        times = steps_around_hand_over(model, prompt, 5, 2, on_trace_ready, "cpu")
    assert len(times) == 5  # the prefill and four decode steps
    assert [step["step"] for step in profiler_steps(trace.load(path))] == [1, 2]  # after one warm-up step


@pytest.mark.slow
def test_the_script_prints_each_configuration_hand_over_and_size(tmp_path):
    done = run_script(SCRIPT, tmp_path)
    assert done.returncode == 0, done.stderr
    names = [line.strip().split("  ")[0] for line in done.stdout.splitlines()]
    assert names == [*OPTIONS, "not written", "written on the serving thread", "written on another thread",
                     "defaults", "with_stack"]
