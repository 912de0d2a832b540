"""The trace format as Kineto and torch write it in 2026: each field or layout newer than the traces in
docs/traces, on a small trace written here, read as what it is.

Spellings are Kineto's own (libkineto/src/output_json.cpp): ``kSyncStreamTidOffset`` and "stream N (sync)"
(kineto#1356), ``appendCollectiveArgs`` (``Seq``, ``Comms Id``, ``Process Group Name``…; kineto#1294,
#1483), ``handleCounterEvent`` (ph "C", kineto#1303, #1530), ``fmtTs`` (µs with a ns fraction, whatever
``displayTimeUnit`` says); ``host_name`` is kineto#1323's, the occupancy object kineto#1330's, ``cuda_event``
kineto#1164's.
"""

import json

import numpy as np
import pytest

from profguide import trace
from profguide.analysis.collectives import collective_identity, thread_labels
from profguide.analysis.idle import idle_breakdown
from profguide.analysis.select import gpu_lanes, kinds_mask, on_a_stream
from profguide.trace.model import KIND, SYNC_TID_OFFSET
from tests.helpers import event, gpu_event, make_trace


def thread_name(pid, tid, name):
    return {"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": name}}


def stream_sync(ts, dur, stream=7):
    """A Stream Sync as Kineto writes it since kineto#1356: on the stream's sync row, not on the stream."""
    return gpu_event("Stream Sync", ts, dur, stream=stream + SYNC_TID_OFFSET, kind="sync")


def lane_of(loaded, name):
    return loaded.lanes[loaded.lane[loaded.names.index(name) == loaded.name][0]]


@pytest.mark.parametrize("named", [True, False], ids=["named", "unnamed"])
def test_a_stream_sync_row_is_no_stream_and_no_busy_time_but_its_events_are_still_syncs(named):
    # The kernel runs 0-100 µs on stream 7; the host waits in a stream sync from 50 to 300 µs. Kineto's
    # thread name ends in a space in torch's streaming exporter: the row is told all the same.
    names = [thread_name(0, 7 + SYNC_TID_OFFSET, "stream 7 (sync) ")] if named else []
    loaded = make_trace(gpu_event("kernel", 0, 100), stream_sync(50, 250),
                        event("aten::mm", 0, 10, tid=1234567), *names)  # a host thread's tid past the offset
    sync_lane = loaded.lanes.index((0, 7 + SYNC_TID_OFFSET))
    assert loaded.sync_rows == {sync_lane}
    assert gpu_lanes(loaded) == [(0, 7)]
    assert kinds_mask(loaded, ("sync",)).sum() == 1  # still a sync event, for the analyses of syncs
    assert not on_a_stream(loaded)[loaded.lane == sync_lane].any()
    assert idle_breakdown(loaded, (0.0, 300.0), on_a_stream(loaded))["busy_us"] == 100  # 300 were it a stream


def test_a_stream_sync_on_its_stream_as_older_kineto_wrote_it_still_counts_as_htas_rule_does():
    loaded = make_trace(gpu_event("kernel", 0, 100), gpu_event("Stream Sync", 50, 250, kind="sync"))
    assert loaded.sync_rows == frozenset()
    assert idle_breakdown(loaded, (0.0, 300.0), on_a_stream(loaded))["busy_us"] == 300


def test_cuda_13s_cuda_event_is_kept_as_bookkeeping_not_gpu_work_and_not_unread():
    record = {**gpu_event("Event Record", 40, 0.5), "cat": "cuda_event"}
    loaded = make_trace(gpu_event("kernel", 0, 100), record, gpu_event("kernel", 200, 100))
    index = loaded.names.index("Event Record")
    assert loaded.kind[loaded.name == index].tolist() == [KIND["other"]]  # read, as what it is
    assert loaded.unread == {}  # and not reported as a category the analysis cannot read
    assert not on_a_stream(loaded)[loaded.name == index].any()
    assert idle_breakdown(loaded, (0.0, 300.0), on_a_stream(loaded))["busy_us"] == 200


