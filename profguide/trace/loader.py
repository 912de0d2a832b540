"""Load a torch.profiler (Kineto) Chrome trace into a ``Trace``.

A trace of a real job holds millions of events; most questions need a handful
of fields of the complete (``ph: X``) events. The loader splits the event
list without building objects, decodes it in batches into small typed
structs (msgspec), keeps only the fields the analysis asks for as numpy
columns, and drops each batch before the next: memory stays near the size of
the file.

It reads regular files only (a FIFO or a device would never end), no more
than ``max_bytes`` of JSON (a small gzip file can inflate without bound), and
nothing nested deeper than ``MAX_DEPTH`` (counted on the bytes as they are
read, so that the answer does not hang on ``sys.getrecursionlimit()``, which
compiling with ``torch.compile`` raises); anything it cannot read becomes a
``TraceError`` with one line.
"""

import gzip
import math
import os
import re
import stat
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from functools import partial
from itertools import compress, repeat
from operator import attrgetter, is_, is_not
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple, Union

import msgspec
import numpy as np
import numpy.typing as npt

from profguide.errors import TraceError
from profguide.limits import DUR_LIMIT, MAX_BYTES, TS_LIMIT
from profguide.patterns import BACKEND_OP, GEMM_OPS
from profguide.text import format_size, shown
from profguide.trace.model import BOOKKEEPING_CATEGORIES, CATEGORY_KINDS, KIND, NO_ID, Trace

Progress = Callable[[float], None]  # called with the fraction of the work done, 0 to 1
Data = bytes | bytearray | memoryview  # JSON as read, or a view into the buffer being read
Batches = dict[str, Any]  # what ``new_batches`` starts and ``add_batch`` grows

BATCH = 65536
BLOCK = 8 << 20
HEAD_BYTES = 4 * BLOCK  # how far into a file the top-level traceEvents list must begin

_NULL = msgspec.Raw(b"null")


class _Args(msgspec.Struct, gc=False, frozen=True):
    # Defaults that numpy takes as they are: a column of them needs no slow path.
    correlation: int | str | None = NO_ID
    external_id: int | str | None = msgspec.field(name="External id", default=NO_ID)
    bytes: float | str | None = math.nan
    occupancy: float | str | None = msgspec.field(name="est. achieved occupancy %", default=math.nan)
    # Raw: left undecoded (a reference into the batch) unless the op is a matrix multiply.
    input_dims: msgspec.Raw = msgspec.field(name="Input Dims", default=_NULL)
    input_type: msgspec.Raw = msgspec.field(name="Input type", default=_NULL)
    # What ``record_param_comms`` records of a collective's message; Raw too, decoded for that op alone.
    in_msg_nelems: msgspec.Raw = msgspec.field(name="In msg nelems", default=_NULL)
    dtype: msgspec.Raw = _NULL


_NO_ARGS = _Args()


class _Event(msgspec.Struct, gc=False, tag_field="ph", tag="X"):
    """A complete event: the only kind the analysis reads."""

    cat: str | None = None
    name: str = ""
    ts: float | str | None = None
    dur: float | str | None = 0.0
    pid: int | str | None = None
    tid: int | str | None = None
    args: _Args = _NO_ARGS


class _NameArgs(msgspec.Struct, gc=False):
    name: object = None


class _Metadata(msgspec.Struct, gc=False, tag_field="ph", tag="M"):
    """A metadata event: the trace keeps the ``thread_name`` ones."""

    name: object = None
    pid: int | str | None = None
    tid: int | str | None = None
    args: _NameArgs | None = None


class _BytesArgs(msgspec.Struct, gc=False):
    bytes: object = msgspec.field(name="Bytes", default=None)


class _Instant(msgspec.Struct, gc=False, tag_field="ph", tag="i"):
    """An instant: the trace keeps the allocator's ``[memory]`` ones."""

    name: object = None
    ts: float | str | None = None
    pid: int | str | None = None
    tid: int | str | None = None
    args: _BytesArgs | None = None


MEMORY = "[memory]"  # the name of the allocator's instants (profile_memory=True)
# Every other phase of the Trace Event Format, decoded as a tag alone: their fields are skipped unread.
OTHER_PHASES = ("B", "E", "I", "C", "b", "n", "e", "s", "t", "f", "P", "N", "O", "D", "V", "v", "R", "c")
_OTHERS = tuple(msgspec.defstruct(f"_Phase{index}", [], tag_field="ph", tag=phase, gc=False)
                for index, phase in enumerate(OTHER_PHASES))


