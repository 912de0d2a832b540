"""Profile a loop of steps with a schedule, the way a training loop is profiled.

Run it as a script to profile eight steps and write one trace file per
worker into ``./profiler_traces``.
"""

import os
import socket

import torch
from torch.profiler import (
    ProfilerActivity,
    profile,
    record_function,
    schedule,
    tensorboard_trace_handler,
)


def one_step(x, w, b):
    with record_function("forward"):
        y = x @ w + b
    with record_function("reduce"):
        return y.sum()


# --8<-- [start:handler]
def per_worker_handler(trace_dir):
    # One file per process: name it after the host and the rank so that the
    # traces of a multi-process job do not overwrite each other.
    rank = os.environ.get("RANK", "0")
    worker = f"{socket.gethostname()}_rank{rank}"
    return tensorboard_trace_handler(trace_dir, worker_name=worker)
# --8<-- [end:handler]


# --8<-- [start:profile]
def profile_steps(
    size=1024,
    steps=8,
    wait=1,
    warmup=1,
    active=3,
    device=None,
    on_trace_ready=None,
):
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    activities = [ProfilerActivity.CPU]
    if device == "cuda":
        activities.append(ProfilerActivity.CUDA)
    x = torch.randn(size, size, device=device)
    w = torch.randn(size, size, device=device)
    b = torch.randn(size, device=device)

    with profile(
        activities=activities,
        # Skip `wait` steps, trace `warmup` steps and throw them away,
        # then keep `active` steps. repeat=1: one cycle, then stop.
        schedule=schedule(wait=wait, warmup=warmup, active=active, repeat=1),
        on_trace_ready=on_trace_ready or per_worker_handler("profiler_traces"),
    ) as prof:
        for _ in range(steps):
            loss = one_step(x, w, b)
            loss.item()  # like logging a loss: waits for the step's kernels
            prof.step()  # tell the profiler that a step ended
    return prof
# --8<-- [end:profile]


if __name__ == "__main__":
    profile_steps()
    print(sorted(os.listdir("profiler_traces")))
