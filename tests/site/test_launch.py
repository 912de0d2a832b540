"""profguide.site.launch: each recording in fresh processes, one per rank; provenance; what may be replaced."""

import dataclasses
import gzip
import io
import json
import os
import shutil

import pytest

from profguide import trace
from profguide.errors import RecordingError, UsageError
from profguide.site import launch
from profguide.site.catalogue import RECORDINGS, by_id
from profguide.site.recordings import Recording, Table
from profguide.site.staleness import cache_key
from tests.helpers import ROOT, TINY, run_profguide

ALLREDUCE = '''"""Two ranks add up a tensor with gloo, under the profiler."""

import torch
import torch.distributed as dist
from torch.profiler import ProfilerActivity, profile


def profile_allreduce(size=8, on_trace_ready=None):
    dist.init_process_group("gloo")
    tensor = torch.full((size,), float(dist.get_rank() + 1))
    with profile(activities=[ProfilerActivity.CPU], on_trace_ready=on_trace_ready) as prof:
        dist.all_reduce(tensor)
    assert tensor[0].item() == sum(range(1, dist.get_world_size() + 1))
    dist.destroy_process_group()
    return prof
'''
MEASURER = '''"""A loop with a memory profile, which also returns what it timed."""

import torch
from torch.profiler import ProfilerActivity, profile


def profile_and_time(size=16, on_trace_ready=None):
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True, record_shapes=True, with_stack=True,
                 on_trace_ready=on_trace_ready):
        for _ in range(2):
            torch.ones(size, size).mm(torch.ones(size, size))
            torch.ones(size * 2, size).sum()
    return {"steps": 2, "size": size}
'''
SLEEPER = "import time\n\ndef sleep(on_trace_ready=None):\n    time.sleep(60)\n"


def trace_pids(path):
    """The pids of the CPU lanes of a trace (GPU lanes use the device number)."""
    loaded = trace.load(path)
    return {pid for pid, _ in loaded.lanes if isinstance(pid, int) and pid > 64}


@pytest.fixture
def tiny(recordings_made_once):
    """TINY, recorded once for the session in fresh processes (``launch.record`` into a scratch checkout of the
    repository's snippets), for the tests that only read what a recording wrote: (its folder, the meta
    ``launch.record`` returned, the checkout). Read it, never change it: copy it with ``tiny_in``."""
    return recordings_made_once(TINY), recordings_made_once.meta(TINY), recordings_made_once.root


def tiny_in(project, tiny):
    """A copy of the session's TINY recording in ``project``'s out/, as a first ``launch.record`` leaves it."""
    folder = project / "out" / TINY.id
    shutil.copytree(tiny[0], folder)
    return folder


def test_record_writes_trace_table_averages_and_provenance(tiny):
    folder, meta, project = tiny
    assert sorted(p.name for p in folder.iterdir()) == ["averages.json", "meta.json", "table.txt", "trace.json.gz"]
    assert meta == json.loads((folder / "meta.json").read_text())
    for field in ("device_name", "torch", "python", "recorded_at", "params", "cache_key", "platform", "pids"):
        assert meta[field], field
    assert meta["cuda"] is None and meta["device"] == "cpu" and meta["ranks"] == 1
    assert meta["cpu_standin"] is True  # TINY is meant for CUDA
    assert meta["cache_key"] == cache_key(TINY, project)
    assert meta["params"] == {"size": 8}
    assert "aten::mm" in (folder / "table.txt").read_text()
    names = {row["name"] for row in json.loads((folder / "averages.json").read_text())}
    assert {"aten::mm", "aten::add", "matmul_bias"} <= names
    assert {"aten::mm", "matmul_bias"} <= set(trace.load(folder / "trace.json.gz").names)


@pytest.mark.slow
def test_each_recording_runs_in_a_fresh_process_of_its_own(project, tiny):
    # TINY as the session recorded it, through launch.record in this process too; the other one afresh now.
    other = dataclasses.replace(TINY, id="tiny-again")
    metas = [tiny[1], launch.record(other, "cpu", project, project / "out")]
    pids = [trace_pids(folder / "trace.json.gz") for folder in (tiny[0], project / "out" / other.id)]
    assert pids == [set(meta["pids"]) for meta in metas]
    assert pids[0].isdisjoint(pids[1])
    assert os.getpid() not in pids[0] | pids[1]