class _Document(msgspec.Struct, gc=False):
    traceEvents: list[msgspec.Raw] | None = None
    deviceProperties: object = None
    distributedInfo: object = None
    baseTimeNanoseconds: object = None


_DECODE_BATCH = msgspec.json.Decoder(list[Union[(_Event, _Metadata, _Instant, *_OTHERS)]])  # type: ignore[valid-type]  # noqa: UP007 - a union built from a tuple
PHASE: dict[type, str] = {_Event: "X", _Metadata: "M", _Instant: "i", **dict(zip(_OTHERS, OTHER_PHASES, strict=True))}
IS_COMPLETE = partial(is_, _Event)
FIELD = {name: attrgetter(name) for name in ("ts", "dur", "cat", "name", "pid", "tid", "args")}
ARG = {name: attrgetter(name) for name in ("correlation", "external_id", "bytes", "occupancy")}
INPUT_DIMS = attrgetter("input_dims")

FILE_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
              (stat.S_ISSOCK, "a socket"))


def check_source(path: Path) -> None:
    """A one-line TraceError unless ``path`` is a regular file this process can read."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise TraceError(f"{shown(path)}: no such file") from None
    except PermissionError:
        raise TraceError(f"{shown(path)}: permission denied") from None
    except OSError as error:
        raise TraceError(f"{shown(path)}: {error.strerror}") from None
    if stat.S_ISDIR(mode):
        raise TraceError(f"{shown(path)}: is a folder, not a trace file")
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in FILE_KINDS if test(mode)), "not a regular file")
        raise TraceError(f"{shown(path)}: {kind}, not a trace file: it would never end")


# How deep a trace's JSON may nest. Real Kineto traces nest 5 to 7 levels (the document, traceEvents, an
# event, its args, Input Dims, one input's dims, a list inside those); 64 leaves room for any profiler's
# metadata and stays far below the depth at which msgspec's recursive decoder meets the interpreter's
# recursion limit (1000 by default; Inductor's compile_fx raises it to 2000) or, with the limit
# raised further still, the C stack. The bound is the loader's own, whatever that limit is.
MAX_DEPTH = 64
SCAN_BLOCK = BLOCK  # one read of more than this (read_bytes reads the whole file) is scanned a block at a time

_KEEP = b'"[]{}'
_DELETE = bytes(c for c in range(256) if c not in _KEEP)  # every byte but quotes and brackets
_STEP = np.zeros(256, np.int8)
_STEP[list(b"[{")] = 1
_STEP[list(b"]}")] = -1
_QUOTE = ord('"')


class Nesting(NamedTuple):
    """Where a scan of a document's bytes stands between two blocks."""

    depth: int = 0  # brackets open before the next block
    in_string: bool = False  # whether the next block starts inside a string
    held: bytes = b""  # a trailing run of backslashes, held back: the escape it starts may end in the next block


START = Nesting()  # before a document's first byte


def unescaped(data: bytes) -> bytes:
    """``data`` without its escaped backslashes, then without its escaped quotes. Python's ``replace`` pairs
    a run of backslashes from the left, as JSON does: an odd run's last backslash escapes what follows it.
    Backslashes stand only inside strings in valid JSON, and msgspec stops at the first one outside."""
    if b"\\" not in data:
        return data
    return data.replace(b"\\\\", b"").replace(b'\\"', b"")


def split_backslashes(data: bytes) -> tuple[bytes, bytes]:
    """(``data`` without its trailing run of backslashes, that run)."""
    if not data.endswith(b"\\"):
        return data, b""
    kept = data.rstrip(b"\\")
    return kept, bytes(data[len(kept) :])


def block_depth(block: bytes, state: Nesting = START) -> tuple[int, Nesting]:
    """(the deepest nesting reached in ``block``, the ``Nesting`` after it), given the state before it.

    Only quotes and brackets matter once escapes are gone; two adjacent quotes (an empty string, or the end
    of one and the start of the next) go too, which keeps the parity of every later quote. A bracket counts
    where the quotes before it (and ``state.in_string``) leave it outside a string. Every step runs in C.
    """
    data, held = split_backslashes(state.held + block if state.held else block)
    marks = unescaped(data).translate(None, _DELETE).replace(b'""', b"")
    codes = np.frombuffer(marks, np.uint8)
    steps = _STEP[codes]
    in_string = state.in_string
    if b'"' in marks:
        inside = np.bitwise_xor.accumulate(codes == _QUOTE)
        if in_string:
            np.logical_not(inside, out=inside)
        steps[inside] = 0  # brackets inside strings do not nest
        in_string = bool(inside[-1])
    elif in_string:
        steps[:] = 0
    if not len(steps):
        return state.depth, Nesting(state.depth, in_string, held)
    levels = np.cumsum(steps, dtype=np.int32)  # a block holds fewer than 2**31 brackets
    return state.depth + max(int(levels.max()), 0), Nesting(state.depth + int(levels[-1]), in_string, held)


