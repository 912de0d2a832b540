"""profguide.build: staleness, refresh rules, rendering, and `build --check`."""

import io
import json
import shutil

import pytest

from profguide.site import build, record
from profguide.site.recordings import RECORDINGS, Recording
from tests.helpers import ROOT, TINY, run_script


def edit_snippet(project):
    path = project / TINY.snippet
    path.write_text(path.read_text() + "\n# edited\n")


def pretend_recorded_on_cuda(folder):
    meta_path = folder / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta.update(device="cuda", device_name="NVIDIA H200", cpu_standin=False, cuda="12.8")
    meta_path.write_text(json.dumps(meta))


def test_states_missing_fresh_stale(project):
    generated = project / "generated"
    assert build.recording_state(TINY, project, generated)[0] == "missing"
    record.record(TINY, "cpu", project, generated)
    assert build.recording_state(TINY, project, generated)[0] == "fresh"
    edit_snippet(project)
    assert build.recording_state(TINY, project, generated)[0] == "stale"


@pytest.mark.parametrize(
    ("intended", "existing", "cuda_here", "expected"),
    [
        ("cuda", None, True, "cuda"),
        ("cuda", {"device": "cpu"}, True, "cuda"),
        ("cuda", None, False, "cpu"),
        ("cuda", {"device": "cpu"}, False, "cpu"),
        ("cuda", {"device": "cuda"}, False, None),
        ("cpu", {"device": "cpu"}, True, "cpu"),
    ],
)
def test_refresh_device(intended, existing, cuda_here, expected):
    recording = Recording(**{**TINY.__dict__, "device": intended})
    device, reason = build.refresh_device(recording, existing, cuda_here)
    assert device == expected
    assert (reason is None) == (expected is not None)


def test_build_renders_every_fragment(project):
    generated = project / "generated"
    record.record(TINY, "cpu", project, generated)
    [status] = build.build([TINY], project, generated)
    assert status == build.Status(TINY.id, "fresh", "kept")
    names = {p.name for p in (generated / TINY.id).iterdir()}
    assert {"timeline.svg", "figure.md", "table.md", "facts.json"} <= names
    assert "steps.md" not in names  # no prof.step() in this snippet


def test_refresh_rerecords_a_stale_standin(project):
    generated = project / "generated"
    record.record(TINY, "cpu", project, generated)
    edit_snippet(project)
    [status] = build.build([TINY], project, generated, refresh=True, cuda_here=False)
    assert status == build.Status(TINY.id, "fresh", "recorded on cpu")
    assert build.recording_state(TINY, project, generated)[0] == "fresh"


def test_refresh_never_replaces_a_cuda_recording_on_a_cpu_machine(project):
    generated = project / "generated"
    record.record(TINY, "cpu", project, generated)
    pretend_recorded_on_cuda(generated / TINY.id)
    edit_snippet(project)
    [status] = build.build([TINY], project, generated, refresh=True, cuda_here=False)
    assert status.state == "stale" and status.action.startswith("not refreshed")
    assert json.loads((generated / TINY.id / "meta.json").read_text())["device"] == "cuda"
    assert build.problems([status]) == [status]


def test_check_writes_nothing_and_reports_stale(project):
    generated = project / "generated"
    record.record(TINY, "cpu", project, generated)
    edit_snippet(project)
    before = sorted(p.name for p in (generated / TINY.id).iterdir())
    [status] = build.build([TINY], project, generated, refresh=True, check=True, cuda_here=False)
    assert status.state == "stale"
    assert sorted(p.name for p in (generated / TINY.id).iterdir()) == before


def test_check_reports_renders_that_are_out_of_date(project):
    generated = project / "generated"
    record.record(TINY, "cpu", project, generated)
    build.build([TINY], project, generated)
    (generated / TINY.id / "table.md").write_text("edited by hand\n")
    [status] = build.build([TINY], project, generated, check=True)
    assert status.action == "renders out of date: table.md"
    assert build.problems([status]) == [status]


def test_rendering_twice_writes_nothing_the_second_time(project):
    generated = project / "generated"
    record.record(TINY, "cpu", project, generated)
    build.build([TINY], project, generated)
    stamps = {p.name: p.stat().st_mtime_ns for p in (generated / TINY.id).iterdir()}
    build.build([TINY], project, generated)
    assert stamps == {p.name: p.stat().st_mtime_ns for p in (generated / TINY.id).iterdir()}


def test_committed_recordings_are_fresh_and_rendered(tmp_path):
    """`profguide build --check` on the repository: what CI builds is what the snippets make."""
    done = run_script(ROOT / "profguide" / "__main__.py", tmp_path, "build", "--check")
    assert done.returncode == 0, done.stdout + done.stderr
    for recording in RECORDINGS:
        assert f"{recording.id} " in done.stdout
    assert all(line.split()[1:] == ["fresh", "kept"] for line in done.stdout.splitlines())


def test_check_exits_nonzero_on_a_stale_committed_recording(tmp_path):
    generated = tmp_path / "generated"
    shutil.copytree(ROOT / "docs" / "generated", generated)
    meta_path = generated / RECORDINGS[0].id / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta_path.write_text(json.dumps({**meta, "cache_key": "0" * 16}))
    done = run_script(ROOT / "profguide" / "__main__.py", tmp_path, "build", "--check", "--generated", generated)
    assert done.returncode == 1
    assert f"{RECORDINGS[0].id}" in done.stdout and "stale" in done.stdout
    assert "make figures" in done.stderr


def test_progress_lines_name_each_recording_and_its_time(project):
    stream = io.StringIO()
    record.record_all([TINY, TINY], "cpu", project, project / "out", stream=stream)
    lines = stream.getvalue().splitlines()
    assert lines[0] == "[1/2] recording tiny-matmul on cpu"
    assert lines[1].startswith("[1/2] done in ") and lines[1].endswith(" s")
    assert lines[2] == "[2/2] recording tiny-matmul on cpu"


def test_breakdown_says_so_when_there_is_no_gpu_work(project):
    steps = Recording(id="steps", snippet="snippets/basics/training_steps.py", function="profile_steps",
                      params={"size": 8, "steps": 4, "wait": 0, "warmup": 1, "active": 2},
                      figure={"breakdown": True})
    generated = project / "generated"
    record.record(steps, "cpu", project, generated)
    files = build.rendered_files(steps, generated / steps.id)
    assert "no GPU work" in files["breakdown.md"] and "breakdown.svg" not in files


def test_breakdown_figure_for_steps_with_gpu_work():
    from profguide.analysis.verdict import facts
    from tests.helpers import event, gpu_event, make_trace

    loaded = make_trace(
        event("ProfilerStep#1", 0, 100, kind="annotation"), event("ProfilerStep#2", 100, 100, kind="annotation"),
        event("cudaLaunchKernel", 10, 5, kind="runtime", correlation=1),
        event("cudaLaunchKernel", 150, 5, kind="runtime", correlation=2),
        gpu_event("k", 20, 50, correlation=1), gpu_event("k", 160, 20, correlation=2),
    )
    files = build.breakdown_files(loaded, facts(loaded))
    assert files["breakdown.svg"].count("ProfilerStep#") == 2
    assert '<div class="pg-figure">' in files["breakdown.md"]
