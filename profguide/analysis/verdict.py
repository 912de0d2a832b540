"""The verdict on a trace, the summary ``profguide explain`` reports, and the facts captions quote."""

from profguide.analysis.communication import communication
from profguide.analysis.compile import compile_markers
from profguide.analysis.idle import busy_intervals, idle_breakdown, union_length
from profguide.analysis.kernels import device_name, gemm_throughput, memory_traffic, occupancy, top_kernels
from profguide.analysis.launches import lane_offset, launch_latency, synchronisations
from profguide.analysis.select import (
    activity_window,
    cpu_lanes,
    gpu_lanes,
    gpu_window,
    hta_ops,
    hta_window,
    on_a_stream,
    profiler_steps,
)
from profguide.trace.model import KIND

COMPUTE_BOUND_BUSY_PCT = 80  # a GPU busy this much of the window is the bottleneck
EXPOSED_COMMUNICATION_PCT = 30  # communication not hidden behind computation, as a share of the window
VERDICTS = {
    "cpu-only": "No GPU work in this trace: it profiles the host only.",
    "compute-bound": "The GPU is busy most of the time: speed comes from faster kernels, not from the host.",
    "launch-bound": "The GPU often waits for the host to launch work: the run is launch- or overhead-bound.",
    "sync-bound": "The GPU runs dry while the host waits in synchronisations: the run is waiting on syncs.",
    "communication-bound": "Communication kernels take much of the time without overlapping computation.",
    "idle-queued": "The GPU is idle between ops that were already queued: dependencies between streams, "
    "or many tiny ops back to back.",
    "idle-unexplained": "The GPU is idle much of the time, and the trace has no launch calls that explain why.",
}


def verdict(summary):
    """The verdict and its evidence, from a ``summary`` dict as ``explain`` builds it."""
    if summary["window"] is None:
        return "cpu-only"
    comm = summary["communication"]
    window_us = summary["window"]["dur_us"]
    if comm["kernel_us"] and comm["exposed_us"] > EXPOSED_COMMUNICATION_PCT / 100 * window_us:
        return "communication-bound"
    if summary["gpu_busy_pct"] >= COMPUTE_BOUND_BUSY_PCT:
        return "compute-bound"
    causes = summary["idle"]["by_cause"]
    largest = max(causes, key=lambda cause: causes[cause]["idle_us"])
    return {"host": "launch-bound", "sync": "sync-bound", "queued": "idle-queued"}.get(largest, "idle-unexplained")


def summarise(trace, window=None):
    """Everything ``profguide explain`` reports, for one window (default: HTA's, with HTA's ops)."""
    if window is None:
        ops = hta_ops(trace)
        window = hta_window(trace)
    else:
        ops = on_a_stream(trace)
    summary = {
        "events": len(trace),
        "device": device_name(trace),
        "skipped_events": trace.skipped,
        "steps": profiler_steps(trace),
        "window": None,
        "gpu_busy_pct": None,
        "gpu_idle_pct": None,
        "top_kernels": top_kernels(trace, window) if window else [],
        "communication": communication(trace),
        "launch_latency_us": launch_latency(trace),
        "lane_offset": lane_offset(trace),
        "synchronisations": synchronisations(trace),
        "memory_traffic": memory_traffic(trace),
        "occupancy": occupancy(trace)[:10],
        "compile": compile_markers(trace),
        "gemm": gemm_throughput(trace),
    }
    if window:
        idle = idle_breakdown(trace, window, ops)
        length = window[1] - window[0]
        summary.update(
            window={"start_us": window[0], "end_us": window[1], "dur_us": length},
            gpu_busy_pct=100 * idle["busy_us"] / length if length else 0.0,
            gpu_idle_pct=100 * idle["idle_us"] / length if length else 0.0,
            idle=idle,
        )
    summary["verdict"] = verdict(summary)
    summary["verdict_text"] = VERDICTS[summary["verdict"]]
    return summary


def facts(trace):
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
        "launch_latency_us": launch_latency(trace),
        "longest_sync": syncs["longest"][0] if syncs["longest"] else None,
        "steps": profiler_steps(trace),
    }