def check_nesting(data: Data, source: Path | str, state: Nesting = START) -> Nesting:
    """The ``Nesting`` after ``data``; a one-line TraceError once anything is nested deeper than MAX_DEPTH."""
    with memoryview(data) as view:
        for start in range(0, len(view), SCAN_BLOCK):
            whole = start == 0 and len(view) <= SCAN_BLOCK
            block = data if whole and isinstance(data, bytes) else bytes(view[start : start + SCAN_BLOCK])
            deepest, state = block_depth(block, state)
            if deepest > MAX_DEPTH:
                raise TraceError(f"{shown(source)}: nested too deeply to be a torch.profiler trace "
                                 f"(more than {MAX_DEPTH} levels)")
    return state


class Capped:
    """A binary stream that raises TraceError once more than ``limit`` bytes have been read from it, or once
    what it has read is nested deeper than MAX_DEPTH."""

    def __init__(self, stream: Any, path: Path | str, limit: int) -> None:  # a file, a GzipFile or a Prefixed
        self.stream, self.path, self.limit, self.count = stream, path, limit, 0
        self.nesting = START

    def read(self, size: int) -> bytes:
        data = self.stream.read(size)
        self.count += len(data)
        if self.count > self.limit:
            raise TraceError(f"{shown(self.path)}: holds more than {format_size(self.limit)} of JSON; "
                             "raise --max-size to read it")
        self.nesting = check_nesting(data, self.path, self.nesting)
        return data

    def position(self) -> int:
        """How far through the file on disk (the compressed one, for gzip) reading has come."""
        fileobj = getattr(self.stream, "fileobj", None)
        return (fileobj or self.stream).tell()


def is_gzip(path: Path) -> bool:
    with open(path, "rb") as stream:
        return stream.read(2) == b"\x1f\x8b"


def opened(path: Path, limit: int) -> Capped:
    """The file's JSON as a capped stream, gunzipped when compressed."""
    return Capped(gzip.open(path, "rb") if is_gzip(path) else open(path, "rb"), path, limit)


def read_bytes(path: Path, max_bytes: int = MAX_BYTES) -> bytes:
    """The file's JSON bytes, gunzipped when compressed; TraceError with one line on failure."""
    check_source(path)
    try:
        reader = opened(path, max_bytes)
        try:
            return reader.read(max_bytes + 1)
        finally:
            reader.stream.close()
    except PermissionError:
        raise TraceError(f"{shown(path)}: permission denied") from None
    except (EOFError, gzip.BadGzipFile, zlib.error):
        raise TraceError(f"{shown(path)}: truncated or corrupt gzip data") from None
    except OSError as error:
        raise TraceError(f"{shown(path)}: {error.strerror or error}") from None


STDIN = "<stdin>"  # how standard input is named in messages and summaries


class Prefixed:
    """A binary stream that returns ``head`` (bytes read from ``stream`` to sniff it) before the rest of it.
    ``stream`` is buffered (``sys.stdin.buffer``): its ``read(n)`` returns n bytes unless the stream ends."""

    def __init__(self, head: bytes, stream: BinaryIO) -> None:
        self.head, self.stream = head, stream

    def read(self, size: int | None = -1) -> bytes:
        if size is not None and 0 <= size < len(self.head):
            data, self.head = self.head[:size], self.head[size:]
            return data
        head, self.head = self.head, b""
        return head + self.stream.read(-1 if size is None or size < 0 else size - len(head))

    def seek(self, offset: int, whence: int = 0) -> int:
        raise OSError("standard input cannot be read twice")  # gzip seeks only to read a file again


