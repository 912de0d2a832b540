"""snippets/basics/index.py runs on the CPU, as a script and as the recordings call it."""

import pytest

from profguide import trace
from snippets.basics.index import profile_matmul_bias, report
from tests.helpers import ROOT, run_script

SCRIPT = ROOT / "snippets" / "basics" / "index.py"


@pytest.mark.slow
def test_the_script_prints_the_table_and_writes_a_trace(tmp_path):
    done = run_script(SCRIPT, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "aten::mm" in done.stdout and "aten::add" in done.stdout and "matmul_bias" in done.stdout
    names = set(trace.load(tmp_path / "first_profile_trace.json").names)
    assert {"matmul_bias", "aten::matmul", "aten::mm", "aten::add"} <= names


def test_the_region_encloses_the_ops_once_per_call(tmp_path):
    path = tmp_path / "trace.json"
    profile_matmul_bias(size=16, calls=3, device="cpu", on_trace_ready=lambda p: p.export_chrome_trace(str(path)))
    slices = trace.load(path).slices()
    regions = [s for s in slices if s.name == "matmul_bias"]
    ops = [s for s in slices if s.name in ("aten::mm", "aten::add")]
    assert len(regions) == 3 and len(ops) == 6
    assert all(any(r.ts <= s.ts and s.end <= r.end for r in regions) for s in ops)


def test_report_sorts_by_cpu_time_without_a_gpu():
    table = report(profile_matmul_bias(size=16, device="cpu"))
    assert "CPU total" in table and "CUDA" not in table
    assert table.index("matmul_bias") < table.index("aten::mm")
