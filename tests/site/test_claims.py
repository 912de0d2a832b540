"""profguide.site.claims: each measure on traces where the answer is known, and what a check concludes."""

import dataclasses
import json
from types import SimpleNamespace

import pytest

from profguide.analysis.diff import side_of, trace_diff
from profguide.analysis.summarise import summarise
from profguide.errors import RecordingError
from profguide.site import claims, marks
from profguide.site.catalogue import REAL_TRACES, RECORDINGS, by_id
from profguide.site.data import RealTraceData, RecordingData
from profguide.site.measures import Measure, every_kind
from profguide.site.measures.communication import (
    BackendOutsideCall,
    CollectivesPerStep,
    CommStreamShare,
    CommunicationByCall,
    CommunicationExposed,
    CommunicationHidden,
    CommunicationKernelNamed,
    EnclosedShare,
    LargestBucketShare,
    RanksLineUp,
    RanksNamed,
    StragglerIs,
    StragglerWait,
)
from profguide.site.measures.compile import CallsThatCompile, CompileMarker, CompileShare
from profguide.site.measures.host import (
    LaunchedBy,
    LaunchGap,
    LongestSyncAfterSteps,
    OccupancyQueries,
    OverheadEvents,
    QueriesInside,
    QueueingOverLaunch,
    RankHostShare,
    SyncInsideStep,
    SyncOverKernels,
    SyncOverStep,
    SyncsPerStep,
)
from profguide.site.measures.kernels import (
    BusiestGemmSpread,
    DeviceShare,
    GpuBusyShare,
    KernelsInside,
    KernelsJoined,
    KernelSpread,
    MeanOverMedian,
    PeakShare,
)
from profguide.site.measures.memory import FreedInside, FreesInRegion
from profguide.site.measures.ops import (
    BackwardOverForward,
    KernelsPerCall,
    ModuleShare,
    NamedInRegion,
    OpsInRegion,
    OpsWithShapes,
    PythonCallsInRegion,
    RegionCount,
    RegionShare,
)
from profguide.site.measures.results import ColumnShare, CpuShare, RowValue, StackTime, TableRows, table_row_names
from profguide.site.measures.summary import (
    DeviceSetupCall,
    DeviceSetupShare,
    DiffRowRatio,
    DiffRows,
    DiffValue,
    ExplainBusyShare,
    IdleBelowHtas,
    IdleShare,
    RuleFixed,
)
from profguide.site.measures.timing import (
    Encloses,
    FirstOverMedian,
    FirstOverRest,
    MedianStepRatio,
    OpMedianInRegions,
    OpMedianOver,
    OpOverKernelMedian,
    OutsideOps,
    RegionTimeRatio,
    SelfTimeRatio,
    SlowestOverFastest,
    StepCount,
    StepNumber,
)
from profguide.site.recordings import Claim
from tests.helpers import ROOT, TINY, Results, make_trace
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu


def data(*events, rows=(), device="cpu"):
    meta = {"device": device, "recording": "tiny-matmul", "device_name": "a test CPU", "torch": "2.13.0",
            "recorded_at": "2026-12-01T00:00:00"}
    return SimpleNamespace(trace=make_trace(*events), rows=list(rows), meta=meta)


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


def test_explain_busy_share_leaves_out_the_ops_of_the_last_step_as_explain_does():
    found = data(cpu("ProfilerStep#1", 0, 50, kind="annotation"),
                 cpu("cudaLaunchKernel", 1, 2, kind="runtime", correlation=1),
                 cpu("cudaLaunchKernel", 4, 2, kind="runtime", correlation=2),
                 cpu("ProfilerStep#2", 50, 50, kind="annotation"),
                 cpu("cudaLaunchKernel", 52, 2, kind="runtime", correlation=3),
                 gpu("gemm", 10, 10, correlation=1), gpu("gemm", 30, 30, correlation=2),
                 gpu("gemm", 80, 20, correlation=3))
    found.summary = summarise(found.trace)
    # The last step's kernel (80 to 100) is left out: 40 µs busy from 10 to 60, where the whole GPU window has 60
    # of 90.
    assert claims.measured(ExplainBusyShare(), found) == pytest.approx(40 / 50)
    assert claims.measured(GpuBusyShare(), found) == pytest.approx(60 / 90)
    cpu_only = data(cpu("aten::mm", 0, 5))
    cpu_only.summary = summarise(cpu_only.trace)
    assert claims.measured(ExplainBusyShare(), cpu_only) is None


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


def launch(correlation, ts, dur):
    return cpu("cudaLaunchKernel", ts, dur, kind="runtime", correlation=correlation)


def test_idle_share_by_cause_and_queueing_against_launch_delay():
    # Kernel 1 starts 8 µs after its launch, on an empty stream; kernel 2 was launched at 8 µs, before kernel 1
    # ended, and waits until 40 µs: 32 µs of queueing, and the 20 µs gap before it has its op already queued.
    found = data(launch(1, 0, 2), launch(2, 5, 3), gpu("k", 10, 10, correlation=1), gpu("k", 40, 10, correlation=2))
    assert claims.measured(IdleShare("queued"), found) == pytest.approx(20 / 40)
    assert claims.measured(IdleShare("host"), found) == 0
    assert claims.measured(QueueingOverLaunch(), found) == pytest.approx(32 / 8)
    # Launched late instead: the gap is the host's, and nothing queued.
    late = data(launch(1, 0, 2), launch(2, 30, 5), gpu("k", 10, 10, correlation=1), gpu("k", 40, 10, correlation=2))
    assert claims.measured(IdleShare("host"), late) == pytest.approx(20 / 40)
    assert claims.measured(QueueingOverLaunch(), late) is None
    assert claims.measured(IdleShare("host"), data(cpu("aten::mm", 0, 5))) is None


def test_launch_gap_in_microseconds_and_over_the_median_step():
    # As above: kernel 1 meets an empty stream 8 µs after its launch ends, kernel 2 queues 32 µs; one step of 80 µs.
    found = data(cpu("ProfilerStep#1", 0, 80, kind="annotation"), launch(1, 0, 2), launch(2, 5, 3),
                 gpu("k", 10, 10, correlation=1), gpu("k", 40, 10, correlation=2))
    assert claims.measured(LaunchGap("launch delay"), found) == pytest.approx(8)
    assert claims.measured(LaunchGap("queueing"), found) == pytest.approx(32)
    assert claims.measured(LaunchGap("queueing", per_step=True), found) == pytest.approx(32 / 80)
    assert claims.measured(LaunchGap("queueing"), data(launch(1, 0, 2), gpu("k", 10, 10, correlation=1))) is None