def read_stream(stream: BinaryIO, max_bytes: int = MAX_BYTES, source: str = STDIN) -> bytes:
    """The JSON bytes of a binary stream that cannot be read twice (standard input), gunzipped when it starts
    with gzip's magic bytes; capped and depth-checked as a file is. TraceError with one line on failure."""
    try:
        head = stream.read(2)
        whole = Prefixed(head, stream)
        reader = Capped(gzip.GzipFile(fileobj=whole, mode="rb") if head == b"\x1f\x8b" else whole, source, max_bytes)
        return reader.read(max_bytes + 1)
    except (EOFError, gzip.BadGzipFile, zlib.error):
        raise TraceError(f"{shown(source)}: truncated or corrupt gzip data") from None
    except OSError as error:
        raise TraceError(f"{shown(source)}: {error.strerror or error}") from None


def decode_document(path: Path | str, raw: bytes) -> _Document:
    try:
        document = msgspec.json.decode(raw, type=_Document)
    except msgspec.ValidationError as error:
        raise TraceError(f"{shown(path)}: not a torch.profiler trace ({error})") from None
    except msgspec.DecodeError as error:
        raise TraceError(f"{shown(path)}: {describe_decode_error(raw, error, 'not valid JSON')}") from None
    except UnicodeDecodeError:
        raise TraceError(f"{shown(path)}: not UTF-8 text") from None
    except RecursionError:
        raise TraceError(f"{shown(path)}: nested too deeply to be a torch.profiler trace") from None
    if document.traceEvents is None:
        raise TraceError(f"{shown(path)}: no traceEvents list; not a torch.profiler trace")
    return document


def describe_decode_error(raw: bytes, error: Exception, what: str) -> str:
    """One line for a decoding error: invalid UTF-8 (however msgspec reports it), truncation, or msgspec's words."""
    text = str(error)
    if "utf-8" in text.lower():
        return "not UTF-8 text"
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8 text"
    if "truncated" in text.lower() or ends_open(raw):
        return f"{what} (the file ends early: truncated?)"
    return f"{what} ({text})"


def ends_open(raw: bytes) -> bool:
    """Whether JSON ends inside a string or with a bracket left open, as a file cut short does."""
    try:
        state = check_nesting(raw, "")
    except TraceError:
        return False
    return state.depth > 0 or state.in_string


def floats(values: list[Any], count: int) -> npt.NDArray[np.float64]:
    """A float64 column from a list of numbers, numeric strings and None (NaN); NaN for anything
    unreadable. Numbers alone are read in one C loop; anything else takes the slow path."""
    try:
        return np.fromiter(values, np.float64, count)
    except (TypeError, ValueError, OverflowError):
        return np.array([number(v) for v in values], dtype=np.float64)


def number(value: Any) -> float:
    try:
        return math.nan if value is None else float(value)
    except (TypeError, ValueError, OverflowError):
        return math.nan


def identifiers(values: list[Any], count: int) -> npt.NDArray[np.int64]:
    """An int64 column of ids from a list of ints, numeric strings and None; -1 where absent or unreadable."""
    try:
        return np.fromiter(values, np.int64, count)
    except (TypeError, ValueError, OverflowError):
        return np.array([identifier(v) for v in values], dtype=np.int64)


def identifier(value: object) -> int:
    if value is None:
        return NO_ID
    if isinstance(value, str):
        try:
            value = int(value)
        except ValueError:
            return NO_ID
    if not isinstance(value, int) or not -(2**63) <= value < 2**63:
        return NO_ID
    return value


def decode_batch(data: Data, batches: Batches) -> list[_Event]:
    """The complete events of one batch (a JSON array of events).

    The typed decoder is fast; when some event has a field of an unexpected
    type, the batch is decoded again loosely and each event is coerced or
    skipped, so that one odd event does not cost the whole trace.
    """
    try:
        decoded: list[Any] = _DECODE_BATCH.decode(data)
    except msgspec.ValidationError:
        loose = msgspec.json.decode(data)
        note_loose(batches, loose)
        decoded = [coerce_event(e, batches["skipped"]) for e in loose]
        return [e for e in decoded if e is not None]
    types = list(map(type, decoded))
    note_others(batches, decoded, types)
    return list(compress(decoded, map(IS_COMPLETE, types)))  # a filter that runs in C


def of_type(decoded: list[Any], types: list[type], wanted: type) -> Iterator[Any]:
    """The decoded events of one struct type, picked in C."""
    return compress(decoded, map(is_, types, repeat(wanted)))