def test_the_committed_recordings_never_shared_a_process():
    seen = {}
    for recording in RECORDINGS:
        folder = ROOT / "docs" / "generated" / recording.id
        meta = json.loads((folder / "meta.json").read_text())
        traced = set().union(*(trace_pids(folder / launch.rank_file("trace.json.gz", rank, meta["ranks"]))
                               for rank in range(meta["ranks"])))
        assert traced == set(meta["pids"]), recording.id
        for pid in traced:
            assert pid not in seen, f"{recording.id} and {seen.get(pid)} were recorded in one process"
            seen[pid] = recording.id


@pytest.mark.slow
def test_a_standin_takes_the_cpu_parameters(project):
    smaller = dataclasses.replace(TINY, params={"size": 4096}, cpu_params={"size": 8})
    assert launch.record(smaller, "cpu", project, project / "out")["params"] == {"size": 8}
    assert smaller.params_on("cuda") == {"size": 4096}


@pytest.mark.slow
def test_a_cpu_recording_is_not_a_standin(project):
    cpu_tiny = dataclasses.replace(TINY, device="cpu")
    assert launch.record(cpu_tiny, "cpu", project, project / "out")["cpu_standin"] is False


def test_trace_gzip_is_reproducible_bytes(tiny):
    raw = (tiny[0] / "trace.json.gz").read_bytes()
    assert raw[4:8] == b"\0\0\0\0"  # mtime 0: re-recording changes the bytes only when the trace does
    json.loads(gzip.decompress(raw))


def fake_cuda_meta(folder, key):
    folder.mkdir(parents=True)
    meta = {"device": "cuda", "device_name": "NVIDIA H200", "cache_key": key, "torch": "2.11.0", "python": "3.12.3",
            "recorded_at": "2026-11-30T00:00:00+00:00", "params": {"size": 8}}
    (folder / "meta.json").write_text(json.dumps(meta))
    return meta


def test_a_fresh_cuda_recording_is_never_replaced_by_a_cpu_one(project):
    folder = project / "out" / TINY.id
    meta = fake_cuda_meta(folder, cache_key(TINY, project))
    with pytest.raises(RecordingError, match="refusing to replace a fresh CUDA recording"):
        launch.record(TINY, "cpu", project, project / "out")
    assert json.loads((folder / "meta.json").read_text()) == meta
    assert sorted(p.name for p in folder.iterdir()) == ["meta.json"]


@pytest.mark.slow
def test_an_explicit_cpu_recording_may_replace_a_stale_cuda_one(project):
    fake_cuda_meta(project / "out" / TINY.id, "0000000000000000")
    assert launch.record(TINY, "cpu", project, project / "out")["device"] == "cpu"


@pytest.mark.parametrize(("ranks", "gpus", "message"), [
    (1, 0, "tiny-matmul: CUDA was asked for but torch sees no GPU"),
    (2, 1, "tiny-matmul: CUDA was asked for, a GPU for each of 2 processes, but torch sees 1"),
])
def test_cuda_needs_a_gpu_per_process(project, monkeypatch, ranks, gpus, message):
    monkeypatch.setattr(launch, "gpu_count", lambda: gpus)
    with pytest.raises(RecordingError) as raised:
        launch.record(dataclasses.replace(TINY, ranks=ranks), "cuda", project, project / "out")
    assert str(raised.value) == message


@pytest.mark.parametrize(
    ("intended", "existing", "gpus", "expected"),
    [
        ("cuda", None, 1, "cuda"),
        ("cuda", {"device": "cpu"}, 1, "cuda"),
        ("cuda", None, 0, "cpu"),
        ("cuda", {"device": "cpu"}, 0, "cpu"),
        ("cuda", {"device": "cuda"}, 0, None),
        ("cpu", {"device": "cpu"}, 1, "cpu"),
    ],
)
def test_device_for_never_puts_a_cpu_run_over_a_cuda_one(intended, existing, gpus, expected):
    device, reason = launch.device_for(dataclasses.replace(TINY, device=intended), existing, gpus)
    assert device == expected
    assert (reason is None) == (expected is not None)


