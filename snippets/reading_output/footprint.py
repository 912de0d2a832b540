"""What the profiler costs: the same training steps timed without it and under it, option by option.

Run it as a script to print the median step time of each configuration and
its ratio to the steps without the profiler.
"""

import statistics
import time

import torch
from torch import nn
from torch.profiler import ProfilerActivity, profile, schedule

# --8<-- [start:configurations]
# What each configuration passes to profile(); None: no profiler at all.
CONFIGURATIONS = {
    "no profiler": None,
    "defaults": {},
    "record_shapes": {"record_shapes": True},
    "with_stack": {"with_stack": True},
    "profile_memory": {"profile_memory": True},
    "all three": {"record_shapes": True, "with_stack": True, "profile_memory": True},
}
# --8<-- [end:configurations]


def make_training(width=256, batch=32, device="cpu"):
    """A small model (many short ops: what makes the profiler's cost per op show), Adam, one batch."""
    torch.manual_seed(0)
    layers = [module for _ in range(4) for module in (nn.Linear(width, width), nn.ReLU())]
    model = nn.Sequential(*layers, nn.Linear(width, 10)).to(device)
    optimizer = torch.optim.Adam(model.parameters())
    inputs = torch.randn(batch, width, device=device)
    labels = torch.randint(0, 10, (batch,), device=device)
    return model, optimizer, inputs, labels


def train_step(model, optimizer, inputs, labels):
    optimizer.zero_grad(set_to_none=True)
    loss = nn.functional.cross_entropy(model(inputs), labels)
    loss.backward()
    optimizer.step()
    return loss


# --8<-- [start:timing]
def timed_steps(training, steps, device):
    """Each step's wall time in µs; on a GPU, each step waits for its kernels before the clock stops."""
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        train_step(*training)
        if device == "cuda":
            torch.cuda.synchronize()
        times.append((time.perf_counter() - start) * 1e6)
    return times


def time_configurations(steps=5, rounds=10, warmup_steps=10, width=256, batch=32, device=None,
                        on_trace_ready=None):
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    training = make_training(width, batch, device)
    timed_steps(training, warmup_steps, device)  # first-call costs land here, in no configuration
    times = {name: [] for name in CONFIGURATIONS}
    for round_number in range(rounds):
        # Interleave: every round runs every configuration, each round in a shifted order,
        # so that a slow moment of the machine is shared out rather than blamed on one of them.
        names = list(CONFIGURATIONS)
        shift = round_number % len(names)
        for name in names[shift:] + names[:shift]:
            options = CONFIGURATIONS[name]
            if options is None:
                times[name] += timed_steps(training, steps, device)
                continue
            last = round_number == rounds - 1 and name == "defaults"  # the one cycle handed over
            with profile(activities=activities, **options,
                         on_trace_ready=on_trace_ready if last else None):
                # Only the steps are timed: starting the profiler and stopping it cost more, once each.
                times[name] += timed_steps(training, steps, device)
    baseline = statistics.median(times["no profiler"])
    return {
        "device": device,
        "steps_per_round": steps,
        "rounds": rounds,
        "configurations": [
            {"name": name, "options": CONFIGURATIONS[name], "median_step_us": statistics.median(found),
             "ratio": statistics.median(found) / baseline}
            for name, found in times.items()
        ],
    }
# --8<-- [end:timing]


# --8<-- [start:phantom]
def profile_short_loop(steps=4, wait=1, warmup=1, active=5, on_trace_ready=None):
    """A loop that ends before its schedule's active phase does: the profiler stops at the exit instead."""
    training = make_training()
    with profile(
        activities=[ProfilerActivity.CPU],
        schedule=schedule(wait=wait, warmup=warmup, active=active, repeat=1),
        on_trace_ready=on_trace_ready,
    ) as prof:
        for _ in range(steps):
            train_step(*training)
            prof.step()  # after the last step, this opens one more: ProfilerStep#<steps>
    return prof
# --8<-- [end:phantom]


if __name__ == "__main__":
    for row in time_configurations()["configurations"]:
        print(f"{row['name']:>15}  {row['median_step_us']:10.1f} µs  ×{row['ratio']:.2f}")
