"""snippets/basics/cpu_only.py profiles the CPU alone: no GPU lane, shapes in the table."""

import pytest

from profguide import trace
from profguide.analysis.select import cpu_lanes, gpu_lanes
from profguide.analysis.summarise import facts
from snippets.basics.cpu_only import profile_on_cpu
from tests.helpers import ROOT, run_script

SCRIPT = ROOT / "snippets" / "basics" / "cpu_only.py"


@pytest.mark.slow
def test_the_script_prints_threads_and_shapes(tmp_path):
    done = run_script(SCRIPT, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "intra-op threads:" in done.stdout
    assert "aten::mm" in done.stdout and "aten::add" in done.stdout
    assert "[[1024, 1024], [1024, 1024]]" in done.stdout  # grouped by input shape


def test_the_trace_has_no_gpu_lane(tmp_path):
    path = tmp_path / "cpu.json"
    profile_on_cpu(size=32, on_trace_ready=lambda p: p.export_chrome_trace(str(path)))
    loaded = trace.load(path)
    assert gpu_lanes(loaded) == [] and facts(loaded)["kernel_count"] == 0
    assert len(cpu_lanes(loaded)) >= 1
