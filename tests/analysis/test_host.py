"""profguide.analysis.host: what the host was doing, on the names a real torch run records."""

import time

import numpy as np
import pytest
import torch
from torch.profiler import ProfilerActivity, profile
from torch.utils.data import DataLoader, Dataset

from profguide import trace
from profguide.analysis.host import (
    CPU_ACTIVITIES,
    host_breakdown,
    idle_by_activity,
    lane_activity,
    own_activity,
    user_frame,
)
from profguide.trace.model import KIND
from tests.helpers import event, gpu_event, make_trace


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


def test_without_a_gpu_item_is_an_op_not_a_sync():
    assert own_activity("aten::item", KIND["cpu_op"], device_syncs=False) == "ops"
    assert own_activity("cudaStreamSynchronize", KIND["runtime"], device_syncs=False) == "ops"


def test_a_real_loop_without_steps_is_split_whole_and_the_parts_add_up(recorded_loop):
    host = host_breakdown(recorded_loop)
    (window,) = host["windows"]
    assert window["label"] == "trace"
    assert sum(window["by_activity_us"].values()) == pytest.approx(window["dur_us"])
    spent = {activity: row["us"] for activity, row in host["by_activity"].items()}
    assert set(spent) == set(CPU_ACTIVITIES)
    assert spent["data loading"] > spent["optimizer"] > 0 and spent["backward"] > 0 and spent["ops"] > 0
    assert host["by_activity"]["data loading"]["top"][0][0].startswith("enumerate(DataLoader)#")
    assert host["other_threads"] == []


def two_steps(*extra):
    """Two ProfilerSteps on thread 1: the first loads data 60 of its 100 µs, the second is all backward."""
    return make_trace(
        event("ProfilerStep#7", 0, 100, kind="annotation"),
        event("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 0, 60, kind="annotation"),
        event("aten::item", 10, 5),
        event("aten::addmm", 60, 30),
        event("ProfilerStep#8", 100, 50, kind="annotation"),
        event("autograd::engine::evaluate_function: AddmmBackward0", 100, 50),
        *extra,
    )


def test_each_step_is_split_on_the_thread_that_runs_the_steps():
    host = host_breakdown(two_steps(event("gloo:all_reduce", 20, 200, kind="annotation", tid=2)))
    first, second = host["windows"]
    assert (first["label"], second["label"]) == ("ProfilerStep#7", "ProfilerStep#8")
    assert first["by_activity_us"] == {"data loading": 60, "ops": 30, "backward": 0, "optimizer": 0, "region": 0,
                                       "python": 10}
    assert second["by_activity_us"]["backward"] == 50 and host["dur_us"] == 150
    # The other thread is counted over the steps only, not past their end.
    assert host["other_threads"] == [{"thread": "100/2", "busy_us": 130, "top": "gloo:all_reduce"}]


def test_a_window_splits_the_steps_inside_it_or_itself():
    assert [w["label"] for w in host_breakdown(two_steps(), (100, 150))["windows"]] == ["ProfilerStep#8"]
    (window,) = host_breakdown(two_steps(), (60, 90))["windows"]
    assert window["label"] == "window" and window["by_activity_us"]["ops"] == 30


def test_a_trace_without_host_events_has_no_breakdown():
    assert host_breakdown(make_trace(gpu_event("k", 0, 5))) is None


def test_inductors_generated_wrapper_is_a_compiled_graph_not_a_users_frame():
    wrapper = "/tmp/torchinductor_alice/xq/cxqabc7pmumz.py(412): call"
    assert own_activity(wrapper, KIND["python"]) == "compiled"
    assert own_activity(wrapper, KIND["python"], device_syncs=False) == "ops"  # on a CPU it runs the kernels
    assert not user_frame(wrapper) and user_frame("train.py(30): step")
    assert own_activity("torchinductor_alice.py(3): f", KIND["python"]) == "python"  # a file, not the cache
