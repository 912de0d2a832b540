"""The op view, ``profguide explain TRACE --ops``: the ops by name and input shapes (``ops``), the modules and
regions, the memory peak, the kernels' footprints (``footprint``) and the ops' place under the device's roof
(``roofline``), over one trace or one of its steps."""

from pathlib import Path
from typing import Annotated, TypedDict

from msgspec import Meta

from profguide.analysis.footprint import FootprintRow, footprint_rows
from profguide.analysis.intervals import Window
from profguide.analysis.ops import (
    MemoryPeak,
    ModuleRow,
    OpRow,
    RegionRow,
    memory_peak,
    module_rows,
    op_rows,
    region_rows,
)
from profguide.analysis.roofline import roofline, roofline_kernels, roofline_rows
from profguide.analysis.select import gpu_work, profiler_steps, step_window
from profguide.analysis.summary import Roofline, RooflineRow
from profguide.trace.model import Trace


class OpsView(TypedDict):
    """What ``profguide explain TRACE --ops --json`` prints: the op view of one trace (or of one step)."""

    file: Annotated[str, Meta(description="the trace, as named on the command line")]
    trace_start_us: Annotated[float, Meta(description="the trace's first event, from which the text counts times")]
    on_gpu: Annotated[bool, Meta(description="whether the trace has GPU work: the text then ranks ops by device "
                                             "time, else by self CPU time")]
    ops: Annotated[list[OpRow], Meta(description="every op by name and input shapes, most device time first, "
                                                 "then most CPU time")]
    modules: Annotated[list[ModuleRow], Meta(description="nn.Module forward calls by class (with_stack=True); "
                                                         "empty when none were recorded")]
    regions: Annotated[list[RegionRow], Meta(description="record_function regions by name, with the backward of "
                                                         "the ops inside them, most device time first; empty "
                                                         "when the trace has none")]
    memory_peak: Annotated[list[MemoryPeak] | None, Meta(description="per device, the memory peak and the op "
                                                                     "at it; null without profile_memory")]
    kernels: Annotated[list[FootprintRow], Meta(description="kernels with their resource footprint, most time "
                                                            "first, the whole trace's; empty when the trace "
                                                            "records none (CPU traces, ROCm traces without "
                                                            "registers) or was read from standard input")]
    roofline: Annotated[Roofline | None, Meta(description="the ops' place under the device's roof, over the same "
                                                          "ops; null without GPU work")]
    roofline_ops: Annotated[list[RooflineRow], Meta(description="every op with a formula by name, shapes and type, "
                                                                "most device time first")]
    roofline_kernels: Annotated[list[RooflineRow], Meta(description="the same by kernel name and type, over the "
                                                                    "calls that launched that kernel and no other "
                                                                    "GPU work")]


def host_step(trace: Trace, step: int) -> Window:
    """``ProfilerStep#step`` on the host: the ops that start in it are the step's, their GPU work wherever it
    runs. A UsageError naming the trace's steps when it has no such step."""
    start = step_window(trace, step)[0]
    return start, start + next(found["dur_us"] for found in profiler_steps(trace) if found["step"] == step)


def ops_view(trace: Trace, file: str, step: int | None = None, path: Path | None = None) -> OpsView:
    """The op view of ``trace``, or of the ops that start in ``ProfilerStep#step``; the memory peak and the
    kernels' footprints are the whole trace's, the footprints read from the file at ``path`` (none without it:
    the trace model keeps no footprint, and standard input cannot be read twice)."""
    window = None if step is None else host_step(trace, step)
    return OpsView(file=file, trace_start_us=float(trace.ts[0]), on_gpu=bool(gpu_work(trace).any()),
                   ops=op_rows(trace, window), modules=module_rows(trace, window),
                   regions=region_rows(trace, window), memory_peak=memory_peak(trace),
                   kernels=[] if path is None else footprint_rows(path), roofline=roofline(trace, window),
                   roofline_ops=roofline_rows(trace, window), roofline_kernels=roofline_kernels(trace, window))
