"""Known answers of the measures of memory: the memory timeline's categories, the allocator's events, the summary
table's memory columns (``profguide.site.measures.memory``)."""

import json

from profguide.site.measures.memory import (
    FreedInside,
    FreedOutsideOps,
    FreesInRegion,
    MemoryLeftAtEnd,
    MemoryRatioAtEnd,
)
from tests.helpers import event as cpu
from tests.site.measures import Answer, answers, known, run


def memory(ts, size, device_type=1, tid=1):
    """An allocator's ``[memory]`` instant as profile_memory=True writes it."""
    return {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "ts": ts, "pid": 100, "tid": tid,
            "args": {"Device Type": device_type, "Device Id": 0 if device_type else -1, "Bytes": size,
                     "Total Allocated": 0}}


def timeline(*sizes):
    """A memory-timeline.json of one moment a row: each row a device's column, then the bytes of PARAMETER,
    OPTIMIZER_STATE, INPUT, TEMPORARY, ACTIVATION, GRADIENT, AUTOGRAD_DETAIL and Unknown."""
    return {"memory-timeline.json": json.dumps([list(range(len(sizes))), [[0, *row] for row in sizes]])}


# PARAMETER 4 throughout; OPTIMIZER_STATE 0, then 8; ACTIVATION 6, 3, 0; GRADIENT 2, 4, 3; INPUT never any.
TIMELINE = run(cpu("aten::mm", 0, 5), files=timeline([4, 0, 0, 0, 6, 2, 0, 0], [4, 8, 0, 0, 3, 4, 0, 0],
                                                     [4, 8, 0, 0, 0, 3, 0, 0]))
NO_TIMELINE = run(cpu("aten::mm", 0, 5))
NOT_A_TIMELINE = run(cpu("aten::mm", 0, 5), files={"memory-timeline.json": "[1]"})
# Two calls of zero_grad: the first records one free, the second two (and an allocation, and on another thread a
# free that is not its own).
ZERO_GRADS = run(cpu("zero_grad", 0, 10, kind="annotation"), cpu("zero_grad", 100, 10, kind="annotation"),
                 memory(5, -64), memory(104, -64), memory(106, -32), memory(107, 16), memory(108, -8, tid=2))
# forward: its self CPU memory -512 of its 0 in all, so its ops allocated 512 and it freed them; on the device
# -256 of 256, its ops allocated 512 and it freed half. aten::addmm's self memory is all of its memory.
MEMORY_ROWS = run(cpu("forward", 0, 10, kind="annotation"), summary_rows=[
    {"name": "forward", "cpu_memory_bytes": 0, "self_cpu_memory_bytes": -512, "device_memory_bytes": 256,
     "self_device_memory_bytes": -256},
    {"name": "aten::addmm", "cpu_memory_bytes": 512, "self_cpu_memory_bytes": 512}])
# Inside the step's ops, on the GPU: 1000 + 3000 - 500 = 3500 allocated; between them: -1000 - 2500 = -3500 freed
# (the other thread's free and the one after the step are not the step's). On the CPU, the ops allocated 200 and
# the step freed none of it.
STEP_FREES = run(cpu("step", 0, 100, kind="annotation"), cpu("aten::empty", 10, 10), cpu("aten::mm", 30, 20),
                 memory(15, 1000), memory(16, 200, device_type=0), memory(35, 3000), memory(45, -500),
                 memory(60, -1000), memory(80, -2500), memory(65, -9999, tid=2), memory(150, -4000))

ANSWERS = [
    Answer("all-freed", TIMELINE, MemoryLeftAtEnd("ACTIVATION"), 0 / 6),
    Answer("some-left", TIMELINE, MemoryLeftAtEnd("GRADIENT"), 3 / 4),
    Answer("never-held", TIMELINE, MemoryLeftAtEnd("INPUT"), None),
    Answer("no-timeline", NO_TIMELINE, MemoryLeftAtEnd("ACTIVATION"), None),
    Answer("not-a-timeline", NOT_A_TIMELINE, MemoryLeftAtEnd("ACTIVATION"), None),
    Answer("optimizer-state-over-parameters", TIMELINE, MemoryRatioAtEnd("OPTIMIZER_STATE", "PARAMETER"), 8 / 4),
    Answer("over-nothing", TIMELINE, MemoryRatioAtEnd("PARAMETER", "INPUT"), None),
    Answer("no-timeline", NO_TIMELINE, MemoryRatioAtEnd("OPTIMIZER_STATE", "PARAMETER"), None),
    Answer("first-call", ZERO_GRADS, FreesInRegion("zero_grad", "first"), 1),
    Answer("last-call-its-own-thread", ZERO_GRADS, FreesInRegion("zero_grad", "last"), 2),
    Answer("no-such-region", ZERO_GRADS, FreesInRegion("absent", "first"), None),
    Answer("frees-all-cpu", MEMORY_ROWS, FreedInside("forward"), 512 / 512),
    Answer("frees-half-device", MEMORY_ROWS, FreedInside("forward", memory="device"), 256 / 512),
    Answer("its-ops-allocate-nothing", MEMORY_ROWS, FreedInside("aten::addmm"), None),
    Answer("no-such-row", MEMORY_ROWS, FreedInside("absent"), None),
    Answer("device-all-freed", STEP_FREES, FreedOutsideOps("step"), 3500 / 3500),
    Answer("cpu-none-freed", STEP_FREES, FreedOutsideOps("step", memory="cpu"), 0 / 200),
    Answer("no-such-region", STEP_FREES, FreedOutsideOps("forward"), None),
    Answer("no-memory-events", run(cpu("step", 0, 100, kind="annotation")), FreedOutsideOps("step"), None),
]


@answers(ANSWERS)
def test_known_answer(answer, tmp_path):
    known(answer, tmp_path)