def test_op_over_kernel_median_sets_host_and_gpu_times_of_one_trace_side_by_side():
    found = data(cpu("aten::view", 0, 30), cpu("aten::view", 40, 10), cpu("aten::view", 60, 20),
                 gpu("k", 0, 5), gpu("k", 10, 10), gpu("k", 30, 40))
    assert claims.measured(OpOverKernelMedian("aten::view"), found) == pytest.approx(20 / 10)
    assert claims.measured(OpOverKernelMedian("aten::view"), data(cpu("aten::view", 0, 30))) is None


def test_busiest_gemm_spread_reads_the_calls_of_one_multiply_on_one_shape():
    dims = {"Input Dims": [[64, 64], [64, 64]], "Input type": ["float", "float"]}
    small = {"Input Dims": [[8, 8], [8, 8]], "Input type": ["float", "float"]}
    # Three calls of one shape (10, 10 and 12 µs of kernels, the last in two kernels) and a smaller shape whose
    # single slow call would spread far more, but holds less kernel time.
    found = data(cpu("aten::mm", 0, 5, external_id=1, **dims), gpu("gemm", 10, 10, external_id=1),
                 cpu("aten::mm", 20, 5, external_id=2, **dims), gpu("gemm", 30, 10, external_id=2),
                 cpu("aten::mm", 40, 5, external_id=3, **dims), gpu("gemm", 50, 6, external_id=3),
                 gpu("reduce", 56, 6, external_id=3),
                 cpu("aten::mm", 70, 5, external_id=4, **small), gpu("gemm", 80, 1, external_id=4),
                 cpu("aten::mm", 90, 5, external_id=5, **small), gpu("gemm", 100, 9, external_id=5))
    assert claims.measured(BusiestGemmSpread("max"), found) == pytest.approx(12 / 10)
    assert claims.measured(BusiestGemmSpread("max"), data(cpu("aten::mm", 0, 5, **dims))) is None


def test_device_setup_call_shares_the_set_up_time_among_its_calls():
    found = data(cpu("cudaFree", 0, 60, kind="runtime"), cpu("cudaMalloc", 60, 20, kind="runtime"),
                 launch(1, 80, 2), gpu("k", 90, 10, correlation=1))
    found.summary = summarise(found.trace, (0, 100))
    assert claims.measured(DeviceSetupCall("cudaFree"), found) == pytest.approx(60 / 80)
    assert claims.measured(DeviceSetupCall("cudaMalloc"), found) == pytest.approx(20 / 80)
    assert claims.measured(DeviceSetupCall("cudaStreamCreate"), found) is None


def test_device_setup_call_is_a_share_of_the_union_of_set_up_time_when_calls_overlap_on_two_threads():
    # In the window 0 to 100 µs, thread 1 is in cudaMalloc from 0 to 60 and in cudaFree from 60 to 80; thread 2
    # is in cudaMalloc from 30 to 90. Some set-up call runs from 0 to 90: 90 µs. cudaMalloc runs (on one thread
    # or both) from 0 to 90 too: all of it, not 120 µs of 90; cudaFree 20 of them.
    found = data(cpu("cudaMalloc", 0, 60, kind="runtime"), cpu("cudaFree", 60, 20, kind="runtime"),
                 cpu("cudaMalloc", 30, 60, kind="runtime", tid=2), launch(1, 95, 2), gpu("k", 97, 3, correlation=1))
    found.summary = summarise(found.trace, (0, 100))
    assert found.summary["device_setup"]["us"] == pytest.approx(90)
    assert claims.measured(DeviceSetupCall("cudaMalloc"), found) == pytest.approx(1)
    assert claims.measured(DeviceSetupCall("cudaFree"), found) == pytest.approx(20 / 90)


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


def test_syncs_in_each_step_and_the_longest_against_a_step():
    sync = "cudaStreamSynchronize"
    found = data(*steps(100, 100, 120), cpu(sync, 10, 5, kind="runtime"), cpu(sync, 20, 5, kind="runtime"),
                 cpu(sync, 150, 50, kind="runtime"), cpu(sync, 250, 1, kind="runtime"))
    assert claims.measured(SyncsPerStep(), found) == 1
    assert claims.measured(SyncOverStep(), found) == pytest.approx(50 / 100)
    assert claims.measured(SyncsPerStep(), data(*steps(100, 100), cpu(sync, 10, 5, kind="runtime"))) == 0
    assert claims.measured(SyncOverStep(), data(*steps(100))) is None


def test_mean_over_median_of_the_top_kernel():
    found = data(*(gpu("k", 10 * i, 1) for i in range(3)), gpu("k", 40, 9), gpu("small", 60, 1))
    assert claims.measured(MeanOverMedian(), found) == pytest.approx(3)
    assert claims.measured(MeanOverMedian(), data(cpu("aten::mm", 0, 5))) is None


def test_peak_share_of_the_largest_multiply_against_the_datasheet():
    dims = {"Input Dims": [[1000, 1000], [1000, 1000]], "Input type": ["float", "float"]}
    events = (cpu("aten::mm", 0, 5, external_id=1, **dims), gpu("gemm", 10, 200, external_id=1))
    # 2 × 1000³ FLOPs in 200 µs: 10 TFLOP/s, against the A100's 19.5 TFLOP/s for FP32.
    on_a100 = SimpleNamespace(trace=make_trace(*events, deviceProperties=[{"name": "NVIDIA A100-SXM4-80GB"}]))
    assert claims.measured(PeakShare(), on_a100) == pytest.approx(10 / 19.5)
    unknown = SimpleNamespace(trace=make_trace(*events, deviceProperties=[{"name": "Some GPU"}]))
    assert claims.measured(PeakShare(), unknown) is None
    assert claims.measured(PeakShare(), data(cpu("aten::mm", 0, 5))) is None


