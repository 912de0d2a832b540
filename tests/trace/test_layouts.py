"""profguide.trace: what torch and other writers put in a trace file, in any layout, read right in bounded memory."""

import gzip
import json
import math

import numpy as np
import pytest

from profguide import cli, trace
from profguide.limits import COPY_BYTES_LIMIT
from profguide.trace import loader
from tests.trace.test_loader import kernel, same_columns

# Strings that look like the end of an event, a bracket or an escape to any scan that does not track strings.
TRICKY_NAMES = ['a},{"ph": "X", "name": "b"', "]]]}}}", 'say \\"hi\\" [', "},\n", "\\", ", , ,"]


def events_with(names):
    return [kernel(i, name=name, args={"Input type": [name, "]"]}) for i, name in enumerate(names)]


def dumped(value, layout):
    """``value`` as JSON in a layout: Kineto's (one event per line), one line as minifiers write, or indented."""
    if layout == "kineto":
        events = value if isinstance(value, list) else value["traceEvents"]
        body = "[\n" + ",\n".join(json.dumps(e) for e in events) + "\n]"
        if isinstance(value, list):
            return body
        rest = "".join(f",\n{json.dumps(k)}: {json.dumps(v)}" for k, v in value.items() if k != "traceEvents")
        return '{\n"traceEvents": ' + body + rest + "\n}\n"
    return json.dumps(value, separators=(",", ":")) if layout == "one line" else json.dumps(value, indent=2)


LAYOUTS = ["kineto", "one line", "indented"]


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of 64 bytes, and a record of every batch the loader decodes; reading a file whole fails."""
    monkeypatch.setattr(loader, "BLOCK", 64)
    monkeypatch.setattr(loader, "TAIL", 16)
    batches = []
    decode = loader.decode_batch

    def recorded(data, into):
        batches.append(len(data))
        return decode(data, into)

    def whole(*_):
        raise AssertionError("the file was read whole")

    monkeypatch.setattr(loader, "decode_batch", recorded)
    monkeypatch.setattr(loader, "read_bytes", whole)
    return batches


def names_of(loaded):
    return [loaded.names[i] for i in loaded.name]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_layout_streams_in_batches_with_the_whole_files_answer(tmp_path, small_blocks, layout):
    document = {"deviceProperties": [{"name": "GPU", "ids": [[1], [2]]}], "traceEvents": events_with(TRICKY_NAMES),
                "distributedInfo": {"rank": 1, "note": "]},"}}
    path = tmp_path / "t.json"
    path.write_text(dumped(document, layout))
    loaded = trace.load(path)
    assert names_of(loaded) == TRICKY_NAMES
    assert loaded.device_properties == ({"name": "GPU", "ids": [[1], [2]]},) and loaded.distributed_info["rank"] == 1
    assert len(small_blocks) >= len(TRICKY_NAMES) - 1 and max(small_blocks) < 4 * 64 + 200
    same_columns(loaded, trace.parse(path.read_bytes(), path))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_bare_array_of_events_is_read_plain_and_gzipped(tmp_path, layout):
    # The Trace Event Format's JSON Array Format: the document is the event list itself.
    text = dumped(events_with(TRICKY_NAMES), layout).encode()
    for path in (tmp_path / "t.json", tmp_path / "t.json.gz"):
        path.write_bytes(gzip.compress(text) if path.suffix == ".gz" else text)
        loaded = trace.load(path)
        assert names_of(loaded) == TRICKY_NAMES and loaded.device_properties == ()
        same_columns(loaded, trace.parse(text, path))


def test_a_bare_array_with_text_after_it_is_not_read(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps([kernel(0)]) + " x")
    with pytest.raises(trace.TraceError, match="not valid JSON"):
        trace.load(path)


CONTROLS = ["tab\there", "new\nline", "esc\x1b[31m", "nul\x00", "all" + "".join(map(chr, range(32))), '},\n{"x": "']


def raw_controls(text):
    """``text`` with the control characters json.dumps escaped written raw, as kineto wrote names (#130622)."""
    for code in range(32):
        text = text.replace(json.dumps(chr(code))[1:-1], chr(code))
    return text


@pytest.mark.parametrize("layout", LAYOUTS)
def test_raw_control_characters_inside_strings_are_read_as_they_were_meant(tmp_path, small_blocks, layout):
    path = tmp_path / "t.json"
    path.write_text(raw_controls(dumped({"traceEvents": events_with(CONTROLS)}, layout)))
    assert "\t" in path.read_text() and "\x00" in path.read_text()
    loaded = trace.load(path)
    assert names_of(loaded) == CONTROLS
    same_columns(loaded, trace.parse(path.read_bytes(), path))


def test_a_raw_control_character_outside_a_string_is_still_an_error(tmp_path):
    path = tmp_path / "t.json"
    path.write_text('{"traceEvents": [\x01' + json.dumps(kernel(0)) + "]}")
    with pytest.raises(trace.TraceError, match="not valid JSON|an event cannot be read"):
        trace.load(path)


@pytest.mark.parametrize("packed", [False, True], ids=["plain", "gzip"])
def test_a_byte_order_mark_first_is_read_past(tmp_path, packed):
    text = b"\xef\xbb\xbf" + dumped({"traceEvents": [kernel(0), kernel(1)]}, "kineto").encode()
    path = tmp_path / ("t.json.gz" if packed else "t.json")
    path.write_bytes(gzip.compress(text) if packed else text)
    assert names_of(trace.load(path)) == ["k0", "k1"]
    assert names_of(trace.parse(text)) == ["k0", "k1"]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_nan_and_infinity_literals_skip_their_events_and_keep_the_rest(tmp_path, layout):
    events = [kernel(0), kernel(1, ts=math.nan), kernel(2, dur=math.inf), kernel(3, dur=-math.inf),
              kernel(4, name="NaN Infinity", args={"correlation": 5}), kernel(5)]
    path = tmp_path / "t.json"
    path.write_text(dumped({"traceEvents": events}, layout))  # json.dumps writes NaN, Infinity, -Infinity
    assert "-Infinity" in path.read_text()
    loaded = trace.load(path)
    assert names_of(loaded) == ["k0", "NaN Infinity", "k5"]
    assert loaded.skipped == {"without a numeric ts or dur": 3}
    same_columns(loaded, trace.parse(path.read_bytes(), path))


def memcpy(i, size, dur=5.0):
    return {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "ts": 10.0 * i, "dur": dur,
            "pid": 0, "tid": 7, "args": {"bytes": size}}


def explained_json(capsys, path):
    assert cli.main(["explain", str(path), "--json"]) == 0
    return json.loads(capsys.readouterr().out, parse_constant=lambda word: pytest.fail(f"{word} in the JSON"))


@pytest.mark.parametrize("size", [1e308, math.inf, COPY_BYTES_LIMIT * 2.0])
def test_bytes_no_copy_moves_are_left_out_of_the_totals_and_the_json_stays_finite(tmp_path, capsys, size):
    events = [kernel(0, dur=100), memcpy(1, size), memcpy(2, size), memcpy(3, 4096)]
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"traceEvents": events}))
    summary = explained_json(capsys, path)
    [row] = summary["memory_traffic"]
    assert (row["count"], row["bytes"]) == (3, 4096) and 0 < row["gb_per_s"] < math.inf
    [(reason, count)] = summary["skipped_events"].items()
    assert count == 2 and "byte totals" in reason
    assert np.isnan(trace.load(path).bytes).sum() == 3  # the kernel's (none recorded), and the two impossible


