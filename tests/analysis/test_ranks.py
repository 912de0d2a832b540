"""The ranks of a job: each rank's summary, the straggler, each rank's wait for it, and the job's verdict."""

import numpy as np
import pytest

from profguide.analysis.communication import communication
from profguide.analysis.ranks import job_summary, rank_summary, ranks_to_show
from profguide.analysis.summarise import summarise
from tests.helpers import event, gpu_event, make_trace


def row(trace, file):
    """The rank's row over explain's window, as ``profguide explain DIR`` makes it."""
    return rank_summary(trace, file, summarise(trace))


def gloo_rank(rank, collectives, world=2, step=(0, 1000), ops=()):
    """A CPU rank with gloo: one ProfilerStep on the main thread, its ``ops`` (start, end) on it, and each
    collective (start, duration, worker thread) as gloo's op on a worker thread."""
    events = [event("ProfilerStep#1", step[0], step[1] - step[0], kind="annotation", tid=1)]
    events += [event("aten::mm", start, end - start, tid=1) for start, end in ops]
    events += [event("gloo:all_reduce", start, dur, kind="annotation", tid=thread)
               for start, dur, thread in collectives]
    return make_trace(*events, distributedInfo={"backend": "gloo", "rank": rank, "world_size": world})


def job(*traces):
    return job_summary([row(trace, f"rank{index}.json") for index, trace in enumerate(traces)])


def test_the_rank_with_the_shortest_collectives_is_the_straggler_and_the_others_wait_for_it():
    # Rank 1 arrives 300 µs late at each of two all-reduces; both end together on both ranks.
    early = gloo_rank(0, [(100, 400, 2), (600, 350, 2)])
    late = gloo_rank(1, [(400, 100, 2), (900, 50, 2)])
    found = job(early, late)
    assert found["straggler"] == 1
    assert [row["wait_us"] for row in found["ranks"]] == [600, 0]
    assert found["ranks"][0]["wait_pct"] == pytest.approx(60)
    assert found["verdict"] == "straggler" and found["verdict_text"].startswith("Rank 1 is the straggler")
    assert found["shared_collectives"] == 2 and not found["strays"]


def test_collectives_waiting_side_by_side_count_once():
    # Two buckets all-reduce at the same time on gloo's two threads: rank 0 waits 300 µs of wall time, not 600.
    early = gloo_rank(0, [(100, 400, 2), (100, 400, 3)])
    late = gloo_rank(1, [(400, 100, 2), (400, 100, 3)])
    assert job(early, late)["ranks"][0]["wait_us"] == 300


def test_kernels_are_matched_on_their_own_stream():
    # Two process groups' kernels on streams 20 and 30 interleave differently on the two ranks.
    name = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"

    def rank(number, on_20, on_30):
        kernels = [gpu_event(name, start, dur, stream=20) for start, dur in on_20]
        kernels += [gpu_event(name, start, dur, stream=30) for start, dur in on_30]
        return make_trace(*kernels, distributedInfo={"rank": number, "world_size": 2})

    # Rank 1 starts stream 30's kernel before stream 20's, rank 0 after: by name and order alone the first
    # kernels would pair up across streams; on their own streams, each pair ends together.
    found = job(rank(0, [(0, 100)], [(150, 100)]), rank(1, [(80, 20)], [(60, 190)]))
    assert not found["strays"] and found["shared_collectives"] == 2
    assert found["straggler"] == 0 and found["ranks"][1]["wait_us"] == 90
    assert found["ranks"][0]["collectives_are"] == "kernels"


def test_collectives_that_do_not_end_together_name_no_straggler():
    # The second rank's collectives end far from the first's, at no constant offset: sampled traces.
    first = gloo_rank(0, [(0, 100, 2), (1000, 100, 2), (5000, 100, 2)])
    second = gloo_rank(1, [(0, 400, 2), (3000, 100, 2), (5000, 700, 2)])
    found = job(first, second)
    assert found["strays"] and found["straggler"] is None
    assert "do not line up one for one" in found["verdict_text"]
    assert all(row["wait_us"] is None for row in found["ranks"])


