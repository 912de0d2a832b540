"""snippets/reference/around_the_profiler/flight_recorder.py: two Gloo ranks, one collective short; each buffer read
while rank 0 waits."""

import os
import subprocess
import sys

import pytest

from snippets.reference.around_the_profiler.flight_recorder import recorded
from tests.helpers import ROOT

SCRIPT = ROOT / "snippets" / "reference" / "around_the_profiler" / "flight_recorder.py"


def test_a_buffer_is_read_as_its_collectives_in_order():
    entry = {"collective_seq_id": 2, "profiling_name": "gloo:all_reduce", "input_sizes": [[4]], "state": "scheduled"}
    assert recorded({"entries": [entry]}) == [{"seq": 2, "name": "gloo:all_reduce", "sizes": [[4]]}]


@pytest.mark.slow
def test_two_ranks_under_torchrun_end_with_different_collectives(tmp_path):
    # --standalone: a free port of its own, whatever else runs beside the test.
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2", str(SCRIPT)]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(ROOT), CUDA_VISIBLE_DEVICES=""))
    assert done.returncode == 0, done.stderr
    lines = {line.split(":")[0]: line for line in done.stdout.splitlines() if line.startswith("rank ")}
    assert lines["rank 0"].endswith("4 gloo:all_reduce") and lines["rank 1"].endswith("3 gloo:all_reduce")
