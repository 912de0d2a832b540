"""nn.Linear under the profiler: one layer on a 2-D and on a 3-D input, eager or compiled, a few steps after
warm-up, each input in a region of its own.

Run it as a script to print the ops under each region of one eager step.
"""

import torch
from torch import nn
from torch.profiler import ProfilerActivity, profile, record_function, schedule

from snippets.reading_output.dispatch import op_tree


# --8<-- [start:layer]
def make_linear(features_in=1024, features_out=4096, batch=8, tokens=128, device="cpu"):
    """The layer, and the same numbers as two inputs: rows × features, and batch × tokens × features."""
    torch.manual_seed(0)
    layer = nn.Linear(features_in, features_out, device=device)
    rows = torch.randn(batch * tokens, features_in, device=device)
    return layer, {"2-D input": rows, "3-D input": rows.view(batch, tokens, features_in)}
# --8<-- [end:layer]


# --8<-- [start:profile]
def profile_linear(compiled=False, steps=5, warmup_calls=3, features_in=1024, features_out=4096, batch=8,
                   tokens=128, device=None, on_trace_ready=None):
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    layer, inputs = make_linear(features_in, features_out, batch, tokens, device)
    run = torch.compile(layer) if compiled else layer
    with torch.no_grad():
        for _ in range(warmup_calls):  # compiled: one graph for each input's number of dimensions
            for x in inputs.values():
                run(x)
        with profile(activities=activities, schedule=schedule(wait=0, warmup=1, active=steps),
                     on_trace_ready=on_trace_ready) as prof:
            for _ in range(1 + steps):
                for name, x in inputs.items():
                    with record_function(name):
                        run(x)
                if device == "cuda":
                    torch.cuda.synchronize()  # each step ends when its kernels have run
                prof.step()
    return prof
# --8<-- [end:profile]


def print_regions(prof):
    """The ops under each input's region, one per line, indented by depth."""
    for event in sorted(prof.events(), key=lambda event: event.time_range.start):
        if event.name in ("2-D input", "3-D input"):
            print("\n".join(op_tree(event)))


if __name__ == "__main__":
    profile_linear(steps=1, warmup_calls=1, features_in=16, features_out=32, batch=2, tokens=4,
                   on_trace_ready=print_regions)
