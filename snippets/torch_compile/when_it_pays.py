"""When compiling pays: the same MLP's step time, eager against compiled, in one process, interleaved.

Run it as a script to print the median step of each and their ratio, at a small size.
"""

import statistics
import time

import torch
from torch.profiler import ProfilerActivity, profile

from snippets.torch_compile.fusion import make_mlp


# --8<-- [start:timing]
def timed_calls(run, inputs, calls, device):
    """Each call's host time (until it returns) and step time (until its kernels have run), in µs."""
    host, step = [], []
    for _ in range(calls):
        start = time.perf_counter()
        run(inputs)
        returned = time.perf_counter()
        if device == "cuda":
            torch.cuda.synchronize()
        host.append((returned - start) * 1e6)
        step.append((time.perf_counter() - start) * 1e6)
    return host, step


def time_eager_and_compiled(width=512, hidden=2048, batch=64, steps=5, rounds=20, warmup_calls=3, device=None,
                            on_trace_ready=None):
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    model, inputs = make_mlp(width, hidden, batch, device)
    runs = {"eager": model, "compiled": torch.compile(model)}
    times = {name: {"host": [], "step": [], "first_call_us": None} for name in runs}
    with torch.no_grad():
        for name, run in runs.items():
            times[name]["first_call_us"] = timed_calls(run, inputs, 1, device)[1][0]  # compiled: compiles here
            timed_calls(run, inputs, warmup_calls, device)
        for round_number in range(rounds):  # interleaved, so that a slow moment is shared out
            for name in list(runs)[round_number % 2:] + list(runs)[:round_number % 2]:
                host, step = timed_calls(runs[name], inputs, steps, device)
                times[name]["host"] += host
                times[name]["step"] += step
        activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
        with profile(activities=activities, on_trace_ready=on_trace_ready) as prof:  # the trace handed over
            for _ in range(2):
                timed_calls(runs["compiled"], inputs, 1, device)
                prof.step()
    return {
        "device": device, "width": width, "hidden": hidden, "batch": batch, "steps": steps * rounds,
        "configurations": [
            {"name": name, "median_step_us": statistics.median(found["step"]),
             "median_host_us": statistics.median(found["host"]), "first_call_us": found["first_call_us"]}
            for name, found in times.items()
        ],
    }
# --8<-- [end:timing]


if __name__ == "__main__":
    found = time_eager_and_compiled(width=32, hidden=64, batch=4, steps=5, rounds=4)
    eager, compiled = found["configurations"]
    print(f"eager {eager['median_step_us']:.1f} µs, compiled {compiled['median_step_us']:.1f} µs, "
          f"compiled / eager {compiled['median_step_us'] / eager['median_step_us']:.2f}")
