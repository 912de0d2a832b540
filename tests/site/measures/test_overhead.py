"""Known answers of the measures of what profiling a server costs it (``profguide.site.measures.overhead``)."""

from profguide.site.measures.overhead import StallInSteps, StallRatio, TraceSizeRatio
from tests.helpers import event as cpu
from tests.site.measures import Answer, answers, known, run

ONE_OP = cpu("aten::mm", 0, 5)
NOTHING_BESIDES = run(ONE_OP)  # no results.json
# Stopping costs 6 ms, writing 4 more on either thread; the median step is 0.5 ms.
STALLS = run(ONE_OP, results_json={"hand_over": [
    {"name": "not written", "longest_step_us": 6000.0, "median_step_us": 500.0},
    {"name": "written on the serving thread", "longest_step_us": 10000.0, "median_step_us": 500.0},
    {"name": "written on another thread", "longest_step_us": 10000.0, "median_step_us": 0.0}]})
SIZES = run(ONE_OP, results_json={"trace_sizes": [
    {"name": "defaults", "bytes": 2000, "events": 100}, {"name": "with_stack", "bytes": 3500, "events": 160}]})

ANSWERS = [
    Answer("stop-over-stop-and-write", STALLS, StallRatio("not written", "written on the serving thread"), 0.6),
    Answer("writer-thread-over-serving-thread", STALLS,
           StallRatio("written on another thread", "written on the serving thread"), 1),
    Answer("no-results", NOTHING_BESIDES, StallRatio("not written", "written on another thread"), None),
    Answer("a-mode-not-run", SIZES, StallRatio("not written", "written on another thread"), None),
    Answer("in-median-steps", STALLS, StallInSteps("written on the serving thread"), 20),
    Answer("over-a-zero-median", STALLS, StallInSteps("written on another thread"), None),
    Answer("no-results", NOTHING_BESIDES, StallInSteps("not written"), None),
    Answer("bytes", SIZES, TraceSizeRatio("with_stack", "defaults", "bytes"), 1.75),
    Answer("events", SIZES, TraceSizeRatio("with_stack", "defaults", "events"), 1.6),
    Answer("no-sizes", STALLS, TraceSizeRatio("with_stack", "defaults", "bytes"), None),
]


@answers(ANSWERS)
def test_known_answer(answer, tmp_path):
    known(answer, tmp_path)
