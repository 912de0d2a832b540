"""profguide.site.build: staleness, refresh rules, rendering what pages include, claims, and `build --check`."""

import dataclasses
import io
import json
import shutil

import pytest

from profguide.site import build, launch
from profguide.site.catalogue import RECORDINGS
from profguide.site.fragments import FRAGMENTS
from profguide.site.measures.kernels import GpuBusyShare
from profguide.site.measures.results import CpuShare
from profguide.site.recordings import Claim, Figure, RealTrace
from profguide.site.staleness import recording_state
from tests.helpers import ROOT, TINY, TRACES, nav_page, run_profguide


def edit_snippet(project):
    path = project / TINY.snippet
    path.write_text(path.read_text() + "\n# edited\n")


def pretend_recorded_on_cuda(folder):
    meta_path = folder / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta.update(device="cuda", device_name="NVIDIA H200", cpu_standin=False, cuda="12.8")
    meta_path.write_text(json.dumps(meta))


@pytest.fixture
def recorded(project, recordings_made_once):
    """TINY, recorded once for the session, copied into this test's project: ``recorded()`` is its folder."""
    def copy(recording=TINY):
        generated = project / "docs" / "generated"
        shutil.copytree(recordings_made_once(recording), generated / recording.id)
        return generated / recording.id

    return copy


def run_build(project, recordings=(TINY,), **options):
    statuses, checks = build.build(list(recordings), project, stream=io.StringIO(), **options)
    return {status.id: status for status in statuses}, checks


def test_page_includes_finds_every_generated_include(tmp_path):
    (tmp_path / "a.md").write_text('--8<-- "docs/generated/rec/figure.md"\n\n'
                                   '    --8<-- "docs/generated/rec/explain.md"\n'
                                   '--8<-- "snippets/basics/index.py:profile"\n')
    (tmp_path / "part").mkdir()
    (tmp_path / "part" / "b.md").write_text('--8<-- "docs/generated/rec/figure.md"\n')
    assert build.page_includes(tmp_path) == {"rec": {"figure.md": ["a.md", "part/b.md"], "explain.md": ["a.md"]}}


def test_build_renders_exactly_what_the_pages_include(project, recorded):
    folder = recorded()
    statuses, checks = run_build(project)
    assert statuses[TINY.id].state == "fresh" and statuses[TINY.id].problems == ()
    assert sorted(p.name for p in folder.iterdir()) == sorted(launch.recording_files({"ranks": 1}) + ["figure.md",
                                                                                          "timeline.svg"])
    figure = (folder / "figure.md").read_text()
    assert '--8<-- "docs/generated/tiny-matmul/timeline.svg"' in figure  # the SVG is included, not copied
    assert "<svg" not in figure
    assert [c.outcome for c in checks] == ["holds"]


def test_fragments_no_page_includes_are_removed_or_reported(project, recorded):
    folder = recorded()
    run_build(project)
    (folder / "compare.svg").write_text("<svg/>")
    statuses, _ = run_build(project, check=True)
    assert statuses[TINY.id].problems == ("used by no page: compare.svg",)
    statuses, _ = run_build(project)
    assert statuses[TINY.id].action == "removed: compare.svg"
    assert not (folder / "compare.svg").exists()
    assert run_build(project, check=True)[0][TINY.id].problems == ()


def test_a_fragment_the_recording_cannot_give_is_a_problem(project, recorded):
    recorded()
    (project / "docs" / "steps.md").write_text(nav_page('--8<-- "docs/generated/tiny-matmul/steps.md"\n'
                                                        '--8<-- "docs/generated/tiny-matmul/nonsense.md"\n',
                                                        "Steps", 2))
    problems = run_build(project, check=True)[0][TINY.id].problems
    assert problems == (f"tiny-matmul: no fragment named nonsense.md (known: {', '.join(FRAGMENTS)})",)
    (project / "docs" / "steps.md").write_text(nav_page('--8<-- "docs/generated/tiny-matmul/steps.md"\n', "Steps", 2))
    assert run_build(project, check=True)[0][TINY.id].problems == ("tiny-matmul: no ProfilerStep in this recording",)


