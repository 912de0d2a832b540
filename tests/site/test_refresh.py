"""A GPU refresh simulated without a GPU: ``profguide build --refresh`` on a copy of the guide, each recording
process replaced by one that writes the GPU run the guide predicts (tests/site/gpu_runs.py). No claim may end
unchecked; a claim about the CPU is checked on the stand-in the refresh kept; a claim about CUDA on its
predicted run, with the answer worked out by hand; a misspelt name fails wherever it stands."""

import dataclasses
import io
import shutil

import pytest

from profguide.site import build, claims, launch, refresh
from profguide.site.catalogue import REAL_TRACES, RECORDINGS
from profguide.site.data import RealTraceData, RecordingData
from profguide.site.staleness import CPU_RUN, needs_cpu_run, read_meta
from tests.helpers import ROOT
from tests.site import gpu_runs

MEANT_FOR_CUDA = [recording for recording in RECORDINGS if recording.device == "cuda"]


class Finished:
    """A recording process that has already ended well (its files were written before it was started)."""

    pid = 0

    @staticmethod
    def poll():
        return 0


def predicted_ranks(recording, device, params, root, staging):
    """In place of ``launch.start_ranks``: each rank's folder holds what its process would have written on a
    GPU. A refresh records only GPU runs: every CPU run it needs is the stand-in it keeps."""
    assert device == "cuda", f"{recording.id}: recorded on {device}; the refresh should keep its CPU stand-in"
    started = []
    for rank in range(recording.ranks):
        folder = staging / f"rank{rank}"
        folder.mkdir()
        gpu_runs.write_rank(recording, rank, folder)
        started.append((Finished, folder, open(folder / "stderr.txt", "w+")))  # noqa: SIM115 - stop_ranks closes it
    return started


def guide_copy(root):
    """What the build reads of the guide: its pages, recordings and real traces, snippets and benchmark results."""
    for folder in ("docs", "snippets", "benchmarks"):
        shutil.copytree(ROOT / folder, root / folder, ignore=shutil.ignore_patterns("__pycache__"))
    return root


@pytest.fixture(scope="module")
def before(tmp_path_factory):
    """The claims as the committed recordings check them."""
    return build.build(RECORDINGS, ROOT, check=True, real_traces=REAL_TRACES, stream=io.StringIO())[1]


