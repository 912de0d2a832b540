"""Profile a small training loop that makes the mistakes torch's anti-pattern matcher looked for, or the same loop
with each of them fixed.

The loop with ``fixed=False``: a convolution with a bias just before a batch norm (which removes any bias),
bf16 matrix multiplies whose dimensions are not multiples of 8, the model wrapped in ``nn.DataParallel``, an
optimizer that updates one parameter at a time (``foreach=False``), gradients zeroed rather than set to None,
and a tensor made on the CPU and then copied to the device. With ``fixed=True``: no bias, dimensions that
are multiples of 8, ``foreach=True``, ``set_to_none=True``, no DataParallel (on several GPUs,
DistributedDataParallel), and the tensor made on the device.

Run it as a script to profile the loop both ways and print how many ops each recorded step ran in the
optimizer's step and in ``zero_grad``.
"""

import torch
from torch.profiler import ProfilerActivity, profile, schedule


# --8<-- [start:model]
def convnet(fixed, channels=16, hidden=100, classes=8):
    """A convolution, a batch norm and two Linear layers; ``fixed`` drops the convolution's bias (the batch norm
    subtracts the mean, bias included) and rounds ``hidden`` up to a multiple of 8."""
    if fixed:
        hidden = -(-hidden // 8) * 8
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, channels, 3, padding=1, bias=not fixed), torch.nn.BatchNorm2d(channels),
        torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
        torch.nn.Linear(channels, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, classes),
    )
# --8<-- [end:model]


# --8<-- [start:profile]
def profile_anti_patterns(fixed=False, batch_size=32, image=16, hidden=100, classes=8, wait=1, warmup=1, active=3,
                          device=None, on_trace_ready=None):
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    activities = [ProfilerActivity.CPU]
    if device == "cuda":
        activities.append(ProfilerActivity.CUDA)
    torch.manual_seed(0)
    model = convnet(fixed, hidden=hidden, classes=classes).to(device)
    if not fixed:
        model = torch.nn.DataParallel(model)  # one process driving every GPU; DistributedDataParallel is the fix
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, foreach=fixed)
    inputs = torch.randn(batch_size, 3, image, image, device=device)
    labels = torch.randint(classes, (batch_size,), device=device)

    with profile(
        activities=activities,
        schedule=schedule(wait=wait, warmup=warmup, active=active, repeat=1),
        on_trace_ready=on_trace_ready,
        record_shapes=True,
    ) as prof:
        for _ in range(wait + warmup + active):
            if fixed:
                class_weights = torch.ones(classes, device=device)
            else:
                class_weights = torch.ones(classes).to(device)  # made on the CPU, then copied
            with torch.autocast(device_type=device, dtype=torch.bfloat16):
                logits = model(inputs)
            loss = torch.nn.functional.cross_entropy(logits.float(), labels, weight=class_weights)
            optimizer.zero_grad(set_to_none=fixed)
            loss.backward()
            optimizer.step()
            prof.step()
    return prof
# --8<-- [end:profile]


def ops_per_step(prof, region):
    """How many ops each recorded step ran inside ``region`` (``Optimizer.step#SGD.step``), counted from the
    profiler's events: those that start inside one of the region's occurrences."""
    events = prof.events()
    spans = [(event.time_range.start, event.time_range.end) for event in events if event.name == region]
    return [sum(start < event.time_range.start and event.time_range.end <= end and event.name.startswith("aten::")
                for event in events) for start, end in spans]


if __name__ == "__main__":
    for fixed in (False, True):
        prof = profile_anti_patterns(fixed=fixed)
        print(f"fixed={fixed}: ops in the optimizer step: {ops_per_step(prof, 'Optimizer.step#SGD.step')}, "
              f"in zero_grad: {ops_per_step(prof, 'Optimizer.zero_grad#SGD.zero_grad')}")