def test_a_recording_no_page_shows_and_a_page_showing_no_recording_are_problems(project, recorded):
    recorded()
    (project / "docs" / "page.md").write_text(nav_page('--8<-- "docs/generated/nobody/figure.md"\n', "Page", 1))
    statuses, _ = run_build(project, check=True)
    assert statuses[TINY.id].problems == ("tiny-matmul: no page includes anything from it",)
    assert statuses["nobody"].problems == ("pages include docs/generated/nobody/, which no recording makes",)


def test_a_claim_that_does_not_hold_fails_the_check(project, recorded):
    recorded()
    run_build(project)
    wrong = dataclasses.replace(TINY, claims=(Claim("page.md", "The region encloses its ops.",
                                                    CpuShare("aten::mm", "matmul_bias", self_time=False),
                                                    at_least=2),))
    statuses, _ = run_build(project, recordings=(wrong,), check=True)
    [problem] = statuses[TINY.id].problems
    assert problem.startswith('claim page.md says "The region encloses its ops." of tiny-matmul: aten::mm total '
                              "CPU time / matmul_bias CPU total = ")
    assert problem.endswith(", must be ≥ 2: fails")
    assert build.problems(statuses.values())


def test_a_claim_its_page_no_longer_makes_fails_the_check(project, recorded):
    recorded()
    run_build(project)
    page = project / "docs" / "page.md"
    page.write_text(page.read_text().replace("encloses its ops", "holds its ops"))
    [problem] = run_build(project, check=True)[0][TINY.id].problems
    assert problem.endswith("but the page no longer says it inside a mark, [...]{.claim}: update the claim or the page")


def test_refresh_rerecords_a_stale_standin(project, recorded):
    recorded()
    edit_snippet(project)
    statuses, _ = run_build(project, refresh=True, gpus=0)
    assert statuses[TINY.id].action == "recorded on cpu"
    assert recording_state(TINY, project, project / "docs" / "generated")[0] == "fresh"


def test_refresh_never_replaces_a_cuda_recording_on_a_cpu_machine(project, recorded):
    folder = recorded()
    pretend_recorded_on_cuda(folder)
    edit_snippet(project)
    statuses, _ = run_build(project, refresh=True, gpus=0)
    assert statuses[TINY.id].state == "stale" and statuses[TINY.id].action.startswith("not refreshed")
    assert json.loads((folder / "meta.json").read_text())["device"] == "cuda"
    assert build.problems([statuses[TINY.id]]) == [statuses[TINY.id]]


def test_check_writes_nothing_and_reports_stale(project, recorded):
    folder = recorded()
    edit_snippet(project)
    before = sorted(p.name for p in folder.iterdir())
    statuses, _ = run_build(project, refresh=True, check=True, gpus=0)
    assert statuses[TINY.id].state == "stale"
    assert sorted(p.name for p in folder.iterdir()) == before


def test_check_reports_renders_that_are_out_of_date(project, recorded):
    folder = recorded()
    run_build(project)
    (folder / "figure.md").write_text("edited by hand\n")
    statuses, _ = run_build(project, check=True)
    assert statuses[TINY.id].problems == ("out of date: figure.md",)


def test_rendering_twice_writes_nothing_the_second_time(project, recorded):
    folder = recorded()
    run_build(project)
    stamps = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
    statuses, _ = run_build(project)
    assert statuses[TINY.id].action == "kept"
    assert stamps == {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}


@pytest.mark.slow
def test_committed_recordings_are_fresh_rendered_and_their_claims_hold(tmp_path):
    """`profguide build --check` on the repository: what CI builds is what the snippets make and the pages say."""
    done = run_profguide(tmp_path, "build", "--check", "--root", str(ROOT))
    assert done.returncode == 0, done.stdout + done.stderr
    for recording in RECORDINGS:
        assert f"{recording.id} " in done.stdout
    assert all(line.split()[1:] == ["fresh", "kept"] for line in done.stdout.splitlines())


@pytest.mark.slow
def test_check_exits_nonzero_on_a_stale_committed_recording(tmp_path):
    generated = tmp_path / "generated"
    shutil.copytree(ROOT / "docs" / "generated", generated)
    meta_path = generated / RECORDINGS[0].id / "meta.json"
    meta_path.write_text(json.dumps({**json.loads(meta_path.read_text()), "cache_key": "0" * 16}))
    done = run_profguide(tmp_path, "build", "--check", "--root", str(ROOT), "--generated", str(generated))
    assert done.returncode == 1
    assert f"{RECORDINGS[0].id}" in done.stdout and "stale" in done.stdout
    assert "make figures" in done.stderr


