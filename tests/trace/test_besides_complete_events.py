"""What a Trace carries besides its complete events: phase counts, thread names, the allocator's instants,
the args that size a collective's message, where its clock starts, and which ops recorded their shapes."""

import json

import pytest

from profguide import trace
from tests.helpers import TRACES

EVENTS = [
    {"ph": "M", "name": "thread_name", "pid": 1, "tid": 2, "args": {"name": "thread 2 (pt_main_thread)"}},
    {"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "python"}},
    {"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "ts": 5, "pid": 1, "tid": 2,
     "args": {"Bytes": -64}},
    {"ph": "i", "s": "t", "name": "Iteration Start: PyTorch Profiler", "ts": 1, "pid": 1, "tid": 2},
    {"ph": "s", "id": 1, "name": "ac2g", "ts": 3, "pid": 1, "tid": 2},
    {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "ts": 0, "dur": 10, "pid": 1, "tid": 2,
     "args": {"In msg nelems": 1000, "dtype": "Float", "Input Dims": [[1000]]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "ts": 2, "dur": 1, "pid": 1, "tid": 2},
]


def parsed(events, **top_level):
    return trace.parse(json.dumps({"traceEvents": events, **top_level}).encode())


def test_a_trace_counts_its_phases_and_keeps_thread_names_memory_instants_and_message_args():
    found = parsed(EVENTS, baseTimeNanoseconds=1_700_000_000_000_000_000)
    assert found.phases == {"M": 2, "i": 2, "s": 1, "X": 2}
    assert found.thread_names == {(1, 2): ("thread 2 (pt_main_thread)",)}
    assert list(found.memory_ts) == [5] and list(found.memory_bytes) == [-64]
    assert [found.memory_lanes[code] for code in found.memory_lane] == [(1, 2)]
    comms = found.names.index("record_param_comms")
    index = int((found.name == comms).nonzero()[0][0])
    assert found.comm_args == {index: {"In msg nelems": 1000, "dtype": "Float", "Input Dims": [[1000]]}}
    assert found.base_time_ns == 1_700_000_000_000_000_000
    assert [bool(found.recorded_shapes[i]) for i in range(len(found))] == [True, False]


def test_an_odd_event_that_forces_the_loose_decoding_keeps_the_same():
    odd = {"ph": "X", "cat": "cpu_op", "name": "odd", "ts": 4, "dur": 1, "pid": 1, "tid": 2,
           "args": {"correlation": [1]}}  # an id no decoder types: the batch is decoded loosely
    typed, loose = parsed(EVENTS), parsed([*EVENTS, odd])
    assert loose.phases == {**typed.phases, "X": 3}
    assert loose.thread_names == typed.thread_names and loose.comm_args.keys() == typed.comm_args.keys()
    assert list(loose.memory_bytes) == list(typed.memory_bytes)
    assert parsed(EVENTS).base_time_ns == 0  # a trace without baseTimeNanoseconds counts from zero


@pytest.mark.parametrize("name", ["a100_nccl_2rank_rank0.json.gz", "a100_80gb_nccl_16rank_rank0.json.gz"])
def test_a_real_nccl_trace_sizes_its_all_reduces_and_names_its_threads(name):
    found = trace.load(TRACES / name)
    labels = [label for labels in found.thread_names.values() for label in labels]
    assert any(label.startswith("stream ") for label in labels) and any(label.startswith("thread ") for label in labels)
    assert sum(found.phases.values()) > found.phases["X"] >= len(found)
    if name.startswith("a100_nccl_2rank"):  # its record_param_comms record the message sizes
        sized = [args for args in found.comm_args.values() if isinstance(args.get("In msg nelems"), int)]
        assert sized and max(args["In msg nelems"] for args in sized) > 0
