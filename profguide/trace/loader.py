"""Load a torch.profiler (Kineto) Chrome trace into a ``Trace``.

A trace of a real job holds millions of events; most questions need a handful
of fields of the complete (``ph: X``) events. The loader splits the event
list without building objects, decodes it in batches into small typed
structs (msgspec), keeps only the fields the analysis asks for as numpy
columns, and drops each batch before the next: memory stays near the size of
the file.
"""

import gzip
import math
import re
import zlib
from pathlib import Path

import msgspec
import numpy as np

from profguide.errors import TraceError
from profguide.trace.model import CATEGORY_KINDS, GEMM_OPS, KIND, NO_ID, Trace

BATCH = 65536


_NULL = msgspec.Raw(b"null")


class _Args(msgspec.Struct, gc=False):
    correlation: int | str | None = None
    external_id: int | str | None = msgspec.field(name="External id", default=None)
    bytes: float | str | None = None
    occupancy: float | str | None = msgspec.field(name="est. achieved occupancy %", default=None)
    # Raw: left undecoded (a reference into the batch) unless the op is a matrix multiply.
    input_dims: msgspec.Raw = msgspec.field(name="Input Dims", default=_NULL)
    input_type: msgspec.Raw = msgspec.field(name="Input type", default=_NULL)


class _Event(msgspec.Struct, gc=False):
    ph: str | None = None
    cat: str | None = None
    name: str | None = None
    ts: float | str | None = None
    dur: float | str | None = None
    pid: int | str | None = None
    tid: int | str | None = None
    args: _Args | None = None


class _Document(msgspec.Struct, gc=False):
    traceEvents: list[msgspec.Raw] | None = None
    deviceProperties: object = None
    distributedInfo: object = None


def read_bytes(path):
    """The file's bytes, gunzipped when compressed; TraceError with one line on failure."""
    path = Path(path)
    try:
        raw = path.read_bytes()
        return gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    except FileNotFoundError:
        raise TraceError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise TraceError(f"{path}: is a folder, not a trace file") from None
    except PermissionError:
        raise TraceError(f"{path}: permission denied") from None
    except (EOFError, gzip.BadGzipFile, zlib.error):
        raise TraceError(f"{path}: truncated or corrupt gzip data") from None


def decode_document(path, raw):
    try:
        document = msgspec.json.decode(raw, type=_Document)
    except msgspec.ValidationError as error:
        raise TraceError(f"{path}: not a torch.profiler trace ({error})") from None
    except msgspec.DecodeError as error:
        raise TraceError(f"{path}: {describe_decode_error(raw, error, 'not valid JSON')}") from None
    except UnicodeDecodeError:
        raise TraceError(f"{path}: not UTF-8 text") from None
    if document.traceEvents is None:
        raise TraceError(f"{path}: no traceEvents list; not a torch.profiler trace")
    return document


def describe_decode_error(raw, error, what):
    """One line for a decoding error: invalid UTF-8 (however msgspec reports it), truncation, or msgspec's words."""
    text = str(error)
    if "utf-8" in text.lower():
        return "not UTF-8 text"
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8 text"
    if "truncated" in text.lower():
        return f"{what} (the file ends early: truncated?)"
    return f"{what} ({text})"


