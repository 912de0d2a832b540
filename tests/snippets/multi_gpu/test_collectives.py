"""snippets/multi_gpu/collectives.py: two ranks shard a model and all-gather parameters and reduce-scatter gradients."""

import dataclasses

import pytest

from profguide import trace
from profguide.site import launch
from profguide.site.catalogue import by_id
from tests.helpers import ROOT

SMALL = {"hidden": 32, "layers": 2, "batch": 8, "threads": 1, "steps": 3, "wait": 0, "warmup": 1, "active": 1}


@pytest.mark.slow
def test_every_rank_all_gathers_and_reduce_scatters(tmp_path):
    job = dataclasses.replace(by_id("multigpu-fsdp"), cpu_params=SMALL)
    launch.record(job, "cpu", ROOT, tmp_path)
    for rank in (0, 1):
        loaded = trace.load(tmp_path / job.id / f"trace-rank{rank}.json.gz")
        assert loaded.distributed_info["rank"] == rank
        assert {"c10d::_allgather_base_", "c10d::_reduce_scatter_base_", "gloo:all_gather"} <= set(loaded.names)
