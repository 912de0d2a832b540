"""profguide.trace: real traces from other machines load; bad input gets one clear line."""

import gzip
import json
import os
import sys
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
def test_every_real_trace_loads_with_sorted_slices(path, real_trace):
    loaded = real_trace(path.name)
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
def test_categories_map_to_kinds_across_versions_and_vendors(name, kind, real_trace):
    loaded = real_trace(name)
    assert any(s.kind == kind for s in loaded.slices())


def test_cpu_only_trace_has_no_gpu_lanes(real_trace):
    loaded = real_trace("cpu_only_gloo.json.gz")
    assert select.gpu_lanes(loaded) == []


def test_kernels_join_their_launch_by_correlation(real_trace):
    loaded = real_trace("a100_alexnet_cuda_sync.json.gz")
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
        (b"\xff\xfe not text", "binary data, not JSON text"),
        (b"[1, 2, 3]", "no complete events"),  # a bare array of events (the JSON Array Format), with none
        (b'"events"', "not a torch.profiler trace"),
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


@pytest.mark.parametrize("odd", [False, True], ids=["typed", "loose"])
def test_the_sequence_number_is_a_column_in_both_decoding_paths(tmp_path, odd):
    # An External id of an odd type makes the typed decoder fail: the batch is decoded loosely.
    events = [
        {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "ts": 1, "dur": 5, "pid": 1, "tid": 1,
         "args": {"Sequence number": 41, "External id": [1] if odd else 1}},
        {"ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: AddmmBackward0", "ts": 10,
         "dur": 5, "pid": 1, "tid": 1, "args": {"Sequence number": "41"}},
        {"ph": "X", "cat": "cpu_op", "name": "aten::empty", "ts": 20, "dur": 1, "pid": 1, "tid": 1,
         "args": {"Sequence number": 2**64 - 1}},  # out of int64's range: unreadable, as an id is
        {"ph": "X", "cat": "cpu_op", "name": "aten::add", "ts": 30, "dur": 1, "pid": 1, "tid": 1},
    ]
    loaded = trace.load(write(tmp_path, "t.json", json.dumps({"traceEvents": events}).encode()))
    assert loaded.sequence.dtype == np.int64
    assert loaded.sequence.tolist() == [41, 41, loader.NO_ID, loader.NO_ID]
    assert loaded.external_id[0] == (loader.NO_ID if odd else 1)  # the loose path was the one taken


@pytest.mark.parametrize("odd", [False, True], ids=["typed", "loose"])
def test_a_sized_op_keeps_its_inputs_decoded_once_per_distinct_text(tmp_path, odd):
    def softmax(ts, concrete):
        args = {"Input Dims": [[8, 128], [], []], "Input type": ["float", "Scalar", "Scalar"],
                "External id": [ts] if odd else ts}
        return {"ph": "X", "cat": "cpu_op", "name": "aten::_softmax", "ts": ts, "dur": 1, "pid": 1, "tid": 1,
                "args": args | ({"Concrete Inputs": concrete} if concrete else {})}

    events = [softmax(1, ["", "-1", "False"]), softmax(3, ["", "-1", "False"]), softmax(5, None),
              {"ph": "X", "cat": "cpu_op", "name": "aten::view", "ts": 7, "dur": 1, "pid": 1, "tid": 1,
               "args": {"Input Dims": [[8, 128], []], "Input type": ["float", "ScalarList"]}}]
    loaded = trace.load(write(tmp_path, "t.json", json.dumps({"traceEvents": events}).encode()))
    assert sorted(loaded.shapes) == [0, 1, 2]  # aten::view is not sized
    assert loaded.shapes[0].concrete == ["", "-1", "False"] and loaded.shapes[2].concrete == []  # none before 2.2
    assert loaded.shapes[0] is loaded.shapes[1]  # the same text, decoded once
    assert loaded.shapes[0][:2] == ([[8, 128], [], []], ["float", "Scalar", "Scalar"])


