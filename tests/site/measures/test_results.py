"""Known answers of the measures of what a recording holds besides its trace: its summary table and extra tables,
and what its snippet returned (``profguide.site.measures.results``)."""

from profguide.site.measures.results import (
    ColumnShare,
    CpuShare,
    ExecutionTraceCovers,
    RowValue,
    StackLines,
    StackTime,
    StepTimeRatio,
    TableRows,
    TimerRatio,
    TimesLogged,
)
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.site.measures import Answer, answers, known, run

ONE_OP = cpu("aten::mm", 0, 5)
NOTHING_BESIDES = run(ONE_OP)  # no summary rows, no results.json, no extra table
ROWS = run(ONE_OP, summary_rows=[
    {"name": "region", "count": 3, "self_cpu_us": 30, "cpu_total_us": 100, "self_cpu_memory_bytes": -512,
     "device_total_us": 0.0},
    {"name": "aten::mm", "count": 6, "self_cpu_us": 60, "cpu_total_us": 65, "self_cpu_memory_bytes": 0,
     "device_total_us": 40.0},
    {"name": "aten::addmm", "count": 6, "self_cpu_us": 0, "cpu_total_us": 0, "self_cpu_memory_bytes": 2048,
     "device_total_us": 40.0}])
# An extra table as key_averages().table() prints it: aten::addmm on two rows (and a blank line between rows).
TABLE = ("-----------  ------------\n"
         "       Name    # of Calls\n"
         "-----------  ------------\n"
         "aten::addmm             2\n"
         "                          \n"
         " aten::mm_x             1\n"
         "aten::addmm             1\n"
         "-----------  ------------\n"
         "Self CPU time total: 1ms\n")
WITH_TABLE = run(ONE_OP, files={"table-by-shape.txt": TABLE})
TIMINGS = run(ONE_OP, results_json={"configurations": [
    {"name": "no profiler", "median_step_us": 100.0}, {"name": "defaults", "median_step_us": 120.0},
    {"name": "all three", "median_step_us": 150.0}]})
IGNORED = "Profiler record function <class 'torch.autograd.profiler.record_function'> will be ignored"
LOGGED = run(ONE_OP, results_json={"logged": [IGNORED, "another", IGNORED]})
# aten::matmul: 10, 30 and 50 µs (median 30) against the Timer's 15; a GPU annotation of that name is no op.
MATMULS = (cpu("aten::matmul", 0, 10), cpu("aten::matmul", 20, 30), cpu("aten::matmul", 60, 50),
           {**gpu("aten::matmul", 0, 1000), "cat": "gpu_user_annotation"})
TIMED = run(*MATMULS, results_json={"timer": {"median_us": 15}})
# Stacks of 30 µs through _block and _attention, 60 through _block and _feed_forward, 10 through neither.
STACKS = run(ONE_OP, results_json={"stacks_without_option": [], "stacks": [
    "run.py(1):_main;model.py(2):_block;model.py(3):_attention 30",
    "run.py(1):_main;model.py(2):_block;model.py(4):_feed_forward 60",
    "run.py(1):_main;torch/profiler/profiler.py(5):_start 10"]})
# Two aten::mm calls and a region in the trace (the Python call is neither an op nor a region).
FOUR_EVENTS = (cpu("aten::mm", 0, 1), cpu("aten::mm", 2, 1), cpu("step", 0, 5, kind="annotation"),
               cpu("train.py(1): f", 0, 5, kind="python"))

ANSWERS = [
    Answer("self-time", ROWS, CpuShare("aten::mm", "region"), 60 / 100),
    Answer("total-time", ROWS, CpuShare("aten::mm", "region", self_time=False), 65 / 100),
    Answer("no-such-row", ROWS, CpuShare("aten::nothing", "region"), None),
    Answer("a-whole-of-nothing", ROWS, CpuShare("aten::mm", "aten::addmm"), None),
    Answer("count", ROWS, RowValue("region", "count"), 3),
    Answer("memory-freed", ROWS, RowValue("region", "self_cpu_memory_bytes"), -512),
    Answer("no-such-row", ROWS, RowValue("absent", "count"), None),
    Answer("no-such-column", ROWS, RowValue("region", "device_memory_bytes"), None),
    Answer("like-values", ROWS, ColumnShare("aten::mm", "aten::addmm", "device_total_us"), 40 / 40),
    Answer("over-zero", ROWS, ColumnShare("aten::mm", "region", "device_total_us"), None),
    Answer("a-name-on-two-rows", WITH_TABLE, TableRows("by-shape", "aten::addmm"), 2),
    Answer("a-name-on-none", WITH_TABLE, TableRows("by-shape", "aten::bmm"), 0),
    Answer("no-such-table", WITH_TABLE, TableRows("by-stack", "aten::addmm"), None),
    Answer("all-three-over-none", TIMINGS, StepTimeRatio("all three", "no profiler"), 150 / 100),
    Answer("no-such-configuration", TIMINGS, StepTimeRatio("absent", "no profiler"), None),
    Answer("not-a-list-of-configurations", run(ONE_OP, results_json={"configurations": 3}), StepTimeRatio("a", "b"),
           None),
    Answer("no-results", NOTHING_BESIDES, StepTimeRatio("all three", "no profiler"), None),
    Answer("twice", LOGGED, TimesLogged(IGNORED), 2),
    Answer("never", LOGGED, TimesLogged("never said"), 0),
    Answer("no-log-kept", TIMINGS, TimesLogged(IGNORED), None),
    Answer("no-results", NOTHING_BESIDES, TimesLogged(IGNORED), None),
    Answer("the-ops-median-over-the-timers", TIMED, TimerRatio("aten::matmul"), 30 / 15),
    Answer("no-such-op", TIMED, TimerRatio("aten::mm"), None),
    Answer("no-timer", run(*MATMULS), TimerRatio("aten::matmul"), None),
    Answer("verbose", STACKS, StackLines("verbose"), 3),
    Answer("plain", STACKS, StackLines("plain"), 0),
    Answer("no-results", NOTHING_BESIDES, StackLines("plain"), None),
    Answer("over-all", STACKS, StackTime("block"), (30 + 60) / 100),
    Answer("over-another-frame", STACKS, StackTime("attention", over="block"), 30 / 90),
    Answer("over-no-such-frame", STACKS, StackTime("block", over="absent"), None),
    Answer("no-results", NOTHING_BESIDES, StackTime("block"), None),
    # A node for every op and region, call by call; the root node has no event of its name.
    Answer("every-call", run(*FOUR_EVENTS, results_json={"nodes_by_name": {
        "aten::mm": 2, "step": 1, "[pytorch|profiler|execution_trace|thread]": 1}}), ExecutionTraceCovers(), 1),
    Answer("one-of-three", run(*FOUR_EVENTS, results_json={"nodes_by_name": {"aten::mm": 1}}),
           ExecutionTraceCovers(), 1 / 3),
    Answer("no-results", run(*FOUR_EVENTS), ExecutionTraceCovers(), None),
]


@answers(ANSWERS)
def test_known_answer(answer, tmp_path):
    known(answer, tmp_path)