def test_row_values_and_column_shares_come_from_the_summary_rows():
    rows = [{"name": "forward", "count": 3, "self_cpu_memory_bytes": -512, "device_total_us": 0.0},
            {"name": "aten::linear", "count": 6, "self_cpu_memory_bytes": 0, "device_total_us": 40.0},
            {"name": "aten::addmm", "count": 6, "self_cpu_memory_bytes": 2048, "device_total_us": 40.0}]
    found = data(cpu("forward", 0, 10, kind="annotation"), rows=rows)
    assert claims.measured(RowValue("forward", "count"), found) == 3
    assert claims.measured(RowValue("forward", "self_cpu_memory_bytes"), found) == -512
    assert claims.measured(RowValue("absent", "count"), found) is None
    assert claims.measured(RowValue("forward", "no_such_column"), found) is None
    assert claims.measured(ColumnShare("aten::linear", "aten::addmm", "device_total_us"), found) == 1
    assert claims.measured(ColumnShare("aten::linear", "forward", "device_total_us"), found) is None  # divide by 0


def test_table_rows_count_a_name_in_an_extra_table(tmp_path):
    table = ("-----------  ------------\n"
             "       Name    # of Calls\n"
             "-----------  ------------\n"
             "aten::addmm             2\n"
             "                          \n"
             " aten::mm_x             1\n"
             "aten::addmm             1\n"
             "-----------  ------------\n"
             "Self CPU time total: 1ms\n")
    (tmp_path / "table-by-shape.txt").write_text(table)
    found = SimpleNamespace(folder=tmp_path)
    assert table_row_names(table) == ["aten::addmm", "aten::mm_x", "aten::addmm"]
    assert claims.measured(TableRows("by-shape", "aten::addmm"), found) == 2
    assert claims.measured(TableRows("by-stack", "aten::addmm"), found) is None  # no such table


def test_ops_in_a_region_and_occupancy_queries_before_launches():
    found = data(cpu("case", 0, 100, kind="annotation"), cpu("aten::matmul", 10, 40), cpu("aten::bmm", 12, 30),
                 cpu("cudaOccupancyMaxActiveBlocksPerMultiprocessor", 14, 1, kind="runtime"),
                 cpu("cudaLaunchKernel", 16, 4, kind="runtime", correlation=1),
                 cpu("cudaLaunchKernel", 60, 4, kind="runtime", correlation=2),
                 cpu("cudaLaunchKernel", 70, 4, kind="runtime", correlation=3),
                 gpu("cutlass_80_gemm", 20, 10, correlation=1), gpu("elementwise_kernel", 65, 2, correlation=2),
                 gpu("sm80_xmma_gemm_cudnn_infer", 75, 5, correlation=3))
    assert claims.measured(OpsInRegion("case", "aten::bmm"), found) == 1
    assert claims.measured(OpsInRegion("case", "aten::mm"), found) == 0
    assert claims.measured(OpsInRegion("absent", "aten::mm"), found) is None
    assert claims.measured(OccupancyQueries("gemm", "queries"), found) == 1
    assert claims.measured(OccupancyQueries("gemm", "launches"), found) == 0.5
    assert claims.measured(OccupancyQueries("gemm", "launches", name_contains="cudnn"), found) == 0
    assert claims.measured(OccupancyQueries("elementwise", "launches"), found) == 0
    assert claims.measured(OccupancyQueries("gemm", "queries"), data(cpu("aten::mm", 0, 5))) is None


def test_ops_in_a_region_under_another_op_count_only_those_it_encloses():
    found = data(cpu("case", 0, 100, kind="annotation"), cpu("aten::matmul", 10, 80),
                 cpu("aten::reshape", 12, 20), cpu("aten::copy_", 14, 10),
                 cpu("aten::mm", 40, 40), cpu("aten::clone", 42, 20), cpu("aten::copy_", 44, 10))
    assert claims.measured(OpsInRegion("case", "aten::copy_"), found) == 2
    assert claims.measured(OpsInRegion("case", "aten::copy_", under="aten::mm"), found) == 1
    assert claims.measured(OpsInRegion("case", "aten::copy_", under="aten::matmul"), found) == 2
    assert claims.measured(OpsInRegion("case", "aten::copy_", under="aten::clone"), found) == 1
    assert claims.measured(OpsInRegion("case", "aten::mm", under="aten::reshape"), found) == 0
    assert claims.measured(OpsInRegion("absent", "aten::copy_", under="aten::mm"), found) is None


def test_communication_hidden_over_the_trace_and_exposed_in_the_least_and_most_exposed_step():
    found = data(cpu("ProfilerStep#1", 0, 100, kind="annotation"), cpu("ProfilerStep#2", 100, 100, kind="annotation"),
                 gpu("gemm", 0, 50), gpu("ncclKernel_AllReduce", 25, 50, stream=20),
                 gpu("ncclKernel_AllReduce", 100, 10, stream=20))
    assert claims.measured(CommunicationHidden(), found) == pytest.approx(25 / 60)
    assert claims.measured(CommunicationExposed("least"), found) == pytest.approx(0.1)
    assert claims.measured(CommunicationExposed("most"), found) == pytest.approx(0.25)
    assert claims.measured(CommunicationHidden(), data(gpu("gemm", 0, 5))) is None
    assert claims.measured(CommunicationExposed("most"), data(gpu("gemm", 0, 5))) is None


def test_the_hidden_share_of_one_collectives_kernels_leaves_the_others_out():
    found = data(gpu("gemm", 0, 50), gpu("ncclKernel_AllReduce", 25, 50, stream=20),
                 gpu("ncclKernel_Broadcast", 100, 40, stream=20))
    assert claims.measured(CommunicationHidden(), found) == pytest.approx(25 / 90)
    assert claims.measured(CommunicationHidden("AllReduce"), found) == pytest.approx(25 / 50)
    assert claims.measured(CommunicationHidden("Broadcast"), found) == 0
    assert claims.measured(CommunicationHidden("AllGather"), found) is None


