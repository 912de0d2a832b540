"""Causal attention under the profiler: written by hand, masking out of place or in place, or as
F.scaled_dot_product_attention with one backend pinned; a few steps after warm-up, each call in a region.

Run it as a script to print the ops under the region of one step of each variant the CPU can run.
"""

import math

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.profiler import ProfilerActivity, profile, record_function, schedule

from snippets.reading_output.dispatch import op_tree

REGION = "attention"
# The backends of F.scaled_dot_product_attention by the names the recordings use; the CPU has math and flash.
BACKENDS = {"math": SDPBackend.MATH, "flash": SDPBackend.FLASH_ATTENTION,
            "efficient": SDPBackend.EFFICIENT_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}
BY_HAND = ("masked_fill", "masked_fill_")


# --8<-- [start:inputs]
def make_inputs(batch=4, heads=16, tokens=1024, head_dim=64, dtype="bfloat16", device="cpu"):
    """Query, key and value (batch × heads × tokens × head_dim), and the causal mask, built once: True where a
    token would look at a later one."""
    torch.manual_seed(0)
    q, k, v = (torch.randn(batch, heads, tokens, head_dim, dtype=getattr(torch, dtype), device=device)
               for _ in range(3))
    later = torch.ones(tokens, tokens, dtype=torch.bool, device=device).triu(diagonal=1)
    return q, k, v, later
# --8<-- [end:inputs]


# --8<-- [start:by-hand]
def attention_by_hand(q, k, v, later, in_place=False):
    """Scores, scaled; the later tokens' scores set to -inf; softmax; the weighted sum of the values."""
    scores = (q @ k.transpose(-2, -1)) * (1 / math.sqrt(q.size(-1)))
    if in_place:
        scores.masked_fill_(later, -math.inf)  # writes into scores
    else:
        scores = scores.masked_fill(later, -math.inf)  # a new tensor: a copy of scores, then filled
    return torch.softmax(scores, dim=-1) @ v
# --8<-- [end:by-hand]


# --8<-- [start:sdpa]
def attention_pinned(q, k, v, backend):
    """The fused call with one backend allowed: it raises, rather than falls back, when that one cannot run."""
    with sdpa_kernel(BACKENDS[backend]):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)
# --8<-- [end:sdpa]


def attend(variant, q, k, v, later):
    """One call of ``variant``: ``masked_fill``, ``masked_fill_`` (by hand) or a backend's name."""
    if variant in BY_HAND:
        return attention_by_hand(q, k, v, later, in_place=variant == "masked_fill_")
    return attention_pinned(q, k, v, variant)


# --8<-- [start:profile]
def profile_attention(variant="masked_fill", steps=5, warmup_calls=2, batch=4, heads=16, tokens=1024, head_dim=64,
                      dtype="bfloat16", threads=None, profile_memory=False, device=None, on_trace_ready=None):
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    if threads:
        torch.set_num_threads(threads)
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    q, k, v, later = make_inputs(batch, heads, tokens, head_dim, dtype, device)
    with torch.no_grad():  # inference: an in-place fill would break a backward pass that needs the scores
        for _ in range(warmup_calls):
            attend(variant, q, k, v, later)
        with profile(activities=activities, schedule=schedule(wait=0, warmup=1, active=steps),
                     profile_memory=profile_memory, on_trace_ready=on_trace_ready) as prof:
            for _ in range(1 + steps):
                with record_function(REGION):
                    attend(variant, q, k, v, later)
                if device == "cuda":
                    torch.cuda.synchronize()  # each step ends when its kernels have run
                prof.step()
    return prof
# --8<-- [end:profile]


def print_region(prof):
    """The ops under the attention region, one per line, indented by depth."""
    for event in sorted(prof.events(), key=lambda event: event.time_range.start):
        if event.name == REGION:
            print("\n".join(op_tree(event)))


if __name__ == "__main__":
    for variant in (*BY_HAND, "math", "flash"):
        print(f"# {variant}")
        profile_attention(variant, steps=1, warmup_calls=1, batch=1, heads=2, tokens=8, head_dim=16, device="cpu",
                          on_trace_ready=print_region)