def same_columns(a, b):
    for column in ("ts", "dur", "kind", "correlation", "external_id", "sequence"):
        np.testing.assert_array_equal(getattr(a, column), getattr(b, column))
    assert [a.names[i] for i in a.name] == [b.names[i] for i in b.name]
    assert [a.lanes[i] for i in a.lane] == [b.lanes[i] for i in b.lane]
    assert a.shapes == b.shapes
    assert (a.device_properties, a.distributed_info, a.skipped) == (b.device_properties, b.distributed_info, b.skipped)


@pytest.mark.parametrize("path", REAL_TRACES, ids=lambda p: p.name)
def test_streaming_and_whole_file_loading_agree(path, monkeypatch):
    monkeypatch.setattr(loader, "BLOCK", 4096)  # many blocks, many cuts
    whole = trace.parse(loader.read_bytes(path), path)
    same_columns(trace.load(path), whole)


def test_kineto_layout_and_one_line_json_both_stream():
    kineto = TRACES / "a100_nccl_2rank_rank0.json.gz"
    one_line = TRACES / "nccl_128rank_sampled_rank0.json.gz"
    assert b"},\n" not in gzip.decompress(one_line.read_bytes())
    for path in (kineto, one_line):  # each is streamed (None: it was not), to what the whole file parsed gives
        streamed = loader.load_streaming(path)
        assert streamed is not None, path.name
        same_columns(streamed, trace.parse(loader.read_bytes(path), path))


def test_a_comma_and_newline_inside_an_event_is_no_cut(tmp_path, monkeypatch):
    # indent=1 puts "},\n" after the nested args object, inside an event: the cuts go by depth, not by lines.
    events = [{"ph": "X", "cat": "kernel", "name": f"k{i}", "args": {"correlation": i}, "ts": i, "dur": 1,
               "pid": 0, "tid": 7} for i in range(50)]
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"traceEvents": events, "deviceProperties": [{"name": "GPU"}]}, indent=1))
    monkeypatch.setattr(loader, "BLOCK", 256)
    loaded = loader.load_streaming(path)
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
    start, list_depth = loader.top_level_events(head)
    assert (head[start - 1 :], list_depth) == (b"[ {", 2)
    assert loader.top_level_events(b'{"meta": {"traceEvents": [') is None
    assert loader.top_level_events(b'\xef\xbb\xbf \n[{"ph": "X"') == (6, 1)  # a bare array of events


def nested(levels):
    """A JSON value ``levels`` deep: lists inside lists."""
    return "[" * levels + "]" * levels


# A Kineto event's args sit 4 levels down: the document, traceEvents, the event, its args.
ARGS_DEPTH = 4


def deep_trace(path, levels, layout):
    """A trace of two kernels, the second with an arg that takes the whole document to ``levels`` of nesting."""
    events = [kernel(0), kernel(1, args={"x": 0})]
    if layout == "kineto":
        kineto_file(path, events)
    else:
        path.write_text(json.dumps({"traceEvents": events}))
    path.write_text(path.read_text().replace('"x": 0', f'"x": {nested(levels - ARGS_DEPTH)}'))
    return path


@pytest.fixture
def recursion_limit_raised():
    """The interpreter as a notebook leaves it after compiling something, and then some (torch._dynamo: 3000)."""
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(10_000)
    yield
    sys.setrecursionlimit(before)


@pytest.mark.parametrize("layout", ["one line", "kineto"])
@pytest.mark.parametrize("limit", ["as it is", "raised"])
def test_json_nested_too_deeply_is_one_line_whatever_the_recursion_limit(tmp_path, request, layout, limit):
    if limit == "raised":
        request.getfixturevalue("recursion_limit_raised")
    path = deep_trace(tmp_path / "deep.json", 1000, layout)
    for load in (trace.load, lambda p: trace.parse(p.read_bytes(), p), lambda p: trace.parse(loader.read_bytes(p))):
        with pytest.raises(trace.TraceError, match="nested too deeply") as caught:
            load(path)
        assert "\n" not in str(caught.value)


