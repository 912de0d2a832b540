"""What torch.compile leaves in a trace: compiled regions, compilations, eager gaps between regions, Triton
kernels, CUDA graph launches; and each step's ops and kernels, for comparing an eager run with a compiled one.

Names as torch 2.x writes them: each call of a compiled frame is a ``Torch-Compiled Region: F/R`` op (frame F,
its R-th recompilation), which calls its graph, ``## Call CompiledFxGraph <hash> ##`` under Inductor (with
autograd, inside ``CompiledFunction``). A compilation is a ``dynamo`` op, with an annotation inside it that
names the compile id (``dynamo_data: compile_id=0/1``). After a graph break, Dynamo resumes in a new frame
whose region opens inside the region of the frame that broke.
"""

import re
from collections.abc import Callable

import numpy as np

from profguide.analysis.intervals import Intervals, Window, clip, union_length
from profguide.analysis.select import Indices, activity_window, kinds_mask, launch_of, names_where, profiler_steps
from profguide.analysis.summary import CompileMarkers, EagerGap
from profguide.patterns import COMPILED_GRAPH, COMPILED_REGION
from profguide.trace.model import KIND, Trace

COMPILE_ID = re.compile(r"compile_id=(\d+)/(\d+)")
CUDA_GRAPH_LAUNCHES = frozenset({"cudaGraphLaunch", "hipGraphLaunch", "cuGraphLaunch"})


def is_region(name: str) -> bool:
    return name.startswith(COMPILED_REGION)


def is_graph_call(name: str) -> bool:
    """The call of a compiled graph: Inductor's, or the autograd function that wraps it."""
    return name.startswith(COMPILED_GRAPH)


def is_compilation(name: str) -> bool:
    """Dynamo compiling a frame: ``dynamo`` in torch 2.5 and later, ``_compile.compile_inner`` in older ones."""
    return name == "dynamo" or name.startswith("_compile.compile_inner")


def host_named(trace: Trace, predicate: Callable[[str], object]) -> Indices:
    """Indices of the host ops and annotations whose name satisfies ``predicate``, in order of start."""
    return np.flatnonzero(names_where(trace, predicate) & kinds_mask(trace, ("cpu_op", "annotation")))


def compile_ids(trace: Trace) -> list[tuple[int, int]]:
    """The distinct compile ids (frame, recompilation) the trace's compile annotations name, sorted."""
    return sorted({(int(m.group(1)), int(m.group(2)))
                   for name in trace.names if "_data" in name and (m := COMPILE_ID.search(name))})


def steps_window(trace: Trace, window: Window | None = None) -> Intervals:
    """(starts, ends) of ``window``, else of the recorded steps, else of the host's activity, as arrays."""
    if window is not None:
        return np.array([window[0]]), np.array([window[1]])
    steps = profiler_steps(trace)
    if steps:
        starts = np.array([s["start_us"] for s in steps])
        return starts, starts + np.array([s["dur_us"] for s in steps])
    start, end = activity_window(trace)
    return np.array([start]), np.array([end])


def within(trace: Trace, indices: Indices, window: Intervals) -> float:
    """The union length of events ``indices`` inside the windows (starts, ends)."""
    return sum(union_length(*clip(trace.ts[indices], trace.end[indices], (start, end)))
               for start, end in zip(*window, strict=True))


def eager_gaps(trace: Trace, regions: Indices, calls: Indices, window: Window | None = None) -> list[EagerGap] | None:
    """The host time between consecutive compiled regions of one ProfilerStep: from the end of the last
    graph call or region that ran since the previous region started (that region's start, when none ran)
    to the next region's start. Each gap is eager code, a graph break's or the step's own between two
    compiled functions. Only the steps that start in ``window``, when given; None without ProfilerSteps:
    consecutive calls of a compiled function are not one step."""
    steps = [step for step in profiler_steps(trace)
             if window is None or window[0] <= step["start_us"] < window[1]]
    if not steps:
        return None
    marks = np.concatenate([regions, calls])
    gaps: list[EagerGap] = []
    for step in steps:
        start, end = step["start_us"], step["start_us"] + step["dur_us"]
        inside = regions[(trace.ts[regions] >= start) & (trace.ts[regions] < end)]
        for before, after in zip(inside[:-1], inside[1:], strict=True):
            begun, next_start = trace.ts[before], trace.ts[after]
            done = marks[(trace.ts[marks] >= begun) & (trace.end[marks] <= next_start)]
            anchor = float(trace.end[done].max()) if len(done) else float(begun)
            gaps.append({"step": step["step"], "start_us": anchor, "dur_us": float(next_start - anchor)})
    return gaps


