"""What ``profguide explain`` reports on a trace, and the facts a figure's caption quotes: the analyses put
together.

``summarise`` is the facade: it picks the window, runs each analysis over it
(idle time, launches, kernels, communication, compilation…), gives the verdict
on what they measured (``profguide.analysis.verdict``), and then runs the
rules over the result (``profguide.analysis.rules``). Each step is a function
of its own module that a script can call alone.
"""

from typing import TypedDict

import numpy as np

from profguide.analysis.communication import communication
from profguide.analysis.compile import compile_markers
from profguide.analysis.families import family_breakdown
from profguide.analysis.graphs import graph_use, uses_graphs
from profguide.analysis.host import host_breakdown
from profguide.analysis.idle import busy_intervals, idle_breakdown, idle_pct_by_htas_rule
from profguide.analysis.intervals import EVERYTHING, Mask, Window, union_length
from profguide.analysis.kernels import device_name, gemm_throughput, in_window, memory_traffic, occupancy, top_kernels
from profguide.analysis.launches import clock_skew, launch_delays, profiler_overhead, synchronisations
from profguide.analysis.roofline import roofline
from profguide.analysis.rules import findings
from profguide.analysis.select import (
    activity_window,
    cpu_lanes,
    gpu_lanes,
    gpu_window,
    hta_ops,
    hta_window,
    on_a_stream,
    profiler_steps,
    unlaunched,
)
from profguide.analysis.serving import phase_windows, serving_steps
from profguide.analysis.startup import device_setup, iterations, steady_window
from profguide.analysis.summary import (
    KernelRow,
    LeftOut,
    Measured,
    Serving,
    ServingPhase,
    Step,
    Summary,
    SyncCall,
    Trust,
)
from profguide.analysis.trust import trust
from profguide.analysis.verdict import verdict, verdict_text
from profguide.trace.model import KIND, Trace

WINDOW_MEANING = "first to last GPU op (kernels, memcpy, memset), all streams"
HTA_WINDOW_MIN_BUSY_PCT = 25  # HTA's window must hold this much of the GPU's busy time, or the tool widens it


def measured_window(trace: Trace) -> tuple[Mask, Window, str, LeftOut | None]:
    """(ops, window, what it is) for a whole trace: HTA's rule, unless it leaves out most of the GPU's work.

    HolisticTraceAnalysis drops the ops launched in the last ProfilerStep; on
    a trace whose last step holds nearly all the kernels, that leaves a window
    of a few µs. Then every op on a stream counts, and the summary says what
    HTA's rule would have left out.
    """
    everything = on_a_stream(trace)
    ops, window = hta_ops(trace), hta_window(trace)
    # HTA also drops the ops whose launch is not in the trace; one that runs in the window was launched before
    # the profiler started, and the GPU was busy with it all the same.
    ops = ops | unlaunched(trace, everything)
    all_busy = union_length(*busy_intervals(trace, (-np.inf, np.inf), everything))
    hta_busy = union_length(*busy_intervals(trace, (-np.inf, np.inf), ops)) if window else 0.0
    left_out = int(everything.sum() - ops.sum())
    if window and (not all_busy or 100 * hta_busy / all_busy >= HTA_WINDOW_MIN_BUSY_PCT):
        meaning = WINDOW_MEANING + (f", leaving out the {left_out:,} launched in the last ProfilerStep, as "
                                    "HolisticTraceAnalysis does" if left_out else "")
        return ops, window, meaning, None
    start, end = float(trace.ts[everything].min()), float(trace.end[everything].max())
    dropped: LeftOut = {"ops": left_out, "busy_us": all_busy - hta_busy,
               "busy_pct": 100 * (all_busy - hta_busy) / all_busy if all_busy else 100.0,
               "rule": "HolisticTraceAnalysis leaves out the GPU ops launched in the last ProfilerStep"}
    meaning = (f"{WINDOW_MEANING}; HTA's rule would leave out {left_out:,} ops launched in the last ProfilerStep, "
               f"{dropped['busy_pct']:.0f}% of the GPU's busy time, so none is left out here")
    return everything, (start, end), meaning, dropped


def summarise(trace: Trace, window: Window | None = None, window_meaning: str | None = None) -> Summary:
    """Everything ``profguide explain`` reports, for one window (default: ``measured_window``): what the
    analyses measure, the verdict on it, and what the rules find (nothing, where the trust check leaves no
    verdict)."""
    measured = measure(trace, window, window_meaning)
    name, label, basis = verdict(measured)
    summary: Summary = {**measured, "verdict": name,
                        "verdict_text": verdict_text(name, label, measured["host"] is not None,
                                                     uses_graphs(measured["graphs"])),
                        "verdict_basis": basis, "findings": [], "serving": serving(trace, measured["trust"])}
    summary["findings"] = findings(trace, summary) if name != "no-verdict" else []  # no advice on what is not judged
    return summary