def test_a_duration_too_short_to_measure_is_skipped_so_no_rate_is_infinite(tmp_path, capsys):
    events = [kernel(0, dur=100), memcpy(1, 1e18, dur=1e-300), memcpy(2, 1e18, dur=0.001)]
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"traceEvents": events}))
    summary = explained_json(capsys, path)
    [row] = summary["memory_traffic"]
    assert row["count"] == 1 and row["gb_per_s"] == pytest.approx(1e18 / 0.001 / 1e3)
    assert [reason for reason in summary["skipped_events"]] == [
        "with a start or duration no profiler measures (beyond the year 2286, over 11 days, or under a picosecond)"]


def padded(path, events, padding, chunk=1 << 20):
    """A gzip trace with ``padding`` bytes of whitespace between each two events, written a chunk at a time."""
    with gzip.open(path, "wb", compresslevel=1) as stream:
        stream.write(b'{"traceEvents": [')
        for index, event in enumerate(events):
            stream.write((b", " if index else b"") + json.dumps(event).encode())
            for start in range(0, padding, chunk):
                stream.write(b" \n\t\r"[index % 4 : index % 4 + 1] * min(chunk, padding - start))
        stream.write(b"]}")
    return path


def test_whitespace_padding_is_skipped_not_kept(tmp_path, small_blocks, monkeypatch):
    monkeypatch.setattr(loader, "BLOCK", 4096)
    path = padded(tmp_path / "t.json.gz", [kernel(i) for i in range(4)], 1 << 20)
    loaded = trace.load(path)
    assert names_of(loaded) == ["k0", "k1", "k2", "k3"]
    assert max(small_blocks) < 3 * 4096  # no batch held the megabytes of padding


def test_whitespace_alone_is_refused_without_being_kept(tmp_path, small_blocks, monkeypatch):
    monkeypatch.setattr(loader, "BLOCK", 1 << 16)
    path = tmp_path / "t.json.gz"
    with gzip.open(path, "wb") as stream:
        for _ in range(64):
            stream.write(b" " * (1 << 16))
    with pytest.raises(trace.TraceError, match="not valid JSON"):
        trace.load(path)


def test_a_string_of_whitespace_is_kept_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(loader, "BLOCK", 64)
    name = " " * 1000
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"traceEvents": [kernel(0, name=name), kernel(1)]}))
    assert names_of(trace.load(path)) == [name, "k1"]


def test_a_file_that_ends_inside_the_list_is_still_called_truncated(tmp_path, monkeypatch):
    monkeypatch.setattr(loader, "BLOCK", 64)
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"traceEvents": [kernel(i) for i in range(20)]})[:-30])
    with pytest.raises(trace.TraceError, match=r"the file ends early: truncated\?"):
        trace.load(path)