# What each measure of ranks and collectives gives on one rank that calls no collective, and why.
PART_THREE_MEASURES = [
    (RanksNamed(), 0.0),  # its one trace has no distributedInfo: none of its one rank names itself
    (BackendOutsideCall(), None),  # no backend op of an all_reduce, in a call or out of one
    (EnclosedShare("c10d::allreduce_", "AccumulateGrad"), None),  # no c10d::allreduce_ to be enclosed
    (CollectivesPerStep(), None),  # no ProfilerStep to count them in
    (CommStreamShare(), None),  # no communication kernel, so no stream of its own
    (StragglerIs(1), None),  # one rank is no job: no straggler,
    (StragglerWait(), None),  # no wait for one,
    (RanksLineUp(), None),  # and no ranks to line up
]


@pytest.mark.parametrize(("measure", "expected"), PART_THREE_MEASURES,
                         ids=[type(measure).__name__ for measure, _ in PART_THREE_MEASURES])
def test_what_each_measure_of_ranks_and_collectives_gives_on_one_rank_without_collectives(measure, expected):
    one = RecordingData.of(TINY, None, meta={"device": "cpu", "ranks": 1}, traces=(make_trace(cpu("aten::mm", 0, 5)),))
    assert claims.measured(measure, one) == expected  # == tells None (not measured) from 0.0


def test_the_straggler_is_one_rank_of_the_committed_straggler_recording():
    found = RecordingData(by_id("multigpu-straggler"), ROOT / "docs" / "generated" / "multigpu-straggler")
    assert sorted(claims.measured(StragglerIs(rank), found) for rank in (0, 1)) == [0.0, 1.0]
    assert 0 < claims.measured(StragglerWait(), found) <= 1


def test_queries_inside_counts_the_occupancy_queries_that_an_op_of_that_name_encloses_on_their_thread():
    query = "cudaOccupancyMaxActiveBlocksPerMultiprocessor"
    found = data(cpu("aten::cudnn_convolution", 0, 50), cpu(query, 10, 1, kind="runtime"),
                 cpu("aten::mm", 100, 20), cpu(f"{query}WithFlags", 105, 1, kind="runtime"),
                 cpu(query, 30, 1, kind="runtime", tid=2))
    # The third query lies inside the convolution's time but on another thread.
    assert claims.measured(QueriesInside("convolution"), found) == pytest.approx(1 / 3)
    assert claims.measured(QueriesInside("aten::mm"), found) == pytest.approx(1 / 3)
    assert claims.measured(QueriesInside("convolution"), data(cpu("aten::mm", 0, 5))) is None


def test_freed_inside_is_what_a_region_frees_between_its_ops_over_what_they_allocate():
    rows = [{"name": "forward", "cpu_memory_bytes": 0, "self_cpu_memory_bytes": -512,
             "device_memory_bytes": 256, "self_device_memory_bytes": -256},
            {"name": "aten::addmm", "cpu_memory_bytes": 512, "self_cpu_memory_bytes": 512}]
    found = data(cpu("forward", 0, 10, kind="annotation"), rows=rows)
    assert claims.measured(FreedInside("forward"), found) == 1
    assert claims.measured(FreedInside("forward", memory="device"), found) == 0.5
    assert claims.measured(FreedInside("aten::addmm"), found) is None  # its ops allocate nothing
    assert claims.measured(FreedInside("absent"), found) is None


def real_trace(trace_id, tmp_path):
    return RealTraceData(next(real for real in REAL_TRACES if real.id == trace_id), ROOT, tmp_path)


def test_communication_is_split_by_the_call_that_launched_it_not_by_the_kernels_name(tmp_path):
    sixteen = real_trace("multigpu-a100-16rank-overlap", tmp_path)
    assert claims.measured(CommunicationKernelNamed("ncclKernel_SendRecv"), sixteen) == 1
    reduced, exchanged = (claims.measured(CommunicationByCall(call), sixteen)
                          for call in ("nccl:all_reduce", "nccl:all_to_all"))
    assert reduced > exchanged > 0 and reduced + exchanged < 1  # kernels launched before the trace belong to neither
    two = real_trace("multigpu-a100-2rank-overlap", tmp_path)
    assert claims.measured(CommunicationKernelNamed("ncclKernel_SendRecv"), two) == 0
    assert claims.measured(CommunicationByCall("nccl:all_to_all"), two) == 0
    # The 2-rank job's NCCL names each kernel after the collective that launched it; the 16-rank job's does not.
    for call, kernel in (("nccl:all_reduce", "ncclKernel_AllReduce"), ("nccl:broadcast", "ncclKernel_Broadcast")):
        assert claims.measured(CommunicationKernelNamed(kernel, call), two) == 1
        assert claims.measured(CommunicationKernelNamed("ncclKernel_SendRecv", call), two) == 0
    assert claims.measured(CommunicationKernelNamed("ncclKernel_SendRecv", "nccl:all_reduce"), sixteen) == 1
    assert claims.measured(CommunicationKernelNamed("ncclKernel_AllReduce", "nccl:all_to_all"), sixteen) == 0
    assert claims.measured(CommunicationKernelNamed("ncclKernel_SendRecv", "nccl:send"), sixteen) is None


def test_the_largest_bucket_against_the_step_it_is_sent_in(tmp_path):
    # The 2-rank job's five buckets a step are of like sizes; the 16-rank job's second bucket holds nearly all.
    assert 0.2 < claims.measured(LargestBucketShare(), real_trace("multigpu-a100-2rank-overlap", tmp_path)) < 0.5
    assert claims.measured(LargestBucketShare(), real_trace("multigpu-a100-16rank-overlap", tmp_path)) > 0.99


def test_a_rank_host_share_reads_that_ranks_trace():
    found = RecordingData(by_id("multigpu-straggler"), ROOT / "docs" / "generated" / "multigpu-straggler")
    asleep = claims.measured(RankHostShare(1, "region", "straggle"), found)
    assert 0 < asleep <= claims.measured(RankHostShare(1, "region"), found) <= 1
    assert claims.measured(RankHostShare(0, "region", "straggle"), found) is None  # rank 0 never sleeps
    assert claims.measured(RankHostShare(2, "region"), found) is None  # a job of two ranks