def floats(values):
    """A float64 column from numbers, numeric strings and None (NaN); NaN for anything unreadable."""
    try:
        return np.array(values, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        return np.array([number(v) for v in values], dtype=np.float64)


def number(value):
    try:
        return math.nan if value is None else float(value)
    except (TypeError, ValueError, OverflowError):
        return math.nan


def identifiers(values):
    """An int64 column of ids from ints, numeric strings and None; -1 where absent or unreadable."""
    try:
        return np.array([NO_ID if v is None else v for v in values], dtype=np.int64)
    except (TypeError, ValueError, OverflowError):
        return np.array([identifier(v) for v in values], dtype=np.int64)


def identifier(value):
    if isinstance(value, str):
        try:
            value = int(value)
        except ValueError:
            return NO_ID
    if not isinstance(value, int) or not -(2**63) <= value < 2**63:
        return NO_ID
    return value


def decode_batch(data, batches):
    """The complete events of one batch (a JSON array of events).

    The typed decoder is fast; when some event has a field of an unexpected
    type, the batch is decoded again loosely and each event is coerced or
    skipped, so that one odd event does not cost the whole trace.
    """
    try:
        return [e for e in _DECODE_BATCH.decode(data) if e.ph == "X"]
    except msgspec.ValidationError:
        decoded = [coerce_event(e, batches["skipped"]) for e in msgspec.json.decode(data)]
    return [e for e in decoded if e is not None]


SCALARS = (int, float, str)


def coerce_event(event, skipped):
    """An _Event from a loosely decoded one, or None when it is not a usable complete event."""
    if not isinstance(event, dict) or event.get("ph") != "X":
        return None
    name, category = event.get("name"), event.get("cat")
    if not isinstance(name, SCALARS) or not isinstance(category, (*SCALARS, type(None))):
        skipped["whose name or category is not text"] = skipped.get("whose name or category is not text", 0) + 1
        return None
    args = event.get("args")
    return _Event(
        ph="X",
        cat=None if category is None else str(category),
        name=str(name),
        ts=scalar(event.get("ts")),
        dur=scalar(event.get("dur")),
        pid=lane_id(event.get("pid")),
        tid=lane_id(event.get("tid")),
        args=coerce_args(args) if isinstance(args, dict) else None,
    )


def scalar(value):
    return value if isinstance(value, SCALARS) and not isinstance(value, bool) else None


def lane_id(value):
    """A pid or tid that can key a lane: ints and strings as they are, anything else as its JSON text."""
    if value is None or (isinstance(value, SCALARS) and not isinstance(value, bool)):
        return value
    return msgspec.json.encode(value).decode()


def coerce_args(args):
    def raw(key):
        return msgspec.Raw(msgspec.json.encode(args[key])) if key in args else _NULL

    return _Args(
        correlation=scalar(args.get("correlation")),
        external_id=scalar(args.get("External id")),
        bytes=scalar(args.get("bytes")),
        occupancy=scalar(args.get("est. achieved occupancy %")),
        input_dims=raw("Input Dims"),
        input_type=raw("Input type"),
    )


class Codes(dict):
    """Value → small integer code, numbering new values as they come (C-speed lookups for known ones)."""

    def __missing__(self, value):
        code = self[value] = len(self)
        return code


def batch_columns(events, names, lanes, categories):
    """Columns for one batch of complete events; the Codes ``names``, ``lanes``, ``categories`` grow."""
    args = [e.args or _NO_ARGS for e in events]
    return {
        "ts": floats([e.ts for e in events]),
        "dur": floats([0.0 if e.dur is None else e.dur for e in events]),
        "category": np.array([categories[e.cat] for e in events], dtype=np.int32),
        "name": np.array([names[e.name or ""] for e in events], dtype=np.int32),
        "lane": np.array([lanes[e.pid, e.tid] for e in events], dtype=np.int32),
        "correlation": identifiers([a.correlation for a in args]),
        "external_id": identifiers([a.external_id for a in args]),
        "bytes": floats([a.bytes for a in args]),
        "occupancy": floats([a.occupancy for a in args]),
    }


def kind_codes(categories):
    """Kind code for each category code, as a lookup table."""
    table = np.zeros(max(len(categories), 1), dtype=np.int8)
    for category, code in categories.items():
        table[code] = KIND[CATEGORY_KINDS.get(str(category or "").lower(), "other")]
    return table


def decode_shapes(args):
    """(input dims, input types) of a matrix-multiply op, decoded now so that no batch buffer stays alive."""
    try:
        dims = msgspec.json.decode(args.input_dims)
        types = msgspec.json.decode(args.input_type)
    except msgspec.DecodeError:
        return None
    return (dims, types) if isinstance(dims, list) else None


_NO_ARGS = _Args()


_DECODE_BATCH = msgspec.json.Decoder(list[_Event])


def trace_files(path):
    """The trace files at ``path``: the file itself, or every trace in a folder (one per rank)."""
    path = Path(path)
    if not path.is_dir():
        return [path]
    files = sorted(p for p in path.iterdir() if p.name.endswith((".json", ".json.gz")))
    if not files:
        raise TraceError(f"{path}: no .json or .json.gz trace files in this folder")
    return files


def load(path, progress=None):
    """Load the trace at ``path`` (``.json`` or ``.json.gz``).

    ``progress``, if given, is called with the fraction of the work done.
    Raises TraceError, with a one-line message, for anything that is not a
    readable trace with complete events.
    """
    path = Path(path)
    streamed = load_streaming(path, progress)
    if streamed is not None:
        return streamed
    return parse(read_bytes(path), path, progress)


def parse(raw, source="trace", progress=None):
    """Parse the bytes of a trace's JSON; ``source`` names it in error messages."""
    document = decode_document(source, raw)
    events, document.traceEvents = document.traceEvents, None
    batches = new_batches()
    for start in range(0, len(events), BATCH):
        try:
            add_batch(batches, decode_batch(b"[" + b",".join(events[start : start + BATCH]) + b"]", batches))
        except UnicodeDecodeError:
            raise TraceError(f"{source}: not UTF-8 text") from None
        except (msgspec.ValidationError, msgspec.DecodeError) as error:
            raise TraceError(f"{source}: {describe_decode_error(raw, error, 'an event cannot be read')}") from None
        if progress:
            progress(min(start + BATCH, len(events)) / len(events))
    del events, raw
    return assemble(source, batches, document)


def new_batches():
    """What the batches of one trace add up to: column chunks, the value codes, shapes, skip counts."""
    return {"chunks": [], "names": Codes(), "lanes": Codes(), "categories": Codes(), "shapes": {},
            "skipped": {}, "count": 0}


def add_batch(batches, complete):
    """Append one batch of complete events to ``batches``."""
    chunk = batch_columns(complete, batches["names"], batches["lanes"], batches["categories"])
    batches["chunks"].append(chunk)
    gemm_codes = [code for name, code in batches["names"].items() if name in GEMM_OPS]
    for offset in np.flatnonzero(np.isin(chunk["name"], gemm_codes)):
        batches["shapes"][batches["count"] + int(offset)] = decode_shapes(complete[offset].args or _NO_ARGS)
    batches["count"] += len(complete)


TRACE_EVENTS = re.compile(rb'"traceEvents"\s*:\s*\[')


BLOCK = 8 << 20


def load_streaming(path, progress=None):
    """Load a trace written one event per line or more (as Kineto writes them), a block at a time.

    A literal newline can only stand outside JSON strings, so ``},`` at the
    end of a line is a place to cut between events; each cut is checked by
    decoding the events before it. Memory stays near one block plus the
    columns. Returns None, having read nothing into the result, when the file
    is not laid out that way or something looks wrong: the caller then reads
    it whole, and reports any error.
    """
    try:
        size = path.stat().st_size
        opener = gzip.open if is_gzip(path) else open
        with opener(path, "rb") as stream:
            return stream_events(path, stream, size, progress)
    except (OSError, EOFError, zlib.error, ValueError, msgspec.ValidationError, msgspec.DecodeError):
        return None


def is_gzip(path):
    with open(path, "rb") as stream:
        return stream.read(2) == b"\x1f\x8b"


def last_event_end(data):
    """(end of the last event's '}', start of what follows its comma and newline), or None."""
    for separator in (b"},\n", b"},\r\n"):
        position = data.rfind(separator)
        if position >= 0:
            return position + 1, position + len(separator)
    return None


def stream_events(path, stream, size, progress):
    head = b""
    while (found := TRACE_EVENTS.search(head)) is None:
        block = stream.read(BLOCK)
        if not block or len(head) > 4 * BLOCK:
            return None
        head += block
    skeleton_start, pending = head[: found.end()], head[found.end() :]
    batches = new_batches()
    while block := stream.read(BLOCK):
        pending += block
        cut = last_event_end(pending)
        if cut is None:
            if len(pending) > 4 * BLOCK:
                return None
            continue
        add_batch(batches, decode_batch(b"[" + pending[: cut[0]] + b"]", batches))
        pending = pending[cut[1] :]
        if progress and size:
            progress(min(stream_position(stream) / size, 1.0))
    return finish_stream(path, pending, skeleton_start, batches)


def stream_position(stream):
    fileobj = getattr(stream, "fileobj", None)  # a gzip stream: progress through the compressed file
    return (fileobj or stream).tell()


def finish_stream(path, pending, skeleton_start, batches):
    """The last events, and the rest of the document: the array ends at the first ']' that closes it."""
    if len(pending) > BLOCK or (not batches["chunks"] and len(pending) > 1 << 20):
        return None  # not one event per line after all: each try below would decode it all
    for attempt, closing in enumerate(re.finditer(rb"\]", pending)):
        if attempt == 32:  # the last event holds few lists: this is not the layout we expected
            return None
        try:
            last = decode_batch(b"[" + pending[: closing.start()] + b"]", batches)
        except (msgspec.ValidationError, msgspec.DecodeError):
            continue
        document = msgspec.json.decode(skeleton_start + b"]" + pending[closing.end() :], type=_Document)
        add_batch(batches, last)
        return assemble(path, batches, document)
    return None


def assemble(path, batches, document):
    """One Trace from the batches: valid events only, sorted by (start, -duration)."""
    chunks, skipped = batches["chunks"], batches["skipped"]
    columns = {key: np.concatenate([chunk.pop(key) for chunk in chunks]) for key in (list(chunks[0]) if chunks else ())}
    if not columns or not len(columns["ts"]):
        raise TraceError(f"{path}: the trace holds no complete events")
    finite = np.isfinite(columns["ts"]) & np.isfinite(columns["dur"])
    negative = finite & (columns["dur"] < 0)
    for reason, mask in (("without a numeric ts or dur", ~finite), ("with a negative duration", negative)):
        if mask.any():
            skipped[reason] = skipped.get(reason, 0) + int(mask.sum())
    kept = np.flatnonzero(finite & ~negative)
    if not len(kept):
        raise TraceError(f"{path}: the trace holds no complete events with valid times")
    order = kept[np.lexsort((-columns["dur"][kept], columns["ts"][kept]))]
    new_index = np.full(len(finite), -1)
    new_index[order] = np.arange(len(order))
    for key in list(columns):
        columns[key] = columns[key][order]
    columns["kind"] = kind_codes(batches["categories"])[columns.pop("category")]
    return Trace(
        **columns,
        names=tuple(batches["names"]),
        lanes=tuple(batches["lanes"]),
        shapes={int(new_index[i]): v for i, v in batches["shapes"].items() if v is not None and new_index[i] >= 0},
        device_properties=tuple(d for d in document.deviceProperties or () if isinstance(d, dict))
        if isinstance(document.deviceProperties, list) else (),
        distributed_info=document.distributedInfo if isinstance(document.distributedInfo, dict) else None,
        skipped=skipped,
    )
