"""What compiling costs: the first call of a compiled function, a new shape, and the calls that hit the cache."""

import os
import shutil
import tempfile

import torch
from torch.profiler import ProfilerActivity, profile, record_function

from snippets.torch_compile.in_a_trace import matmul_bias


# --8<-- [start:profile]
def profile_calls(rows=(64, 64, 64, 96, 96, 128, 128), features=256, dynamic=None, cold=False, device="cuda",
                  on_trace_ready=None):
    """Call the compiled function once per entry of ``rows``, with that many rows, each call in a region.

    ``cold=True`` compiles into an empty Inductor cache, as the first run on a fresh machine does.
    """
    if cold:
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="inductor-cache-")
    activities = [ProfilerActivity.CPU]
    if device == "cuda":
        activities.append(ProfilerActivity.CUDA)
    w = torch.randn(features, features, device=device)
    b = torch.randn(features, device=device)
    compiled = torch.compile(matmul_bias, dynamic=dynamic)
    with profile(activities=activities, on_trace_ready=on_trace_ready):
        for count in rows:
            x = torch.randn(count, features, device=device)
            with record_function("call"):
                compiled(x, w, b)
            if device == "cuda":
                torch.cuda.synchronize()
    names, seconds = torch._dynamo.utils.compile_times(repr="csv")  # seconds per compilation, by phase
    cache = torch._dynamo.utils.counters["inductor"]  # Inductor's on-disk cache of compiled graphs
    phases = {name: [float(s) for s in value.split(", ")] for name, value in zip(names, seconds, strict=True)}
    if cold:
        shutil.rmtree(os.environ.pop("TORCHINDUCTOR_CACHE_DIR"), ignore_errors=True)
    return {"rows": list(rows), "dynamic": dynamic, "cold": cold, "compile_times": phases,
            "fx_graph_cache": {"hits": cache["fxgraph_cache_hit"], "misses": cache["fxgraph_cache_miss"]}}
# --8<-- [end:profile]


if __name__ == "__main__":
    device = "cuda" if torch.cuda.is_available() else "cpu"
    found = profile_calls(rows=(8, 8, 12), features=16, device=device)
    for name in ("_compile.compile_inner", "OutputGraph.call_user_compiler", "build_guards"):
        print(name, len(found["compile_times"][name]))
