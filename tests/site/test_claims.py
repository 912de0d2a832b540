"""profguide.site.claims: what a check concludes, the claims table, the strings a claim may name. Each measure's
known answers are rows of the tables in tests/site/measures."""

import dataclasses
from types import SimpleNamespace

import pytest

from profguide.errors import RecordingError
from profguide.site import claims, marks
from profguide.site.catalogue import REAL_TRACES, RECORDINGS
from profguide.site.data import RealTraceData, RecordingData
from profguide.site.measures import every_kind
from profguide.site.measures.kernels import KernelsInside
from profguide.site.measures.results import StackTime
from profguide.site.measures.summary import DiffRows, DiffValue, RuleFixed
from profguide.site.measures.timing import FirstOverRest, OpMedianOver, StepCount
from profguide.site.recordings import Claim, Measure
from tests.helpers import ROOT, TINY, Results, make_trace
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.site.measures import steps
from tests.site.measures.test_summary import WITH_WORKERS


def data(*events, device="cpu"):
    meta = {"device": device, "recording": "tiny-matmul", "device_name": "a test CPU", "torch": "2.13.0",
            "recorded_at": "2026-12-01T00:00:00"}
    return SimpleNamespace(trace=make_trace(*events), meta=meta)


def test_every_kind_of_measure_is_a_dataclass_with_its_own_value_and_words_and_some_claim_takes_it():
    kinds = set(every_kind())
    assert len(kinds) > 90
    assert all(dataclasses.is_dataclass(kind) for kind in kinds)
    assert all(kind.value is not Measure.value and kind.describe is not Measure.describe for kind in kinds)
    used = {type(claim.measure) for recording in (*RECORDINGS, *REAL_TRACES) for claim in recording.claims}
    assert kinds - used == set()


def check_page(tmp_path, claim, text, found, device="cpu"):
    (tmp_path / "page.md").write_text(text)
    found.meta["device"] = device
    return claims.check(dataclasses.replace(TINY, claims=(claim,)), found, tmp_path)[0]


def test_a_check_holds_fails_waits_for_its_device_or_misses_its_page(tmp_path):
    claim = Claim("page.md", "the first step is by far the slowest", FirstOverRest("ProfilerStep"), at_least=2)
    page = "In this run\n[the first step is by far\nthe slowest]{.claim}.\n"  # line breaks do not matter
    assert check_page(tmp_path, claim, page, data(*steps(90, 30))).outcome == claims.HOLDS
    failing = check_page(tmp_path, claim, page, data(*steps(50, 30)))
    assert failing.outcome == claims.FAILS
    assert failing.line() == ('page.md says "the first step is by far the slowest" of tiny-matmul: first '
                              "ProfilerStep / slowest later ProfilerStep = 1.67, must be ≥ 2: fails")
    on_gpu = dataclasses.replace(claim, device="cuda")
    standin = data(*steps(50, 30))
    standin.meta["cpu_standin"] = True  # tests/site/test_claim_devices.py checks every other pairing of devices
    waiting = check_page(tmp_path, on_gpu, page, standin)
    assert waiting.outcome == claims.WAITS and claims.failed([waiting]) == []
    assert waiting.line().endswith("about cuda runs, waiting for one beside this cpu stand-in")
    missing = check_page(tmp_path, claim, "Nothing here.\n", data(*steps(90, 30)))
    assert missing.outcome == claims.NOT_ON_PAGE and claims.failed([missing]) == [missing]
    unmarked = check_page(tmp_path, claim, page.replace("[", "").replace("]{.claim}", ""), data(*steps(90, 30)))
    assert unmarked.outcome == claims.NOT_ON_PAGE  # said, but not marked as checked


def test_a_value_that_cannot_be_measured_fails():
    claim = Claim("page.md", "x", StepCount(), at_least=1)
    assert not claims.holds(claim, None) and not claims.holds(claim, float("nan"))
    assert claims.holds(dataclasses.replace(claim, at_most=3), 2) and not claims.holds(claim, 0)