def test_build_outside_a_checkout_says_so_in_one_line(tmp_path):
    done = run_profguide(tmp_path, "build", "--check")
    assert done.returncode == 2
    assert done.stderr.startswith(f"profguide: no checkout of the guide at or above {tmp_path.resolve()}")
    assert done.stderr.count("\n") == 1


@pytest.mark.parametrize("content", [b"{not json", b"[1, 2]", b"\xff\xfe binary", b'{"cache_key": 5}'])
def test_an_unreadable_meta_json_is_a_broken_recording_reported_in_one_line(project, recorded, recordings_made_once,
                                                                             monkeypatch, content):
    folder = recorded()
    (folder / "meta.json").write_bytes(content)
    statuses, _ = run_build(project, check=True)
    assert statuses[TINY.id].state == "broken"
    assert statuses[TINY.id].problems == ("tiny-matmul: its meta.json cannot be read: record it again",)
    asked = []
    if content != b"{not json":  # one case records again in fresh processes; the others take the session's TINY
        def record(recording, device, root, out):  # what launch.record writes there, without its processes
            asked.append((recording.id, device, root, out))
            shutil.rmtree(out / recording.id)
            shutil.copytree(recordings_made_once(recording), out / recording.id)
            return recordings_made_once.meta(recording)

        monkeypatch.setattr(launch, "record", record)
    statuses, _ = run_build(project, refresh=True, gpus=0)  # and refreshing records it again
    assert statuses[TINY.id].action == "recorded on cpu"
    assert asked == ([] if content == b"{not json" else [(TINY.id, "cpu", project, project / "docs" / "generated")])
    assert json.loads((folder / "meta.json").read_text())["device"] == "cpu"


@pytest.mark.parametrize("content", ["{truncated", "{}", '[{"name": "aten::mm"}]', "\u0000"])
def test_unreadable_summary_rows_are_a_problem_not_a_traceback(project, recorded, content):
    folder = recorded()  # TINY's claim reads the summary rows; its fragments do not
    (folder / "averages.json").write_text(content)
    [problem] = [line for line in run_build(project, check=True)[0][TINY.id].problems if line.startswith("claim ")]
    assert problem.startswith('claim page.md says "The region encloses its ops." of tiny-matmul: cannot be measured: '
                              f"{folder / 'averages.json'}: not ")


def test_folders_an_interrupted_recording_left_are_reported(project, recorded):
    folder = recorded()
    run_build(project)
    (folder.parent / ".tiny-matmul.old-x1y2").mkdir()
    statuses, _ = run_build(project, check=True)
    assert statuses["site"].problems == (
        f"left by an interrupted recording: {folder.parent / '.tiny-matmul.old-x1y2'}; delete it, and record "
        "again what is missing",)


# A real trace from another machine, shown on a page of the scratch project: never recorded, never stale.
REAL = RealTrace(id="real-alexnet", file="docs/traces/alexnet.json.gz", title="AlexNet's first step",
                 source="HolisticTraceAnalysis", source_url="https://github.com/facebookresearch/HolisticTraceAnalysis",
                 licence="MIT", figure=Figure(brackets=("cudaDeviceSynchronize",)),
                 claims=(Claim("real.md", "The GPU is idle nearly all the time.", GpuBusyShare(), at_most=0.1),))
REAL_PAGE = nav_page("""# AlexNet

[The GPU is idle nearly all the time.]{.claim}

--8<-- "docs/generated/real-alexnet/figure.md"

--8<-- "docs/generated/real-alexnet/explain.md"
""", "AlexNet", 2)


@pytest.fixture
def real_project(project):
    """The scratch project with a real trace under docs/traces/ and a page that shows it."""
    (project / "docs" / "traces").mkdir()
    shutil.copy(TRACES / "a100_alexnet_cuda_sync.json.gz", project / REAL.file)
    (project / "docs" / "real.md").write_text(REAL_PAGE)
    return project


def build_real(project, real=REAL, **options):
    statuses, checks = run_build(project, recordings=(), real_traces=(real,), **options)
    return statuses[real.id], checks


