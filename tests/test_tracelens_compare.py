"""benchmarks/tracelens_compare.py: profguide's FLOPs, bytes and TFLOP/s against TraceLens's published reports."""

import json

import pytest

from profguide.render import fragments as render
from tests.test_benchmarks import BENCHMARKS, script

compare = script("tracelens_compare")
RESULTS = BENCHMARKS / "results" / "tracelens_comparison.json"


@pytest.fixture(scope="module")
def comparison():
    return compare.compare()


def test_every_kept_row_is_compared_against_the_trace_it_was_made_from(comparison):
    summary = comparison["summary"]
    assert summary["rows"] == summary["compared"] > 0 and comparison["not_compared"] == []
    # The versions of TraceLens's files kept are those of these traces: the kernel time of each op and shape
    # is the trace's, to within TraceLens's finer rounding of the kernels' times (it keeps their ns).
    for row in comparison["rows"]:
        assert abs(row["kernel_us"]["difference"]) < 1e-3, (row["trace"], row["op"], row["shapes"])


def test_every_difference_beyond_the_tolerance_has_a_reason(comparison):
    for row in comparison["rows"]:
        for quantity in row["beyond"]:
            assert row["why"][quantity] in compare.EXPLANATIONS, (row["trace"], row["op"], row["shapes"], quantity)
    assert comparison["summary"]["unexplained"] == 0


def test_a_difference_no_rule_knows_is_left_without_a_reason(comparison):
    gemm = next(row for row in comparison["rows"] if row["family"] == "GEMM")
    doubled = {**gemm, "flops": compare.side(2 * gemm["flops"]["theirs"], gemm["flops"]["theirs"])}
    assert not compare.within(doubled, "flops")
    assert compare.explained(doubled, "flops") is None
    # A copy's FLOPs are explained only when profguide's are the smaller.
    copy = next(row for row in comparison["rows"] if row["family"] == "copy")
    assert compare.explained(copy, "flops") == "copy_flops"
    assert compare.explained({**copy, "flops": compare.side(2.0, 1.0)}, "flops") is None
    # A rate 6 % below TraceLens's with the same FLOPs and kernel time: the mean of per-call rates against the
    # rate of the sums; with FLOPs apart it is not.
    slower = {**gemm, "split": 1, "tflops": compare.side(0.94, 1.0)}
    assert compare.explained(slower, "tflops") == "mean_of_rates"
    assert compare.explained({**slower, "flops": doubled["flops"]}, "tflops") is None


def test_the_relative_difference_of_two_quantities():
    assert compare.side(110.0, 100.0)["difference"] == pytest.approx(0.10)
    assert compare.side(0.0, 0.0)["difference"] == 0.0
    assert compare.side(1.0, 0.0)["difference"] is None
    assert compare.side(None, 5.0) == {"ours": None, "theirs": 5.0, "difference": None}


def test_the_stored_results_are_those_of_the_formulas_now(comparison):
    stored = json.loads(RESULTS.read_text())
    assert stored["rows"] == json.loads(json.dumps(comparison["rows"])), \
        "rerun python3 benchmarks/tracelens_compare.py --json benchmarks/results/tracelens_comparison.json"
    assert stored["summary"] == comparison["summary"]


def test_the_fragment_says_how_many_rows_agree_and_gives_each_reason_used():
    stored = json.loads(RESULTS.read_text())
    text = render.tracelens_fragment(stored)
    summary = stored["summary"]
    assert f"{summary['within']} agree within 5%" in text
    assert text.count("\n| ") == summary["compared"] + 1  # the heading and a line a row
    used = {kind for row in stored["rows"] for kind in row["why"].values()}
    for kind in used:
        assert render.cell(stored["explanations"][kind]["sentence"]) in text
    for kind in set(stored["explanations"]) - used:
        assert render.cell(stored["explanations"][kind]["sentence"]) not in text
