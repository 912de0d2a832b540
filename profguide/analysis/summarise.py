"""The verdict on a trace, the summary ``profguide explain`` reports, and the facts captions quote."""

from typing import TypedDict

import numpy as np

from profguide.analysis.communication import communication
from profguide.analysis.compile import compile_markers
from profguide.analysis.families import family_breakdown, family_sentence
from profguide.analysis.host import CPU_LABELS, host_breakdown
from profguide.analysis.idle import LATE_LAUNCH, busy_intervals, idle_breakdown
from profguide.analysis.intervals import EVERYTHING, Mask, Window, union_length
from profguide.analysis.kernels import device_name, gemm_throughput, in_window, memory_traffic, occupancy, top_kernels
from profguide.analysis.launches import clock_skew, launch_delays, profiler_overhead, synchronisations
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
from profguide.analysis.startup import STARTUP_PCT, device_setup, is_startup, iterations, steady_window
from profguide.analysis.summary import (
    HostActivity,
    HostBreakdown,
    IdleActivity,
    IdleBreakdown,
    KernelRow,
    LeftOut,
    Measured,
    Step,
    Summary,
    SyncCall,
)
from profguide.patterns import COMMUNICATION
from profguide.trace.model import KIND, Trace

WINDOW_MEANING = "first to last GPU op (kernels, memcpy, memset), all streams"

COMPUTE_BOUND_BUSY_PCT = 80  # a GPU busy this much of the window is the bottleneck
EXPOSED_COMMUNICATION_PCT = 30  # communication not hidden behind computation, as a share of the window
SYNC_STARTS_PCT = 50  # late launches after a sync, as a share of the host's idle time, make the run sync-bound
HTA_WINDOW_MIN_BUSY_PCT = 25  # HTA's window must hold this much of the GPU's busy time, or the tool widens it
VERDICTS = {
    "cpu-only": "No GPU work in this trace, and no host events to break down.",
    "not-analysed": "This trace holds device events profguide does not analyse ({categories}): it can say "
    "nothing about that device's busy or idle time.",
    "start-up": "Most of this window is the device starting up ({label}): the CUDA context, the allocator's "
    "first blocks, each kernel's module loaded at its first launch, library set-up. A process pays it once: "
    "profile past it (torch.profiler.schedule with wait and warmup steps) to see the steady state.",
    "compute-bound": "The GPU is busy most of the time: speed comes from faster kernels, not from the host.{label}",
    "communication-bound": "Communication kernels take much of the time without overlapping computation.",
    "input-bound": "The GPU waits while the host loads the next batch ({label}): load it in worker processes "
    "(DataLoader num_workers), pin its memory, and prefetch it.",
    "sync-bound": "The GPU runs dry while the host waits in a synchronisation ({label}): read values back from "
    "the GPU less often (log every N steps), so that the host can queue work ahead.",
    "optimizer-bound": "The GPU waits while the host runs the optimizer step op by op ({label}): use a fused or "
    "foreach optimizer (fused=True), or capture the step in a CUDA graph.",
    "python-bound": "The GPU waits while the host runs Python that no op records ({label}): profile with "
    "with_stack=True to find it, and move it out of the step.",
    "launch-bound": "The GPU waits while the host issues many small ops ({label}): fewer, larger ops "
    "(torch.compile, batching) or CUDA graphs cut the launches.",
    "profiler-bound": "The GPU waits on the profiler's own work ({label}): profile more steps and look past it; "
    "the run itself is not slowed by this.",
    "idle-queued": "The GPU is idle between ops that were already queued: dependencies between streams, "
    "or many tiny ops back to back.",
    "idle-unexplained": "The GPU is idle much of the time, and the trace has no launch calls that explain why.",
}
# On a trace without GPU work the host's time is the run's time: the verdict names where the most of it went. The
# host's computing has a name of its own: compute-bound means a GPU busy most of the window, which such a trace
# cannot have.
HOST_VERDICTS = {
    "input-bound": "Loading the next batch takes more of the host's time than anything else ({label}): load it "
    "in worker processes (DataLoader num_workers), so that loading overlaps computing.",
    "host-compute-bound": "Computing takes more of the host's time than anything else ({label}): speed comes from "
    "cheaper ops, more threads, or a GPU.",
    "optimizer-bound": "The optimizer takes more of the host's time than anything else ({label}): use a foreach "
    "or fused optimizer (foreach=True, fused=True).",
    "python-bound": "Python that no op records takes more of the host's time than anything else ({label}): "
    "profile with with_stack=True to find it.",
    "communication-bound": "The main thread records no op for most of its time while other threads spend most "
    "of it in communication ({label}): the step waits for the other ranks; look at the slowest rank, and "
    "overlap communication with computation.",
}
HOST_ACTIVITY_VERDICTS = {"data loading": "input-bound", "ops": "host-compute-bound",
                          "backward": "host-compute-bound", "optimizer": "optimizer-bound", "region": "python-bound",
                          "python": "python-bound"}
ACTIVITY_VERDICTS = {"data loading": "input-bound", "sync": "sync-bound", "optimizer": "optimizer-bound",
                     "python": "python-bound", "region": "python-bound", "ops": "launch-bound",
                     "backward": "launch-bound", "setup": "start-up"}


def top_label(row: HostActivity | IdleActivity) -> str:
    return row["top"][0][0] if row["top"] else "?"