def note_others(batches: Batches, decoded: list[Any], types: list[type]) -> None:
    """Count a batch's events by phase, and keep its thread names and the allocator's instants."""
    counts = Counter(types)
    for kind, count in counts.items():
        add_count(batches["phases"], PHASE[kind], count)
    for event in of_type(decoded, types, _Metadata) if _Metadata in counts else ():
        if event.name == "thread_name":
            note_thread(batches, event.pid, event.tid, event.args.name if event.args else None)
    for event in of_type(decoded, types, _Instant) if _Instant in counts else ():
        if event.name == MEMORY:
            note_memory(batches, event.ts, event.pid, event.tid, event.args.bytes if event.args else None)


def note_loose(batches: Batches, events: list[Any]) -> None:
    """``note_others`` for a loosely decoded batch (dicts)."""
    for event in events:
        if not isinstance(event, dict):
            continue
        add_count(batches["phases"], event.get("ph"), 1)
        found = event.get("args")
        args = found if isinstance(found, dict) else {}
        if event.get("ph") == "M" and event.get("name") == "thread_name":
            note_thread(batches, lane_id(event.get("pid")), lane_id(event.get("tid")), args.get("name"))
        elif event.get("ph") == "i" and event.get("name") == MEMORY:
            note_memory(batches, scalar(event.get("ts")), lane_id(event.get("pid")), lane_id(event.get("tid")),
                        args.get("Bytes"))


def note_thread(batches: Batches, pid: object, tid: object, name: object) -> None:
    batches["thread_names"].setdefault((pid, tid), []).append("" if name is None else str(name))


def note_memory(batches: Batches, ts: object, pid: object, tid: object, size: object) -> None:
    memory = batches["memory"]
    memory["ts"].append(number(ts))
    memory["bytes"].append(number(scalar(size)))
    memory["lane"].append(memory["lanes"][pid, tid])


SCALARS = (int, float, str)


def add_count(counts: dict[Any, int], key: object, count: int = 1) -> None:
    counts[key] = counts.get(key, 0) + count


def coerce_event(event: object, skipped: dict[str, int]) -> _Event | None:
    """An _Event from a loosely decoded one, or None when it is not a usable complete event."""
    if not isinstance(event, dict) or event.get("ph") != "X":
        return None
    name, category = event.get("name", ""), event.get("cat")
    if not isinstance(name, SCALARS) or not isinstance(category, (*SCALARS, type(None))):
        add_count(skipped, "whose name or category is not text")
        return None
    args = event.get("args")
    return _Event(
        cat=None if category is None else str(category),
        name=str(name),
        ts=scalar(event.get("ts")),
        dur=scalar(event.get("dur", 0.0)),
        pid=lane_id(event.get("pid")),
        tid=lane_id(event.get("tid")),
        args=coerce_args(args) if isinstance(args, dict) else _NO_ARGS,
    )


def scalar(value: object) -> Any:
    return value if isinstance(value, SCALARS) and not isinstance(value, bool) else None


def lane_id(value: object) -> int | str | None:
    """A pid or tid that can key a lane: ints and strings as they are, anything else as its JSON text."""
    if value is None or (isinstance(value, (int, str)) and not isinstance(value, bool)):
        return value
    return msgspec.json.encode(value).decode()


def coerce_args(args: dict[str, Any]) -> _Args:
    def raw(key: str) -> msgspec.Raw:
        return msgspec.Raw(msgspec.json.encode(args[key])) if key in args else _NULL

    return _Args(
        correlation=scalar(args.get("correlation", NO_ID)),
        external_id=scalar(args.get("External id", NO_ID)),
        bytes=scalar(args.get("bytes", math.nan)),
        occupancy=scalar(args.get("est. achieved occupancy %", math.nan)),
        input_dims=raw("Input Dims"),
        input_type=raw("Input type"),
        in_msg_nelems=raw("In msg nelems"),
        dtype=raw("dtype"),
    )


class Codes(dict):
    """Value → small integer code, numbering new values as they come (C-speed lookups for known ones)."""

    def __missing__(self, value: Any) -> int:
        code = self[value] = len(self)
        return code


