"""The fusion page's MLP, eager and compiled, taking turns in one process under the profiler: each call in a region
named after the version it runs, so that an op they share can be compared in the same process, at the same time.

Run it as a script to print the median time of `aten::addmm` inside each version's calls.
"""

import statistics

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule

from snippets.torch_compile.fusion import make_mlp


# --8<-- [start:turns]
def profile_taking_turns(rounds=10, warmup_calls=3, width=512, hidden=2048, batch=64, device=None,
                         on_trace_ready=None):
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    model, inputs = make_mlp(width, hidden, batch, device)
    versions = {"eager": model, "compiled": torch.compile(model)}
    with torch.no_grad():
        for run in versions.values():
            for _ in range(warmup_calls):  # the first compiled call compiles: keep it out of the profile
                run(inputs)
        with profile(activities=activities, schedule=schedule(wait=0, warmup=1, active=rounds),
                     on_trace_ready=on_trace_ready) as prof:
            for _ in range(1 + rounds):  # a step is one round: one call of each version, in turn
                for name, run in versions.items():
                    with record_function(name):
                        run(inputs)
                        if device == "cuda":
                            torch.cuda.synchronize()  # each call ends when its kernels have run
                prof.step()
    return prof
# --8<-- [end:turns]


def op_medians(prof, op="aten::addmm"):
    """The median duration (µs) of ``op`` inside each version's calls."""
    events = prof.events()
    calls = {name: [event.time_range for event in events if event.name == name] for name in ("eager", "compiled")}
    return {name: statistics.median(event.cpu_time_total for event in events if event.name == op
                                    and any(call.start <= event.time_range.start <= call.end for call in found))
            for name, found in calls.items()}


if __name__ == "__main__":
    profile_taking_turns(rounds=3, warmup_calls=1, width=32, hidden=64, batch=4, on_trace_ready=lambda prof: [
        print(f"{name}: aten::addmm {median:.1f} µs, median") for name, median in op_medians(prof).items()])
