"""Which Python functions the time was spent under: ``export_stacks`` writes one line per stack, ready for a
flame graph.

Run it as a script to write ``profiler_stacks.txt`` (Brendan Gregg's ``flamegraph.pl`` draws it) and to
print how many lines each way of profiling wrote.
"""

import tempfile
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile


# --8<-- [start:workload]
def attention(x, wq, wk, wv):
    scores = (x @ wq) @ (x @ wk).T / x.shape[1] ** 0.5
    return torch.softmax(scores, dim=-1) @ (x @ wv)


def feed_forward(x, w_in, w_out):
    return torch.relu(x @ w_in) @ w_out


def block(x, weights):
    """A transformer block's arithmetic, as plain functions: their names are what the stacks show."""
    x = x + attention(x, *weights["attention"])
    return x + feed_forward(x, *weights["feed_forward"])


def make_weights(width, hidden):
    torch.manual_seed(0)
    return {"attention": [torch.randn(width, width) for _ in range(3)],
            "feed_forward": [torch.randn(width, hidden), torch.randn(hidden, width)]}
# --8<-- [end:workload]


# --8<-- [start:stacks]
def profile_stacks(tokens=64, width=64, hidden=256, calls=20, on_trace_ready=None):
    x, weights = torch.randn(tokens, width), make_weights(width, hidden)
    # export_stacks writes nothing unless the profiler runs with this experimental option too:
    # https://github.com/pytorch/pytorch/issues/100253
    verbose = torch._C._profiler._ExperimentalConfig(verbose=True)
    with profile(activities=[ProfilerActivity.CPU], with_stack=True, experimental_config=verbose,
                 on_trace_ready=on_trace_ready) as prof:
        for _ in range(calls):
            block(x, weights)
    with profile(activities=[ProfilerActivity.CPU], with_stack=True) as plain:  # the same, without the option
        for _ in range(calls):
            block(x, weights)
    return {"stacks": exported_stacks(prof), "stacks_without_option": exported_stacks(plain)}


def exported_stacks(prof, metric="self_cpu_time_total"):
    """The lines ``export_stacks`` writes: a stack's frames, outermost first, separated by ';', then a space
    and the stack's ``metric`` in µs (one line per op, so a stack may come back on several lines)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "stacks.txt"
        prof.export_stacks(str(path), metric)
        return path.read_text().splitlines()
# --8<-- [end:stacks]


if __name__ == "__main__":
    found = profile_stacks()
    Path("profiler_stacks.txt").write_text("".join(line + "\n" for line in found["stacks"]))
    print(f"with experimental_config: {len(found['stacks'])} lines, in profiler_stacks.txt")
    print(f"without it: {len(found['stacks_without_option'])} lines")