def batch_columns(events: list[_Event], names: Codes, lanes: Codes,
                  categories: Codes) -> dict[str, np.ndarray] | None:
    """Columns for one batch of complete events; the Codes ``names``, ``lanes``, ``categories`` grow.

    Fields are read in C (attrgetter and map) and converted by numpy; only an
    odd value (a string, an out-of-range id) takes the slow path.
    """
    count = len(events)
    if not count:
        return None

    args = list(map(FIELD["args"], events))

    def field(name: str, objects: list[Any] = events) -> list[Any]:
        return list(map((ARG if objects is args else FIELD)[name], objects))

    return {
        "ts": floats(field("ts"), count),
        "dur": floats(field("dur"), count),
        "category": np.fromiter(map(categories.__getitem__, map(FIELD["cat"], events)), np.int32, count),
        "name": np.fromiter(map(names.__getitem__, map(FIELD["name"], events)), np.int32, count),
        "lane": np.fromiter(map(lanes.__getitem__, zip(map(FIELD["pid"], events), map(FIELD["tid"], events),
                                                       strict=True)), np.int32, count),
        "correlation": identifiers(field("correlation", args), count),
        "external_id": identifiers(field("external_id", args), count),
        "bytes": floats(field("bytes", args), count),
        "occupancy": floats(field("occupancy", args), count),
        "recorded_shapes": np.fromiter(map(is_not, map(INPUT_DIMS, args), repeat(_NULL)), bool, count),
    }


def kind_codes(categories: Codes) -> npt.NDArray[np.int8]:
    """Kind code for each category code, as a lookup table."""
    table = np.zeros(max(len(categories), 1), dtype=np.int8)
    for category, code in categories.items():
        table[code] = KIND[CATEGORY_KINDS.get(str(category or "").lower(), "other")]
    return table


def decode_shapes(args: _Args) -> tuple[list[Any], list[Any]] | None:
    """(input dims, input types) of a matrix-multiply op, decoded now so that no batch buffer stays alive."""
    try:
        dims = msgspec.json.decode(args.input_dims)
        types = msgspec.json.decode(args.input_type)
    except (msgspec.DecodeError, RecursionError):
        return None
    return (dims, types) if isinstance(dims, list) and isinstance(types, list) else None


COMM_ARGS = {"Input Dims": "input_dims", "Input type": "input_type", "In msg nelems": "in_msg_nelems",
             "dtype": "dtype"}


def decode_comm_args(args: _Args) -> dict[str, Any]:
    """The args that size a collective's message, those present, decoded now (as ``decode_shapes``)."""
    found = {}
    for key, attribute in COMM_ARGS.items():
        raw = getattr(args, attribute)
        if raw is not _NULL:
            try:
                found[key] = msgspec.json.decode(raw)
            except (msgspec.DecodeError, RecursionError):
                continue
    return found


def sizes_messages(name: str) -> bool:
    """Whether an op's args may size a collective's message: the backend's op, or ``record_param_comms``."""
    return name == "record_param_comms" or BACKEND_OP.match(name) is not None


def trace_files(path: Path | str) -> list[Path]:
    """The trace files at ``path``: the file itself, or every trace in a folder (one per rank)."""
    path = Path(path)
    if not path.is_dir():
        return [path]
    try:
        files = sorted(p for p in path.iterdir() if p.name.endswith((".json", ".json.gz")) and p.is_file())
    except OSError as error:
        raise TraceError(f"{shown(path)}: {error.strerror or error}") from None
    if not files:
        raise TraceError(f"{shown(path)}: no .json or .json.gz trace files in this folder")
    return files


def load(path: Path | str, progress: Progress | None = None, max_bytes: int = MAX_BYTES) -> Trace:
    """Load the trace at ``path`` (``.json`` or ``.json.gz``).

    ``progress``, if given, is called with the fraction of the work done.
    Raises TraceError, with a one-line message, for anything that is not a
    readable trace with complete events, and for more than ``max_bytes`` of
    JSON.
    """
    path = Path(path)
    check_source(path)
    streamed = load_streaming(path, progress, max_bytes)
    if streamed is not None:
        return streamed
    return parse_checked(read_bytes(path, max_bytes), path, progress)  # read_bytes has bounded its nesting


def load_stream(stream: BinaryIO, progress: Progress | None = None, max_bytes: int = MAX_BYTES,
                source: str = STDIN) -> Trace:
    """Load the trace a binary stream holds (``.json`` or gzipped), such as ``sys.stdin.buffer``: read whole,
    since a pipe cannot be read again should the streaming layout not hold."""
    return parse_checked(read_stream(stream, max_bytes, source), source, progress)  # read_stream bounded it


def parse(raw: bytes, source: str = "trace", progress: Progress | None = None) -> Trace:
    """Parse the bytes of a trace's JSON; ``source`` names it in error messages."""
    check_nesting(raw, source)
    return parse_checked(raw, source, progress)


