"""profguide.analysis.host: what the host was doing, on the names a real torch run records."""

import time

import numpy as np
import pytest
import torch
from torch.profiler import ProfilerActivity, profile
from torch.utils.data import DataLoader, Dataset

from profguide import trace
from profguide.analysis.host import idle_by_activity, lane_activity, own_activity
from profguide.trace.model import KIND


class SlowDataset(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, index):
        time.sleep(0.002)
        return torch.randn(8), torch.randn(2)


@pytest.fixture(scope="module")
def recorded_loop(tmp_path_factory):
    """A small training loop on the CPU, profiled as a reader would: DataLoader, forward, backward, optimizer."""
    model = torch.nn.Linear(8, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    path = tmp_path_factory.mktemp("loop") / "loop.json"
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for inputs, targets in DataLoader(SlowDataset(), batch_size=4):
            loss = torch.nn.functional.mse_loss(model(inputs), targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    prof.export_chrome_trace(str(path))
    return trace.load(path)


def spans(loaded, predicate):
    """(starts, ends) of the events whose name satisfies ``predicate``."""
    chosen = np.array([predicate(loaded.names[code]) for code in loaded.name])
    return loaded.ts[chosen], loaded.end[chosen]


def test_time_in_a_real_dataloader_is_data_loading(recorded_loop):
    starts, ends = spans(recorded_loop, lambda name: "DataLoader" in name)
    assert len(starts) >= 4
    lane = int(recorded_loop.lane[np.flatnonzero([("DataLoader" in recorded_loop.names[c])
                                                  for c in recorded_loop.name])[0]])
    spent = lane_activity(recorded_loop, lane, (starts, ends))
    loading = sum(spent.get("data loading", {}).values())
    assert loading == pytest.approx(float((ends - starts).sum()))
    assert all("DataLoader" in label for label in spent["data loading"])


def test_time_in_a_real_optimizer_step_is_the_optimizers(recorded_loop):
    starts, ends = spans(recorded_loop, lambda name: name.startswith("Optimizer.step#"))
    assert len(starts) >= 4
    lanes = recorded_loop.lane[np.flatnonzero([recorded_loop.names[c].startswith("Optimizer.step#")
                                               for c in recorded_loop.name])]
    activity = idle_by_activity(recorded_loop, starts, ends, lanes)
    assert activity["optimizer"]["idle_us"] == pytest.approx(float((ends - starts).sum()))
    assert activity["optimizer"]["top"][0][0].startswith("Optimizer.step#SGD.step")


@pytest.mark.parametrize(("name", "kind", "activity"), [
    ("aten::item", "cpu_op", "sync"), ("cudaStreamSynchronize", "runtime", "sync"),
    ("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", "annotation", "data loading"),
    ("Optimizer.zero_grad#AdamW.zero_grad", "annotation", "optimizer"),
    ("autograd::engine::evaluate_function: AddmmBackward0", "cpu_op", "backward"),
    ("forward", "annotation", "region"), ("ProfilerStep#7", "annotation", "python"),
    ("aten::mm", "cpu_op", "ops"), ("cudaLaunchKernel", "runtime", "ops"),
])
def test_each_kind_of_event_names_its_activity(name, kind, activity):
    assert own_activity(name, KIND[kind]) == activity