def test_a_real_trace_renders_what_pages_include_and_names_its_source(real_project):
    status, checks = build_real(real_project)
    assert (status.state, status.problems) == ("fresh", ())
    folder = real_project / "docs" / "generated" / REAL.id
    assert sorted(p.name for p in folder.iterdir()) == ["explain.md", "figure.md", "timeline.svg"]
    figure = (folder / "figure.md").read_text()
    provenance = figure[figure.index("<small>"):]
    for named in ("<code>alexnet.json.gz</code>", "NVIDIA A100-PG509-200",
                  "[HolisticTraceAnalysis](https://github.com/facebookresearch/HolisticTraceAnalysis)", "MIT"):
        assert named in provenance, named
    assert "Recorded on" not in figure and "recorded by this guide" not in figure.lower()
    assert 'data-trace="traces/alexnet.json.gz"' in figure and "(/traces/alexnet.json.gz)" in figure
    assert "MIT licence" in (folder / "timeline.svg").read_text()  # the figure itself names its source
    assert "HolisticTraceAnalysis" in (folder / "explain.md").read_text()
    assert [c.outcome for c in checks] == ["holds"]
    assert build_real(real_project, check=True)[0] == build.Status(REAL.id, "fresh", "kept")


def test_a_claim_on_a_real_trace_fails_when_its_bound_is_broken(real_project):
    build_real(real_project)
    wrong = dataclasses.replace(REAL, claims=(dataclasses.replace(REAL.claims[0], at_most=None, at_least=0.5),))
    [problem] = build_real(real_project, wrong, check=True)[0].problems
    assert problem.startswith('claim real.md says "The GPU is idle nearly all the time." of real-alexnet: GPU busy')
    assert problem.endswith("must be ≥ 0.5: fails")


@pytest.mark.parametrize("content", [None, b"not a trace"])
def test_a_missing_or_broken_real_trace_is_one_problem_line(real_project, content):
    path = real_project / REAL.file
    path.unlink()
    if content is not None:
        path.write_bytes(content)
    status, _ = build_real(real_project)
    [problem] = status.problems
    if content is None:
        assert status.state == "missing"
        assert problem == "real-alexnet: its trace docs/traces/alexnet.json.gz is not there"
    else:
        assert problem.startswith("real-alexnet: ") and "\n" not in problem


def test_a_real_job_names_each_rank_file_it_misses(real_project):
    ranks = dataclasses.replace(REAL, files=(REAL.file, "docs/traces/rank1.json.gz", "docs/traces/rank2.json.gz"))
    status, _ = build_real(real_project, ranks)
    assert status.state == "missing"
    assert status.problems == ("real-alexnet: its trace docs/traces/rank1.json.gz is not there",
                               "real-alexnet: its trace docs/traces/rank2.json.gz is not there")


# TINY meant for CUDA, with a claim about the CPU: beside a GPU run it keeps a CPU run, on which that claim is checked.
ABOUT_THE_CPU = Claim("page.md", "The region encloses its ops.", CpuShare("aten::mm", "matmul_bias", self_time=False),
                      at_least=0, at_most=1, device="cpu")
TINY_FOR_CUDA = dataclasses.replace(TINY, device="cuda", claims=(ABOUT_THE_CPU,))


@pytest.mark.slow
def test_a_cpu_machine_records_the_cpu_run_a_gpu_run_lacks_and_checks_the_cpu_claim_on_it(project):
    generated = project / "docs" / "generated"
    launch.record(TINY_FOR_CUDA, "cpu", project, generated)  # the CPU stand-in
    pretend_recorded_on_cuda(generated / TINY.id)  # as if a GPU box's recording had been copied over it
    statuses, _ = run_build(project, [TINY_FOR_CUDA], check=True)
    assert f"{TINY.id}: its CPU run (cpu/), on which its claims about the CPU are checked, is missing: " \
           "`make figures` records it" in statuses[TINY.id].problems
    statuses, checks = run_build(project, [TINY_FOR_CUDA], refresh=True, gpus=0)
    assert statuses[TINY.id].action.endswith("CPU run recorded") and statuses[TINY.id].problems == ()
    assert json.loads((generated / TINY.id / "cpu" / "meta.json").read_text())["device"] == "cpu"
    assert json.loads((generated / TINY.id / "meta.json").read_text())["device"] == "cuda"  # the GPU run stays
    assert [(c.outcome, c.device) for c in checks] == [("holds", "cpu")]
