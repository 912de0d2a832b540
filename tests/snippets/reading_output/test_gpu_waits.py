"""snippets/reading_output/gpu_waits.py runs on the CPU, as a script and as the recording calls it."""

import pytest

from profguide import trace
from snippets.reading_output.gpu_waits import profile_gemm
from tests.helpers import ROOT, run_script

SCRIPT = ROOT / "snippets" / "reading_output" / "gpu_waits.py"


@pytest.mark.slow
def test_the_script_prints_a_table_with_flops_and_writes_a_trace(tmp_path):
    done = run_script(SCRIPT, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "aten::mm" in done.stdout and "FLOPs" in done.stdout
    assert "aten::mm" in trace.load(tmp_path / "gemm_flops_trace.json").names


def test_only_the_profiled_multiplies_are_counted_with_their_flops(tmp_path):
    path = tmp_path / "trace.json"
    prof = profile_gemm(size=16, dtype="float32", calls=3, device="cpu",
                        on_trace_ready=lambda p: p.export_chrome_trace(str(path)))
    [mm] = [row for row in prof.key_averages() if row.key == "aten::mm"]
    assert mm.count == 3  # the first multiply, outside the profile, is not in it
    assert mm.flops == 3 * 2 * 16**3
    loaded = trace.load(path)
    multiplies = [inputs.dims for index, inputs in loaded.shapes.items()
                  if loaded.names[loaded.name[index]] == "aten::mm"]
    assert multiplies == [[[16, 16], [16, 16]]] * 3
