"""One matrix multiply written six ways, each in a region of its own: the operators each way becomes."""

import torch
from torch import nn
from torch.profiler import ProfilerActivity, profile, record_function


# --8<-- [start:cases]
def multiply_cases(size, device):
    """Each case's name and a function that runs it once."""
    x = torch.randn(size, size, device=device)
    w = torch.randn(size, size, device=device)
    batch = torch.randn(8, size, size, device=device)
    wide = torch.randn(size, 2 * size, device=device)
    linear = nn.Linear(size, size, device=device)
    return {
        "x @ w, 2-D": lambda: x @ w,
        "x @ w, 3-D by 2-D": lambda: batch @ w,
        "x @ y, 3-D by 3-D": lambda: batch @ batch,
        "nn.Linear": lambda: linear(x),
        "nn.Linear, transposed 3-D input": lambda: linear(batch.transpose(0, 1)),
        "x[:, ::2] @ w, strided": lambda: wide[:, ::2] @ w,
    }
# --8<-- [end:cases]


# --8<-- [start:profile]
def profile_cases(size=256, device="cuda", on_trace_ready=None):
    activities = [ProfilerActivity.CPU]
    if device == "cuda":
        activities.append(ProfilerActivity.CUDA)
    cases = multiply_cases(size, device)
    with torch.no_grad():
        for run in cases.values():  # once unprofiled: the first call's set-up is not the chain
            run()
        with profile(activities=activities, on_trace_ready=on_trace_ready) as prof:
            for name, run in cases.items():
                with record_function(name):
                    run()
            if device == "cuda":
                torch.cuda.synchronize()
    return prof
# --8<-- [end:profile]


def op_tree(event, depth=0):
    """The operators under ``event``, one per line, indented by depth."""
    lines = ["  " * depth + event.name]
    for child in sorted(event.cpu_children, key=lambda child: child.time_range.start):
        lines += op_tree(child, depth + 1)
    return lines


if __name__ == "__main__":
    device = "cuda" if torch.cuda.is_available() else "cpu"
    prof = profile_cases(device=device)
    names = set(multiply_cases(2, "cpu"))
    for event in sorted(prof.events(), key=lambda event: event.time_range.start):
        if event.name in names:
            print("\n".join(op_tree(event)))