def parse_checked(raw: bytes, source: Path | str, progress: Progress | None = None) -> Trace:
    """``parse`` for bytes whose nesting has been checked already."""
    document = decode_document(source, raw)
    events, document.traceEvents = document.traceEvents or [], None
    batches = new_batches()
    for start in range(0, len(events), BATCH):
        try:
            add_batch(batches, decode_batch(b"[" + b",".join(events[start : start + BATCH]) + b"]", batches))
        except UnicodeDecodeError:
            raise TraceError(f"{shown(source)}: not UTF-8 text") from None
        except (msgspec.ValidationError, msgspec.DecodeError) as error:
            message = describe_decode_error(raw, error, "an event cannot be read")
            raise TraceError(f"{shown(source)}: {message}") from None
        except RecursionError:
            raise TraceError(f"{shown(source)}: an event is nested too deeply to read") from None
        if progress:
            progress(min(start + BATCH, len(events)) / len(events))
    del events, raw
    return assemble(source, batches, document)


def new_batches() -> Batches:
    """What the batches of one trace add up to: column chunks, the value codes, shapes, skip counts."""
    return {"chunks": [], "names": Codes(), "lanes": Codes(), "categories": Codes(), "shapes": {},
            "comm_args": {}, "skipped": {}, "count": 0, "phases": {}, "thread_names": {},
            "memory": {"ts": [], "bytes": [], "lane": [], "lanes": Codes()}}


def add_batch(batches: Batches, complete: list[_Event]) -> None:
    """Append one batch of complete events to ``batches``."""
    chunk = batch_columns(complete, batches["names"], batches["lanes"], batches["categories"])
    if chunk is None:
        return
    batches["chunks"].append(chunk)
    gemm_codes = [code for name, code in batches["names"].items() if name in GEMM_OPS]
    for offset in np.flatnonzero(np.isin(chunk["name"], gemm_codes)):
        batches["shapes"][batches["count"] + int(offset)] = decode_shapes(complete[offset].args)
    comm_codes = [code for name, code in batches["names"].items() if sizes_messages(name)]
    for offset in np.flatnonzero(np.isin(chunk["name"], comm_codes)) if comm_codes else ():
        batches["comm_args"][batches["count"] + int(offset)] = decode_comm_args(complete[offset].args)
    batches["count"] += len(complete)


TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]')
LIST_OPENS = re.compile(rb"\s*:\s*\[")


def top_level_events(head: bytes) -> int | None:
    """The offset just after the ``[`` of the document's own ``traceEvents`` list, or None if not in ``head``.

    Strings are skipped whole and brackets counted, so a ``traceEvents`` key
    nested inside metadata that comes first is not taken for the real one.
    """
    depth = 0
    for token in TOKENS.finditer(head):
        first = token.group()[:1]
        if first == b'"':
            if depth == 1 and token.group() == b'"traceEvents"' and (opens := LIST_OPENS.match(head, token.end())):
                return opens.end()
        else:
            depth += 1 if first in b"[{" else -1
    return None


def load_streaming(path: Path, progress: Progress | None = None, max_bytes: int = MAX_BYTES) -> Trace | None:
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
        reader = opened(path, max_bytes)
        try:
            return stream_events(path, reader, size, progress)
        finally:
            reader.stream.close()
    except TraceError:
        raise  # a verdict on the whole file (too large, no trace in it), not a reason to read it whole
    except (OSError, EOFError, zlib.error, ValueError, RecursionError, msgspec.ValidationError,
            msgspec.DecodeError):
        return None


def last_event_end(data: bytearray) -> tuple[int, int] | None:
    """(end of the last event's '}', start of what follows its comma and newline), or None."""
    for separator in (b"},\n", b"},\r\n"):
        position = data.rfind(separator)
        if position >= 0:
            return position + 1, position + len(separator)
    return None