def test_hardware_counter_tracks_are_counted_in_phases_and_are_no_error():
    counters = [{"ph": "C", "cat": "hardware_counters", "name": "sm_active", "pid": 0, "tid": 7, "ts": ts,
                 "args": {"sm__cycles_active.avg": 80.5, "dram__throughput": 12}} for ts in (0, 50, 100)]
    loaded = make_trace(gpu_event("kernel", 0, 100), *counters)
    assert loaded.phases == {"X": 1, "C": 3}
    assert loaded.skipped == {} and loaded.unread == {} and len(loaded) == 1


NCCL = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
COLLECTIVE_ARGS = {"Collective name": "allreduce", "Seq": 12, "Comms Id": 98765, "Process Group Name": "3",
                   "Process Group Description": "default_pg", "Process Group Ranks": "[0, 1]",
                   "In split size": "[]", "Out split size": "[]", "In msg nelems": 1024, "dtype": "Float"}


@pytest.mark.parametrize("loose", [False, True], ids=["typed", "loose"])
def test_a_kernels_collective_fields_are_kept_on_the_model(loose):
    # A pid no typed field takes forces the loose decoder.
    odd = [{"ph": "X", "name": "odd", "ts": 1, "dur": 1, "pid": [1], "tid": 1}] if loose else []
    loaded = make_trace(gpu_event(NCCL, 0, 100, **COLLECTIVE_ARGS), gpu_event("gemm", 100, 50), *odd)
    kernel = loaded.names.index(NCCL)
    index = int(np.flatnonzero(loaded.name == kernel)[0])
    kept = loaded.comm_args[index]
    assert {key: kept[key] for key in ("Seq", "Comms Id", "Process Group Name", "Process Group Ranks",
                                        "In split size", "Out split size")} == {
        "Seq": 12, "Comms Id": 98765, "Process Group Name": "3", "Process Group Ranks": "[0, 1]",
        "In split size": "[]", "Out split size": "[]"}
    assert collective_identity(loaded, index) == "3#12"
    assert collective_identity(loaded, int(np.flatnonzero(loaded.name == loaded.names.index("gemm"))[0])) is None


def test_without_a_process_group_name_the_communicator_names_the_collective():
    args = {"Seq": "4", "Comms Id": 555}
    loaded = make_trace(gpu_event(NCCL, 0, 100, **args))
    assert collective_identity(loaded, 0) == "555#4"


@pytest.mark.parametrize(("top", "expected"), [
    ({"host_name": "node-a", "distributedInfo": {"rank": 0, "host_name": "node-b"}}, "node-a"),
    ({"distributedInfo": {"rank": 0, "host_name": "node-b"}}, "node-b"),
    ({"host_name": 7}, None),
    ({}, None),
])
def test_the_host_name_is_read_from_the_metadata_else_from_distributed_info(top, expected):
    assert make_trace(gpu_event("kernel", 0, 1), **top).host_name == expected


@pytest.mark.parametrize(("args", "expected"), [
    ({"est. achieved occupancy %": 50}, 50.0),
    ({"est. achieved occupancy %": {"est. achieved occupancy %": 30, "limiting factors": ["registers"]}}, 30.0),
    ({"occupancy": {"est. achieved occupancy %": 25, "limiting factors": ["shared memory"],
                    "block limit registers": 4}}, 25.0),
    ({"occupancy": {"limiting factors": ["warps"]}}, None),
    ({}, None),
])
def test_the_occupancy_is_read_whether_a_number_or_an_object_with_its_limiting_factors(args, expected):
    neighbour = gpu_event("other", 100, 10, **{"est. achieved occupancy %": 10})
    loaded = make_trace(gpu_event("kernel", 0, 100, **args), neighbour)
    found = float(loaded.occupancy[loaded.name == loaded.names.index("kernel")][0])
    assert (np.isnan(found) if expected is None else found == expected)
    assert float(loaded.occupancy[loaded.name == loaded.names.index("other")][0]) == 10  # its neighbours unchanged