@pytest.mark.parametrize(("ranks", "gpus", "device"), [(1, 0, "cpu"), (1, 1, "cuda"), (2, 1, "cpu"), (2, 2, "cuda")])
def test_default_device_needs_a_gpu_per_rank(ranks, gpus, device):
    assert launch.default_device(dataclasses.replace(TINY, ranks=ranks), gpus) == device
    assert launch.default_device(dataclasses.replace(TINY, device="cpu", ranks=ranks), gpus) == "cpu"


@pytest.mark.slow
def test_a_failed_recording_names_the_error_and_leaves_no_files(project):
    broken = dataclasses.replace(TINY, params={"size": 8, "no_such_argument": 1})
    with pytest.raises(RecordingError) as raised:
        launch.record(broken, "cpu", project, project / "out")
    assert str(raised.value).startswith("tiny-matmul: the process failed: TypeError: profile_matmul_bias() got an "
                                        "unexpected keyword argument 'no_such_argument'")
    assert list((project / "out").iterdir()) == []


@pytest.mark.slow
def test_a_recording_must_finish_a_profiler_cycle(project):
    # One step, spent waiting: the profiler never records and never calls the handler.
    too_short = Recording(id="short", module="snippets.basics.steps", function="profile_steps",
                          title="t", params={"size": 8, "steps": 1, "wait": 1, "warmup": 1, "active": 3})
    with pytest.raises(RecordingError, match="expected one finished profiler cycle, got 0"):
        launch.record(too_short, "cpu", project, project / "out")


@pytest.mark.slow
def test_a_recording_that_runs_too_long_is_stopped(project):
    (project / "snippets" / "basics" / "sleeper.py").write_text(SLEEPER)
    sleeper = Recording(id="sleeper", module="snippets.basics.sleeper", function="sleep", title="t", timeout_s=1)
    with pytest.raises(RecordingError, match="sleeper: still running after 1 s; stopped it"):
        launch.record(sleeper, "cpu", project, project / "out")
    assert list((project / "out").iterdir()) == []


@pytest.mark.slow
def test_a_recording_writes_the_tables_and_exports_it_asks_for_and_what_its_snippet_returned(project):
    (project / "snippets" / "basics" / "measurer.py").write_text(MEASURER)
    job = Recording(id="measurer", module="snippets.basics.measurer", function="profile_and_time", title="t",
                    device="cpu", memory_timeline=True,
                    tables=(Table("by-shape", group_by_input_shape=True, sort_by="cpu_time_total", row_limit=30),))
    meta = launch.record(job, "cpu", project, project / "out")
    folder = project / "out" / job.id
    assert sorted(launch.recording_files(meta)) == sorted(p.name for p in folder.iterdir()) == [
        "averages.json", "memory-timeline.json", "meta.json", "results.json", "table-by-shape.txt", "table.txt",
        "trace.json.gz"]
    assert json.loads((folder / "results.json").read_text()) == {"size": 16, "steps": 2}
    by_shape = (folder / "table-by-shape.txt").read_text()
    assert "Input Shapes" in by_shape and "[[32, 16]" in by_shape
    times, sizes = json.loads((folder / "memory-timeline.json").read_text())
    assert len(times) == len(sizes) > 0 and max(max(row) for row in sizes) > 0
    assert cache_key(job, project) != cache_key(dataclasses.replace(job, memory_timeline=False), project)


