"""Known answers of the measures of a decoder's cache of keys and values (``profguide.site.measures.cache``)."""

from profguide.site.measures.cache import CategoryInTokens, HeldPerCall, OpAllocationGrowth, OpShareOfRegion
from tests.helpers import event as cpu
from tests.site.measures import Answer, answers, known, run
from tests.site.measures.test_memory import memory, timeline

# One token's keys and values: 2 × 2 layers × width 4 × 4 bytes (float32) × batch 1 = 64 bytes.
PARAMS = {"layers": 2, "width": 4, "batch": 1, "dtype": "float32"}
GPU_PARAMS = {**PARAMS, "dtype": "bfloat16"}  # 32 bytes a token


def decode_steps(device_type=0):
    """Three decode steps of 100 µs, each with one aten::cat of 10 µs at its start: the cat allocates 640, 704, then
    800 bytes; each allocates 8 bytes more (the chosen token) and frees 700, 640, then 800 outside the cat."""
    events = []
    for step, (by_cat, freed) in enumerate(((640, 700), (704, 640), (800, 800))):
        start = 1000 * step
        events += [cpu("decode", start, 100, kind="annotation"), cpu("aten::cat", start + 10, 10),
                   memory(start + 15, by_cat, device_type=device_type), memory(start + 50, 8, device_type=device_type),
                   memory(start + 60, -freed, device_type=device_type)]
    return events


STEPS = run(*decode_steps(), params=PARAMS)
GPU_STEPS = run(*decode_steps(device_type=1), memory(5, 99999, device_type=0), params=GPU_PARAMS, device="cuda")
NO_PARAMS = run(*decode_steps())
# ACTIVATION 640, then 192 at the end (3 tokens of 64 bytes); Unknown 0 throughout.
TIMELINE = run(*decode_steps(), params=PARAMS, files=timeline([0, 0, 0, 0, 640, 0, 0, 0], [0, 0, 0, 0, 192, 0, 0, 0]))

ANSWERS = [
    # The cat's allocations grow by 64, then by 96: their median, 80, over 64 bytes.
    Answer("cat-growth", STEPS, OpAllocationGrowth("aten::cat", "decode"), 80 / 64),
    Answer("on-the-gpu-its-memory-only", GPU_STEPS, OpAllocationGrowth("aten::cat", "decode"), 80 / 32),
    Answer("an-op-that-allocates-nothing", STEPS, OpAllocationGrowth("aten::add", "decode"), 0),
    Answer("no-such-region", STEPS, OpAllocationGrowth("aten::cat", "prefill"), None),
    Answer("no-params", NO_PARAMS, OpAllocationGrowth("aten::cat", "decode"), None),
    # Left allocated: 640 + 8 - 700 = -52, 704 + 8 - 640 = 72, 800 + 8 - 800 = 8; the median 8, the first -52.
    Answer("held-median", STEPS, HeldPerCall("decode"), 8 / 64),
    Answer("held-first", STEPS, HeldPerCall("decode", "first"), -52 / 64),
    Answer("held-on-the-gpu", GPU_STEPS, HeldPerCall("decode"), 8 / 32),
    Answer("no-params", NO_PARAMS, HeldPerCall("decode"), None),
    Answer("no-such-region", STEPS, HeldPerCall("prefill"), None),
    Answer("tokens-at-the-end", TIMELINE, CategoryInTokens("ACTIVATION"), 192 / 64),
    Answer("holds-none", TIMELINE, CategoryInTokens("Unknown"), 0),
    Answer("no-timeline", STEPS, CategoryInTokens("ACTIVATION"), None),
    Answer("no-params", run(*decode_steps(), files=TIMELINE.files), CategoryInTokens("ACTIVATION"), None),
    # 3 cats of 10 µs in 3 steps of 100 µs.
    Answer("cat-share", STEPS, OpShareOfRegion("aten::cat", "decode"), 30 / 300),
    Answer("no-such-op", STEPS, OpShareOfRegion("aten::add", "decode"), 0),
    Answer("no-such-region", STEPS, OpShareOfRegion("aten::cat", "prefill"), None),
]


@answers(ANSWERS)
def test_known_answer(answer, tmp_path):
    known(answer, tmp_path)
