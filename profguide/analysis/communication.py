"""Communication kernels (of the libraries ``patterns.COMMUNICATION`` names) and how much of their time
computation hides."""


from profguide.analysis.idle import busy_intervals
from profguide.analysis.intervals import EVERYTHING, Window, union_length
from profguide.analysis.kernels import kernel_rows
from profguide.analysis.select import kinds_mask, names_where, overlapping, profiler_steps, step_window
from profguide.analysis.summary import Communication
from profguide.patterns import COMMUNICATION
from profguide.trace.model import KIND, Trace


def communication(trace: Trace, window: Window = EVERYTHING, named: str = "") -> Communication:
    """Communication kernels (``patterns.COMMUNICATION``): their time and how much of it overlaps computation, inside
    ``window`` (the whole trace by default); the kernels and host ops counted are those that overlap it. With
    ``named``, only the communication kernels whose names hold it count (``AllReduce``: an all-reduce's alone)."""
    is_comm = names_where(trace, COMMUNICATION.search)
    inside = overlapping(trace, window)
    kernels = (trace.kind == KIND["kernel"]) & inside
    comm, compute = kernels & is_comm, kernels & ~is_comm
    if named:
        comm &= names_where(trace, lambda name: named in name)
    comm_us = union_length(*busy_intervals(trace, window, comm))
    compute_us = union_length(*busy_intervals(trace, window, compute))
    both = union_length(*busy_intervals(trace, window, comm | compute))
    overlap = comm_us + compute_us - both
    host_comm = kinds_mask(trace, ("cpu_op", "annotation")) & is_comm & inside
    return {
        "kernels": int(comm.sum()),
        "compute_us": compute_us,
        "kernel_us": comm_us,
        "overlapped_us": overlap,
        "exposed_us": comm_us - overlap,
        "overlap_pct": 100 * overlap / comm_us if comm_us else None,
        "host_ops": int(host_comm.sum()),
        "top": [{"name": row["name"], "total_us": row["total_us"], "count": row["count"]}
                for row in kernel_rows(trace, comm, 5)],
    }


def step_communication(trace: Trace) -> list[dict[str, float]]:
    """For each ProfilerStep, over its window (its start until the GPU finished what it launched): the time
    of computation alone, of communication hidden behind computation, of communication exposed, and of
    neither, which add up to the window: [{"step", "window_us", "compute_only_us", "overlapped_us",
    "exposed_us", "neither_us"}]."""
    rows: list[dict[str, float]] = []
    for step in profiler_steps(trace):
        window = step_window(trace, step["step"])
        found = communication(trace, window)
        length = window[1] - window[0]
        busy = found["compute_us"] + found["exposed_us"]
        rows.append({"step": step["step"], "window_us": length,
                     "compute_only_us": found["compute_us"] - found["overlapped_us"],
                     "overlapped_us": found["overlapped_us"], "exposed_us": found["exposed_us"],
                     "neither_us": max(length - busy, 0.0)})
    return rows