@pytest.mark.parametrize("layout", ["one line", "kineto"])
def test_nesting_up_to_the_bound_loads_and_one_more_level_does_not(tmp_path, recursion_limit_raised, layout):
    path = deep_trace(tmp_path / "t.json", loader.MAX_DEPTH, layout)
    assert loader.block_depth(path.read_bytes())[0] == loader.MAX_DEPTH
    loaded = trace.load(path)
    assert [(s.name, s.ts, s.dur, s.kind) for s in loaded.slices()] == [("k0", 0, 5, "kernel"), ("k1", 10, 5, "kernel")]
    same_columns(loaded, trace.parse(path.read_bytes(), path))
    deeper = deep_trace(tmp_path / "deeper.json", loader.MAX_DEPTH + 1, layout)
    with pytest.raises(trace.TraceError, match=f"nested too deeply .*more than {loader.MAX_DEPTH} levels"):
        trace.load(deeper)


def test_the_real_traces_nest_as_the_bound_says(tmp_path):
    depths = {path.name: loader.block_depth(gzip.decompress(path.read_bytes()))[0] for path in REAL_TRACES}
    assert set(depths.values()) <= {5, 6, 7} and max(depths.values()) < loader.MAX_DEPTH // 8, depths


BRACKETY = '[[[{{"' + "[" * 100 + '\\"\\\\' + "{" * 100 + "\\"


@pytest.mark.parametrize("block", [4096, 7, 1])
def test_brackets_and_escapes_inside_strings_do_not_nest(tmp_path, monkeypatch, block):
    monkeypatch.setattr(loader, "SCAN_BLOCK", block)
    monkeypatch.setattr(loader, "BLOCK", max(block, 64))
    names = [BRACKETY, "]" * 80 + "\\", '"' * 70, "\\" * 65 + "["]
    events = [kernel(i, name=name, args={"Input type": [name]}) for i, name in enumerate(names)]
    path = kineto_file(tmp_path / "t.json", events)
    assert loader.block_depth(path.read_bytes())[0] == ARGS_DEPTH + 1
    loaded = trace.load(path)
    assert sorted(loaded.names[i] for i in loaded.name) == sorted(names)
    same_columns(loaded, trace.parse(path.read_bytes(), path))


def depth(value):
    """How deep a JSON value nests, from the value itself: the answer the bytes must give."""
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else None
    return 0 if children is None else 1 + max(map(depth, children), default=0)


TRICKY_TEXT = st.text(alphabet='"\\[]{}a\né', max_size=6)
JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.integers(), TRICKY_TEXT),
    lambda children: st.one_of(st.lists(children, max_size=3), st.dictionaries(TRICKY_TEXT, children, max_size=3)),
    max_leaves=24,
)


@settings(max_examples=400, deadline=None)
@given(value=JSON_VALUES, cuts=st.lists(st.integers(min_value=0), max_size=8), indent=st.sampled_from([None, 1]),
       ascii_only=st.booleans())
def test_a_block_boundary_anywhere_gives_the_answer_of_one_block(value, cuts, indent, ascii_only):
    data = json.dumps(value, indent=indent, ensure_ascii=ascii_only).encode()
    whole = loader.block_depth(data)
    assert whole == (depth(value), 0, loader.START)
    positions = sorted({cut % (len(data) + 1) for cut in cuts})
    state, reached, lowest = loader.START, 0, 0
    for start, end in zip([0, *positions], [*positions, len(data)], strict=True):
        levels = loader.block_depth(data[start:end], state)
        state, reached, lowest = levels.after, max(reached, levels.deepest), min(lowest, levels.shallowest)
    assert (reached, lowest, state) == whole


def test_a_cut_inside_an_escape_or_a_string_is_carried_to_the_next_block():
    first = loader.block_depth(b'[["a\\\\\\')  # three backslashes held back: one pair, and one escaping
    assert first == (2, 0, loader.Nesting(2, True, b"\\\\\\"))
    second = loader.block_depth(b'"[[[", "\\\\"]', first.after)  # ... the quote; the string ends at the next one
    assert second == (2, 1, loader.Nesting(1, False, b""))


def test_a_file_cut_short_says_so_whatever_the_decoder_says(tmp_path):
    for data in (b'{"traceEvents": [{"ph": "X", "name": "k', b'{"traceEvents": [{"ph": "X"', b'{"traceEvents": [tr'):
        with pytest.raises(trace.TraceError, match=r"not valid JSON \(the file ends early: truncated\?\)$"):
            trace.load(write(tmp_path, "cut.json", data))


