"""Profile the same workload on a machine without a GPU."""

import torch
from torch.profiler import ProfilerActivity, profile, record_function


# --8<-- [start:profile]
def profile_on_cpu(size=1024, threads=None, on_trace_ready=None):
    if threads:
        torch.set_num_threads(threads)
    x = torch.randn(size, size)
    w = torch.randn(size, size)
    b = torch.randn(size)
    with profile(
        activities=[ProfilerActivity.CPU],  # nothing else to watch
        record_shapes=True,
        on_trace_ready=on_trace_ready,
    ) as prof:
        with record_function("matmul_bias"):
            x @ w + b
    return prof
# --8<-- [end:profile]


if __name__ == "__main__":
    prof = profile_on_cpu()
    print(f"intra-op threads: {torch.get_num_threads()}")
    print(prof.key_averages(group_by_input_shape=True).table(
        sort_by="self_cpu_time_total", row_limit=8))
