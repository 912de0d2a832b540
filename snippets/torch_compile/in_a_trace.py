"""The same matmul and bias add, eager and compiled, each under its own region: what compiling leaves in a trace."""

import torch
from torch.profiler import ProfilerActivity, profile, record_function

from snippets.reading_output.dispatch import op_tree


# --8<-- [start:functions]
def matmul_bias(x, w, b):
    return x @ w + b


def matmul_bias_relu(x, w, b):
    return torch.relu(x @ w + b)
# --8<-- [end:functions]


# --8<-- [start:profile]
def profile_eager_and_compiled(size=1024, device="cuda", on_trace_ready=None):
    activities = [ProfilerActivity.CPU]
    if device == "cuda":
        activities.append(ProfilerActivity.CUDA)
    x = torch.randn(size, size, device=device)
    w = torch.randn(size, size, device=device)
    b = torch.randn(size, device=device)
    cases = {
        "eager": matmul_bias,
        "compiled": torch.compile(matmul_bias),
        "compiled, with a ReLU": torch.compile(matmul_bias_relu),
    }
    for run in cases.values():  # the first call compiles: the profiler records a later one
        run(x, w, b)
    with profile(activities=activities, on_trace_ready=on_trace_ready) as prof:
        for name, run in cases.items():
            with record_function(name):
                run(x, w, b)
        if device == "cuda":
            torch.cuda.synchronize()
    return prof
# --8<-- [end:profile]


if __name__ == "__main__":
    device = "cuda" if torch.cuda.is_available() else "cpu"
    prof = profile_eager_and_compiled(size=64, device=device)
    for event in sorted(prof.events(), key=lambda event: event.time_range.start):
        if event.name in ("eager", "compiled", "compiled, with a ReLU"):
            print("\n".join(op_tree(event)))
