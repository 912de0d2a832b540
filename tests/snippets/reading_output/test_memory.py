"""snippets/reading_output/memory.py: memory columns and a memory timeline on the CPU; a snapshot only on a GPU."""

import json
import warnings

import pytest
import torch

from profguide.analysis.memory import left_at_end, memory_timeline, ratio_at_end
from snippets.reading_output.memory import dump_memory_snapshot, profile_memory_steps
from tests.helpers import ROOT, run_script

SCRIPT = ROOT / "snippets" / "reading_output" / "memory.py"


def test_the_timeline_holds_adams_state_the_gradients_and_no_activation_at_the_end(tmp_path):
    calls = []
    prof = profile_memory_steps(width=32, batch=4, steps=4, device="cpu", on_trace_ready=calls.append)
    assert len(calls) == 1  # one cycle: the recorder needs exactly one
    path = tmp_path / "timeline.json"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        prof.export_memory_timeline(str(path), device="cpu")
    _, sizes = memory_timeline(json.loads(path.read_text()))
    # Adam's two running averages per parameter (and a step count per parameter tensor, a few bytes).
    assert ratio_at_end(sizes, "OPTIMIZER_STATE", "PARAMETER") == pytest.approx(2, rel=0.01)
    assert ratio_at_end(sizes, "GRADIENT", "PARAMETER") == pytest.approx(1)
    assert left_at_end(sizes, "ACTIVATION") == 0


def test_zero_grad_frees_memory_and_shows_a_negative_self_cpu_mem():
    rows = {row.key: row for row in profile_memory_steps(width=32, batch=4, steps=4, device="cpu").key_averages()}
    assert rows["Optimizer.zero_grad#Adam.zero_grad"].self_cpu_memory_usage < 0
    assert rows["aten::mm"].self_cpu_memory_usage == rows["aten::mm"].cpu_memory_usage > 0


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks what happens without a GPU")
def test_a_snapshot_without_a_gpu_says_it_needs_one(tmp_path):
    with pytest.raises(RuntimeError, match="need a GPU"):
        dump_memory_snapshot(str(tmp_path / "snapshot.pickle"))


@pytest.mark.gpu  # a memory snapshot needs one
def test_a_snapshot_on_a_gpu_holds_the_allocators_segments_and_history(tmp_path):
    import pickle

    path = dump_memory_snapshot(str(tmp_path / "snapshot.pickle"), width=64, batch=8, steps=2)
    snapshot = pickle.loads((tmp_path / "snapshot.pickle").read_bytes())
    assert path.endswith("snapshot.pickle") and snapshot["segments"] and snapshot["device_traces"][0]


@pytest.mark.slow
def test_the_script_prints_the_table_and_writes_the_timeline(tmp_path):
    done = run_script(SCRIPT, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Self CPU Mem" in done.stdout
    times, sizes = memory_timeline(json.loads((tmp_path / "memory_timeline.json").read_text()))
    assert len(times) > 1 and sizes["PARAMETER"].max() > 0
