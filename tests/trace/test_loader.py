"""profguide.trace: real traces from other machines load; bad input gets one clear line."""

import gzip
import json

import numpy as np
import pytest

from profguide import trace
from profguide.analysis import launches, select
from profguide.trace import loader
from tests.helpers import TRACES

REAL_TRACES = sorted(TRACES.glob("*.json.gz"))


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_the_real_traces_are_in_the_project():
    assert len(REAL_TRACES) >= 10


@pytest.mark.parametrize("path", REAL_TRACES, ids=lambda p: p.name)
def test_every_real_trace_loads_with_sorted_slices(path):
    loaded = trace.load(path)
    starts = [s.ts for s in loaded.slices()]
    assert starts == sorted(starts)
    assert all(s.dur >= 0 for s in loaded.slices())


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("a100_alexnet_cuda_sync.json.gz", "kernel"),
        ("old_schema_inference.json.gz", "kernel"),  # category "Kernel" in the old schema
        ("old_schema_inference.json.gz", "runtime"),  # category "Runtime"
        ("a100_triton_culaunch.json.gz", "driver"),
        ("mi250_rocm.json.gz", "kernel"),
    ],
)
def test_categories_map_to_kinds_across_versions_and_vendors(name, kind):
    loaded = trace.load(TRACES / name)
    assert any(s.kind == kind for s in loaded.slices())


def test_cpu_only_trace_has_no_gpu_lanes():
    loaded = trace.load(TRACES / "cpu_only_gloo.json.gz")
    assert select.gpu_lanes(loaded) == []


def test_kernels_join_their_launch_by_correlation():
    loaded = trace.load(TRACES / "a100_alexnet_cuda_sync.json.gz")
    timing = launches.launch_delays(loaded)
    latency = timing["launch_delay_us"]["runtime"]
    ops = int(select.gpu_work(loaded).sum())
    assert 0 < latency["count"] + timing["queueing_us"]["count"] <= ops
    assert launches.clock_skew(loaded)["ops_starting_before_launch"] == 0


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (gzip.compress(b'{"traceEvents": [{"ph": "X"')[:-10], "truncated or corrupt gzip"),
        (b'{"traceEvents": [', "not valid JSON"),
        (b"\xff\xfe not text", "not UTF-8"),
        (b"[1, 2, 3]", "not a torch.profiler trace"),
        (b'{"traceEvents": {}}', "not a torch.profiler trace"),
        (b'{"other": []}', "no traceEvents list"),
        (b'{"traceEvents": []}', "no complete events"),
        (b'{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": -5}]}', "no complete events"),
        (b'{"traceEvents": [{"ph": "X", "name": "a"}]}', "no complete events"),
    ],
)
def test_bad_input_is_one_line_trace_error(tmp_path, data, message):
    path = write(tmp_path, "bad.json", data)
    with pytest.raises(trace.TraceError, match=message) as caught:
        trace.load(path)
    assert "\n" not in str(caught.value)


def test_missing_file_and_folder_are_clear_errors(tmp_path):
    with pytest.raises(trace.TraceError, match="no such file"):
        trace.load(tmp_path / "absent.json")
    with pytest.raises(trace.TraceError, match="is a folder"):
        trace.load(tmp_path)


def test_string_timestamps_and_odd_args_are_read(tmp_path):
    events = [
        {"ph": "X", "cat": "kernel", "name": "k", "ts": "10.5", "dur": "2", "pid": 0, "tid": 7,
         "args": {"correlation": 3}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 9, "dur": 1, "pid": 1,
         "tid": 1, "args": {"correlation": 3, "External id": "not-an-int"}},
        {"ph": "i", "name": "instant"},
        "not an event",
    ]
    loaded = trace.load(write(tmp_path, "t.json", json.dumps({"traceEvents": events}).encode()))
    assert [(s.name, s.ts, s.kind) for s in loaded.slices()] == [
        ("cudaLaunchKernel", 9.0, "runtime"),
        ("k", 10.5, "kernel"),
    ]
    assert loaded.slices()[0].external_id is None
    assert launches.launch_delays(loaded)["launch_delay_us"]["runtime"]["p50"] == pytest.approx(0.5)


def same_columns(a, b):
    for column in ("ts", "dur", "kind", "correlation", "external_id"):
        np.testing.assert_array_equal(getattr(a, column), getattr(b, column))
    assert [a.names[i] for i in a.name] == [b.names[i] for i in b.name]
    assert [a.lanes[i] for i in a.lane] == [b.lanes[i] for i in b.lane]
    assert a.shapes.keys() == b.shapes.keys()
    assert (a.device_properties, a.distributed_info, a.skipped) == (b.device_properties, b.distributed_info, b.skipped)


@pytest.mark.parametrize("path", REAL_TRACES, ids=lambda p: p.name)
def test_streaming_and_whole_file_loading_agree(path, monkeypatch):
    monkeypatch.setattr(loader, "BLOCK", 4096)  # many blocks, many cuts
    whole = trace.parse(loader.read_bytes(path), path)
    same_columns(trace.load(path), whole)


def test_kineto_layout_streams_and_one_line_json_falls_back():
    kineto = TRACES / "a100_nccl_2rank_rank0.json.gz"
    one_line = TRACES / "nccl_128rank_sampled_rank0.json.gz"
    assert loader.load_streaming(kineto) is not None
    assert loader.load_streaming(one_line) is None