def late_launch_verdict(idle: IdleBreakdown) -> tuple[str, str]:
    """The verdict when the host launched late: named after what the host was doing, with its label."""
    activities = idle["by_activity"]
    dominant = max(activities, key=lambda name: activities[name]["idle_us"])
    late_us = sum(idle["by_cause"][cause]["idle_us"] for cause in LATE_LAUNCH)
    after_sync = idle["by_cause"]["sync"]["idle_us"]
    if dominant != "data loading" and late_us and 100 * after_sync / late_us >= SYNC_STARTS_PCT:
        syncs = activities["sync"]
        return "sync-bound", top_label(syncs) if syncs["top"] else "the call the gaps began in"
    return ACTIVITY_VERDICTS[dominant], top_label(activities[dominant])


def host_verdict(host: HostBreakdown) -> tuple[str, str]:
    """(the verdict, the name it points at) for a trace without GPU work: named after the activity that took
    the most host time, as ``late_launch_verdict`` names the GPU's wait."""
    activities = host["by_activity"]
    dominant = max(activities, key=lambda name: activities[name]["us"])
    # A thread that records nothing may be running Python or may be blocked on a collective that other
    # threads carry out: when those threads are busy communicating most of the time, say the latter.
    talking = [thread for thread in host.get("other_threads", []) if COMMUNICATION.search(thread["top"] or "")
               and thread["busy_us"] >= host["dur_us"] / 2]
    if dominant == "python" and talking:
        return "communication-bound", talking[0]["top"]
    return HOST_ACTIVITY_VERDICTS[dominant], top_label(activities[dominant])


# Where the idle time of the causes other than a late launch lies, for the verdict's basis.
IDLE_WHEN = {"queued": "before ops already queued", "profiler": "under the profiler's own work",
             "other": "before ops with no launch call in the trace"}


def share_of(part: float, whole: float) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "0%"


def verdict(summary: Measured) -> tuple[str, str, str]:
    """(the verdict, the name it points at, the measurement that decided it, in words) from what
    ``summarise`` measured. The rules are tried in this order; the first that holds decides."""
    window, idle, busy_pct = summary["window"], summary["idle"], summary["gpu_busy_pct"]
    if window is None or idle is None or busy_pct is None:  # no GPU work: the three are None together
        unread = summary["unanalysed_events"]
        if unread:
            return "not-analysed", ", ".join(sorted(unread)), "no GPU work it reads, and device events it does not"
        host = summary["host"]
        if not host or not host["dur_us"]:
            return "cpu-only", "", "no GPU work and no host events"
        name, label = host_verdict(host)
        activity = max(host["by_activity"], key=lambda key: host["by_activity"][key]["us"])
        basis = (f"no GPU work; the host's largest share of time, "
                 f"{share_of(host['by_activity'][activity]['us'], host['dur_us'])}: {CPU_LABELS[activity]}")
        if name == "communication-bound":
            basis += ", while other threads spent at least half of it in communication"
        return name, label, basis
    length = window["dur_us"]
    setup = summary["device_setup"]
    if setup and is_startup(setup):
        return ("start-up", ", ".join(name for name, _ in setup["top"]),
                f"device set-up {setup['pct']:.0f}% of the window (at least {STARTUP_PCT}%)")
    comm = summary["communication"]
    if comm["kernel_us"] and comm["exposed_us"] > EXPOSED_COMMUNICATION_PCT / 100 * length:
        return ("communication-bound", "", f"communication that overlaps no computation "
                f"{share_of(comm['exposed_us'], length)} of the window (over {EXPOSED_COMMUNICATION_PCT}%)")
    if busy_pct >= COMPUTE_BOUND_BUSY_PCT:
        families = family_sentence(summary["kernel_families"])
        return ("compute-bound", f" {families}" if families else "",
                f"GPU busy {busy_pct:.0f}% of the window (at least {COMPUTE_BOUND_BUSY_PCT}%)")
    causes = idle["by_cause"]
    late = sum(causes[cause]["idle_us"] for cause in LATE_LAUNCH)
    largest = max(("queued", "profiler", "other"), key=lambda cause: causes[cause]["idle_us"])
    if late >= causes[largest]["idle_us"]:
        name, label = late_launch_verdict(idle)
        busiest = max(idle["by_activity"].values(), key=lambda row: row["idle_us"])
        basis = (f"the GPU waited for the host {share_of(late, length)} of the window, more than for anything else; "
                 f"the host was mostly {busiest['meaning']}")
        if name == "sync-bound":
            basis += (f", and {share_of(causes['sync']['idle_us'], late)} of the wait began in a synchronisation "
                      f"(at least {SYNC_STARTS_PCT}% makes it sync-bound)")
        return name, label, basis
    basis = (f"the GPU idle {share_of(causes[largest]['idle_us'], length)} of the window {IDLE_WHEN[largest]}, "
             "more than for any other cause")
    if largest == "profiler":
        return "profiler-bound", ", ".join(summary["profiler_overhead"]["by_name"]) or "overhead events", basis
    return {"queued": "idle-queued"}.get(largest, "idle-unexplained"), "", basis


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
    """Everything ``profguide explain`` reports, for one window (default: ``measured_window``)."""
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
    measured: Measured = {
        "events": len(trace),
        "device": device_name(trace),
        "skipped_events": trace.skipped,
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
    }
    name, label, basis = verdict(measured)
    texts = HOST_VERDICTS if host and name in HOST_VERDICTS else VERDICTS
    summary: Summary = {**measured, "verdict": name, "verdict_text": texts[name].format(label=label, categories=label),
                        "verdict_basis": basis, "findings": []}
    summary["findings"] = findings(trace, summary)
    return summary


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