def serving(trace: Trace, checked: Trust) -> Serving | None:
    """A serving engine's steps, and the verdict over each phase's span (``measure`` and ``verdict`` there);
    ``checked`` is the trace's trust check, which reads the whole trace and so holds for every phase."""
    found = serving_steps(trace)
    if found is None:
        return None
    engine, steps = found
    phases: list[ServingPhase] = []
    for phase, count, window in phase_windows(trace, steps):
        measured = measure(trace, window, f"the {phase} steps", checked)
        name, _, basis = verdict(measured)
        phases.append({"phase": phase, "steps": count, "window": measured["window"] or
                       {"start_us": window[0], "end_us": window[1], "dur_us": window[1] - window[0]},
                       "gpu_busy_pct": measured["gpu_busy_pct"], "verdict": name, "verdict_basis": basis})
    return {"engine": engine, "steps": steps, "phases": phases}


def measure(trace: Trace, window: Window | None = None, window_meaning: str | None = None,
            checked: Trust | None = None) -> Measured:
    """What every analysis measures over one window (``summarise``'s): on a trace without GPU work, where the
    host's time went instead of the GPU's window. ``checked``: the trace's trust check where it has run
    already (it reads the whole trace, whatever the window)."""
    has_gpu_work = bool(on_a_stream(trace).any())
    steps = profiler_steps(trace)
    found = iterations(trace) if window is None and not steps else None
    if found and found["cold_start"]:
        window = steady_window(trace, found)
        window_meaning = (f"iterations 2 to {found['count']} ({found['found_by']}) and the GPU work they launched; "
                          "the first, a cold start, is left out")
    asked, left_out, host, ops = window, None, None, None
    if not has_gpu_work:
        host = host_breakdown(trace, window)
        window, window_meaning = None, "no GPU work"
    elif window is None:
        ops, window, window_meaning, left_out = measured_window(trace)
    else:
        ops = on_a_stream(trace)
    idle = idle_breakdown(trace, window, ops) if window else None
    length = window[1] - window[0] if window else 0.0
    span = window or asked or EVERYTHING  # what every figure is measured over: the window, or the whole trace
    return {
        "events": len(trace),
        "device": device_name(trace),
        "skipped_events": trace.skipped,
        "repairs": trace.repaired,
        "unanalysed_events": trace.unread,
        "steps": steps,
        "iterations": found,
        "device_setup": device_setup(trace, window) if window else None,
        "window": {"start_us": window[0], "end_us": window[1], "dur_us": length} if window else None,
        "window_definition": window_meaning or "the window asked for",
        "host": host,
        "left_out_of_window": left_out,
        "gpu_busy_pct": None if idle is None else 100 * idle["busy_us"] / length if length else 0.0,
        "gpu_idle_pct": None if idle is None else 100 * idle["idle_us"] / length if length else 0.0,
        "gpu_idle_pct_by_htas_rule": idle_pct_by_htas_rule(trace, window) if window else None,
        "idle": idle,
        "top_kernels": top_kernels(trace, window) if window else [],
        "kernel_families": family_breakdown(trace, (trace.kind == KIND["kernel"]) & in_window(trace, window))
        if window else [],
        "communication": communication(trace, span),
        **launch_delays(trace, span),
        "clock_skew": clock_skew(trace, span),
        "profiler_overhead": profiler_overhead(trace, span),
        "synchronisations": synchronisations(trace, span),
        "memory_traffic": memory_traffic(trace, span),
        "occupancy": occupancy(trace, window=span)[:10],
        "compile": compile_markers(trace, asked),
        "gemm": gemm_throughput(trace, span),
        "roofline": roofline(trace, span),
        "trust": trust(trace) if checked is None else checked,
        "graphs": graph_use(trace, span),
    }


class Facts(TypedDict):
    """What ``facts`` returns: the numbers a figure's caption quotes."""

    window_us: float
    cpu_lanes: int
    gpu_lanes: int
    cpu_ops: int
    kernel_count: int
    kernel_time_us: float
    gpu_busy_us: float
    top_kernels: list[KernelRow]
    longest_sync: SyncCall | None
    steps: list[Step]


def facts(trace: Trace) -> Facts:
    """The facts a figure's caption quotes about one trace."""
    start, end = activity_window(trace)
    kernels = trace.kind == KIND["kernel"]
    syncs = synchronisations(trace)
    window = gpu_window(trace)
    return {
        "window_us": end - start,
        "cpu_lanes": len(cpu_lanes(trace)),
        "gpu_lanes": len(gpu_lanes(trace)),
        "cpu_ops": int((trace.kind == KIND["cpu_op"]).sum()),
        "kernel_count": int(kernels.sum()),
        "kernel_time_us": float(trace.dur[kernels].sum()),
        "gpu_busy_us": union_length(*busy_intervals(trace, window)) if window else 0.0,
        "top_kernels": top_kernels(trace, limit=5),
        "longest_sync": syncs["longest"][0] if syncs["longest"] else None,
        "steps": profiler_steps(trace),
    }
