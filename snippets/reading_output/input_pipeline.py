"""Profile a training loop whose dataset is slow, with the batches loaded in the main process or in workers.

Run it as a script to profile the loop both ways and print how long each
recorded step spent in the DataLoader.
"""

import time

import torch
from torch.profiler import ProfilerActivity, profile, schedule
from torch.utils.data import DataLoader, Dataset


# --8<-- [start:dataset]
class SlowDataset(Dataset):
    """Random samples that take ``load_ms`` each to produce, as if read from disk, decoded and augmented."""

    def __init__(self, size=1024, features=256, classes=10, load_ms=1.0):
        self.size, self.features, self.classes, self.load_ms = size, features, classes, load_ms

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        time.sleep(self.load_ms / 1000)  # stands in for reading, decoding and augmenting one sample
        generator = torch.Generator().manual_seed(index)
        sample = torch.randn(self.features, generator=generator)
        label = torch.randint(self.classes, (), generator=generator)
        return sample, label
# --8<-- [end:dataset]


def small_model(features=256, hidden=1024, classes=10):
    return torch.nn.Sequential(
        torch.nn.Linear(features, hidden), torch.nn.ReLU(),
        torch.nn.Linear(hidden, hidden), torch.nn.ReLU(),
        torch.nn.Linear(hidden, classes),
    )


# --8<-- [start:profile]
def profile_input_pipeline(num_workers=0, batch_size=32, load_ms=1.0, hidden=1024, wait=1, warmup=1, active=4,
                           threads=None, device=None, on_trace_ready=None):
    if threads:
        torch.set_num_threads(threads)
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    activities = [ProfilerActivity.CPU]
    if device == "cuda":
        activities.append(ProfilerActivity.CUDA)
    dataset = SlowDataset(load_ms=load_ms)
    loader = DataLoader(dataset, batch_size=batch_size, num_workers=num_workers)
    model = small_model(dataset.features, hidden, dataset.classes).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    steps = wait + warmup + active

    with profile(
        activities=activities,
        schedule=schedule(wait=wait, warmup=warmup, active=active, repeat=1),
        on_trace_ready=on_trace_ready,
    ) as prof:
        for step, (inputs, labels) in enumerate(loader):
            if step == steps:
                break
            inputs, labels = inputs.to(device), labels.to(device)
            loss = torch.nn.functional.cross_entropy(model(inputs), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            prof.step()
    return prof
# --8<-- [end:profile]


def time_in_dataloader(prof):
    """Each recorded step's time inside the DataLoader's ``__next__``, in ms."""
    return [
        round(event.cpu_time_total / 1000, 1)
        for event in prof.events()
        if event.name.startswith("enumerate(DataLoader)")
    ]


if __name__ == "__main__":
    for workers in (0, 2):
        prof = profile_input_pipeline(num_workers=workers)
        print(f"num_workers={workers}: ms in the DataLoader per step: {time_in_dataloader(prof)}")
