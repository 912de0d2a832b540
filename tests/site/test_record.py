"""profguide.record: cache keys, provenance, and what a recording may replace."""

import gzip
import json

import pytest

from profguide import trace
from profguide.site import record
from profguide.site.recordings import RECORDINGS, Recording, by_id
from tests.helpers import ROOT, TINY, run_script_text


def test_cache_key_changes_with_the_snippet_source(project):
    before = record.cache_key(TINY, project)
    path = project / TINY.snippet
    path.write_text(path.read_text() + "\n# a comment is a change too\n")
    assert record.cache_key(TINY, project) != before


def test_cache_key_changes_with_parameters_and_function(project):
    base = record.cache_key(TINY, project)
    bigger = Recording(**{**TINY.__dict__, "params": {"size": 9}})
    other = Recording(**{**TINY.__dict__, "function": "report"})
    assert len({base, record.cache_key(bigger, project), record.cache_key(other, project)}) == 3


def test_cache_key_ignores_the_id_and_title(project):
    renamed = Recording(**{**TINY.__dict__, "id": "other", "title": "other"})
    assert record.cache_key(renamed, project) == record.cache_key(TINY, project)


def test_record_writes_trace_table_averages_and_provenance(project):
    meta = record.record(TINY, "cpu", project, project / "out")
    folder = project / "out" / TINY.id
    assert sorted(p.name for p in folder.iterdir()) == [
        "averages.json", "meta.json", "table.txt", "trace.json.gz",
    ]
    assert meta == json.loads((folder / "meta.json").read_text())
    for field in ("device_name", "torch", "python", "recorded_at", "params", "cache_key", "platform"):
        assert meta[field], field
    assert meta["cuda"] is None and meta["device"] == "cpu"
    assert meta["cpu_standin"] is True  # TINY is meant for CUDA
    assert meta["cache_key"] == record.cache_key(TINY, project)
    assert meta["params"] == {"size": 8}
    assert "aten::mm" in (folder / "table.txt").read_text()
    names = {row["name"] for row in json.loads((folder / "averages.json").read_text())}
    assert {"aten::mm", "aten::add", "matmul_bias"} <= names
    assert {"aten::mm", "matmul_bias"} <= {s.name for s in trace.load(folder / "trace.json.gz").slices()}


def test_a_cpu_recording_is_not_a_standin(project):
    cpu_tiny = Recording(**{**TINY.__dict__, "device": "cpu"})
    assert record.record(cpu_tiny, "cpu", project, project / "out")["cpu_standin"] is False


def test_trace_gzip_is_reproducible_bytes(project):
    record.record(TINY, "cpu", project, project / "out")
    raw = (project / "out" / TINY.id / "trace.json.gz").read_bytes()
    assert raw[4:8] == b"\0\0\0\0"  # mtime 0: re-recording changes the bytes only when the trace does
    json.loads(gzip.decompress(raw))


def fake_cuda_meta(folder, key):
    folder.mkdir(parents=True)
    meta = {"device": "cuda", "device_name": "NVIDIA H200", "cache_key": key}
    (folder / "meta.json").write_text(json.dumps(meta))
    return meta


def test_a_fresh_cuda_recording_is_never_replaced_by_a_cpu_one(project):
    folder = project / "out" / TINY.id
    meta = fake_cuda_meta(folder, record.cache_key(TINY, project))
    with pytest.raises(record.RecordingError, match="refusing to replace a fresh CUDA recording"):
        record.record(TINY, "cpu", project, project / "out")
    assert json.loads((folder / "meta.json").read_text()) == meta
    assert sorted(p.name for p in folder.iterdir()) == ["meta.json"]


def test_an_explicit_cpu_recording_may_replace_a_stale_cuda_one(project):
    folder = project / "out" / TINY.id
    fake_cuda_meta(folder, "0000000000000000")
    assert record.record(TINY, "cpu", project, project / "out")["device"] == "cpu"


def test_asking_for_cuda_without_a_gpu_is_a_clear_error(project, monkeypatch):
    monkeypatch.setattr(record, "cuda_available", lambda: False)
    with pytest.raises(record.RecordingError, match="torch sees no GPU"):
        record.record(TINY, "cuda", project, project / "out")


def test_a_failed_recording_leaves_no_files(project):
    broken = Recording(**{**TINY.__dict__, "params": {"size": 8, "no_such_argument": 1}})
    with pytest.raises(TypeError):
        record.record(broken, "cpu", project, project / "out")
    assert not (project / "out").exists()


def test_a_recording_must_finish_a_profiler_cycle(project):
    # One step, spent waiting: the profiler never records and never calls the handler.
    too_short = Recording(
        id="short", snippet="snippets/basics/training_steps.py", function="profile_steps",
        params={"size": 8, "steps": 1, "wait": 1, "warmup": 1, "active": 3},
    )
    with pytest.raises(record.RecordingError, match="expected one finished profiler cycle, got 0"):
        record.record(too_short, "cpu", project, project / "out")


def test_recording_ids_are_unique_and_snippets_exist():
    ids = [r.id for r in RECORDINGS]
    assert len(ids) == len(set(ids))
    for recording in RECORDINGS:
        assert (ROOT / recording.snippet).is_file()
        assert record.load_snippet_function(ROOT, recording.snippet, recording.function)


def test_unknown_recording_id_names_the_known_ones():
    with pytest.raises(KeyError, match="basics-matmul-64"):
        by_id("nope")


def test_recording_needs_only_torch_and_the_standard_library(project, tmp_path):
    # The GPU machine has torch and nothing of ours installed: block what the rest of profguide uses.
    script = (
        "import sys\n"
        "for blocked in ('msgspec', 'mkdocs', 'hypothesis'):\n"
        "    sys.modules[blocked] = None\n"
        "from profguide import cli\n"
        f"sys.exit(cli.main(['record', 'basics-cpu-only', '--out', {str(tmp_path / 'out')!r}]))\n"
    )
    done = run_script_text(script, tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "out" / "basics-cpu-only" / "meta.json").read_text())["device"] == "cpu"
    assert "msgspec" not in done.stderr