def test_a_regions_time_in_ops_and_in_none_against_a_later_regions():
    found = data(cpu("eager", 0, 100, kind="annotation"), cpu("aten::add", 10, 10),
                 cpu("compiled", 200, 40, kind="annotation"), cpu("Torch-Compiled Region: 0/0", 205, 30),
                 cpu("compiled", 300, 30, kind="annotation"), cpu("Torch-Compiled Region: 0/0", 302, 26))
    assert claims.measured(RegionTimeRatio("eager", "compiled", "outside ops"), found) == 9  # 90 µs over 10
    assert claims.measured(RegionTimeRatio("eager", "compiled", "in ops"), found) == pytest.approx(1 / 3)
    assert claims.measured(RegionTimeRatio("eager", "compiled", "in all"), found) == 2.5
    assert claims.measured(RegionTimeRatio("compiled", "compiled", "in all"), found) == pytest.approx(4 / 3)
    assert claims.measured(RegionTimeRatio("compiled", "eager", "in all"), found) is None  # no eager after it


def test_which_calls_launched_the_triton_kernels_and_what_explain_counts_of_them():
    found = data(cpu("cuLaunchKernelEx", 0, 2, kind="driver", correlation=1),
                 cpu("cudaLaunchKernel", 10, 2, kind="runtime", correlation=2),
                 cpu("cudaGraphLaunch", 20, 2, kind="runtime", correlation=3),
                 gpu("triton_poi_fused_0", 3, 1, correlation=1), gpu("triton_poi_fused_1", 13, 1, correlation=2),
                 gpu("triton_per_fused_2", 24, 1, correlation=3), gpu("sm90_gemm", 26, 1, correlation=3),
                 gpu("triton_unlaunched", 40, 1))
    every_way = LaunchedBy(("cuLaunchKernelEx", "cuLaunchKernel", "cudaGraphLaunch"))
    assert claims.measured(every_way, found) == pytest.approx(2 / 3)  # the kernel without a launch is left out
    assert claims.measured(LaunchedBy(("cudaGraphLaunch",), kernels="gemm"), found) == 1
    assert claims.measured(LaunchedBy(("cuLaunchKernel",), kernels="cutlass"), found) is None
    assert claims.measured(CompileMarker("cuda_graph_launches"), found) == 1
    assert claims.measured(CompileMarker("triton_kernels"), found) == 4
    assert claims.measured(CompileMarker("absent"), found) is None


def test_the_self_time_of_a_compiled_graphs_call_in_two_regions():
    found = data(cpu("plain", 0, 100, kind="annotation"), cpu("## Call CompiledFxGraph a ##", 10, 50),
                 cpu("aten::addmm", 20, 20),
                 cpu("with a relu", 200, 100, kind="annotation"), cpu("## Call CompiledFxGraph b ##", 210, 60),
                 cpu("aten::addmm", 215, 20), cpu("aten::copy_", 216, 14))
    measure = SelfTimeRatio("## Call CompiledFxGraph", "plain", "with a relu")
    assert claims.measured(measure, found) == pytest.approx(30 / 40)  # the copy_ inside addmm is not its child
    assert claims.measured(SelfTimeRatio("## Call", "plain", "absent"), found) is None


def test_the_median_step_against_another_recordings_and_the_share_of_a_call_spent_compiling():
    baseline = data(*steps(10, 10, 30))
    found = data(*steps(30, 10, 20), cpu("call", 100, 100, kind="annotation"), cpu("dynamo", 105, 90),
                 cpu("call", 300, 10, kind="annotation"))
    found.sibling = lambda recording_id: baseline
    assert claims.measured(MedianStepRatio("compile-fusion-eager"), found) == 2
    assert claims.measured(CompileShare("call"), found) == pytest.approx(0.9)
    assert claims.measured(CompileShare("absent"), found) is None


def test_the_longest_sync_inside_a_step_and_whether_the_longest_of_all_comes_after_the_steps():
    sync = "cudaStreamSynchronize"
    found = data(*steps(100, 200), cpu(sync, 10, 5, kind="runtime"), cpu(sync, 150, 40, kind="runtime"),
                 cpu("cudaDeviceSynchronize", 310, 90, kind="runtime"))
    assert claims.measured(SyncInsideStep(), found) == pytest.approx(40 / 200)
    assert claims.measured(LongestSyncAfterSteps(), found) == 1
    inside = data(*steps(100, 200), cpu(sync, 150, 40, kind="runtime"), cpu(sync, 310, 9, kind="runtime"))
    assert claims.measured(LongestSyncAfterSteps(), inside) == 0
    assert claims.measured(SyncInsideStep(), data(*steps(100))) is None
    assert claims.measured(LongestSyncAfterSteps(), data(cpu(sync, 0, 5, kind="runtime"))) is None


def test_the_spread_of_the_kernels_a_name_selects_and_an_ops_median_against_another_recording():
    found = data(*(gpu("cutlass_a", 10 * i, 10) for i in range(4)), gpu("cutlass_a", 50, 20),
                 gpu("cutlass_b", 100, 2), gpu("cutlass_b", 110, 10), gpu("cutlass_b", 130, 10), gpu("nccl", 200, 50),
                 cpu("aten::view", 0, 20), cpu("aten::view", 30, 40))
    assert claims.measured(KernelSpread("cutlass", "p95", "most"), found) == pytest.approx(18 / 10)
    assert claims.measured(KernelSpread("cutlass", "mean", "least"), found) == pytest.approx(22 / 3 / 10)
    assert claims.measured(KernelSpread("absent", "p95", "most"), found) is None
    baseline = data(cpu("aten::view", 0, 1), cpu("aten::view", 5, 3), cpu("aten::view", 10, 2))
    found.sibling = lambda recording_id: baseline
    assert claims.measured(OpMedianOver("aten::view", "baseline"), found) == pytest.approx(30 / 2)
    assert claims.measured(OpMedianOver("aten::empty", "baseline"), found) is None


def test_an_ops_median_inside_one_regions_calls_against_another_regions_in_the_same_run():
    found = data(cpu("eager", 0, 100, kind="annotation"), cpu("aten::addmm", 10, 20), cpu("aten::addmm", 40, 40),
                 cpu("compiled", 200, 100, kind="annotation"), cpu("aten::addmm", 210, 30),
                 cpu("eager", 400, 100, kind="annotation"), cpu("aten::addmm", 410, 60),
                 cpu("aten::addmm", 600, 500), cpu("aten::addmm", 250, 9, tid=2))  # outside any call; another thread
    assert claims.measured(OpMedianInRegions("aten::addmm", "compiled", "eager"), found) == pytest.approx(30 / 40)
    assert claims.measured(OpMedianInRegions("aten::addmm", "eager", "absent"), found) is None
    assert claims.measured(OpMedianInRegions("aten::mm", "eager", "compiled"), found) is None