def stream_events(path: Path, reader: Capped, size: int, progress: Progress | None) -> Trace | None:
    head = b""
    while (start := top_level_events(head)) is None:
        block = reader.read(BLOCK)
        if not block:
            return None  # the whole file is in `head`: reading it whole says what is wrong with it
        if len(head) >= HEAD_BYTES:
            raise TraceError(f"{shown(path)}: no traceEvents list in its first {format_size(HEAD_BYTES)}; "
                             "not a torch.profiler trace")
        head += block
    skeleton_start = head[:start]
    # One buffer, grown and trimmed in place; its first byte is spare, so that a batch's events can be
    # decoded where they lie, between a '[' written there and a ']' written over the comma after them.
    pending = bytearray(b"[")
    pending += head[start:]
    batches = new_batches()
    while block := reader.read(BLOCK):
        pending += block
        cut = last_event_end(pending)
        if cut is None:
            if len(pending) > 4 * BLOCK:
                return None
            continue
        end, following = cut
        pending[0], pending[end] = ord("["), ord("]")
        with memoryview(pending) as view, view[: end + 1] as events:
            add_batch(batches, decode_batch(events, batches))
        del pending[: following - 1]
        if progress and size:
            progress(min(reader.position() / size, 1.0))
    return finish_stream(path, bytes(pending[1:]), skeleton_start, batches)


def finish_stream(path: Path, pending: bytes, skeleton_start: bytes, batches: Batches) -> Trace | None:
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


def valid_times(columns: dict[str, np.ndarray], skipped: dict[str, int]) -> npt.NDArray[np.bool_]:
    """Mask of the events whose start and duration are numbers a profiler could have measured."""
    ts, dur = columns["ts"], columns["dur"]
    finite = np.isfinite(ts) & np.isfinite(dur)
    negative = finite & (dur < 0)
    implausible = finite & ~negative & ((np.abs(ts) > TS_LIMIT) | (dur > DUR_LIMIT))
    reasons = (("without a numeric ts or dur", ~finite), ("with a negative duration", negative),
               ("with a start or duration no profiler measures (beyond the year 2286, or over 11 days)",
                implausible))
    for reason, mask in reasons:
        if mask.any():
            add_count(skipped, reason, int(mask.sum()))
    return finite & ~negative & ~implausible


def assemble(path: Path | str, batches: Batches, document: _Document) -> Trace:
    """One Trace from the batches: valid events only, sorted by (start, -duration)."""
    chunks, skipped, memory = batches["chunks"], batches["skipped"], batches["memory"]
    columns = {key: np.concatenate([chunk.pop(key) for chunk in chunks]) for key in (list(chunks[0]) if chunks else ())}
    if not columns or not len(columns["ts"]):
        raise TraceError(f"{shown(path)}: the trace holds no complete events")
    valid = valid_times(columns, skipped)
    kept = np.flatnonzero(valid)
    if not len(kept):
        raise TraceError(f"{shown(path)}: the trace holds no complete events with valid times")
    order = kept[np.lexsort((-columns["dur"][kept], columns["ts"][kept]))]
    new_index = np.full(len(valid), -1)
    new_index[order] = np.arange(len(order))
    for key in list(columns):
        columns[key] = columns[key][order]
    categories = columns.pop("category")
    columns["kind"] = kind_codes(batches["categories"])[categories]
    return Trace(
        **columns,
        names=tuple(batches["names"]),
        lanes=tuple(batches["lanes"]),
        shapes={int(new_index[i]): v for i, v in batches["shapes"].items() if v is not None and new_index[i] >= 0},
        comm_args={int(new_index[i]): v for i, v in batches["comm_args"].items() if v and new_index[i] >= 0},
        phases=batches["phases"],
        thread_names={lane: tuple(names) for lane, names in batches["thread_names"].items()},
        memory_ts=np.array(memory["ts"], dtype=np.float64),
        memory_bytes=np.array(memory["bytes"], dtype=np.float64),
        memory_lane=np.array(memory["lane"], dtype=np.int32),
        memory_lanes=tuple(memory["lanes"]),
        base_time_ns=0.0 if document.baseTimeNanoseconds is None else number(scalar(document.baseTimeNanoseconds)),
        device_properties=tuple(d for d in document.deviceProperties or () if isinstance(d, dict))
        if isinstance(document.deviceProperties, list) else (),
        distributed_info=document.distributedInfo if isinstance(document.distributedInfo, dict) else None,
        skipped=skipped,
        unread=unread_categories(batches["categories"], categories, columns["kind"]),
    )


def unread_categories(codes: Codes, categories: np.ndarray, kinds: np.ndarray) -> dict[str, int]:
    """Complete events by category, for the categories the analysis does not read and that are not the
    profiler's bookkeeping: another vendor's device events (``mtia_ccp_events``), for instance."""
    other = kinds == KIND["other"]
    counts = np.bincount(categories[other], minlength=len(codes))
    return {str(category): int(counts[code]) for category, code in codes.items()
            if counts[code] and str(category or "").lower() not in BOOKKEEPING_CATEGORIES}