@pytest.mark.slow
def test_a_recording_of_two_ranks_keeps_one_trace_per_rank(project):
    (project / "snippets" / "basics" / "allreduce.py").write_text(ALLREDUCE)
    job = Recording(id="allreduce", module="snippets.basics.allreduce", function="profile_allreduce", title="t",
                    device="cpu", ranks=2)
    meta = launch.record(job, "cpu", project, project / "out")
    folder = project / "out" / job.id
    assert sorted(p.name for p in folder.iterdir()) == sorted(launch.recording_files({"ranks": 2}))
    assert sorted(launch.recording_files(meta)) == sorted(launch.recording_files({"ranks": 2}))
    assert meta["ranks"] == 2 and len(set(meta["pids"])) == 2
    for rank in range(2):
        loaded = trace.load(folder / f"trace-rank{rank}.json.gz")
        assert loaded.distributed_info["rank"] == rank and loaded.distributed_info["world_size"] == 2
        assert "gloo:all_reduce" in loaded.names
        assert trace_pids(folder / f"trace-rank{rank}.json.gz") == {meta["pids"][rank]}
    # Recorded again as one process: the rank files go, the single ones come.
    launch.record(dataclasses.replace(job, ranks=1, module=TINY.module, function=TINY.function,
                                      params={"size": 8}), "cpu", project, project / "out")
    assert sorted(p.name for p in folder.iterdir()) == sorted(launch.recording_files({"ranks": 1}))


@pytest.mark.slow
def test_progress_lines_name_each_recording_and_its_time(project):
    stream = io.StringIO()
    launch.record_all([TINY, TINY], "cpu", project, project / "out", stream=stream)
    lines = stream.getvalue().splitlines()
    assert lines[0] == "[1/2] recording tiny-matmul on cpu"
    assert lines[1].startswith("[1/2] done in ") and lines[1].endswith(" s")
    assert lines[2] == "[2/2] recording tiny-matmul on cpu"


def test_recording_ids_are_unique_and_snippets_importable():
    import importlib

    ids = [r.id for r in RECORDINGS]
    assert len(ids) == len(set(ids)) and "site" not in ids
    for recording in RECORDINGS:
        assert (ROOT / recording.snippet).is_file()
        assert callable(getattr(importlib.import_module(recording.module), recording.function))
        assert recording.title_with(recording.params_on("cpu"))


def test_unknown_recording_id_names_the_known_ones():
    with pytest.raises(UsageError, match="basics-matmul-64"):
        by_id("nope")


# Loaded by every Python process that has it on its path: these packages then look absent, as on the
# bare GPU machine (an import fails, importlib.util.find_spec answers None).
BLOCKER = """import sys
for name in ("msgspec", "mkdocs", "hypothesis", "sybil", "playwright"):
    sys.modules[name] = None
"""


@pytest.mark.slow
def test_recording_needs_only_torch_and_the_standard_library(project, tmp_path):
    # The GPU machine has torch and nothing of ours installed: every process, the recording ones
    # included, starts with what the rest of profguide uses blocked.
    (tmp_path / "bare").mkdir()
    (tmp_path / "bare" / "sitecustomize.py").write_text(BLOCKER)
    done = run_profguide(project, "record", "basics-cpu-only", "--out", tmp_path / "out",
                         pythonpath=(tmp_path / "bare", ROOT))
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "out" / "basics-cpu-only" / "meta.json").read_text())["device"] == "cpu"
    blocked = run_profguide(project, "explain", "x.json", pythonpath=(tmp_path / "bare", ROOT))
    assert "ModuleNotFoundError: import of msgspec halted" in blocked.stderr  # the blocker works


@pytest.mark.slow
def test_record_finds_the_project_from_a_subfolder(project):
    (project / "docs" / "deep").mkdir()
    done = run_profguide(project / "docs" / "deep", "record", "basics-cpu-only")
    assert done.returncode == 0, done.stderr
    assert (project / "docs" / "generated" / "basics-cpu-only" / "meta.json").is_file()


@pytest.mark.slow
def test_an_interrupted_swap_leaves_the_old_recording_whole_or_none_never_a_mix(project, tiny, monkeypatch):
    folder = tiny_in(project, tiny)  # the old recording; the new one below is made afresh
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    renames = []
    real_rename = type(folder).rename

    def rename_then_die(self, target):
        renames.append(self)
        if len(renames) == 2:  # the old folder is aside; killed before the new one is in place
            raise KeyboardInterrupt
        return real_rename(self, target)

    monkeypatch.setattr(type(folder), "rename", rename_then_die)
    with pytest.raises(KeyboardInterrupt):
        launch.record(dataclasses.replace(TINY, params={"size": 9}), "cpu", project, project / "out")
    monkeypatch.undo()
    assert not folder.exists()
    [aside] = [p for p in (project / "out").iterdir() if p.name.startswith(".tiny-matmul.old-")]
    assert {p.name: p.read_bytes() for p in aside.iterdir()} == before


