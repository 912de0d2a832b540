"""The decoder of *Generation, step by step*, compiled with torch.compile: the same generation, eager or compiled,
under the profiler, one profiler step a phase's step.

The first generation compiles (outside the profiler: compiling is paid once, and this page is about the steps
after it), the second is the profiler's warm-up step, the third is kept. Inductor's C++ kernels leave an event each
in a CPU trace only with its kernel-profile option, which the compiled runs set.

Run it as a script to print which compiled regions each phase ran, and how often.
"""

from collections import Counter

import torch
import torch._inductor.config
from torch.profiler import ProfilerActivity, profile, schedule

from snippets.serving_a_model.generation import generate, make_decoder


# --8<-- [start:static]
def with_static_addresses(new_cache):
    """``new_cache`` whose static cache tells Dynamo that its buffers never move. A CUDA graph replays at fixed
    addresses: mode="reduce-overhead" skips the graphs of a step that writes into an input it cannot assume fixed."""
    def new_static_cache(kind, batch):
        cache = new_cache(kind, batch)
        if kind == "static":
            for buffer in cache.keys + cache.values:
                torch._dynamo.mark_static_address(buffer)
        return cache
    return new_static_cache
# --8<-- [end:static]


# --8<-- [start:profile]
def profile_decoding(compiled=False, mode="default", new_tokens=16, cache="static", vocabulary=32000, layers=8,
                     width=1024, heads=16, hidden=4096, batch=1, prompt_tokens=512, threads=None, device=None,
                     on_trace_ready=None):
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    if threads:
        torch.set_num_threads(threads)
    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    model, prompt = make_decoder(vocabulary, layers, width, heads, hidden, prompt_tokens + new_tokens, batch,
                                 prompt_tokens, dtype, device)
    run = torch.compile(model, mode=mode) if compiled else model
    if mode == "reduce-overhead":
        run.new_cache = with_static_addresses(model.new_cache)
    with torch._inductor.config.patch({"cpp.enable_kernel_profile": True}):
        generate(run, prompt, new_tokens, cache)  # compiled: Dynamo compiles the prefill and the decode step here
        with profile(activities=activities, schedule=schedule(wait=0, warmup=1, active=new_tokens, repeat=1),
                     on_trace_ready=on_trace_ready) as prof:
            generate(run, prompt, new_tokens, cache)
            prof.step()
            generate(run, prompt, new_tokens, cache, step=prof.step)
    return prof
# --8<-- [end:profile]


# --8<-- [start:regions]
def compiled_regions_by_phase(prof, phases=("prefill", "decode")):
    """For each phase, how many times it ran each compiled region (``Torch-Compiled Region: frame/compile``)."""
    found = {phase: Counter() for phase in phases}
    steps = [event for event in prof.events() if event.name.startswith(phases)]
    for event in prof.events():
        if event.name.startswith("Torch-Compiled Region"):
            for step in steps:
                if step.time_range.start <= event.time_range.start <= step.time_range.end:
                    found[step.name.split()[0]][event.name] += 1
    return found
# --8<-- [end:regions]


def print_regions(prof):
    for phase, regions in compiled_regions_by_phase(prof).items():
        print(f"{phase}: " + (", ".join(f"{name} ×{count}" for name, count in sorted(regions.items())) or "eager"))


if __name__ == "__main__":
    for cache in ("static", "dynamic"):
        print(f"{cache} cache")
        torch._dynamo.reset()
        profile_decoding(compiled=True, new_tokens=8, cache=cache, vocabulary=512, layers=2, width=64, heads=2,
                         hidden=128, prompt_tokens=16, on_trace_ready=print_regions)