def test_every_claim_quotes_a_mark_on_its_page_and_bounds_its_value_on_both_sides():
    """Words hold over a range: "most" is not "nearly all", "more than a tenth" is not 88%. A claim open on one
    side would let a refresh change the magnitude the words describe without failing."""
    for recording in (*RECORDINGS, *REAL_TRACES):
        for claim in recording.claims:
            words = marks.marked((ROOT / "docs" / claim.page).read_text())
            assert any(marks.holds_words(marked, claim.says) for marked in words), (recording.id, claim.says)
            assert claim.at_least is not None and claim.at_most is not None, (recording.id, claim.says)
            assert claim.at_least <= claim.at_most, (recording.id, claim.says)


def test_the_claims_table_lists_each_claim_with_its_value(tmp_path):
    claim = Claim("basics/steps.md", "the first | step", FirstOverRest("ProfilerStep"), at_least=2)
    (tmp_path / "basics").mkdir()
    (tmp_path / "basics" / "steps.md").write_text("[the first | step]{.claim}\n")
    found = data(*steps(90, 30))
    table = claims.claims_table(claims.check(dataclasses.replace(TINY, claims=(claim,)), found, tmp_path))
    assert ("| [basics/steps](../basics/steps.md#claim-tiny-matmul-1) | the first &#124; step "
            "| <code>tiny-matmul</code> | first ProfilerStep / slowest later ProfilerStep = 3 "
            "| ≥ 2 | ✓ holds |") in table


def test_a_part_of_a_name_in_another_case_than_the_traces_is_a_misspelling():
    # KernelsInside matches its part of a name as written: "memcpy dtod" finds no copy in a trace whose copies are
    # "Memcpy DtoD (Device -> Device)", so "the clone launches no memcpy dtod" would hold. The check refuses it.
    found = data(cpu("aten::clone", 0, 20), cpu("cudaMemcpyAsync", 5, 5, kind="runtime", correlation=1),
                 gpu("Memcpy DtoD (Device -> Device)", 10, 4, kind="memcpy", correlation=1), device="cuda")
    names = claims.run_names([found])
    wrong, right = KernelsInside(op="aten::clone", named="memcpy dtod"), KernelsInside(op="aten::clone",
                                                                                       named="Memcpy DtoD")
    assert claims.measured(wrong, found) == 0 and claims.measured(right, found) == 1
    assert claims.unknown_strings(wrong, found, lambda: [names]) == [("named", "memcpy dtod", "name part", None)]
    assert claims.unknown_strings(right, found, lambda: [names]) == []


def test_a_stacks_frame_must_be_a_function_of_the_exported_stacks_by_its_whole_name():
    run = Results(found={"stacks": ["snippets/x.py(3):_main;snippets/x.py(9):_block;aten::mm 90",
                                    "snippets/x.py(3):_main 10"]})
    assert claims.allowed("python function", StackTime("block"), run) == {"main", "block", "aten::mm"}
    assert claims.allowed("python function", StackTime("block"), Results(found=None)) == set()
    assert claims.unknown_strings(StackTime("Block"), run, lambda: []) == [
        ("frame", "Block", "python function", {"main", "block", "aten::mm"})]


def test_a_real_trace_compares_its_ops_with_a_committed_recording_beside_its_fragments():
    generated = ROOT / "docs" / "generated"
    two = RealTraceData(next(real for real in REAL_TRACES if real.id == "reading-a100-2rank"), ROOT,
                        generated / "reading-a100-2rank")
    assert two.sibling("reading-footprint-cost").folder == generated / "reading-footprint-cost"
    assert claims.measured(OpMedianOver("aten::view", "reading-footprint-cost"), two) > 1  # slower on the A100 host


@pytest.mark.parametrize("measure", [DiffValue("step_us"), DiffRows("ops", "removed"),
                                     RuleFixed("dataloader-without-workers")], ids=lambda m: type(m).__name__)
def test_a_measure_of_a_diff_cannot_be_taken_on_a_run_compared_with_none(tmp_path, measure):
    alone = RecordingData.of(TINY, tmp_path, meta={"device": "cpu", "ranks": 1}, traces=(WITH_WORKERS,))
    with pytest.raises(RecordingError, match="is compared with no run"):
        claims.measured(measure, alone)