def test_a_comma_and_newline_inside_an_event_falls_back_to_whole_file(tmp_path, monkeypatch):
    # indent=1 puts "},\n" after the nested args object, inside an event: the cut fails its check.
    events = [{"ph": "X", "cat": "kernel", "name": f"k{i}", "args": {"correlation": i}, "ts": i, "dur": 1,
               "pid": 0, "tid": 7} for i in range(50)]
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"traceEvents": events, "deviceProperties": [{"name": "GPU"}]}, indent=1))
    monkeypatch.setattr(loader, "BLOCK", 256)
    loaded = trace.load(path)
    assert len(loaded) == 50 and loaded.device_properties == ({"name": "GPU"},)
    same_columns(loaded, trace.parse(path.read_bytes(), path))


def test_metadata_after_the_events_is_read_when_streaming(tmp_path):
    lines = ",\n".join(json.dumps({"ph": "X", "cat": "kernel", "name": "k", "ts": i, "dur": 1, "pid": 0, "tid": 7})
                       for i in range(10))
    path = tmp_path / "t.json"
    path.write_text('{\n"traceEvents": [\n' + lines + '\n],\n"distributedInfo": {"rank": 3}\n}\n')
    streamed = loader.load_streaming(path)
    assert streamed is not None and len(streamed) == 10 and streamed.distributed_info == {"rank": 3}


def kineto_file(path, events, before="", after=""):
    """A trace laid out as Kineto writes it, one event per line, with metadata before and after the list."""
    lines = ",\n".join(json.dumps(e) for e in events)
    path.write_text("{\n" + before + '"traceEvents": [\n' + lines + "\n]" + after + "\n}\n")
    return path


def kernel(i, **fields):
    return {"ph": "X", "cat": "kernel", "name": f"k{i}", "ts": i * 10, "dur": 5, "pid": 0, "tid": 7, **fields}


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_file_that_never_ends_is_refused_at_once(tmp_path, kind):
    import os

    path = tmp_path / "fifo" if kind == "fifo" else "/dev/zero"
    if kind == "fifo":
        os.mkfifo(path)
    with pytest.raises(trace.TraceError, match="not a trace file: it would never end"):
        trace.load(path)


def test_json_past_the_size_limit_is_refused_with_bounded_memory(tmp_path):
    path = tmp_path / "bomb.json.gz"
    with gzip.open(path, "wb") as stream:
        stream.write(b'{"traceEvents": [')
        for _ in range(40):
            stream.write(b" " * (1 << 20))  # 40 MiB of spaces from a file of a few kB
    with pytest.raises(trace.TraceError, match=r"holds more than 10 MiB of JSON; raise --max-size to read it"):
        trace.load(path, max_bytes=10 << 20)


def test_no_trace_list_near_the_start_is_refused_without_reading_on(tmp_path, monkeypatch):
    monkeypatch.setattr(loader, "BLOCK", 1 << 10)
    monkeypatch.setattr(loader, "HEAD_BYTES", 4 << 10)
    path = tmp_path / "zeros.json.gz"
    with gzip.open(path, "wb") as stream:
        stream.write(b"\0" * (1 << 20))
    with pytest.raises(trace.TraceError, match="no traceEvents list in its first 4 KiB"):
        trace.load(path)


def test_a_traceevents_key_inside_earlier_metadata_is_not_the_list(tmp_path, monkeypatch):
    monkeypatch.setattr(loader, "BLOCK", 256)
    decoy = '"deviceProperties": [{"name": "GPU", "traceEvents": [{"ph": "X", "name": "decoy"}]}],\n'
    path = kineto_file(tmp_path / "t.json", [kernel(i) for i in range(40)], before=decoy)
    streamed = loader.load_streaming(path)
    assert streamed is not None and "decoy" not in streamed.names and len(streamed) == 40
    assert streamed.device_properties[0]["name"] == "GPU"


def test_the_top_level_list_is_found_past_strings_and_nesting():
    head = b'{"a": "\\"traceEvents\\": [", "b": {"traceEvents": []}, "traceEvents" : [ {'
    assert head[loader.top_level_events(head) - 1 :] == b"[ {"
    assert loader.top_level_events(b'{"meta": {"traceEvents": [') is None


def test_json_nested_too_deeply_is_one_line(tmp_path):
    deep = "[" * 1000 + "]" * 1000
    path = write(tmp_path, "deep.json", json.dumps({"traceEvents": [kernel(1, args={"x": 0})]}).replace(
        '"x": 0', f'"x": {deep}').encode())
    with pytest.raises(trace.TraceError, match="nested too deeply"):
        trace.load(path)


def test_times_no_profiler_measures_are_skipped_and_counted(tmp_path):
    events = [kernel(1), kernel(2), kernel(3, dur=2**64 - 1), kernel(4, dur=1e308), kernel(5, ts=1.7e308)]
    loaded = trace.load(write(tmp_path, "t.json", json.dumps({"traceEvents": events}).encode()))
    assert sorted(loaded.names[i] for i in loaded.name) == ["k1", "k2"]
    [(reason, count)] = loaded.skipped.items()
    assert count == 3 and "no profiler measures" in reason
