"""A function with a graph break: Dynamo compiles the code before and after it, and runs the break eagerly."""

import torch
from torch.profiler import ProfilerActivity, profile, record_function


# --8<-- [start:function]
def scaled_relu(x, w):
    y = x @ w
    scale = y.abs().max().item()  # a Python float: Dynamo cannot keep it in the graph
    return torch.relu(y / scale)
# --8<-- [end:function]


# --8<-- [start:profile]
def profile_graph_break(size=1024, calls=3, device="cuda", on_trace_ready=None):
    activities = [ProfilerActivity.CPU]
    if device == "cuda":
        activities.append(ProfilerActivity.CUDA)
    x = torch.randn(size, size, device=device)
    w = torch.randn(size, size, device=device)
    compiled = torch.compile(scaled_relu)
    compiled(x, w)  # the first call compiles both graphs
    with profile(activities=activities, on_trace_ready=on_trace_ready) as prof:
        for _ in range(calls):
            with record_function("call"):
                compiled(x, w)
        if device == "cuda":
            torch.cuda.synchronize()
    return prof
# --8<-- [end:profile]


if __name__ == "__main__":
    found = torch._dynamo.explain(scaled_relu)(torch.randn(8, 8), torch.randn(8, 8))
    print(f"{found.graph_count} graphs, {found.graph_break_count} graph break")
    print(found.break_reasons[0].reason.splitlines()[0])
