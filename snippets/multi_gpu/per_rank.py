"""Data-parallel training with DistributedDataParallel, profiled on every rank.

Start it with torchrun, which gives each process its rank and the job's size:

    torchrun --nproc-per-node 2 snippets/multi_gpu/per_rank.py

Each rank writes its own trace into ``./profiler_traces``, named after its
host and rank. With a GPU per rank it uses NCCL; without, gloo on the CPU.
"""

import os
import socket
import time

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.profiler import (
    ProfilerActivity,
    profile,
    record_function,
    schedule,
    tensorboard_trace_handler,
)


def make_model(hidden, layers):
    blocks = []
    for _ in range(layers):
        blocks += [nn.Linear(hidden, hidden), nn.ReLU()]
    return nn.Sequential(*blocks, nn.Linear(hidden, 1))


# --8<-- [start:setup]
def start_rank(device):
    """Join the job that torchrun started; return this rank's device."""
    # torchrun sets RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT;
    # init_process_group reads them.
    backend = "nccl" if device == "cuda" else "gloo"
    dist.init_process_group(backend)
    if device == "cuda":
        local_rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(local_rank)
        return torch.device("cuda", local_rank)
    return torch.device("cpu")
# --8<-- [end:setup]


# --8<-- [start:handler]
def rank_handler(trace_dir):
    # One file per rank, named after the host and the rank, so that the
    # ranks of a job do not write over each other's traces.
    worker = f"{socket.gethostname()}_rank{dist.get_rank()}"
    return tensorboard_trace_handler(trace_dir, worker_name=worker)
# --8<-- [end:handler]


# --8<-- [start:train]
def train_ddp(
    hidden=1024,
    layers=4,
    batch=64,
    bucket_cap_mb=25,
    slow_rank=None,
    slow_ms=0.0,
    threads=None,
    steps=6,
    wait=1,
    warmup=1,
    active=3,
    device=None,
    on_trace_ready=None,
):
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    where = start_rank(device)
    if threads:
        torch.set_num_threads(threads)  # ranks that share one CPU share its cores
    torch.manual_seed(0)  # the same initial weights on every rank
    model = DistributedDataParallel(
        make_model(hidden, layers).to(where),
        bucket_cap_mb=bucket_cap_mb,  # gradients are all-reduced in buckets of this size
    )
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    torch.manual_seed(dist.get_rank())  # but different data on each
    activities = [ProfilerActivity.CPU]
    if device == "cuda":
        activities.append(ProfilerActivity.CUDA)

    with profile(
        activities=activities,
        record_shapes=True,  # the size of each bucket the ranks all-reduce
        schedule=schedule(wait=wait, warmup=warmup, active=active, repeat=1),
        on_trace_ready=on_trace_ready or rank_handler("profiler_traces"),
    ) as prof:
        for _ in range(steps):
            x = torch.randn(batch, hidden, device=where)
            loss = model(x).square().mean()
            if dist.get_rank() == slow_rank:
                with record_function("straggle"):
                    time.sleep(slow_ms / 1000)  # this rank falls behind
            loss.backward()  # all-reduces the gradients, bucket by bucket
            optimizer.step()
            optimizer.zero_grad()
            prof.step()
    dist.destroy_process_group()
    return prof
# --8<-- [end:train]


if __name__ == "__main__":
    train_ddp()
