"""A GeGLU MLP under the profiler: gate, up and down projections around a GELU and a product, eager or compiled,
a few steps after warm-up, each forward in a region of its own.

Run it as a script to print the ops under the region of one eager and of one compiled step.
"""

import torch
import torch._inductor.config
import torch.nn.functional as F
from torch import nn
from torch.profiler import ProfilerActivity, profile, record_function, schedule

from snippets.reading_output.dispatch import op_tree

REGION = "GeGLU MLP"


# --8<-- [start:model]
class GeGLU(nn.Module):
    """The feed-forward block of many transformers: gelu(x @ gate.T) * (x @ up.T), projected back by down."""

    def __init__(self, width, hidden, device="cpu"):
        super().__init__()
        self.gate = nn.Linear(width, hidden, bias=False, device=device)
        self.up = nn.Linear(width, hidden, bias=False, device=device)
        self.down = nn.Linear(hidden, width, bias=False, device=device)

    def forward(self, x):
        return self.down(F.gelu(self.gate(x), approximate="tanh") * self.up(x))


def make_mlp(width=768, hidden=3072, batch=8, tokens=128, device="cpu"):
    """The block and one batch of sequences of tokens: batch × tokens × width."""
    torch.manual_seed(0)
    return GeGLU(width, hidden, device), torch.randn(batch, tokens, width, device=device)
# --8<-- [end:model]


# --8<-- [start:profile]
def profile_mlp(compiled=False, steps=5, warmup_calls=3, width=768, hidden=3072, batch=8, tokens=128,
                device=None, on_trace_ready=None):
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    model, x = make_mlp(width, hidden, batch, tokens, device)
    run = torch.compile(model) if compiled else model
    # Inductor's C++ kernels (on the CPU) record an event only when compiled with this option.
    with torch._inductor.config.patch({"cpp.enable_kernel_profile": True}), torch.no_grad():
        for _ in range(warmup_calls):  # the first compiled call compiles: keep it out of the profile
            run(x)
        with profile(activities=activities, schedule=schedule(wait=0, warmup=1, active=steps),
                     on_trace_ready=on_trace_ready) as prof:
            for _ in range(1 + steps):
                with record_function(REGION):
                    run(x)
                if device == "cuda":
                    torch.cuda.synchronize()  # each step ends when its kernels have run
                prof.step()
    return prof
# --8<-- [end:profile]


def print_region(prof):
    """The ops under the first region, one per line, indented by depth."""
    first = min((event for event in prof.events() if event.name == REGION), key=lambda event: event.time_range.start)
    print("\n".join(op_tree(first)))


if __name__ == "__main__":
    for compiled in (False, True):
        print("compiled:" if compiled else "eager:")
        profile_mlp(compiled=compiled, steps=1, warmup_calls=1, width=16, hidden=64, batch=2, tokens=4,
                    on_trace_ready=print_region)
