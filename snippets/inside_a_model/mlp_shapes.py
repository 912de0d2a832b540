"""The GeGLU MLP compiled, then called on sequences whose length changes now and then, each call in a region:
which calls compile, with Inductor's kernels made for one shape or for any.

Run it as a script to print, for each value of ``dynamic``, how many graphs Dynamo compiled for five calls on
three lengths.
"""

import torch
from torch.profiler import ProfilerActivity, profile, record_function

from snippets.inside_a_model.mlp import make_mlp


# --8<-- [start:shapes]
def profile_lengths(tokens=(32, 32, 48, 48, 64), dynamic=None, width=768, hidden=3072, batch=8, device=None,
                    on_trace_ready=None):
    """Call the compiled block once per entry of ``tokens``, on sequences of that many tokens, each call in a
    region named ``call``."""
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    model, _ = make_mlp(width, hidden, batch, tokens[0], device)
    run = torch.compile(model, dynamic=dynamic)
    with torch.no_grad(), profile(activities=activities, on_trace_ready=on_trace_ready):
        for count in tokens:
            x = torch.randn(batch, count, width, device=device)
            with record_function("call"):
                run(x)
                if device == "cuda":
                    torch.cuda.synchronize()  # each call ends when its kernels have run
    return {"rows": list(tokens), "rows_are": "Tokens per sequence", "dynamic": dynamic}
# --8<-- [end:shapes]


if __name__ == "__main__":
    for dynamic in (None, False):
        torch._dynamo.reset()  # each setting compiles from scratch
        torch._dynamo.utils.counters.clear()
        profile_lengths(tokens=(4, 4, 6, 6, 8), dynamic=dynamic, width=16, hidden=64, batch=2)
        print(f"dynamic={dynamic}: {torch._dynamo.utils.counters['stats']['unique_graphs']} graphs compiled")