def test_no_shared_collective_and_one_rank():
    found = job(gloo_rank(0, []), gloo_rank(1, [(0, 10, 2)]))
    assert found["straggler"] is None and found["shared_collectives"] == 0 and found["aligned_on"] is None
    assert found["verdict_text"].startswith("No collective appears on every rank")
    alone = job(gloo_rank(0, [(0, 10, 2)], world=1))
    assert alone["straggler"] is None and alone["verdict_text"].startswith("One rank")


def test_exposed_host_communication_is_what_the_main_thread_does_not_overlap():
    # 400 µs of all-reduce; the main thread runs an op over the first 100 µs of it.
    rank = row(gloo_rank(0, [(100, 400, 2)], ops=[(0, 200)]), "r.json")
    assert rank["measured_on"] == "main thread"
    assert rank["communication_us"] == 400 and rank["exposed_us"] == 300
    assert rank["busy_us"] + rank["idle_us"] == pytest.approx(rank["window"]["dur_us"])


def test_a_sleep_inside_a_region_is_idle_time_on_a_host_rank():
    # The main thread sleeps 500 µs inside a record_function region and runs one 100 µs op: busy is the op.
    trace = make_trace(event("ProfilerStep#1", 0, 1000, kind="annotation", tid=1),
                       event("straggle", 100, 500, kind="annotation", tid=1),
                       event("aten::mm", 700, 100, tid=1),
                       distributedInfo={"backend": "gloo", "rank": 0, "world_size": 2})
    rank = row(trace, "r.json")
    assert rank["busy_us"] == pytest.approx(100) and rank["idle_us"] == pytest.approx(900)


def test_a_gpu_rank_takes_explains_window_and_communication(real_trace):
    trace = real_trace("a100_nccl_2rank_rank0.json.gz")
    rank = row(trace, "rank0")
    window = (rank["window"]["start_us"], rank["window"]["end_us"])
    assert rank["measured_on"] == "GPU" and rank["rank"] == 0 and rank["world_size"] == 2
    assert rank["communication_us"] == communication(trace, window)["kernel_us"] > 0
    assert 0 < rank["exposed_us"] <= rank["communication_us"]
    assert rank["busy_us"] + rank["idle_us"] == pytest.approx(window[1] - window[0])
    assert rank["collectives_are"] == "kernels" and all(name.startswith("nccl") for name, *_ in rank["collectives"])


def test_a_real_cpu_only_gloo_rank(real_trace):
    rank = row(real_trace("cpu_only_gloo.json.gz"), "gloo")
    assert (rank["rank"], rank["world_size"], rank["backend"]) == (34, 300, "gloo")
    assert rank["collectives_are"] == "host ops" and {name for name, *_ in rank["collectives"]} == {"gloo:all_reduce"}


def test_the_two_sampled_ranks_of_the_128_rank_job_do_not_line_up(real_trace):
    found = job(*(real_trace(f"nccl_128rank_sampled_rank{r}.json.gz") for r in (0, 1)))
    assert found["world_size"] == 128 and found["strays"] and found["straggler"] is None
    # The collective chosen to align on ends within a millisecond on both ranks: the same collective.
    ends = found["aligned_on"]["end_us"]
    assert abs(ends[1] - ends[0]) < 1000


def test_a_large_job_shows_the_straggler_and_those_that_waited_longest():
    rows = [{"wait_us": float(wait), "exposed_us": 0.0} for wait in np.arange(20.0)]
    rows[7]["wait_us"] = 0.0
    shown = ranks_to_show({"ranks": rows, "straggler": 7}, 4)
    assert shown == [7, 17, 18, 19]
    assert ranks_to_show({"ranks": rows[:3], "straggler": 0}, 4) == [0, 1, 2]
