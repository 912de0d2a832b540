"""The KV cache under the memory profiler: the decoder of ``generation.py`` generates with a dynamic cache (grown by
``torch.cat`` every step) or a static one (buffers allocated once, written in place), and the profiler records
every allocation and free, with the shapes and stacks that the memory timeline needs.

Run it as a script to print, for each cache, the ops that allocated the most memory.
"""

import torch
from torch.profiler import ProfilerActivity, profile, schedule

from snippets.serving_a_model.generation import generate, make_decoder


# --8<-- [start:profile]
def profile_cache(cache="dynamic", new_tokens=16, vocabulary=32000, layers=8, width=1024, heads=16, hidden=4096,
                  batch=1, prompt_tokens=512, dtype="bfloat16", threads=None, device=None, on_trace_ready=None):
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    if threads:
        torch.set_num_threads(threads)
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    model, prompt = make_decoder(vocabulary, layers, width, heads, hidden, prompt_tokens + new_tokens, batch,
                                 prompt_tokens, getattr(torch, dtype), device)
    # As in generation.py: the first generation is the warm-up step, the second one profiler step per phase step.
    with profile(activities=activities, schedule=schedule(wait=0, warmup=1, active=new_tokens, repeat=1),
                 profile_memory=True,  # every allocation and free, with its size
                 record_shapes=True,  # the memory timeline needs these two as well
                 with_stack=True, on_trace_ready=on_trace_ready) as prof:
        generate(model, prompt, new_tokens, cache)
        prof.step()
        generate(model, prompt, new_tokens, cache, step=prof.step)
    return prof
# --8<-- [end:profile]


def print_memory(prof):
    """The ops that allocated the most, their own allocations less their frees, summed over the recorded steps."""
    print(prof.key_averages().table(sort_by="self_cpu_memory_usage", row_limit=8))


if __name__ == "__main__":
    for kind in ("dynamic", "static"):
        profile_cache(kind, new_tokens=8, vocabulary=512, layers=2, width=64, heads=2, hidden=128, prompt_tokens=16,
                      dtype="float32", on_trace_ready=print_memory)
