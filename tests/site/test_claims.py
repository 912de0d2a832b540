"""profguide.site.claims: each measure on traces where the answer is known, and what a check concludes."""

import dataclasses
from types import SimpleNamespace

import pytest

from profguide.site import claims
from profguide.site.catalogue import RECORDINGS
from profguide.site.recordings import (
    Claim,
    CpuShare,
    DeviceShare,
    Encloses,
    FirstOverRest,
    GpuBusyShare,
    OutsideOps,
    SlowestOverFastest,
    StepCount,
    StepNumber,
    SyncOverKernels,
)
from tests.helpers import ROOT, TINY, make_trace
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu


def data(*events, rows=(), device="cpu"):
    return SimpleNamespace(trace=make_trace(*events), rows=list(rows), meta={"device": device})


def steps(*durations):
    start, events = 0, []
    for number, duration in enumerate(durations):
        events.append(cpu(f"ProfilerStep#{number + 2}", start, duration, kind="annotation"))
        start += duration
    return events


def test_first_over_rest_and_the_spread_of_steps():
    found = data(*steps(90, 30, 20, 45))
    assert claims.measured(FirstOverRest("ProfilerStep"), found) == 2
    assert claims.measured(SlowestOverFastest("ProfilerStep"), found) == 4.5
    assert claims.measured(StepCount(), found) == 4
    assert (claims.measured(StepNumber("first"), found), claims.measured(StepNumber("last"), found)) == (2, 5)


def test_first_over_rest_of_a_named_region_and_what_cannot_be_measured():
    found = data(cpu("region", 0, 100, kind="annotation"), cpu("region", 200, 10, kind="annotation"),
                 cpu("region", 300, 25, kind="annotation"))
    assert claims.measured(FirstOverRest("region"), found) == 4
    assert claims.measured(FirstOverRest("absent"), found) is None
    assert claims.measured(FirstOverRest("region"), data(cpu("region", 0, 1, kind="annotation"))) is None


def test_outside_ops_counts_the_later_calls_only():
    found = data(cpu("region", 0, 100, kind="annotation"), cpu("aten::mm", 10, 10),
                 cpu("region", 200, 40, kind="annotation"), cpu("aten::mm", 205, 10), cpu("aten::add", 220, 10),
                 cpu("region", 300, 60, kind="annotation"), cpu("aten::mm", 310, 30), cpu("aten::t", 315, 5))
    # Later calls: 40 µs with 20 in ops, 60 µs with 30 in ops (the nested aten::t is inside aten::mm).
    assert claims.measured(OutsideOps("region"), found) == pytest.approx(0.5)


ROWS = [{"name": "region", "self_cpu_us": 30, "cpu_total_us": 100},
        {"name": "aten::mm", "self_cpu_us": 60, "cpu_total_us": 65}]


def test_cpu_share_from_the_summary_rows():
    found = data(cpu("x", 0, 1), rows=ROWS)
    assert claims.measured(CpuShare("aten::mm", "region"), found) == 0.6
    assert claims.measured(CpuShare("aten::mm", "region", self_time=False), found) == 0.65
    assert claims.measured(CpuShare("aten::nothing", "region"), found) is None


def test_device_share_joins_kernels_to_their_op_by_external_id():
    found = data(cpu("aten::mm", 0, 5, external_id=1), cpu("aten::add", 6, 5, external_id=2),
                 gpu("gemm", 10, 90, external_id=1), gpu("add_kernel", 100, 10, external_id=2))
    assert claims.measured(DeviceShare("aten::mm"), found) == pytest.approx(0.9)
    assert claims.measured(DeviceShare("aten::mm"), data(cpu("aten::mm", 0, 5))) is None


def test_encloses():
    found = data(cpu("outer", 0, 100), cpu("inner", 10, 10), cpu("later", 150, 10))
    assert claims.measured(Encloses("outer", "inner"), found) == 1
    assert claims.measured(Encloses("outer", "later"), found) == 0


def test_gpu_busy_share_and_the_sync_against_the_kernels():
    found = data(cpu("cudaLaunchKernel", 0, 2, kind="runtime", correlation=1),
                 cpu("cudaDeviceSynchronize", 3, 80, kind="runtime"),
                 gpu("gemm", 10, 40, correlation=1), gpu("gemm", 70, 10))
    assert claims.measured(GpuBusyShare(), found) == pytest.approx(50 / 70)
    assert claims.measured(SyncOverKernels(), found) == pytest.approx(80 / 50)
    assert claims.measured(GpuBusyShare(), data(cpu("aten::mm", 0, 5))) is None


def test_every_measure_has_a_way_to_be_taken():
    kinds = {type(claim.measure) for recording in RECORDINGS for claim in recording.claims}
    assert kinds <= set(claims.MEASURES)


def check_page(tmp_path, claim, text, found, device="cpu"):
    (tmp_path / "page.md").write_text(text)
    found.meta["device"] = device
    return claims.check(dataclasses.replace(TINY, claims=(claim,)), found, tmp_path)[0]


def test_a_check_holds_fails_waits_for_its_device_or_misses_its_page(tmp_path):
    claim = Claim("page.md", "the first step is by far the slowest", FirstOverRest("ProfilerStep"), at_least=2)
    page = "In this run\nthe first step is by far\nthe slowest.\n"  # line breaks do not matter
    assert check_page(tmp_path, claim, page, data(*steps(90, 30))).outcome == claims.HOLDS
    failing = check_page(tmp_path, claim, page, data(*steps(50, 30)))
    assert failing.outcome == claims.FAILS
    assert failing.line() == ('page.md says "the first step is by far the slowest" of tiny-matmul: first '
                              "ProfilerStep / slowest later ProfilerStep = 1.67, must be ≥ 2: fails")
    on_gpu = dataclasses.replace(claim, device="cuda")
    waiting = check_page(tmp_path, on_gpu, page, data(*steps(50, 30)))
    assert waiting.outcome == claims.NOT_CHECKED and claims.failed([waiting]) == []
    assert waiting.line().endswith("about cuda runs, not checked on this cpu recording")
    missing = check_page(tmp_path, claim, "Nothing here.\n", data(*steps(90, 30)))
    assert missing.outcome == claims.NOT_ON_PAGE and claims.failed([missing]) == [missing]


def test_a_value_that_cannot_be_measured_fails():
    claim = Claim("page.md", "x", StepCount(), at_least=1)
    assert not claims.holds(claim, None) and not claims.holds(claim, float("nan"))
    assert claims.holds(dataclasses.replace(claim, at_most=3), 2) and not claims.holds(claim, 0)


def test_every_claim_quotes_a_page_that_says_it():
    for recording in RECORDINGS:
        for claim in recording.claims:
            text = claims.normalised((ROOT / "docs" / claim.page).read_text())
            assert claims.normalised(claim.says) in text, (recording.id, claim.says)
            assert claim.at_least is not None or claim.at_most is not None


def test_the_claims_table_lists_each_claim_with_its_value(tmp_path):
    claim = Claim("basics/steps.md", "the first | step", FirstOverRest("ProfilerStep"), at_least=2)
    (tmp_path / "basics").mkdir()
    (tmp_path / "basics" / "steps.md").write_text("the first | step\n")
    found = data(*steps(90, 30))
    table = claims.claims_table(claims.check(dataclasses.replace(TINY, claims=(claim,)), found, tmp_path))
    assert ("| [basics/steps](../basics/steps.md) | the first &#124; step | `tiny-matmul` | first ProfilerStep "
            "/ slowest later ProfilerStep = 3 | ≥ 2 | ✓ holds |") in table
