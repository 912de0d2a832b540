"""snippets/multi_gpu/per_rank.py: every rank of a data-parallel job writes its own trace, and a slowed rank makes the
other wait in its all-reduces."""

import dataclasses
import json
import socket
import subprocess
import sys

import pytest

from profguide import trace
from profguide.analysis.select import names_where
from profguide.site import launch
from profguide.site.catalogue import by_id
from tests.helpers import ROOT

# Every test here starts processes of its own: torchrun, or a recording's two ranks.
pytestmark = pytest.mark.slow

SCRIPT = ROOT / "snippets" / "multi_gpu" / "per_rank.py"
SMALL = {"hidden": 32, "layers": 2, "batch": 8, "bucket_cap_mb": 25, "threads": 1, "steps": 4, "wait": 0,
         "warmup": 1, "active": 2}
SLOW_MS = 40.0  # how long the slow rank sleeps before each backward (train_ddp's slow_ms)


def torchrun(script, cwd, ranks=2):
    """``torchrun --standalone`` as a reader would start the job (it finds a free port itself)."""
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc-per-node={ranks}", str(script)]
    env = {"PYTHONPATH": str(ROOT), "CUDA_VISIBLE_DEVICES": "", "PATH": "/usr/bin:/bin"}
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_torchrun_writes_one_trace_per_rank_each_saying_which_rank_it_is(tmp_path):
    done = torchrun(SCRIPT, tmp_path)
    assert done.returncode == 0, done.stderr
    written = sorted((tmp_path / "profiler_traces").iterdir())
    assert [path.name.split(".")[0] for path in written] == [f"{socket.gethostname()}_rank{r}" for r in (0, 1)]
    for rank, path in enumerate(written):
        info = json.loads(path.read_text())["distributedInfo"]
        assert (info["rank"], info["world_size"], info["backend"]) == (rank, 2, "gloo")


@pytest.fixture(scope="module")
def straggler(tmp_path_factory):
    """The straggler recording at small sizes, made in fresh processes as the build makes it."""
    root = tmp_path_factory.mktemp("ddp")
    job = dataclasses.replace(by_id("multigpu-straggler"), cpu_params={**SMALL, "slow_rank": 1, "slow_ms": SLOW_MS})
    launch.record(job, "cpu", ROOT, root)
    folder = root / job.id
    return [trace.load(folder / f"trace-rank{rank}.json.gz") for rank in (0, 1)]


def durations(loaded, name):
    return loaded.dur[names_where(loaded, name.__eq__)].tolist()


def spans(loaded, name):
    """(start, end) of each event called ``name``, in µs, in the order they began."""
    chosen = names_where(loaded, name.__eq__)
    return sorted(zip(loaded.ts[chosen].tolist(), loaded.end[chosen].tolist(), strict=True))


def test_every_rank_all_reduces_the_same_buckets(straggler):
    counts = [len(durations(loaded, "gloo:all_reduce")) for loaded in straggler]
    assert counts[0] == counts[1] > 0
    assert [len(durations(loaded, "c10d::allreduce_")) for loaded in straggler] == counts


def test_only_the_slow_rank_straggles_and_the_other_waits_for_it(straggler):
    """What is asserted follows from the snippet's sleep and the order of events, never from how long anything
    else took, so a busy machine cannot fail it (the ranks share one clock: they run on one machine)."""
    fast, slow = straggler
    assert "straggle" not in fast.names
    sleeps = spans(slow, "straggle")  # one a step
    assert min(end - start for start, end in sleeps) >= SLOW_MS * 1000  # time.sleep sleeps at least that long
    waits = spans(fast, "gloo:all_reduce")
    per_step = len(waits) // len(sleeps)
    assert per_step * len(sleeps) == len(waits)
    # A bucket's all-reduce needs the slow rank's gradients, which it computes after its sleep: on the fast rank
    # none ends before the slow rank's sleep in that step has ended, and some began while it slept.
    for index, (start, end) in enumerate(waits):
        assert end >= sleeps[index // per_step][1], (index, start, end, sleeps)
    assert any(start < sleeps[index // per_step][1] for index, (start, _) in enumerate(waits))
