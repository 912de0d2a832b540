"""snippets/reference/around_the_profiler/benchmark.py: the Timer's measurement and the same op profiled, threads put
back after."""

import json

import pytest
import torch

from profguide import trace
from snippets.reference.around_the_profiler.benchmark import time_against_profile, time_matmul
from tests.helpers import ROOT, run_script

SCRIPT = ROOT / "snippets" / "reference" / "around_the_profiler" / "benchmark.py"


def test_the_timer_runs_on_the_threads_it_is_given():
    a = torch.randn(8, 8)
    assert time_matmul(a, a, threads=2, min_run_time=0.01).num_threads == 2  # not the Timer's default, one


def test_the_op_is_timed_then_profiled_and_the_threads_are_put_back(tmp_path):
    path, threads = tmp_path / "trace.json", torch.get_num_threads()
    found = time_against_profile(size=8, calls=3, min_run_time=0.01, device="cpu",
                                 on_trace_ready=lambda prof: prof.export_chrome_trace(str(path)))
    assert torch.get_num_threads() == threads
    assert found["op"] == "aten::matmul" and found["timer"]["median_us"] > 0 and found["profiled_median_us"] > 0
    assert found["timer"]["threads"] == 1 and found["printed"].startswith("a @ b: 8×8 @ 8×8")
    assert trace.load(path).names.count("aten::matmul") == 1
    assert sum(s.name == "aten::matmul" for s in trace.load(path).slices()) == 3
    json.dumps(found)  # plain values: the recorder writes them as results.json


@pytest.mark.slow
def test_the_script_prints_the_timer_and_the_profiler(tmp_path):
    done = run_script(SCRIPT, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Median:" in done.stdout and "The profiler's median aten::matmul:" in done.stdout