def test_display_time_unit_ns_changes_no_time_kineto_writes_microseconds_whatever_it_says():
    events = [gpu_event("kernel", 1000.125, 2.25), event("cudaLaunchKernel", 999.5, 0.375, kind="runtime")]
    as_ms = make_trace(*events, displayTimeUnit="ms")
    as_ns = make_trace(*events, displayTimeUnit="ns")
    assert np.array_equal(as_ms.ts, as_ns.ts) and np.array_equal(as_ms.dur, as_ns.dur)
    assert float(as_ns.dur[as_ns.name == as_ns.names.index("kernel")][0]) == 2.25  # µs, not 2.25 ns


def test_rocm_hsa_queues_and_remapped_streams_are_gpu_lanes_as_they_are_named():
    # Older ROCm Kineto put kernels on the HSA queue's row; newer remaps them to a per-device stream index
    # (kineto#1424), where a raw 64-bit HIP stream pointer once stood.
    pointer = 0x7F3A_1C00_2000
    loaded = make_trace(gpu_event("Cijk_Ailk_Bljk_HHS_BH", 0, 100, stream=2),
                        gpu_event("elementwise_kernel", 50, 100, stream=pointer),
                        thread_name(0, 2, "hsa_queue 2"), thread_name(0, pointer, "stream 1 "))
    assert gpu_lanes(loaded) == [(0, 2), (0, pointer)]
    assert thread_labels(loaded) == {(0, 2): "hsa_queue 2", (0, pointer): "stream 1"}
    assert loaded.sync_rows == frozenset()
    assert idle_breakdown(loaded, (0.0, 150.0), on_a_stream(loaded))["busy_us"] == 150


def test_torchs_streaming_exporter_top_level_versions_and_annotated_streams_are_read():
    kernel = gpu_event("kernel", 0, 100, stream=7, annotated_stream=7, original_stream=23)
    loaded = make_trace(kernel, thread_name(0, 7, "stream 7 "), cuda_runtime_version="13.0",
                        cuda_driver_version=13010)
    assert loaded.runtime_versions == {"cuda_runtime_version": "13.0", "cuda_driver_version": "13010"}
    assert gpu_lanes(loaded) == [(0, 7)] and thread_labels(loaded) == {(0, 7): "stream 7"}
    assert make_trace(gpu_event("kernel", 0, 1)).runtime_versions == {}


def test_the_streaming_loader_reads_the_new_fields_as_the_whole_file_reader_does(tmp_path):
    document = {"host_name": "node-a", "displayTimeUnit": "ns", "cuda_runtime_version": "13.0",
                "traceEvents": [gpu_event(NCCL, 0, 100, **COLLECTIVE_ARGS), stream_sync(20, 30)]}
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(document, indent=1))
    streamed, whole = trace.load(path), trace.parse(path.read_bytes())
    for loaded in (streamed, whole):
        assert loaded.host_name == "node-a" and loaded.runtime_versions == {"cuda_runtime_version": "13.0"}
        assert collective_identity(loaded, int(np.flatnonzero(loaded.name == loaded.names.index(NCCL))[0])) == "3#12"
        assert len(loaded.sync_rows) == 1


def test_a_real_trace_that_says_ns_keeps_its_times_in_microseconds_and_names_its_host(real_trace):
    # Kineto built with DISPLAY_TRACE_IN_NS wrote this V100 trace: displayTimeUnit "ns", host_name at the top.
    loaded = real_trace("v100_ns_timestamps.json.gz")
    assert loaded.host_name == "twshared39868.02.pnb3.facebook.com"
    kernels = loaded.dur[kinds_mask(loaded, ("kernel",))]
    assert 1 < float(np.median(kernels)) < 1000  # a few µs each, not a few ns nor a few ms
    assert 2020 < 1970 + float(loaded.ts.min()) / 1e6 / 86400 / 365.25 < 2030  # µs since the epoch: April 2024
