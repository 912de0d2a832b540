"""Fully sharded data parallelism (FSDP2, ``fully_shard``), profiled on every rank.

Start it with torchrun:

    torchrun --nproc-per-node 2 snippets/multi_gpu/collectives.py

Each rank holds a shard of every layer's parameters: it all-gathers a layer's
parameters before using them and reduce-scatters the gradients after.
"""

import torch
import torch.distributed as dist
from torch.distributed.fsdp import fully_shard
from torch.profiler import ProfilerActivity, profile, schedule

from snippets.multi_gpu.per_rank import make_model, rank_handler, start_rank


# --8<-- [start:train]
def train_fsdp(hidden=1024, layers=4, batch=64, threads=None, steps=5, wait=1, warmup=1, active=2, device=None,
               on_trace_ready=None):
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    where = start_rank(device)
    if threads:
        torch.set_num_threads(threads)
    torch.manual_seed(0)
    model = make_model(hidden, layers).to(where)
    for layer in model:
        if isinstance(layer, torch.nn.Linear):
            fully_shard(layer)  # each Linear's parameters gathered and freed on their own
    fully_shard(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    torch.manual_seed(dist.get_rank())
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])

    with profile(
        activities=activities,
        record_shapes=True,
        schedule=schedule(wait=wait, warmup=warmup, active=active, repeat=1),
        on_trace_ready=on_trace_ready or rank_handler("profiler_traces"),
    ) as prof:
        for _ in range(steps):
            x = torch.randn(batch, hidden, device=where)
            model(x).square().mean().backward()
            optimizer.step()
            optimizer.zero_grad()
            prof.step()
    dist.destroy_process_group()
    return prof
# --8<-- [end:train]


if __name__ == "__main__":
    train_fsdp()
