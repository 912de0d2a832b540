"""Known answers of the measures of graphs (``profguide.site.measures.graphs``)."""

from profguide.site.measures.graphs import CallsHolding, CapturedByShare, GraphUse
from tests.analysis.test_graphs import one_launch
from tests.helpers import event as cpu
from tests.site.measures import Answer, answers, known, run


def region(name, ts, dur):
    return cpu(name, ts, dur, kind="annotation")


# Three decode steps: the first runs graph 0/1, the other two 0/2 (the third twice, counted once).
STEPS = [region("decode", 0, 100), cpu("Torch-Compiled Region: 0/1", 10, 50),
         region("decode", 200, 100), cpu("Torch-Compiled Region: 0/2", 210, 50),
         region("decode", 400, 100), cpu("Torch-Compiled Region: 0/2", 410, 20),
         cpu("Torch-Compiled Region: 0/2", 440, 20)]
DECODING = run(*STEPS)
# Two decode steps under mode="reduce-overhead": the first replays its graph with one cudaGraphLaunch (a runtime
# call, no op), the second runs without.
REPLAYING = run(region("decode", 0, 100), cpu("Torch-Compiled Region: 0/1", 10, 50),
                cpu("cudaGraphLaunch", 20, 5, kind="runtime", correlation=1),
                region("decode", 200, 100), cpu("Torch-Compiled Region: 0/1", 210, 50))
# A capture of two launches, the first under aten::mm, the second under aten::relu; nodes of 9 µs each.
CAPTURE = [cpu("cudaStreamBeginCapture", 0, 2, kind="runtime", correlation=1),
           cpu("aten::mm", 5, 20), cpu("cudaLaunchKernel", 10, 3, kind="runtime", correlation=2),
           cpu("aten::relu", 30, 20), cpu("cudaLaunchKernel", 35, 3, kind="runtime", correlation=3),
           cpu("cudaStreamEndCapture", 60, 2, kind="runtime", correlation=4)]
CAPTURED = run(*CAPTURE)
# One launch replays two nodes of 9 µs (the first 9 µs, the second from aten::relu's launch) or three, which the
# capture of two does not match.
REPLAY = run(*one_launch(kernels=2), compared=CAPTURED)
OTHER_REPLAY = run(*one_launch(kernels=3), compared=CAPTURED)

ANSWERS = [
    Answer("one-step-of-three", DECODING, CallsHolding("decode", "Torch-Compiled Region: 0/1"), 1),
    Answer("two-steps-once-each", DECODING, CallsHolding("decode", "Torch-Compiled Region: 0/2"), 2),
    Answer("one-step-replays", REPLAYING, CallsHolding("decode", "cudaGraphLaunch"), 1),
    Answer("no-such-region", DECODING, CallsHolding("prefill", "Torch-Compiled Region"), None),
    Answer("captures", CAPTURED, GraphUse("captures"), 1),
    Answer("captured-calls", CAPTURED, GraphUse("captured_calls"), 2),
    Answer("launches", REPLAY, GraphUse("launches"), 1),
    Answer("replayed-ops", REPLAY, GraphUse("replayed_ops"), 2),
    Answer("every-gpu-op-replayed", REPLAY, GraphUse("replayed_share"), 1),
    Answer("no-graph", DECODING, GraphUse("captures"), None),
    Answer("all-matched", REPLAY, CapturedByShare(), 1),
    Answer("half-the-time-by-mm", REPLAY, CapturedByShare("aten::mm"), 9 / 18),
    Answer("none-matched", OTHER_REPLAY, CapturedByShare(), 0),
    Answer("nothing-replayed", run(*STEPS, compared=CAPTURED), CapturedByShare(),
           None),
]


@answers(ANSWERS)
def test_known_answer(answer, tmp_path):
    known(answer, tmp_path)
