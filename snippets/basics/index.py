"""Profile a matrix multiply plus bias add, on the GPU when there is one.

Run it as a script (``python snippets/basics/index.py``) to print the
profiler's summary table and write ``first_profile_trace.json``, which
Perfetto (https://ui.perfetto.dev) opens.
"""

import torch
from torch.profiler import ProfilerActivity, profile, record_function


# --8<-- [start:workload]
def matmul_bias(x, w, b):
    """The workload: the arithmetic of a linear layer as two ops (``nn.Linear`` records one ``aten::addmm``)."""
    return x @ w + b


def make_inputs(size, device):
    x = torch.randn(size, size, device=device)
    w = torch.randn(size, size, device=device)
    b = torch.randn(size, device=device)
    return x, w, b
# --8<-- [end:workload]


# --8<-- [start:profile]
def profile_matmul_bias(size=64, calls=1, device=None, on_trace_ready=None):
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    activities = [ProfilerActivity.CPU]
    if device == "cuda":
        activities.append(ProfilerActivity.CUDA)
    x, w, b = make_inputs(size, device)

    with profile(
        activities=activities,
        record_shapes=True,  # keep input shapes: the table can group by them
        on_trace_ready=on_trace_ready,
    ) as prof:
        for _ in range(calls):
            with record_function("matmul_bias"):  # a named region in table and trace
                y = matmul_bias(x, w, b)
            if device == "cuda":
                # Kernels run asynchronously: wait for them inside the profiled region.
                torch.cuda.synchronize()
    assert y.shape == (size, size)
    return prof
# --8<-- [end:profile]


# --8<-- [start:report]
def report(prof):
    on_gpu = any(e.device_time_total > 0 for e in prof.key_averages())
    sort_by = "cuda_time_total" if on_gpu else "cpu_time_total"
    return prof.key_averages().table(sort_by=sort_by, row_limit=12)
# --8<-- [end:report]


if __name__ == "__main__":
    prof = profile_matmul_bias(size=64)
    print(report(prof))
    prof.export_chrome_trace("first_profile_trace.json")