@pytest.fixture(scope="module")
def refreshed(tmp_path_factory):
    """A copy of the guide after ``build --refresh`` on a machine with eight GPUs: (its root, the statuses, the
    checks)."""
    root = guide_copy(tmp_path_factory.mktemp("refreshed"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(launch, "start_ranks", predicted_ranks)
        patch.setattr(launch, "gpu_count", lambda: 8)
        statuses, checks = build.build(RECORDINGS, root, refresh=True, gpus=8, real_traces=REAL_TRACES,
                                       stream=io.StringIO())
    return root, statuses, checks


def test_the_refresh_records_every_stand_in_on_the_gpu_and_keeps_it_where_a_claim_is_about_the_cpu(refreshed):
    root, _, _ = refreshed
    generated = root / "docs" / "generated"
    for recording in MEANT_FOR_CUDA:
        meta = read_meta(generated / recording.id)
        assert (meta["device"], meta["device_name"]) == ("cuda", gpu_runs.DEVICE), recording.id
        kept = generated / recording.id / CPU_RUN
        assert kept.is_dir() == needs_cpu_run(recording), recording.id
        if kept.is_dir():  # the stand-in as it was committed, file for file
            committed = ROOT / "docs" / "generated" / recording.id
            assert read_meta(kept) == read_meta(committed), recording.id
            for name in launch.recording_files(read_meta(kept)):
                assert (kept / name).read_bytes() == (committed / name).read_bytes(), (recording.id, name)


def test_after_the_refresh_no_claim_waits_or_goes_unchecked(refreshed):
    _, _, checks = refreshed
    unchecked = [c.line() for c in checks if c.outcome in (claims.WAITS, claims.NOT_CHECKED, claims.NOT_ON_PAGE)]
    assert unchecked == []
    assert len(checks) == sum(len(run.claims) for run in (*RECORDINGS, *REAL_TRACES))
    # A claim about no device in particular is checked on the run the page shows: on a plain predicted run, one
    # that names a region of its snippet names what that run lacks, and fails saying so.
    assert all(c.claim.device is None for c in checks if c.outcome == claims.MISNAMED)


def test_every_claim_about_the_cpu_holds_as_before_on_the_stand_in_the_refresh_kept(refreshed, before):
    _, _, checks = refreshed
    committed = {c.anchor: c for c in before}
    about_the_cpu = [c for c in checks if c.claim.device == "cpu"]
    assert about_the_cpu and all(c.device == "cpu" for c in about_the_cpu)
    assert [(c.anchor, c.outcome, c.value) for c in about_the_cpu] == [
        (c.anchor, committed[c.anchor].outcome, committed[c.anchor].value) for c in about_the_cpu]


def test_every_claim_about_cuda_measures_its_known_answer_on_the_predicted_run(refreshed):
    _, _, checks = refreshed
    about_cuda = [c for c in checks if c.claim.device == "cuda"]
    answers = {(recording_id, says): value for recording_id, run in gpu_runs.PREDICTIONS.items()
               for says, value in run.answers.items()}
    missing = [(c.recording, c.claim.says) for c in about_cuda if (c.recording, c.claim.says) not in answers]
    assert missing == [], "every claim about CUDA runs needs its answer in tests/site/gpu_runs.py"
    for c in about_cuda:
        assert c.value == pytest.approx(answers[c.recording, c.claim.says]), c.line()
        assert c.outcome == claims.HOLDS, c.line()
    said = {(c.recording, c.claim.says) for c in about_cuda}
    assert set(answers) <= said, "an answer in tests/site/gpu_runs.py for a claim the guide no longer makes"


def test_the_refresh_checks_more_claims_than_before_and_its_report_says_so(refreshed, before):
    _, _, checks = refreshed
    earlier, later = refresh.counts_of(before), refresh.counts_of(checks)
    text, refused = refresh.report(earlier, later)
    assert earlier["waiting"] > 0 and later["waiting"] == 0 and later["claims"] == earlier["claims"]
    assert f"| waiting for a GPU run | {earlier['waiting']} | 0 |" in text
    waited = {c.anchor for c in before if c.outcome == claims.WAITS}
    assert {c.outcome for c in checks if c.anchor in waited} == {claims.HOLDS}  # each on its known answer
    # Claims about no device in particular are measured on the plain predicted runs, which no page describes:
    # those that no longer hold are named, and the refresh refused.
    failing = claims.failed(checks)
    assert bool(refused) == bool(failing)
    assert all(f'"{c.claim.says}" {c.outcome}' in text for c in failing)


def test_a_claim_whose_run_of_its_device_is_gone_fails_the_build_in_one_line(refreshed):
    root, _, _ = refreshed
    recording = next(r for r in MEANT_FOR_CUDA if needs_cpu_run(r))
    aside = root / "kept-aside"
    shutil.move(root / "docs" / "generated" / recording.id / CPU_RUN, aside)
    try:
        statuses, _ = build.build([recording], root, check=True, stream=io.StringIO())
    finally:
        shutil.move(aside, root / "docs" / "generated" / recording.id / CPU_RUN)
    problems = next(s for s in statuses if s.id == recording.id).problems
    about_the_cpu = [c for c in recording.claims if c.device == "cpu"]
    lines = [line for line in problems if line.startswith("claim ") and "about CPU runs" in line]
    assert len(lines) == len(about_the_cpu)
    for claim, line in zip(about_the_cpu, lines, strict=True):
        assert line.count("\n") == 0 and claim.page in line and f'"{claim.says}"' in line
        assert line.endswith("record that (`make figures` records what is missing), or reword the claim for cuda "
                             "runs")
    assert any(line.startswith(f"{recording.id}: its CPU run") for line in problems)


def misspelt(value):
    """``value`` with a letter doubled and one put in before its end: no name of any run, trace or set."""
    return value[:-1] + "qq" + value[-1]


def misspellings(claim):
    """The claim with each string of its measure misspelt in turn: [(field, the misspelt claim)]."""
    found = []
    for name, value, _ in claims.strings_of(claim.measure):
        held = getattr(claim.measure, name)
        wrong = tuple(misspelt(one) if one == value else one for one in held) if isinstance(held, tuple) \
            else misspelt(value)
        found.append((f"{name}={value}", dataclasses.replace(claim, measure=dataclasses.replace(claim.measure,
                                                                                              **{name: wrong}))))
    return found


def test_misspelling_any_name_of_any_claim_fails_it(refreshed):
    root, _, _ = refreshed
    generated, vocabulary = root / "docs" / "generated", claims.vocabulary(root)
    runs = [(recording, RecordingData(recording, generated / recording.id)) for recording in RECORDINGS]
    runs += [(real, RealTraceData(real, root, generated / real.id)) for real in REAL_TRACES]
    holding = []
    for run, data in runs:
        for claim in run.claims:
            for name, wrong in misspellings(claim):
                found = claims.check(dataclasses.replace(run, claims=(wrong,)), data, root / "docs", vocabulary)[0]
                if found.outcome not in claims.FAILING:
                    holding.append(f"{run.id}: {claim.says!r} with {name} misspelt: {found.outcome}")
    assert holding == []
