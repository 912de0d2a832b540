"""The ground truth beside a profile: one op timed by ``torch.utils.benchmark``, then the same op profiled.

Run it as a script to print the Timer's measurement and the profiler's
median for the same op.
"""

import statistics

import torch
from torch.profiler import ProfilerActivity, profile
from torch.utils import benchmark


# --8<-- [start:timer]
def time_matmul(a, b, threads=1, min_run_time=1.0):
    """What ``a @ b`` costs, by the Timer: it warms up, then times blocks of runs until ``min_run_time`` has
    passed, and keeps one time per block."""
    timer = benchmark.Timer(
        stmt="a @ b",
        globals={"a": a, "b": b},
        num_threads=threads,  # the Timer's default is one thread, whatever torch.get_num_threads() says
        label="a @ b",
        sub_label=f"{a.shape[0]}×{a.shape[1]} @ {b.shape[0]}×{b.shape[1]}",
    )
    return timer.blocked_autorange(min_run_time=min_run_time)
# --8<-- [end:timer]


# --8<-- [start:compare]
def time_against_profile(size=128, calls=50, threads=1, min_run_time=1.0, device=None, on_trace_ready=None):
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    a = torch.randn(size, size, device=device)
    b = torch.randn(size, size, device=device)
    measured = time_matmul(a, b, threads, min_run_time)  # its warm-up also warms the op for the profile

    previous = torch.get_num_threads()
    torch.set_num_threads(threads)  # the same threads as the Timer's
    try:
        with profile(activities=activities, on_trace_ready=on_trace_ready) as prof:
            for _ in range(calls):
                a @ b
            if device == "cuda":
                torch.cuda.synchronize()
    finally:
        torch.set_num_threads(previous)
    op = "aten::matmul"  # the op that a @ b records
    # On a GPU, the op's host time is only its launch: compare the time of the kernels it ran instead.
    profiled = [event.device_time_total if device == "cuda" else event.cpu_time_total
                for event in prof.events() if event.name == op]
    return {
        "op": op,
        "timer": {"median_us": measured.median * 1e6, "iqr_us": measured.iqr * 1e6,
                  "blocks": len(measured.times), "runs_per_block": measured.number_per_run,
                  "threads": measured.num_threads},
        # What printing the Measurement shows, less its first line (the object's address, which changes).
        "printed": str(measured).split("\n", 1)[1],
        "profiled_median_us": statistics.median(profiled),
    }
# --8<-- [end:compare]


if __name__ == "__main__":
    found = time_against_profile()
    print(found["printed"])
    print(f"The profiler's median {found['op']}: {found['profiled_median_us']:.1f} us")