def memory_event(ts, size, tid=1):
    return {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "ts": ts, "pid": 100, "tid": tid,
            "args": {"Bytes": size}}


def test_frees_in_a_region_ops_with_shapes_kernels_joined_to_ops_and_the_profilers_overhead():
    events = [cpu("zero_grad", 0, 10, kind="annotation"), cpu("zero_grad", 100, 10, kind="annotation"),
              memory_event(5, -64), memory_event(104, -64), memory_event(106, -32), memory_event(107, 16),
              memory_event(108, -8, tid=2),
              cpu("aten::mm", 20, 5, external_id=1, **{"Input Dims": [[2, 2], [2, 2]]}),
              cpu("aten::add", 30, 5, external_id=2), gpu("gemm", 21, 2, external_id=1),
              gpu("add", 31, 2, external_id=77)]
    found = data(*events)
    assert claims.measured(FreesInRegion("zero_grad", "first"), found) == 1
    assert claims.measured(FreesInRegion("zero_grad", "last"), found) == 2  # the other thread's free is not its own
    assert claims.measured(FreesInRegion("absent", "first"), found) is None
    assert claims.measured(OpsWithShapes(), found) == pytest.approx(1 / 2)
    assert claims.measured(KernelsJoined(), found) == pytest.approx(1 / 2)
    assert claims.measured(OverheadEvents(), found) == 0
    assert claims.measured(OverheadEvents(), data(cpu("Activity Buffer Request", 0, 5, kind="overhead"))) == 1
    assert claims.measured(KernelsJoined(), data(cpu("aten::mm", 0, 5))) is None


def test_a_real_trace_compares_its_ops_with_a_committed_recording_beside_its_fragments():
    generated = ROOT / "docs" / "generated"
    two = RealTraceData(next(real for real in REAL_TRACES if real.id == "reading-a100-2rank"), ROOT,
                        generated / "reading-a100-2rank")
    assert two.sibling("reading-footprint-cost").folder == generated / "reading-footprint-cost"
    assert claims.measured(OpMedianOver("aten::view", "reading-footprint-cost"), two) > 1  # slower on the A100 host


def block_step():
    """One step: an MLP region (an mm, its backward twice as long), a norm region (a pow), the optimizer's; two
    kernels launched by the mm's forward and backward, one by the pow, none by the optimizer."""
    return data(
        cpu("ProfilerStep#2", 0, 200, kind="annotation"),
        cpu("MLP", 10, 40, kind="annotation"), cpu("aten::mm", 12, 30, **{"Sequence number": 3}),
        cpu("cudaLaunchKernel", 14, 2, kind="runtime", correlation=1),
        cpu("norm", 60, 10, kind="annotation"), cpu("aten::pow", 61, 8, **{"Sequence number": 4}),
        cpu("cudaLaunchKernel", 62, 2, kind="runtime", correlation=2),
        cpu("cudaLaunchKernel", 64, 2, kind="runtime", correlation=3),
        cpu("autograd::engine::evaluate_function: MmBackward0", 100, 80, **{"Sequence number": 3}),
        cpu("cudaLaunchKernel", 105, 2, kind="runtime", correlation=4),
        cpu("optimizer", 185, 10, kind="annotation"),
        gpu("gemm", 20, 30, correlation=1), gpu("pow", 70, 5, correlation=2), gpu("pow2", 76, 5, correlation=3),
        gpu("gemm_backward", 110, 60, correlation=4), device="cuda")


def test_a_regions_share_of_the_steps_with_its_backward_and_whether_it_is_the_largest():
    found = block_step()
    assert claims.measured(RegionShare("MLP"), found) == pytest.approx((40 + 80) / 200)
    assert claims.measured(RegionShare("MLP", passes="forward"), found) == pytest.approx(40 / 200)
    assert claims.measured(RegionShare("MLP", passes="backward", time="device"), found) == pytest.approx(60 / 100)
    assert claims.measured(RegionShare("norm", time="device"), found) == pytest.approx(10 / 100)
    assert claims.measured(RegionShare("MLP", among=("MLP", "norm", "optimizer")), found) == 1
    assert claims.measured(RegionShare("norm", among=("MLP", "norm")), found) == 0
    assert claims.measured(RegionShare("attention"), found) is None
    assert claims.measured(BackwardOverForward("MLP"), found) == pytest.approx(2)
    assert claims.measured(BackwardOverForward("optimizer"), found) == 0
    assert claims.measured(KernelsPerCall(region="norm"), found) == 2
    assert claims.measured(RegionCount("norm"), found) == 1 and claims.measured(RegionCount("attention"), found) == 0


def test_a_module_classs_share_of_the_device_time_its_ops_share_of_it_and_kernels_per_call():
    found = data(
        cpu("nn.Module: Attention_0", 0, 50, kind="python"), cpu("aten::mul", 2, 10),
        cpu("cudaLaunchKernel", 3, 2, kind="runtime", correlation=1),
        cpu("aten::flash", 20, 20), cpu("cudaLaunchKernel", 21, 2, kind="runtime", correlation=2),
        cpu("nn.Module: Attention_1", 60, 20, kind="python"), cpu("aten::mul", 62, 10),
        cpu("cudaLaunchKernel", 63, 2, kind="runtime", correlation=3),
        cpu("aten::mul", 90, 5), cpu("cudaLaunchKernel", 91, 2, kind="runtime", correlation=4),  # outside
        gpu("mul", 10, 10, correlation=1), gpu("flash", 30, 30, correlation=2), gpu("mul", 70, 10, correlation=3),
        gpu("mul", 95, 50, correlation=4), device="cuda")
    assert claims.measured(ModuleShare("Attention"), found) == pytest.approx(50 / 100)
    assert claims.measured(ModuleShare("Attention", ("aten::mul",)), found) == pytest.approx(20 / 50)
    assert claims.measured(ModuleShare("Attention", ("aten::flash", "aten::mul")), found) == pytest.approx(1)
    assert claims.measured(KernelsPerCall(module="Attention"), found) == pytest.approx(3 / 2)
    assert claims.measured(ModuleShare("MLP"), found) is None