def test_times_no_profiler_measures_are_skipped_and_counted(tmp_path):
    events = [kernel(1), kernel(2), kernel(3, dur=2**64 - 1), kernel(4, dur=1e308), kernel(5, ts=1.7e308)]
    loaded = trace.load(write(tmp_path, "t.json", json.dumps({"traceEvents": events}).encode()))
    assert sorted(loaded.names[i] for i in loaded.name) == ["k1", "k2"]
    [(reason, count)] = loaded.skipped.items()
    assert count == 3 and "no profiler measures" in reason


@pytest.mark.parametrize("packed", [True, False], ids=["gzip", "plain"])
def test_a_stream_loads_as_its_file_does(packed):
    import io

    source = TRACES / "a100_alexnet_cuda_sync.json.gz"
    data = source.read_bytes() if packed else gzip.decompress(source.read_bytes())
    streamed, loaded = loader.load_stream(io.BytesIO(data)), trace.load(source)
    assert np.array_equal(streamed.ts, loaded.ts) and streamed.names == loaded.names
    with pytest.raises(trace.TraceError, match=r"^<stdin>: holds more than 1 KiB of JSON"):
        loader.load_stream(io.BytesIO(data), max_bytes=1024)


def test_an_error_reading_a_trace_file_is_one_line_with_the_path(tmp_path, monkeypatch):
    path = tmp_path / "t.json"
    path.write_text('{"traceEvents": []}')

    def unreadable(*_):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(loader, "opened", unreadable)
    with pytest.raises(trace.TraceError) as raised:
        trace.load(path)
    assert str(raised.value) == f"{path}: Input/output error"


@pytest.mark.parametrize(("kind", "says"), [("fifo", "a FIFO, named like a trace"),
                                            ("dangling link", "a symbolic link to nothing, named like a trace"),
                                            ("link to a device", "a character device, named like a trace"),
                                            ("folder", "a folder, named like a trace")])
def test_an_entry_named_like_a_trace_that_is_no_file_is_refused_in_one_line(tmp_path, kind, says):
    (tmp_path / "rank0_trace.json").write_text('{"traceEvents": []}')
    entry = tmp_path / "rank1_trace.json"
    {"fifo": lambda: os.mkfifo(entry), "dangling link": lambda: entry.symlink_to(tmp_path / "gone.json"),
     "link to a device": lambda: entry.symlink_to("/dev/null"), "folder": entry.mkdir}[kind]()
    with pytest.raises(trace.TraceError) as caught:
        loader.trace_files(tmp_path)  # never opens the FIFO: it would block
    assert str(caught.value) == f"{entry}: {says}; " + (
        "remove it or point it at the rank's trace" if kind == "dangling link"
        else "a folder of rank traces holds trace files")


def test_a_folder_of_folders_names_them(tmp_path):
    for name in ("rank0", "rank1", "notes.txt"):
        (tmp_path / name).mkdir() if "." not in name else (tmp_path / name).write_text("")
    with pytest.raises(trace.TraceError) as caught:
        loader.trace_files(tmp_path)
    assert str(caught.value) == (f"{tmp_path}: no .json or .json.gz trace files in this folder; it holds folders "
                                 "(rank0, rank1): name one of them")


KERNELS = [{"ph": "X", "cat": "kernel", "name": f"k{i}", "ts": 100 * i, "dur": 100, "pid": 0, "tid": 7,
            "args": {"correlation": i}} for i in range(12)]


@pytest.mark.parametrize("args", ["a string", [1, 2], 5, None, {"correlation": [1]}])
@pytest.mark.parametrize("layout", ["file", "stream"])
def test_a_kernel_whose_args_are_no_object_is_read_without_them(tmp_path, args, layout):
    events = [dict(kernel) for kernel in KERNELS]
    events[3]["args"] = events[8]["args"] = args
    data = json.dumps({"traceEvents": events}).encode()
    loaded = trace.load(write(tmp_path, "t.json", data)) if layout == "file" else loader.parse(data)
    assert (len(loaded), float(loaded.dur.sum()), loaded.skipped) == (12, 1200.0, {})
    assert loaded.correlation.tolist() == [loader.NO_ID if i in (3, 8) else i for i in range(12)]


