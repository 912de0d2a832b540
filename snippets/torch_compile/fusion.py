"""Fusion: a small MLP (Linear, GELU, Linear, LayerNorm) profiled eager or compiled, a few steps after warm-up.

Run it as a script to print, for eager and compiled, the ops the profiler recorded per step.
"""

import torch
from torch import nn
from torch.profiler import ProfilerActivity, profile, schedule


# --8<-- [start:model]
def make_mlp(width=512, hidden=2048, batch=64, device="cpu"):
    """The MLP and one batch of inputs."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(width, hidden), nn.GELU(), nn.Linear(hidden, width), nn.LayerNorm(width))
    return model.to(device), torch.randn(batch, width, device=device)
# --8<-- [end:model]


# --8<-- [start:profile]
def profile_mlp(compiled=False, steps=5, warmup_calls=3, width=512, hidden=2048, batch=64, device=None,
                on_trace_ready=None):
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    model, inputs = make_mlp(width, hidden, batch, device)
    run = torch.compile(model) if compiled else model
    with torch.no_grad():
        for _ in range(warmup_calls):  # the first compiled call compiles: keep it out of the profile
            run(inputs)
        with profile(activities=activities, schedule=schedule(wait=0, warmup=1, active=steps),
                     on_trace_ready=on_trace_ready) as prof:
            for _ in range(1 + steps):
                run(inputs)
                if device == "cuda":
                    torch.cuda.synchronize()  # each step ends when its kernels have run
                prof.step()
    return prof
# --8<-- [end:profile]


if __name__ == "__main__":
    for compiled in (False, True):
        prof = profile_mlp(compiled=compiled, steps=1, warmup_calls=1, width=32, hidden=64, batch=4)
        ops = sum(row.count for row in prof.key_averages())
        print(f"{'compiled' if compiled else 'eager'}: {ops} ops in one step")
