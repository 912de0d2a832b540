"""Every snippet in snippets/basics/ runs on the CPU and produces what the pages say."""

import json
import socket

import pytest

from profguide import trace
from profguide.analysis import select
from profguide.analysis.verdict import facts
from profguide.site.record import load_snippet_function
from tests.helpers import ROOT, run_script

SNIPPETS = ROOT / "snippets" / "basics"




def test_every_basics_snippet_has_a_test():
    tested = {"first_profile.py", "training_steps.py", "cpu_only.py"}
    assert {p.name for p in SNIPPETS.glob("*.py")} == tested


def test_first_profile_script_prints_table_and_writes_trace(tmp_path):
    done = run_script(SNIPPETS / "first_profile.py", tmp_path)
    assert done.returncode == 0, done.stderr
    assert "aten::mm" in done.stdout and "aten::add" in done.stdout
    assert "matmul_bias" in done.stdout
    loaded = trace.load(tmp_path / "first_profile_trace.json")
    names = {s.name for s in loaded.slices()}
    assert {"matmul_bias", "aten::matmul", "aten::mm", "aten::add"} <= names


def test_first_profile_region_encloses_the_ops(tmp_path):
    profile = load_snippet_function(ROOT, "snippets/basics/first_profile.py", "profile_matmul_bias")
    path = tmp_path / "trace.json"
    profile(size=16, device="cpu", on_trace_ready=lambda p: p.export_chrome_trace(str(path)))
    loaded = trace.load(path)
    region = next(s for s in loaded.slices() if s.name == "matmul_bias")
    ops = [s for s in loaded.slices() if s.name in ("aten::mm", "aten::add")]
    assert len(ops) == 2
    assert all(region.ts <= s.ts and s.end <= region.end for s in ops)


def test_report_sorts_by_cpu_time_without_a_gpu():
    module_profile = load_snippet_function(ROOT, "snippets/basics/first_profile.py", "profile_matmul_bias")
    report = load_snippet_function(ROOT, "snippets/basics/first_profile.py", "report")
    table = report(module_profile(size=16, device="cpu"))
    assert "CPU total" in table and "CUDA" not in table


@pytest.mark.parametrize(("wait", "warmup", "active", "kept"), [(1, 1, 3, [2, 3, 4]), (0, 0, 2, [0, 1])])
def test_training_steps_keeps_only_the_active_steps(tmp_path, wait, warmup, active, kept):
    profile_steps = load_snippet_function(ROOT, "snippets/basics/training_steps.py", "profile_steps")
    path = tmp_path / "steps.json"
    calls = []

    def handler(prof):
        calls.append(1)
        prof.export_chrome_trace(str(path))

    profile_steps(size=16, steps=6, wait=wait, warmup=warmup, active=active, device="cpu", on_trace_ready=handler)
    assert calls == [1]  # repeat=1: one cycle, one call
    steps = select.profiler_steps(trace.load(path))
    assert [s["step"] for s in steps] == kept


def test_training_steps_script_writes_one_trace_per_worker(tmp_path):
    done = run_script(SNIPPETS / "training_steps.py", tmp_path)
    assert done.returncode == 0, done.stderr
    written = sorted((tmp_path / "profiler_traces").iterdir())
    assert len(written) == 1
    assert written[0].name.startswith(f"{socket.gethostname()}_rank0.")
    assert written[0].name.endswith(".pt.trace.json")
    events = json.loads(written[0].read_text())["traceEvents"]
    assert sum(1 for e in events if str(e.get("name", "")).startswith("ProfilerStep#")) == 3


def test_cpu_only_script_prints_threads_and_shapes(tmp_path):
    done = run_script(SNIPPETS / "cpu_only.py", tmp_path)
    assert done.returncode == 0, done.stderr
    assert "intra-op threads:" in done.stdout
    assert "aten::mm" in done.stdout and "aten::add" in done.stdout
    assert "[[1024, 1024], [1024, 1024]]" in done.stdout  # grouped by input shape


def test_cpu_only_trace_has_no_gpu_lane(tmp_path):
    profile_on_cpu = load_snippet_function(ROOT, "snippets/basics/cpu_only.py", "profile_on_cpu")
    path = tmp_path / "cpu.json"
    profile_on_cpu(size=32, on_trace_ready=lambda p: p.export_chrome_trace(str(path)))
    loaded = trace.load(path)
    assert select.gpu_lanes(loaded) == []
    assert facts(loaded)["kernel_count"] == 0
    assert len(select.cpu_lanes(loaded)) >= 1
