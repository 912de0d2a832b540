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


NCCL_ALL_REDUCE = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"


def nccl_rank(number, collectives, host=None, seq=True):
    """A GPU rank whose NCCL kernels (start, duration, process group, Seq[, stream]) carry the fields newer
    Kineto copies from record_param_comms (kineto#1294, #1483), or none of them without ``seq``."""
    kernels = [gpu_event(NCCL_ALL_REDUCE, start, dur, stream=stream[0] if stream else 20,
                         **({"Seq": number_in_group, "Process Group Name": group, "Comms Id": 7} if seq else {}))
               for start, dur, group, number_in_group, *stream in collectives]
    top = {"host_name": host} if host else {}
    return make_trace(*kernels, distributedInfo={"backend": "nccl", "rank": number, "world_size": 2}, **top)


# Rank 1 arrives 150 µs late at each collective, and its profiler started after the first one: it recorded
# Seq 1 and 2 of process group "0", rank 0 Seq 0, 1 and 2. Each collective ends together on both ranks.
EARLY = [(100, 100, "0", 0), (300, 200, "0", 1), (700, 200, "0", 2)]
LATE_MISSING_THE_FIRST = [(450, 50, "0", 1), (850, 50, "0", 2)]


def test_collectives_with_a_seq_are_matched_by_it_when_a_rank_misses_the_first():
    found = job(nccl_rank(0, EARLY), nccl_rank(1, LATE_MISSING_THE_FIRST))
    assert found["matched_by"] == "seq" and found["shared_collectives"] == 2 and not found["strays"]
    assert found["straggler"] == 1 and found["ranks"][0]["wait_us"] == 300
    # Named as rank 0 names it: Seq 1 is its second all-reduce on stream 20 (or Seq 2, its third).
    aligned = found["aligned_on"]
    assert (aligned["name"], aligned["stream"]) == (NCCL_ALL_REDUCE, 20) and aligned["occurrence"] in (1, 2)
    assert aligned["end_us"][0] == aligned["end_us"][1]


def test_by_order_the_same_ranks_pair_the_wrong_collectives():
    # The same times without Seq: rank 0's first two pair with rank 1's two, whose ends stray.
    found = job(nccl_rank(0, EARLY, seq=False), nccl_rank(1, LATE_MISSING_THE_FIRST, seq=False))
    assert found["matched_by"] == "order" and found["strays"] and found["straggler"] is None


def test_collectives_recorded_in_different_orders_are_paired_by_process_group_and_seq():
    # The ranks created their process groups' streams in opposite orders: group "a" runs on stream 20 on rank
    # 0 and on stream 30 on rank 1, group "b" the other way round. Rank 1 is late at both; each collective
    # ends together on both ranks. By name, stream and order, "a" on rank 0 pairs with "b" on rank 1.
    first = [(0, 200, "a", 5, 20), (100, 400, "b", 9, 30)]
    second = [(150, 50, "a", 5, 30), (300, 200, "b", 9, 20)]
    found = job(nccl_rank(0, first), nccl_rank(1, second))
    assert found["matched_by"] == "seq" and not found["strays"] and found["shared_collectives"] == 2
    assert found["straggler"] == 1 and found["ranks"][0]["wait_us"] == 300  # 0-150 in "a", 100-300 in "b"
    by_order = job(nccl_rank(0, first, seq=False), nccl_rank(1, second, seq=False))
    assert by_order["matched_by"] == "order" and by_order["strays"] and by_order["straggler"] is None


@pytest.mark.parametrize(("hosts", "alone"), [(("node-a", "node-b"), True), (("node-a", "node-a"), False),
                                              ((None, "node-b"), None)])
def test_the_job_says_whether_the_stragglers_machine_is_its_own(hosts, alone):
    found = job(nccl_rank(0, EARLY, host=hosts[0]), nccl_rank(1, LATE_MISSING_THE_FIRST, host=hosts[1]))
    assert [row["host_name"] for row in found["ranks"]] == list(hosts)
    assert found["straggler"] == 1 and found["straggler_host_alone"] is alone


def test_the_jobs_text_says_where_the_straggler_ran_and_how_the_collectives_were_matched():
    from profguide.analysis.job import ranks_job
    from profguide.render.explain import job_to_text

    def text(hosts):
        traces = [nccl_rank(0, EARLY, host=hosts[0]), nccl_rank(1, LATE_MISSING_THE_FIRST, host=hosts[1])]
        return job_to_text(ranks_job([(f"rank{index}.json", loaded) for index, loaded in enumerate(traces)], "job"))

    alone, shared = text(("node-a", "node-b")), text(("node-a", "node-a"))
    assert "It ran on the machine named node-b, where no other rank ran" in alone
    assert "It ran on the machine named node-a, beside ranks that waited for it" in shared
    assert "Collectives matched by process group and Seq: 2 on every rank" in alone
    assert "It ran on" not in text((None, None))
