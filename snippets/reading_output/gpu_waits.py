"""Profile one large matrix multiply with FLOP counting, to set its achieved TFLOP/s against the device's peak.

Run it as a script (``python snippets/reading_output/gpu_waits.py``) to print the
profiler's table, FLOPs column included, and write ``gemm_flops_trace.json``.
"""

import torch
from torch.profiler import ProfilerActivity, profile


# --8<-- [start:profile]
def profile_gemm(size=8192, dtype="bfloat16", calls=5, device=None, on_trace_ready=None):
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    activities = [ProfilerActivity.CPU]
    if device == "cuda":
        activities.append(ProfilerActivity.CUDA)
    a = torch.randn(size, size, device=device, dtype=getattr(torch, dtype))
    b = torch.randn(size, size, device=device, dtype=getattr(torch, dtype))
    a @ b  # the first call picks and loads the kernel: keep it out of the profile
    if device == "cuda":
        torch.cuda.synchronize()

    with profile(
        activities=activities,
        record_shapes=True,  # the input shapes give each multiply's FLOPs: 2 × m × k × n
        with_flops=True,  # the profiler counts them too: the table's FLOPs column
        on_trace_ready=on_trace_ready,
    ) as prof:
        for _ in range(calls):
            c = a @ b
        if device == "cuda":
            torch.cuda.synchronize()  # inside the profile: wait for the kernels it launched
    assert c.shape == (size, size)
    return prof
# --8<-- [end:profile]


if __name__ == "__main__":
    prof = profile_gemm(size=512, dtype="float32")
    print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=8))
    prof.export_chrome_trace("gemm_flops_trace.json")