def test_a_diff_rows_time_after_over_before_and_a_named_event_holding_a_part_of_its_name():
    diffed = SimpleNamespace(diff={"kernels": [{"name": "gemm", "before_us": 10.0, "after_us": 13.0},
                                               {"name": "copy", "before_us": 0.0, "after_us": 2.0}]})
    assert claims.measured(DiffRowRatio("kernels", "gemm"), diffed) == pytest.approx(1.3)
    assert claims.measured(DiffRowRatio("kernels", "copy"), diffed) is None  # nothing before to compare with
    assert claims.measured(DiffRowRatio("kernels", "attention"), diffed) is None
    found = data(cpu("CompiledFunction", 0, 100), cpu("graph_0_cpp_fused_add_mean_rsqrt_0", 1, 5),
                 cpu("graph_0_cpp_fused__unsafe_view_add_mean_rsqrt_1", 10, 5), cpu("graph_0_cpp_fused_gelu_2", 20, 5))
    assert claims.measured(NamedInRegion("CompiledFunction", "graph_0_cpp_fused_", containing="rsqrt"), found) == 2
    assert claims.measured(NamedInRegion("CompiledFunction", "graph_0_cpp_fused__unsafe_view"), found) == 1


def test_the_kernels_joined_to_no_op_and_whether_they_all_run_before_the_first_joined_one():
    def lane(*unjoined_starts):
        return data(cpu("aten::mm", 50, 10, external_id=1), gpu("joined", 60, 5, external_id=1),
                    *(gpu("earlier", start, 2) for start in unjoined_starts))

    assert claims.measured(KernelsJoined(), lane(0, 10, 20)) == pytest.approx(1 / 4)
    assert claims.measured(KernelsJoined(before=True), lane(0, 10, 20)) == 1
    assert claims.measured(KernelsJoined(before=True), lane(0, 70)) == pytest.approx(1 / 2)
    assert claims.measured(KernelsJoined(before=True), lane()) is None  # every kernel is joined


def summarised(*events, device="cpu"):
    """``data`` with explain's summary of its trace, as the build's data has it."""
    found = data(*events, device=device)
    found.summary = summarise(found.trace)
    return found


def test_device_setup_share_is_the_hosts_set_up_calls_over_explains_window():
    # explain's window runs from the first kernel's start to the last one's end: 100 to 400 µs, 300 µs. In it the
    # host is in cudaMalloc from 150 to 210 and, on another thread, in cudaStreamCreate from 180 to 240: their
    # union is 150 to 240, 90 µs, 0.3 of the window. The cudaFree before the window and a quick launch count not.
    found = summarised(gpu("gemm", 100, 50), gpu("gemm", 300, 100), cpu("cudaFree", 0, 50, kind="runtime"),
                       cpu("cudaMalloc", 150, 60, kind="runtime"),
                       cpu("cudaStreamCreate", 180, 60, kind="runtime", tid=2),
                       cpu("cudaLaunchKernel", 290, 5, kind="runtime"), device="cuda")
    assert claims.measured(DeviceSetupShare(), found) == pytest.approx(0.3)
    assert claims.measured(DeviceSetupShare(), summarised(cpu("aten::mm", 0, 5))) is None  # no GPU work, no window


def test_idle_below_htas_sets_htas_own_idle_share_from_its_reference_against_explains(tmp_path):
    # explain's window runs from 0 to 40 µs, the GPU busy from 0 to 10 and from 30 to 40: idle 20 µs of 40, a
    # share of 0.5. The reference says HTA found the same file idle 62.5% of its window: 0.625 - 0.5 = 0.125.
    reference = tmp_path / claims.HTA_REFERENCE
    reference.parent.mkdir(parents=True)
    reference.write_text(json.dumps({"hta_version": "0.5.0", "traces": {
        "t.json.gz": {"idle_pct": 62.5, "idle_pct_exact": 62.5}, "broken.json.gz": {"error": "ValueError: x"}}}))

    def real(file, *events):
        spec = SimpleNamespace(id="real", file=f"docs/traces/{file}", files=())
        return RealTraceData.of(spec, tmp_path, tmp_path / "out", traces=(make_trace(*events),))

    kernels = gpu("a", 0, 10), gpu("b", 30, 10)
    assert claims.measured(IdleBelowHtas(), real("t.json.gz", *kernels)) == pytest.approx(0.125)
    assert claims.measured(IdleBelowHtas(), real("broken.json.gz", *kernels)) is None  # HTA could not analyse it
    assert claims.measured(IdleBelowHtas(), real("absent.json.gz", *kernels)) is None  # not in the reference
    assert claims.measured(IdleBelowHtas(), real("t.json.gz", cpu("aten::mm", 0, 5))) is None  # no GPU work
    ours = RecordingData.of(TINY, tmp_path, meta={"device": "cuda", "ranks": 1}, traces=(make_trace(*kernels),))
    assert claims.measured(IdleBelowHtas(), ours) is None  # HTA's answers are at hand for the real traces alone


ITERATOR = "enumerate(DataLoader)#_{}DataLoaderIter.__next__"


def loader_steps(step_us, loading_us, iterator, ops):
    """Three steps of ``step_us`` on one thread, each loading a batch for ``loading_us`` through the DataLoader
    iterator ``iterator`` (None: no DataLoader), then running the ops ``ops``, 10 µs each."""
    events = []
    for number in range(3):
        start = number * step_us
        events.append(cpu(f"ProfilerStep#{number + 2}", start, step_us, kind="annotation"))
        if iterator:
            events.append(cpu(ITERATOR.format(iterator), start, loading_us, kind="annotation"))
        events += [cpu(name, start + loading_us + 10 * index, 10) for index, name in enumerate(ops)]
    return make_trace(*events)


def after_of(before, after):
    """The data of ``after`` as a claim on it sees it: its summary, the run it is compared with, and the diff."""
    return SimpleNamespace(summary=summarise(after), compared_run=SimpleNamespace(summary=summarise(before)),
                           diff=trace_diff(side_of(before, "before.json"), side_of(after, "after.json")))


