"""profguide.analysis.idle: busy intervals, gaps and their causes, on traces where the answer is known."""

import pytest

from profguide.analysis import idle
from profguide.analysis.summarise import summarise
from tests.analysis.gpu_traces import small_gpu_trace
from tests.helpers import TRACES
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.helpers import make_trace as make


def test_idle_breakdown_names_the_cause_of_each_gap():
    t = small_gpu_trace()
    breakdown = idle.idle_breakdown(t, (15, 180))
    assert breakdown["busy_us"] == 90
    assert breakdown["idle_us"] == 75
    causes = {cause: row["idle_us"] for cause, row in breakdown["by_cause"].items()}
    # 65..70 and 80..85: the next kernel was queued; 105..170: the host sat in the sync until 110.
    assert causes == {"host": 0, "sync": 65, "profiler": 0, "queued": 10, "other": 0}
    # During 105..170 the launching thread finished the sync (5 µs), launched the late kernel (10 µs) and was
    # otherwise in the region between ops (50 µs).
    activity = {name: row["idle_us"] for name, row in breakdown["by_activity"].items() if row["idle_us"]}
    assert activity == {"sync": 5, "ops": 10, "region": 50}
    assert breakdown["by_activity"]["sync"]["top"] == [("cudaDeviceSynchronize", 5)]
    assert breakdown["longest_gaps"][0] == {"start_us": 105, "dur_us": 65, "cause": "sync"}


def test_a_gap_before_a_late_launch_is_the_hosts():
    t = make(cpu("cudaLaunchKernel", 0, 2, kind="runtime", correlation=1),
             cpu("cudaLaunchKernel", 50, 2, kind="runtime", correlation=2),
             gpu("a", 5, 10, correlation=1), gpu("b", 60, 10, correlation=2), gpu("c", 80, 5))
    by_cause = idle.idle_breakdown(t, (5, 85))["by_cause"]
    assert by_cause["host"]["idle_us"] == 45  # 15..60: b's launch ended at 52
    assert by_cause["other"]["idle_us"] == 10  # 70..80: c has no launch call in the trace


@pytest.mark.parametrize("name", sorted(path.name for path in TRACES.glob("*.json.gz")))
def test_the_host_activities_partition_the_wait_for_the_host_on_every_real_trace(name, real_trace):
    """by_activity splits the late-launch causes' idle time (waiting for the host to launch, blocked in a sync):
    together, exactly that time, never more."""
    found = summarise(real_trace(name))["idle"]
    if found is None:  # no GPU work
        return
    wait = sum(found["by_cause"][cause]["idle_us"] for cause in idle.LATE_LAUNCH)
    split = sum(row["idle_us"] for row in found["by_activity"].values())
    assert split == pytest.approx(wait, rel=1e-9, abs=1e-6)
    assert all(row["idle_us"] >= 0 for row in found["by_activity"].values())
