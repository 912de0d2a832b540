"""Profile the memory of a few training steps, and take a CUDA memory snapshot where there is a GPU.

Run it as a script to print the summary table sorted by the memory each op
allocated itself, and to write ``memory_timeline.json`` (memory by category
over time); on a machine with a GPU it also writes ``memory_snapshot.pickle``,
which https://pytorch.org/memory_viz opens.
"""

import warnings

import torch
from torch import nn
from torch.profiler import ProfilerActivity, profile, schedule


# --8<-- [start:model]
def make_training(width=512, batch=64, device="cpu"):
    """A small model, its Adam optimizer and one batch: what one training step needs."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(),
                          nn.Linear(width, 10)).to(device)
    optimizer = torch.optim.Adam(model.parameters())
    inputs = torch.randn(batch, width, device=device)
    labels = torch.randint(0, 10, (batch,), device=device)
    return model, optimizer, inputs, labels


def train_step(model, optimizer, inputs, labels):
    optimizer.zero_grad(set_to_none=True)  # frees last step's gradients
    loss = nn.functional.cross_entropy(model(inputs), labels)
    loss.backward()
    optimizer.step()
# --8<-- [end:model]


# --8<-- [start:profile]
def profile_memory_steps(width=512, batch=64, steps=5, device=None, on_trace_ready=None):
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    activities = [ProfilerActivity.CPU]
    if device == "cuda":
        activities.append(ProfilerActivity.CUDA)
    training = make_training(width, batch, device)

    with profile(
        activities=activities,
        schedule=schedule(wait=1, warmup=1, active=steps - 2, repeat=1),
        profile_memory=True,  # record every allocation and free
        record_shapes=True,  # the memory timeline needs all three
        with_stack=True,
        on_trace_ready=on_trace_ready,
    ) as prof:
        for _ in range(steps):
            train_step(*training)
            prof.step()
    return prof
# --8<-- [end:profile]


# --8<-- [start:snapshot]
def dump_memory_snapshot(path="memory_snapshot.pickle", width=512, batch=64, steps=3):
    """Record the CUDA caching allocator's history over a few steps and write a snapshot for memory_viz."""
    if not torch.cuda.is_available():
        raise RuntimeError("memory snapshots record the CUDA caching allocator: they need a GPU")
    training = make_training(width, batch, "cuda")
    torch.cuda.memory._record_memory_history(max_entries=100_000)
    try:
        for _ in range(steps):
            train_step(*training)
        torch.cuda.memory._dump_snapshot(path)
    finally:
        torch.cuda.memory._record_memory_history(enabled=None)  # stop recording
    return path
# --8<-- [end:snapshot]


if __name__ == "__main__":
    prof = profile_memory_steps()
    print(prof.key_averages().table(sort_by="self_cpu_memory_usage", row_limit=10))
    with warnings.catch_warnings():  # deprecated in favour of CUDA memory snapshots
        warnings.simplefilter("ignore", FutureWarning)
        prof.export_memory_timeline("memory_timeline.json")  # the GPU's memory when there is one
    if torch.cuda.is_available():
        print(dump_memory_snapshot())