@pytest.mark.slow
def test_record_without_a_device_refuses_to_put_a_cpu_run_over_a_cuda_one(project, monkeypatch):
    monkeypatch.setattr(launch, "gpu_count", lambda: 0)
    folder = project / "out" / TINY.id
    meta = fake_cuda_meta(folder, "0000000000000000")  # stale, and made on a GPU
    with pytest.raises(RecordingError, match="tiny-matmul: a CUDA recording; no GPU here to record it again"):
        launch.record_all([TINY], None, project, project / "out", stream=io.StringIO())
    assert json.loads((folder / "meta.json").read_text()) == meta
    assert launch.record_all([TINY], "cpu", project, project / "out", stream=io.StringIO())[0]["device"] == "cpu"


@pytest.mark.slow
def test_rendered_files_survive_a_new_recording(project, tiny):
    folder = tiny_in(project, tiny)  # the recording rendered from; the new one below is made afresh
    (folder / "figure.md").write_text("rendered before")
    launch.record(TINY, "cpu", project, project / "out")
    assert (folder / "figure.md").read_text() == "rendered before"
    assert [p.name for p in (project / "out").iterdir()] == [TINY.id]


def run_folder(folder, device, key, files=("trace.json.gz",)):
    """A run's folder holding ``files`` (each its own name as bytes) and a meta that lists them."""
    folder.mkdir(parents=True)
    for name in files:
        (folder / name).write_bytes(name.encode())
    meta = {"device": device, "cache_key": key, "files": list(files), "device_name": device, "torch": "2.13.0",
            "python": "3.11", "recorded_at": "2026-12-02T00:00:00+00:00", "params": {}}
    (folder / "meta.json").write_text(json.dumps(meta))
    return folder


@pytest.mark.parametrize(("old_device", "old_key", "kept"), [
    ("cpu", "same", "the stand-in"),  # the stand-in it replaces, made from the same code
    ("cpu", "older", None),  # a stand-in of other code is stale: the build records the CPU run afresh
    ("cuda", "older", "its CPU run"),  # a GPU run replaced by a newer one hands on the CPU run it kept
])
def test_a_gpu_run_keeps_the_cpu_run_of_what_it_replaces(tmp_path, old_device, old_key, kept):
    existing = run_folder(tmp_path / "existing", old_device, old_key)
    if old_device == "cuda":
        run_folder(existing / "cpu", "cpu", "older", files=("trace.json.gz", "averages.json"))
    rank = run_folder(tmp_path / "staging-rank0", "unused", "unused", files=("trace.json.gz",))
    (rank / "meta.json").unlink()
    staging = tmp_path / "staging"
    staging.mkdir()
    new, _ = launch.assemble_recording(staging, [rank], {"device": "cuda", "cache_key": "same"}, 1, existing,
                                       keep_cpu=True)
    if kept is None:
        assert not (new / "cpu").exists()
        return
    source = existing if kept == "the stand-in" else existing / "cpu"
    assert sorted(p.name for p in (new / "cpu").iterdir()) == sorted(p.name for p in source.iterdir()
                                                                     if p.is_file())
    assert json.loads((new / "cpu" / "meta.json").read_text())["device"] == "cpu"
    assert (new / "trace.json.gz").read_bytes() == b"trace.json.gz"  # the new run's own files stay its own


def test_a_cpu_run_is_not_kept_without_a_claim_about_the_cpu_or_beside_a_cpu_run(tmp_path):
    existing = run_folder(tmp_path / "existing", "cpu", "same")
    for meta, keep in (({"device": "cuda", "cache_key": "same"}, False), ({"device": "cpu", "cache_key": "same"},
                                                                           True)):
        staging = tmp_path / f"staging-{meta['device']}-{keep}"
        rank = run_folder(staging / "rank0", "unused", "unused")
        (rank / "meta.json").unlink()
        new, _ = launch.assemble_recording(staging, [rank], meta, 1, existing, keep_cpu=keep)
        assert not (new / "cpu").exists()