@pytest.mark.parametrize(("bad", "repair"), [(b"k\xff\xfe", loader.NOT_UTF8), (b"k\\udc80", loader.LONE_SURROGATES),
                                             (b"k\\ud800", loader.LONE_SURROGATES)])
@pytest.mark.parametrize("layout", ["file", "whole"])
def test_a_name_that_is_not_utf8_costs_a_character_not_the_trace(tmp_path, monkeypatch, bad, repair, layout):
    if layout == "whole":
        monkeypatch.setattr(loader, "load_streaming", lambda *_: None)
    data = json.dumps({"traceEvents": KERNELS}).encode().replace(b'"k5"', b'"' + bad + b'"')
    loaded = trace.load(write(tmp_path, "t.json", data))
    assert len(loaded) == 12 and float(loaded.dur.sum()) == 1200.0
    assert loaded.names[loaded.name[5]].startswith("k\ufffd")
    assert loaded.repaired == {repair: 2 if bad == b"k\xff\xfe" else 1}


def test_a_surrogate_pair_and_an_escaped_backslash_are_no_repair(tmp_path):
    data = json.dumps({"traceEvents": KERNELS}).encode().replace(b'"k5"', b'"k\\ud83d\\ude00 \\\\udc80"')
    loaded = trace.load(write(tmp_path, "t.json", data))
    assert loaded.names[loaded.name[5]] == "k\U0001F600 \\udc80" and loaded.repaired == {}


def test_two_traceevents_lists_are_refused_in_one_line(tmp_path):
    one = json.dumps({"traceEvents": KERNELS}).encode()
    for data in (b'{"traceEvents": [], ' + one[1:], one[:-1] + b', "traceEvents": []}'):
        with pytest.raises(trace.TraceError, match="holds 2 traceEvents lists, where a trace has one"):
            trace.load(write(tmp_path, "t.json", data))
    named = json.dumps({"traceEvents": [{**KERNELS[0], "name": '"traceEvents": ['}] * 2}).encode()
    assert len(trace.load(write(tmp_path, "t.json", named))) == 2  # the key's bytes in names are no list


def test_a_name_of_hundreds_of_megabytes_in_a_small_gzip_is_refused_in_bounded_memory(tmp_path):
    path = tmp_path / "bomb.json.gz"
    name_bytes = 200 << 20
    with gzip.open(path, "wb", compresslevel=1) as out:  # written a MiB at a time: the test holds no bomb itself
        out.write(b'{"traceEvents": [{"ph": "X", "cat": "kernel", "ts": 0, "dur": 1, "name": "')
        for _ in range(name_bytes >> 20):
            out.write(b"a" * (1 << 20))
        out.write(b'"}]}')
    assert path.stat().st_size < name_bytes // 100
    tracemalloc.start()
    try:
        with pytest.raises(trace.TraceError, match="an event holds more than 64 MiB of JSON"):
            trace.load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 * loader.MAX_EVENT_BYTES < name_bytes


@pytest.mark.parametrize("where", ["event", "document"])
def test_an_event_or_a_document_past_the_event_bound_is_refused_whole_or_streamed(tmp_path, monkeypatch, where):
    monkeypatch.setattr(loader, "MAX_EVENT_BYTES", 4096)
    monkeypatch.setattr(loader, "BLOCK", 1024)
    long = "a" * 8192
    events = [*KERNELS, {**KERNELS[0], "name": long}] if where == "event" else KERNELS
    data = json.dumps({"traceEvents": events, **({"traceName": long} if where == "document" else {})}).encode()
    says = "an event holds" if where == "event" else "the document around the event list holds"
    with pytest.raises(trace.TraceError, match=f"{says} more than 4 KiB of JSON"):
        trace.load(write(tmp_path, "t.json", data))
    if where == "event":  # read whole, as standard input is
        with pytest.raises(trace.TraceError, match=f"{says} more than 4 KiB of JSON"):
            loader.parse(data)
