"""A small model's forward pass under the profiler, on two batch sizes: every column of the summary table.

Run as a script, it prints the table three ways: sorted by total time, grouped
by input shape, and by memory.
"""

import torch
from torch import nn
from torch.profiler import ProfilerActivity, profile, record_function


def make_model(device):
    return nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 256)).to(device)


# --8<-- [start:profile]
def profile_forward(batches=(64, 64, 512), device="cuda", on_trace_ready=None):
    activities = [ProfilerActivity.CPU]
    if device == "cuda":
        activities.append(ProfilerActivity.CUDA)
    model = make_model(device)
    inputs = [torch.randn(batch, 512, device=device) for batch in batches]
    with profile(
        activities=activities,
        record_shapes=True,   # for group_by_input_shape
        profile_memory=True,  # for the memory columns
        on_trace_ready=on_trace_ready,
    ) as prof:
        with torch.no_grad():
            for x in inputs:
                with record_function("forward"):
                    model(x)
        if device == "cuda":
            torch.cuda.synchronize()
    return prof
# --8<-- [end:profile]


# --8<-- [start:stacks]
def profile_with_stacks(device="cpu", on_trace_ready=None):
    # with_stack alone leaves FunctionEvent.stack empty in recent torch
    # (pytorch/pytorch#100253); the verbose experimental config fills it.
    from torch._C._profiler import _ExperimentalConfig

    model = make_model(device)
    x = torch.randn(64, 512, device=device)
    with profile(
        activities=[ProfilerActivity.CPU],
        with_stack=True,
        experimental_config=_ExperimentalConfig(verbose=True),
        on_trace_ready=on_trace_ready,
    ) as prof:
        with torch.no_grad():
            model(x)
    return prof
# --8<-- [end:stacks]


if __name__ == "__main__":
    device = "cuda" if torch.cuda.is_available() else "cpu"
    prof = profile_forward(device=device)
    print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))
    print(prof.key_averages(group_by_input_shape=True).table(sort_by="cpu_time_total", row_limit=10))
    print(prof.key_averages().table(sort_by="self_cpu_memory_usage", row_limit=6))