# Before: steps of 100 µs, each loading its batch for 60 µs in the main process, then an mm and an add. After:
# steps of 50 µs, each waiting 10 µs for a worker's batch, then the same mm and a mul.
WITHOUT_WORKERS = loader_steps(100, 60, "SingleProcess", ("aten::mm", "aten::add"))
WITH_WORKERS = loader_steps(50, 10, "MultiProcessing", ("aten::mm", "aten::mul"))


def test_a_diff_value_is_a_part_of_a_quantity_of_the_diff_from_the_compared_run():
    found = after_of(WITHOUT_WORKERS, WITH_WORKERS)
    # The median step goes from 100 µs to 50: a ratio of 0.5, a change of -50 µs.
    assert claims.measured(DiffValue("step_us"), found) == pytest.approx(0.5)
    assert claims.measured(DiffValue("step_us", "change"), found) == pytest.approx(-50)
    # Data loading goes from 60 µs of each step to 10: a ratio of 1/6.
    assert claims.measured(DiffValue("host_us", "ratio", "data loading"), found) == pytest.approx(1 / 6)
    # From a run that loaded no data there is nothing to divide by.
    unloaded = after_of(loader_steps(100, 0, None, ("aten::mm",)), WITH_WORKERS)
    assert claims.measured(DiffValue("host_us", "ratio", "data loading"), unloaded) is None


def test_diff_rows_count_the_rows_of_the_diff_from_the_compared_run_with_a_status():
    found = after_of(WITHOUT_WORKERS, WITH_WORKERS)
    # Of the ops: the add is gone, the mul is new, the mm is the same (once a step, 10 µs); no kernel on either.
    assert claims.measured(DiffRows("ops", "removed"), found) == 1
    assert claims.measured(DiffRows("ops", "added"), found) == 1
    assert claims.measured(DiffRows("ops", "same"), found) == 1
    assert claims.measured(DiffRows("ops", "changed"), found) == 0
    assert claims.measured(DiffRows("kernels", "removed"), found) == 0


def test_a_rule_is_fixed_when_it_fires_on_the_compared_run_and_not_on_this_one():
    # dataloader-without-workers fires when the single-process iterator holds over 5% of the steps: 60% before,
    # and after no step holds that iterator at all.
    fixed = RuleFixed("dataloader-without-workers")
    assert claims.measured(fixed, after_of(WITHOUT_WORKERS, WITH_WORKERS)) == 1
    assert claims.measured(fixed, after_of(WITH_WORKERS, WITHOUT_WORKERS)) == 0  # it fires on this one
    assert claims.measured(fixed, after_of(WITHOUT_WORKERS, WITHOUT_WORKERS)) == 0  # on both
    assert claims.measured(fixed, after_of(WITH_WORKERS, WITH_WORKERS)) == 0  # on neither


@pytest.mark.parametrize("measure", [DiffValue("step_us"), DiffRows("ops", "removed"),
                                     RuleFixed("dataloader-without-workers")], ids=lambda m: type(m).__name__)
def test_a_measure_of_a_diff_cannot_be_taken_on_a_run_compared_with_none(tmp_path, measure):
    alone = RecordingData.of(TINY, tmp_path, meta={"device": "cpu", "ranks": 1}, traces=(WITH_WORKERS,))
    with pytest.raises(RecordingError, match="is compared with no run"):
        claims.measured(measure, alone)


def test_first_over_median_sets_the_first_occurrence_against_the_median_of_the_others():
    # The call ran for 1000 µs, then 10, 30 and 20: the median of the later three is 20, and 1000 / 20 = 50.
    found = data(*(cpu("call", start, dur, kind="annotation") for start, dur in ((0, 1000), (1000, 10), (1100, 30),
                                                                                 (1200, 20))))
    assert claims.measured(FirstOverMedian("call"), found) == 50
    # Steps of 90, 30, 20 and 45 µs: the median of the later three is 30, and 90 / 30 = 3.
    assert claims.measured(FirstOverMedian("ProfilerStep"), data(*steps(90, 30, 20, 45))) == 3
    assert claims.measured(FirstOverMedian("call"), data(cpu("call", 0, 5, kind="annotation"))) is None  # no other
    assert claims.measured(FirstOverMedian("absent"), found) is None


def test_calls_that_compile_count_the_calls_holding_a_compilation_on_their_own_thread():
    # Three calls: the first holds a dynamo with compile_inner inside it (one compilation, counted once), the
    # second none of its own (the dynamo during it runs on another thread), the third a dynamo: two compiled.
    found = data(cpu("call", 0, 100, kind="annotation"), cpu("dynamo", 5, 90), cpu("_compile.compile_inner", 10, 80),
                 cpu("call", 200, 20, kind="annotation"), cpu("dynamo", 202, 10, tid=2),
                 cpu("call", 300, 100, kind="annotation"), cpu("dynamo", 305, 50))
    assert claims.measured(CallsThatCompile("call"), found) == 2
    assert claims.measured(CallsThatCompile("absent"), found) is None  # no call to count


def test_python_calls_in_a_region_and_per_op():
    found = data(cpu("forward", 0, 50, kind="annotation"), cpu("model.py(3): forward", 1, 40, kind="python"),
                 cpu("<built-in function linear>", 2, 20, kind="python"), cpu("nn.py(9): relu", 30, 5, kind="python"),
                 cpu("aten::linear", 3, 10), cpu("aten::relu", 31, 3),
                 cpu("zero_grad", 60, 5, kind="annotation"), cpu("optimizer.py(1): zero_grad", 61, 2, kind="python"))
    assert claims.measured(PythonCallsInRegion("forward", "calls"), found) == 3
    assert claims.measured(PythonCallsInRegion("forward", "ops"), found) == 2
    assert claims.measured(PythonCallsInRegion("forward", "calls per op"), found) == 1.5
    assert claims.measured(PythonCallsInRegion("zero_grad", "ops"), found) == 0
    assert claims.measured(PythonCallsInRegion("zero_grad", "calls per op"), found) is None  # no op to divide by
    assert claims.measured(PythonCallsInRegion("absent", "calls"), found) is None