def compile_markers(trace: Trace, window: Window | None = None) -> CompileMarkers:
    """What torch.compile leaves in a trace: compiled regions and their share of the ``window`` (by default
    the recorded steps, or the host's activity without steps), compilations and the time they took, eager
    gaps between the compiled regions of one step, Triton kernels and their share of kernel time, CUDA graph
    launches."""
    regions, calls = host_named(trace, is_region), host_named(trace, is_graph_call)
    compiling = host_named(trace, is_compilation)
    windows = steps_window(trace, window)
    window_us = float((windows[1] - windows[0]).sum())
    kernels = trace.kind == KIND["kernel"]
    triton = names_where(trace, lambda n: "triton" in n.lower()) & kernels
    kernel_us = float(trace.dur[kernels].sum())
    ids = compile_ids(trace)
    gaps = eager_gaps(trace, regions, calls, window)
    return {
        "compiled_regions": len(regions),
        "compiled_region_us": union_length(trace.ts[regions], trace.end[regions]),
        "compiled_region_pct": 100 * within(trace, regions, windows) / window_us if window_us else None,
        "graph_calls": len(calls),
        "window": "the window" if window else "the ProfilerSteps" if profiler_steps(trace) else "the host's activity",
        "compilations": len(ids) or len(compiling),
        "recompilations": sum(1 for _, attempt in ids if attempt > 0),
        "compile_us": union_length(trace.ts[compiling], trace.end[compiling]),
        "compile_pct": 100 * within(trace, compiling, windows) / window_us if window_us else None,
        "eager_gaps": gaps,
        "eager_gap_us": None if gaps is None else sum(gap["dur_us"] for gap in gaps),
        "triton_kernels": int(triton.sum()),
        "triton_kernel_us": float(trace.dur[triton].sum()),
        "triton_pct": 100 * float(trace.dur[triton].sum()) / kernel_us if kernel_us else None,
        "cuda_graph_launches": int((names_where(trace, CUDA_GRAPH_LAUNCHES.__contains__)
                                    & kinds_mask(trace, ("runtime", "driver"))).sum()),
        "driver_launches": int((trace.kind == KIND["driver"]).sum()),
    }


def step_counts(trace: Trace) -> list[dict[str, float]]:
    """Each ProfilerStep: its duration, the ops that started in it (all, and ``aten::`` ones), and the
    kernels whose launch call started in it."""
    ops = np.flatnonzero(trace.kind == KIND["cpu_op"])
    aten = np.array([trace.names[code].startswith("aten::") for code in trace.name[ops]], dtype=bool)
    kernels = np.flatnonzero(trace.kind == KIND["kernel"])
    launch = launch_of(trace, kernels)
    launched_at = trace.ts[launch[launch >= 0]]
    rows: list[dict[str, float]] = []
    for step in profiler_steps(trace):
        start, end = step["start_us"], step["start_us"] + step["dur_us"]
        started = (trace.ts[ops] >= start) & (trace.ts[ops] < end)
        rows.append({"step": step["step"], "dur_us": step["dur_us"], "ops": int(started.sum()),
                     "aten_ops": int((started & aten).sum()),
                     "kernels": int(((launched_at >= start) & (launched_at < end)).sum())})
    return rows


def names_per_step(trace: Trace, kind: str) -> dict[str, float]:
    """How many events of ``kind`` (``cpu_op``; ``kernel`` by its launch call's start) each name has per
    recorded step, on average over the ProfilerSteps; {} without steps."""
    steps = profiler_steps(trace)
    events = np.flatnonzero(trace.kind == KIND[kind])
    if kind == "kernel":
        launch = launch_of(trace, events)
        events, starts = events[launch >= 0], trace.ts[launch[launch >= 0]]
    else:
        starts = trace.ts[events]
    counts: dict[str, int] = {}
    for step in steps:
        inside = events[(starts >= step["start_us"]) & (starts < step["start_us"] + step["dur_us"])]
        for code in trace.name[inside]:
            counts[trace.names[code]] = counts.get(trace.names[code], 0) + 1
    return {name: count / len(steps) for name, count in counts.items()}
