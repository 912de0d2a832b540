"""A small decoder block trained under the profiler: RMSNorm, causal self-attention and a GeGLU MLP, each in a
region of its own, and the optimizer's step in one more; eager or compiled, a few steps after warm-up.

Run it as a script to print the forward time of each part in one eager step (the backward is joined to them by
``profguide explain --ops``).
"""

import logging.handlers

import torch
import torch._inductor.config
import torch.nn.functional as F
from torch import nn
from torch.profiler import ProfilerActivity, profile, record_function, schedule

from snippets.inside_a_model.mlp import GeGLU

PARTS = ("norm", "attention", "MLP", "optimizer")


# --8<-- [start:block]
class RMSNorm(nn.Module):
    """Each token scaled to unit root-mean-square, then by a learned weight per feature: written out in ops."""

    def __init__(self, width, eps=1e-6, device="cpu"):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(width, device=device))

    def forward(self, x):
        with record_function("norm"):
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class SelfAttention(nn.Module):
    """Causal self-attention: one projection to query, key and value, SDPA, and a projection back."""

    def __init__(self, width, heads, device="cpu"):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width, bias=False, device=device)
        self.out = nn.Linear(width, width, bias=False, device=device)

    def forward(self, x):
        with record_function("attention"):
            batch, tokens, width = x.shape
            q, k, v = self.qkv(x).view(batch, tokens, 3, self.heads, -1).transpose(1, 3).unbind(2)
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.out(y.transpose(1, 2).reshape(batch, tokens, width))


class MLP(GeGLU):
    """The GeGLU MLP of the MLP page, in a region of its own."""

    def forward(self, x):
        with record_function("MLP"):
            return super().forward(x)


class DecoderBlock(nn.Module):
    """Pre-norm: x + attention(norm(x)), then + MLP(norm(·)), as in Llama-style decoders."""

    def __init__(self, width, heads, hidden, device="cpu"):
        super().__init__()
        self.attention_norm, self.mlp_norm = RMSNorm(width, device=device), RMSNorm(width, device=device)
        self.attention = SelfAttention(width, heads, device)
        self.mlp = MLP(width, hidden, device)

    def forward(self, x):
        x = x + self.attention(self.attention_norm(x))
        return x + self.mlp(self.mlp_norm(x))
# --8<-- [end:block]


# --8<-- [start:step]
def make_training(layers=2, width=512, heads=8, hidden=2048, batch=4, tokens=256, device="cpu"):
    """A stack of blocks, AdamW over its parameters, and one batch with a target to regress."""
    torch.manual_seed(0)
    model = nn.Sequential(*(DecoderBlock(width, heads, hidden, device) for _ in range(layers)))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)
    x, target = (torch.randn(batch, tokens, width, device=device) for _ in range(2))
    return model, optimizer, x, target


def train_step(run, optimizer, x, target):
    loss = F.mse_loss(run(x), target)
    loss.backward()
    with record_function("optimizer"):
        optimizer.step()
        optimizer.zero_grad()
# --8<-- [end:step]


# --8<-- [start:profile]
def profile_block(compiled=False, steps=4, warmup_steps=3, layers=2, width=512, heads=8, hidden=2048, batch=4,
                  tokens=256, threads=None, device=None, on_trace_ready=None):
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    if threads:
        torch.set_num_threads(threads)
    torch.set_float32_matmul_precision("high")  # float32 GEMMs on a GPU's tensor cores, in TF32
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    model, optimizer, x, target = make_training(layers, width, heads, hidden, batch, tokens, device)
    run = torch.compile(model) if compiled else model
    with torch._inductor.config.patch({"cpp.enable_kernel_profile": True}):
        for _ in range(warmup_steps):  # the first compiled step compiles the forward and the backward
            train_step(run, optimizer, x, target)
        with profile(activities=activities, schedule=schedule(wait=0, warmup=1, active=steps),
                     on_trace_ready=on_trace_ready) as prof:
            for _ in range(1 + steps):
                train_step(run, optimizer, x, target)
                if device == "cuda":
                    torch.cuda.synchronize()  # each step ends when its kernels have run
                prof.step()
    return prof
# --8<-- [end:profile]


def profile_block_logged(device=None, **arguments):
    """``profile_block``, keeping what Dynamo logs at warning level while it runs, for the recording's results
    (``results.json``): the page quotes the compiled run's own log."""
    kept = logging.handlers.BufferingHandler(capacity=10_000)  # flushes, and forgets, only at capacity
    kept.setLevel(logging.WARNING)
    dynamo = logging.getLogger("torch._dynamo")
    dynamo.addHandler(kept)
    try:
        profile_block(device=device, **arguments)
    finally:
        dynamo.removeHandler(kept)
    return {"logged": [record.getMessage() for record in kept.buffer]}


def print_parts(prof):
    """Each part's calls and CPU time in the step (forward only: the table knows nothing of the backward)."""
    for row in prof.key_averages():
        if row.key in PARTS:
            print(f"{row.key:>10}: {row.count} calls, {row.cpu_time_total / 1000:.1f} ms")


if __name__ == "__main__":
    profile_block(steps=1, warmup_steps=1, layers=1, width=64, heads=2, hidden=128, batch=2, tokens=16,
                  on_trace_ready=print_parts)
