"""snippets/reading_output/input_pipeline.py: the DataLoader's region in each step, the dataset's ops only without
workers."""

import pytest

from profguide.analysis.regions import ops_in_region
from profguide.analysis.select import profiler_steps
from snippets.reading_output.input_pipeline import SlowDataset, profile_input_pipeline
from tests.helpers import ROOT, one_cycle_trace, run_script

SCRIPT = ROOT / "snippets" / "reading_output" / "input_pipeline.py"
SMALL = {"batch_size": 4, "load_ms": 0.0, "hidden": 16, "wait": 0, "warmup": 1, "active": 2, "device": "cpu"}


def test_samples_are_the_same_for_the_same_index():
    dataset = SlowDataset(size=4, features=3, load_ms=0)
    assert len(dataset) == 4
    (a, label), (b, _) = dataset[1], dataset[1]
    assert a.shape == (3,) and a.equal(b) and 0 <= int(label) < dataset.classes


@pytest.mark.parametrize(("workers", "iterator"), [(0, "_SingleProcessDataLoaderIter"),
                                                   (2, "_MultiProcessingDataLoaderIter")])
def test_each_recorded_step_asks_the_dataloader_once(tmp_path, workers, iterator):
    loaded = one_cycle_trace(tmp_path, profile_input_pipeline, num_workers=workers, **SMALL)
    assert [step["step"] for step in profiler_steps(loaded)] == [1, 2]
    region = f"enumerate(DataLoader)#{iterator}.__next__"
    assert sum(name == region for name in (loaded.names[code] for code in loaded.name)) == 2
    # The dataset's ops run inside __next__ in the main process only: with workers they leave the trace.
    assert (ops_in_region(loaded, region, "aten::randn") > 0) == (workers == 0)


@pytest.mark.slow
def test_the_script_prints_the_time_in_the_dataloader_both_ways(tmp_path):
    done = run_script(SCRIPT, tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == ["num_workers=0", "num_workers=2"]
    assert all(line.count(",") == 3 for line in lines)  # four recorded steps each
