"""How a prefill and a decode step take longer as the prompt grows and as the batch grows: each configuration
generates a few times, timed by the clock at each phase's step, then one generation is profiled as the page's.

Every configuration is timed in this one process, one after the other, after a generation that warms it up.
"""

import statistics
import time
from itertools import pairwise

import torch

from snippets.serving_a_model.generation import generate, make_decoder, profile_generation


# --8<-- [start:timing]
def phase_times(model, prompt, new_tokens, device):
    """One generation: the prefill's time and each decode step's, in microseconds, by the clock at each step's
    end (on a GPU, after waiting for it: the host runs ahead of the device)."""
    marks = [time.perf_counter()]

    def mark():
        if device == "cuda":
            torch.cuda.synchronize()
        marks.append(time.perf_counter())

    generate(model, prompt, new_tokens, step=mark)
    gaps = [(end - start) * 1e6 for start, end in pairwise(marks)]
    return gaps[0], gaps[1:]


def time_configuration(sizes, batch, prompt_tokens, new_tokens, repeats, dtype, device):
    """The median prefill and the median decode step over ``repeats`` generations, after one to warm up."""
    model, prompt = make_decoder(**sizes, max_tokens=prompt_tokens + new_tokens, batch=batch,
                                 prompt_tokens=prompt_tokens, dtype=dtype, device=device)
    phase_times(model, prompt, new_tokens, device)
    prefills, decodes = [], []
    for _ in range(repeats):
        prefill, decode = phase_times(model, prompt, new_tokens, device)
        prefills.append(prefill)
        decodes += decode
    return {"batch": batch, "prompt_tokens": prompt_tokens, "prefill_us": statistics.median(prefills),
            "decode_us": statistics.median(decodes)}
# --8<-- [end:timing]


# --8<-- [start:sweep]
def sweep(prompt_lengths=(128, 512, 2048), batches=(1, 8, 32), prompt_tokens=512, new_tokens=16, repeats=3,
          vocabulary=32000, layers=8, width=1024, heads=16, hidden=4096, threads=None, device=None,
          on_trace_ready=None):
    """The prompt's length swept at batch 1, then the batch swept at ``prompt_tokens``; the last configuration's
    generation profiled. Returns each configuration's median prefill and decode step."""
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    if threads:
        torch.set_num_threads(threads)
    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    sizes = {"vocabulary": vocabulary, "layers": layers, "width": width, "heads": heads, "hidden": hidden}
    configurations = [(1, length) for length in prompt_lengths] + [(batch, prompt_tokens) for batch in batches]
    points = [time_configuration(sizes, batch, length, new_tokens, repeats, dtype, device)
              for batch, length in dict.fromkeys(configurations)]  # batch 1 at prompt_tokens once, if in both
    profile_generation(new_tokens, "dynamic", **sizes, batch=batches[-1], prompt_tokens=prompt_tokens,
                       device=device, on_trace_ready=on_trace_ready)
    return {"device": device, "new_tokens": new_tokens, "repeats": repeats, "points": points}
# --8<-- [end:sweep]


if __name__ == "__main__":
    found = sweep(prompt_lengths=(16, 64), batches=(1, 4), prompt_tokens=16, new_tokens=4, repeats=2,
                  vocabulary=512, layers=2, width=64, heads=2, hidden=128)
    for point in found["points"]:
        print(f"batch {point['batch']:>2}, prompt {point['prompt_tokens']:>4}: prefill {point['prefill_us']:,.0f} µs,"
              f" decode step {point['decode_us']:,.0f} µs")
