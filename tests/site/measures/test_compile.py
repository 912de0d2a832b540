"""Known answers of the measures of torch.compile (``profguide.site.measures.compile``)."""

from profguide.site.measures.compile import CallsThatCompile, CompileMarker, CompileShare, PerStepFall
from tests.helpers import event as cpu
from tests.site.measures import Answer, answers, known, run
from tests.site.measures.test_host import TRITON


def region(name, ts, dur):
    return cpu(name, ts, dur, kind="annotation")


def per_step(*counts, op="aten::add"):
    """Steps of 100 µs, each holding its count of ``op``, 1 µs each."""
    events = []
    for number, count in enumerate(counts):
        events.append(cpu(f"ProfilerStep#{number}", 100 * number, 100, kind="annotation"))
        events += [cpu(op, 100 * number + 1 + index, 1) for index in range(count)]
    return events


# Three calls: the first holds a dynamo with compile_inner inside it (one compilation, counted once), the second
# none of its own (the dynamo during it runs on another thread), the third a dynamo: two compiled. The first call's
# compilation takes 90 of its 100 µs.
CALLS = run(region("call", 0, 100), cpu("dynamo", 5, 90), cpu("_compile.compile_inner", 10, 80),
            region("call", 200, 20), cpu("dynamo", 202, 10, tid=2),
            region("call", 300, 100), cpu("dynamo", 305, 50))
# Ops per step: eager 9, 6, 6 (median 6), compiled 2, 3, 3 (median 3); the compiled run's ops are no aten:: ops.
EAGER = run(*per_step(9, 6, 6))
COMPILED = run(*per_step(2, 3, 3, op="triton_poi_fused_add_0"), siblings={"eager": EAGER})

ANSWERS = [
    Answer("two-of-three", CALLS, CallsThatCompile("call"), 2),
    Answer("no-such-call", CALLS, CallsThatCompile("absent"), None),
    # TRITON (tests/site/measures/test_host.py): one graph launch; four kernels named triton.
    Answer("graph-launches", TRITON, CompileMarker("cuda_graph_launches"), 1),
    Answer("triton-kernels", TRITON, CompileMarker("triton_kernels"), 4),
    Answer("no-such-marker", TRITON, CompileMarker("absent"), None),
    Answer("the-first-call", CALLS, CompileShare("call"), 90 / 100),
    Answer("no-such-call", CALLS, CompileShare("absent"), None),
    Answer("ops", COMPILED, PerStepFall("ops", "eager"), 6 / 3),
    Answer("aten-ops-none-left", COMPILED, PerStepFall("aten_ops", "eager"), None),
    Answer("no-kernels", COMPILED, PerStepFall("kernels", "eager"), None),
]


@answers(ANSWERS)
def test_known_answer(answer, tmp_path):
    known(answer, tmp_path)
