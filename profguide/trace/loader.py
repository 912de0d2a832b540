"""Load a torch.profiler (Kineto) Chrome trace into a ``Trace``.

A trace of a real job holds millions of events; most questions need a handful
of fields of the complete (``ph: X``) events. The loader splits the event
list between events without building objects, whatever the layout (one event
per line, one line, whitespace padding), decodes it in batches into small
typed structs (msgspec), keeps only the fields the analysis asks for as numpy
columns, and drops each batch before the next: memory grows with the events,
not with the bytes. It reads what torch and Python write that JSON forbids
(``repaired``): a byte order mark, raw control characters in strings, ``NaN``
and ``Infinity``; and a bare array of events, as the Trace Event Format allows.

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
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from itertools import compress, repeat
from operator import attrgetter, is_, is_not
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple, TypeVar, Union

import msgspec
import numpy as np
import numpy.typing as npt

from profguide.errors import TraceError
from profguide.files import is_folder
from profguide.limits import COPY_BYTES_LIMIT, DUR_FLOOR, DUR_LIMIT, MAX_BYTES, MAX_EVENT_BYTES, TS_LIMIT
from profguide.patterns import BACKEND_OP, GEMM_OPS, MODELLED_OPS
from profguide.text import format_size, shown
from profguide.trace.model import BOOKKEEPING_CATEGORIES, CATEGORY_KINDS, KIND, NO_ID, Lane, OpInputs, Trace

Progress = Callable[[float], None]  # called with the fraction of the work done, 0 to 1
Data = bytes | bytearray | memoryview  # JSON as read, or a view into the buffer being read
Batches = dict[str, Any]  # what ``new_batches`` starts and ``add_batch`` grows

BATCH = 65536
BLOCK = 8 << 20
HEAD_BYTES = 4 * BLOCK  # how far into a file the top-level traceEvents list must begin
HEAD_READ = 64 << 10  # the first read that looks for it (then twice as much each time, up to BLOCK): it starts
# near the top, and what follows it in the head is scanned once more

_NULL = msgspec.Raw(b"null")


class _Args(msgspec.Struct, gc=False, frozen=True):
    # Defaults that numpy takes as they are: a column of them needs no slow path.
    correlation: int | str | None = NO_ID
    external_id: int | str | None = msgspec.field(name="External id", default=NO_ID)
    sequence: int | str | None = msgspec.field(name="Sequence number", default=NO_ID)
    waits_for: int | str | None = msgspec.field(name="wait_on_cuda_event_record_corr_id", default=NO_ID)
    bytes: float | str | None = math.nan
    # A number; since kineto#1330 it may be an object that holds it beside the factors that limit it.
    occupancy: float | str | dict[str, Any] | None = msgspec.field(name="est. achieved occupancy %",
                                                                    default=math.nan)
    occupancy_detail: msgspec.Raw = msgspec.field(name="occupancy", default=_NULL)
    graph_id: int | str | None = msgspec.field(name="graph id", default=NO_ID)
    graph_node: int | str | None = msgspec.field(name="graph node id", default=NO_ID)
    # Raw: left undecoded (a reference into the batch) unless the op is a matrix multiply.
    input_dims: msgspec.Raw = msgspec.field(name="Input Dims", default=_NULL)
    input_type: msgspec.Raw = msgspec.field(name="Input type", default=_NULL)
    concrete_inputs: msgspec.Raw = msgspec.field(name="Concrete Inputs", default=_NULL)
    input_strides: msgspec.Raw = msgspec.field(name="Input Strides", default=_NULL)
    # What ``record_param_comms`` records of a collective's message; Raw too, decoded for that op alone.
    in_msg_nelems: msgspec.Raw = msgspec.field(name="In msg nelems", default=_NULL)
    dtype: msgspec.Raw = _NULL
    # What Kineto copies from ``record_param_comms`` onto an NCCL kernel (``appendCollectiveArgs`` in
    # libkineto's output_json.cpp; Seq and Comms Id since kineto#1294 and #1483): which collective of which
    # process group it is, the same on every rank.
    seq: msgspec.Raw = msgspec.field(name="Seq", default=_NULL)
    comms_id: msgspec.Raw = msgspec.field(name="Comms Id", default=_NULL)
    group_name: msgspec.Raw = msgspec.field(name="Process Group Name", default=_NULL)
    group_ranks: msgspec.Raw = msgspec.field(name="Process Group Ranks", default=_NULL)
    in_split: msgspec.Raw = msgspec.field(name="In split size", default=_NULL)
    out_split: msgspec.Raw = msgspec.field(name="Out split size", default=_NULL)
    out_msg_nelems: msgspec.Raw = msgspec.field(name="Out msg nelems", default=_NULL)
    group_size: msgspec.Raw = msgspec.field(name="Group size", default=_NULL)
    collective_name: msgspec.Raw = msgspec.field(name="Collective name", default=_NULL)


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
    total_allocated: object = msgspec.field(name="Total Allocated", default=None)
    device_type: object = msgspec.field(name="Device Type", default=None)  # c10's DeviceType: 0 CPU, 1 CUDA …
    device_id: object = msgspec.field(name="Device Id", default=None)


_NO_BYTES = _BytesArgs()


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
    # ``displayTimeUnit`` ("ms", or "ns" where Kineto is built with DISPLAY_TRACE_IN_NS) only sets how a viewer
    # shows times: Kineto writes every ts and dur in µs whatever it says (``fmtTs`` in output_json.cpp), so it
    # is not read.
    host_name: object = None
    cuda_runtime_version: object = None  # at the top in torch's streaming exporter's traces
    cuda_driver_version: object = None


_DECODE_BATCH = msgspec.json.Decoder(list[Union[(_Event, _Metadata, _Instant, *_OTHERS)]])  # type: ignore[valid-type]  # noqa: UP007 - a union built from a tuple
PHASE: dict[type, str] = {_Event: "X", _Metadata: "M", _Instant: "i", **dict(zip(_OTHERS, OTHER_PHASES, strict=True))}
IS_COMPLETE = partial(is_, _Event)
FIELD = {name: attrgetter(name) for name in ("ts", "dur", "cat", "name", "pid", "tid", "args")}
ARG = {name: attrgetter(name) for name in ("correlation", "external_id", "sequence", "waits_for", "bytes",
                                          "occupancy", "graph_id", "graph_node")}
INPUT_DIMS = attrgetter("input_dims")
OCCUPANCY_DETAIL = attrgetter("occupancy_detail")
COLLECTIVE_MARKS = (attrgetter("seq"), attrgetter("group_name"))  # an event with either carries a collective's fields

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


class Levels(NamedTuple):
    """What a scan of one block found."""

    deepest: int  # the deepest nesting reached in the block
    shallowest: int  # the shallowest, after any bracket in it (the depth before it, when none counts)
    after: Nesting  # where the scan stands after the block


def neutral(data: bytes) -> bytes:
    """``data`` with each escaped backslash, then each escaped quote, made two underscores: the same bytes at
    the same places, but every quote left opens or closes a string. Python's ``replace`` pairs a run of
    backslashes from the left, as JSON does: an odd run's last backslash escapes what follows it.
    Backslashes stand only inside strings in valid JSON, and msgspec stops at the first one outside."""
    if b"\\" not in data:
        return data
    return data.replace(b"\\\\", b"__").replace(b'\\"', b"__")


def split_backslashes(data: bytes) -> tuple[bytes, bytes]:
    """(``data`` without its trailing run of backslashes, that run)."""
    if not data.endswith(b"\\"):
        return data, b""
    kept = data.rstrip(b"\\")
    return kept, bytes(data[len(kept) :])


def block_depth(block: bytes, state: Nesting = START) -> Levels:
    """The ``Levels`` of ``block``, given the state before it.

    Only quotes and brackets matter once escapes are gone; two adjacent quotes (an empty string, or the end
    of one and the start of the next) go too, which keeps the parity of every later quote. A bracket counts
    where the quotes before it (and ``state.in_string``) leave it outside a string. Every step runs in C.
    """
    data, held = split_backslashes(state.held + block if state.held else block)
    marks = neutral(data).translate(None, _DELETE).replace(b'""', b"")
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
        return Levels(state.depth, state.depth, Nesting(state.depth, in_string, held))
    levels = np.cumsum(steps, dtype=np.int32)  # a block holds fewer than 2**31 brackets
    return Levels(state.depth + max(int(levels.max()), 0), state.depth + min(int(levels.min()), 0),
                  Nesting(state.depth + int(levels[-1]), in_string, held))


def check_nesting(data: Data, source: Path | str, state: Nesting = START) -> Levels:
    """The ``Levels`` of ``data``; a one-line TraceError once anything is nested deeper than MAX_DEPTH."""
    found = Levels(state.depth, state.depth, state)
    with memoryview(data) as view:
        for start in range(0, len(view), SCAN_BLOCK):
            whole = start == 0 and len(view) <= SCAN_BLOCK
            block = data if whole and isinstance(data, bytes) else bytes(view[start : start + SCAN_BLOCK])
            levels = block_depth(block, found.after)
            if levels.deepest > MAX_DEPTH and not is_text(block):  # random bytes hold brackets too
                raise TraceError(f"{shown(source)}: binary data, not JSON text: not a torch.profiler trace")
            if levels.deepest > MAX_DEPTH:
                raise TraceError(f"{shown(source)}: nested too deeply to be a torch.profiler trace "
                                 f"(more than {MAX_DEPTH} levels)")
            found = Levels(max(found.deepest, levels.deepest), min(found.shallowest, levels.shallowest),
                           levels.after)
    return found


def is_text(block: bytes) -> bool:
    """Whether ``block`` (a piece of a file, perhaps cut inside a character) could be JSON text: UTF-8, but
    for a few bad bytes that ``mended`` replaces, and no NUL, which text never holds raw."""
    return b"\0" not in block and block.decode("utf-8", "replace").count("\ufffd") <= len(block) // 1000


class Capped:
    """A binary stream that raises TraceError once more than ``limit`` bytes have been read from it, or once
    what it has read is nested deeper than MAX_DEPTH."""

    def __init__(self, stream: Any, path: Path | str, limit: int) -> None:  # a file, a GzipFile or a Prefixed
        self.stream, self.path, self.limit, self.count = stream, path, limit, 0
        self.levels = Levels(0, 0, START)  # of the last read

    @property
    def nesting(self) -> Nesting:
        """Where the scan stands after everything read so far."""
        return self.levels.after

    def read(self, size: int) -> bytes:
        data: bytes = self.stream.read(size)
        self.count += len(data)
        if self.count > self.limit:
            raise TraceError(f"{shown(self.path)}: holds more than {format_size(self.limit)} of JSON; "
                             "raise --max-size to read it")
        self.levels = check_nesting(data, self.path, self.nesting)
        return data

    def position(self) -> int:
        """How far through the file on disk (the compressed one, for gzip) reading has come."""
        fileobj = getattr(self.stream, "fileobj", None)
        position: int = (fileobj or self.stream).tell()
        return position


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


_DECODE_DOCUMENT = msgspec.json.Decoder(_Document | list[msgspec.Raw])


def document_of(raw: Data, source: Path | str, repairs: dict[str, int]) -> _Document:
    """The document ``raw`` holds, a bare array of events as one whose ``traceEvents`` it is; msgspec's
    errors as they come, and a one-line TraceError for a document with two event lists (msgspec would
    keep the last one silently)."""
    lists = top_level_keys(raw, TRACE_EVENTS_KEY)
    if lists > 1:
        raise TraceError(f"{shown(source)}: holds {lists} traceEvents lists, where a trace has one: which one "
                         "is the trace cannot be told, so neither is read")
    document = decode_repairing(_DECODE_DOCUMENT.decode, raw, repairs)
    return _Document(traceEvents=document) if isinstance(document, list) else document


TRACE_EVENTS_KEY = b'"traceEvents"'
KEY_FOLLOWS = re.compile(rb"\s*:")


def top_level_keys(data: Data, key: bytes) -> int:
    """How many times ``key`` (a JSON string, quotes and all) is a key of the top-level object in ``data``.
    Strings are skipped whole and brackets counted (``top_level_events``); that walk runs only when the bytes
    of ``key`` occur twice or more, which a trace's single list never makes them."""
    text = bytes(data)
    if text.count(key) < 2:
        return 1 if key in text else 0  # once or never: a key or not, there is no second list
    depth, found = 0, 0
    for token in TOKENS.finditer(text):
        first = token.group()[:1]
        if first == b'"':
            found += depth == 1 and token.group() == key and KEY_FOLLOWS.match(text, token.end()) is not None
        else:
            depth += 1 if first in b"[{" else -1
    return found


def decode_document(path: Path | str, raw: bytes, repairs: dict[str, int]) -> _Document:
    try:
        document = document_of(raw, path, repairs)
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
    """One line for a decoding error: binary data, invalid UTF-8 (however msgspec reports it), truncation, or
    msgspec's words."""
    text = str(error)
    if not is_text(raw[:SCAN_BLOCK]):
        return "binary data, not JSON text: not a torch.profiler trace"
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
        state = check_nesting(raw, "").after
    except TraceError:
        return False
    return state.depth > 0 or state.in_string


def floats(values: Callable[[], Iterable[Any]], count: int,
           convert: Callable[[Any], float] | None = None) -> npt.NDArray[np.float64]:
    """A float64 column from the numbers, numeric strings and None (NaN) that ``values()`` yields; NaN for
    anything unreadable. Numbers alone are read in one C loop; anything else takes the slow path, which asks
    for them again and reads each with ``convert`` (default ``number``)."""
    try:
        return np.fromiter(values(), np.float64, count)
    except (TypeError, ValueError, OverflowError):
        return np.array([(convert or number)(v) for v in values()], dtype=np.float64)


def number(value: Any) -> float:
    try:
        return math.nan if value is None else float(value)
    except (TypeError, ValueError, OverflowError):
        return math.nan


def occupancy_value(value: object) -> float:
    """A kernel's estimated occupancy (%) from what its args hold: a number, or (kineto#1330) an object that
    holds it beside the factors that limit it, under a key that names occupancy; NaN where neither."""
    if isinstance(value, dict):
        found = (v for k, v in value.items() if "occupancy" in str(k).lower() and isinstance(v, (int, float))
                 and not isinstance(v, bool))
        return float(next(found, math.nan))
    return number(scalar(value))


def occupancies(args: list[_Args], count: int) -> npt.NDArray[np.float64]:
    """The occupancy column: ``est. achieved occupancy %``, else the ``occupancy`` object that newer Kineto
    writes (read for the events that have one)."""
    column = floats(lambda: map(ARG["occupancy"], args), count, occupancy_value)
    detailed = np.flatnonzero(np.fromiter(map(is_not, map(OCCUPANCY_DETAIL, args), repeat(_NULL)), bool, count))
    for index in detailed[np.isnan(column[detailed])].tolist():
        try:
            column[index] = occupancy_value(msgspec.json.decode(args[index].occupancy_detail))
        except (msgspec.DecodeError, RecursionError):
            continue
    return column


def identifiers(values: Callable[[], Iterable[Any]], count: int) -> npt.NDArray[np.int64]:
    """An int64 column of the ids (ints, numeric strings, None) ``values()`` yields; -1 where absent or
    unreadable. As ``floats``, the slow path asks for them again."""
    try:
        return np.fromiter(values(), np.int64, count)
    except (TypeError, ValueError, OverflowError):
        return np.array([identifier(v) for v in values()], dtype=np.int64)


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
        decoded: list[Any] = decode_repairing(_DECODE_BATCH.decode, data, batches["repaired"])
    except msgspec.ValidationError:
        loose = decode_repairing(msgspec.json.decode, data, batches["repaired"])
        note_loose(batches, loose)
        decoded = [coerce_event(e, batches["skipped"]) for e in loose]
        return [e for e in decoded if e is not None]
    types = list(map(type, decoded))
    note_others(batches, decoded, types)
    return list(compress(decoded, map(IS_COMPLETE, types)))  # a filter that runs in C


def decode_repairing(decode: Callable[[Data], Any], data: Data, repairs: dict[str, int]) -> Any:
    """``decode(data)``; when that finds malformed JSON that torch or Python writes (``repaired``), or text
    that is not UTF-8 (``mended``), the repaired JSON decoded instead, and what was mended counted in
    ``repairs`` once that decodes. Only a failure pays for the repair."""
    try:
        return decode(data)
    except msgspec.ValidationError:
        raise
    except msgspec.DecodeError:
        fixed = repaired(data)
        text, mends = mended(data if fixed is None else fixed)
        if fixed is None and not mends:
            raise
        decoded = decode(text)
        for reason, count in mends.items():
            add_count(repairs, reason, count)
        return decoded


REPLACEMENT = "\ufffd".encode()  # U+FFFD, as UTF-8: what an undecodable byte or a lone surrogate becomes
# A \\u escape of a UTF-16 surrogate that has no partner (a high one not followed by a low one, or a low one
# not preceded by a high one), which Python's json.dumps writes for a name it holds with surrogateescape.
LONE_SURROGATE = re.compile(rb"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
                            rb"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}")
NOT_UTF8 = "byte sequences that are not UTF-8, read as U+FFFD"
LONE_SURROGATES = "lone UTF-16 surrogate escapes (such as \\udc80), read as U+FFFD"


def mended(data: Data) -> tuple[bytes, dict[str, int]]:
    """``data`` with each byte sequence that is not UTF-8 replaced by U+FFFD and each lone surrogate escape
    by ``\\ufffd`` (of the same length), and how many of each (none: ``data`` as it is). A name a program
    wrote from raw bytes then costs one character, not the trace."""
    raw = bytes(data)
    mends: dict[str, int] = {}
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("utf-8", "replace")
        mends[NOT_UTF8] = text.count("\ufffd") - raw.count(REPLACEMENT)
        raw = text.encode("utf-8")
    if b"\\u" in raw:
        lone = [match.start() for match in LONE_SURROGATE.finditer(neutral(raw))]  # after an escaped backslash
        if lone:  # 'u' starts no escape: neutral() has made each such pair two underscores
            fixed = bytearray(raw)
            for start in lone:
                fixed[start : start + 6] = b"\\ufffd"
            raw, mends[LONE_SURROGATES] = bytes(fixed), len(lone)
    return raw, mends


BOM = b"\xef\xbb\xbf"  # UTF-8's byte order mark, which some writers put first
NON_FINITE = re.compile(rb"-?Infinity|NaN")  # Python's json.dump writes these for non-finite floats
_HEX = np.frombuffer(b"0123456789abcdef", np.uint8)
_ESCAPE_START = np.frombuffer(b"\\u00", np.uint8)  # the escape of a control character, but its two hex digits


def repaired(data: Data) -> bytes | None:
    """``data`` as valid JSON, or None if it holds none of what torch or Python write that JSON forbids: a
    byte order mark first; control characters (U+0000 to U+001F) raw inside strings (Kineto wrote names
    unescaped, pytorch#130622), escaped here as ``\\u00XX``; and ``NaN``, ``Infinity``, ``-Infinity``
    outside strings, quoted here as strings, which the number columns read as the floats they name."""
    raw = bytes(data)
    text = raw[len(BOM) :] if raw.startswith(BOM) else raw
    codes = np.frombuffer(text, np.uint8)
    quotes = np.flatnonzero(np.frombuffer(neutral(text), np.uint8) == _QUOTE)

    def in_string(offsets: npt.NDArray[np.intp]) -> npt.NDArray[np.bool_]:
        odd: npt.NDArray[np.bool_] = np.searchsorted(quotes, offsets) % 2 == 1  # an odd number of quotes before each
        return odd

    controls = np.flatnonzero(codes < 0x20)
    controls = controls[in_string(controls)]
    literals = np.array([(m.start(), m.end()) for m in NON_FINITE.finditer(text)], np.intp).reshape(-1, 2)
    literals = literals[~in_string(literals[:, 0])]
    if text is raw and not len(controls) and not len(literals):
        return None
    # Each control character becomes the last hex digit of its escape, the rest inserted before it; each
    # literal gets a quote inserted before and after it.
    fixed = codes.copy()
    fixed[controls] = _HEX[codes[controls] & 15]
    at = np.concatenate([np.repeat(controls, len(_ESCAPE_START) + 1), literals.ravel()])
    inserted = np.concatenate([np.column_stack([np.tile(_ESCAPE_START, (len(controls), 1)),
                                                _HEX[codes[controls] >> 4]]).ravel(),
                               np.full(literals.size, _QUOTE, np.uint8)])
    order = np.argsort(at, kind="stable")
    return np.insert(fixed, at[order], inserted[order]).tobytes()


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
            note_memory(batches, event.ts, event.pid, event.tid, event.args or _NO_BYTES)


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
                        _BytesArgs(args.get("Bytes"), args.get("Total Allocated"), args.get("Device Type"),
                                   args.get("Device Id")))


def note_thread(batches: Batches, pid: object, tid: object, name: object) -> None:
    batches["thread_names"].setdefault((pid, tid), []).append("" if name is None else str(name))


def note_memory(batches: Batches, ts: object, pid: object, tid: object, args: _BytesArgs) -> None:
    memory = batches["memory"]
    memory["ts"].append(number(ts))
    memory["bytes"].append(number(scalar(args.bytes)))
    memory["total"].append(number(scalar(args.total_allocated)))
    memory["lane"].append(memory["lanes"][pid, tid])
    memory["device"].append(memory["devices"][lane_id(scalar(args.device_type)), lane_id(scalar(args.device_id))])


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
        sequence=scalar(args.get("Sequence number", NO_ID)),
        waits_for=scalar(args.get("wait_on_cuda_event_record_corr_id", NO_ID)),
        bytes=scalar(args.get("bytes", math.nan)),
        occupancy=occupancy_value(args.get("est. achieved occupancy %", math.nan)),
        occupancy_detail=raw("occupancy"),
        concrete_inputs=raw("Concrete Inputs"),
        input_strides=raw("Input Strides"),
        graph_id=scalar(args.get("graph id", NO_ID)),
        graph_node=scalar(args.get("graph node id", NO_ID)),
        **{attribute: raw(key) for key, attribute in COMM_ARGS.items()},
    )


Value = TypeVar("Value")


class Codes(dict[Value, int]):
    """Value → small integer code, numbering new values as they come (C-speed lookups for known ones)."""

    def __missing__(self, value: Value) -> int:
        code = self[value] = len(self)
        return code


def batch_columns(events: list[_Event], names: Codes[str], lanes: Codes[Lane], categories: Codes[str | None],
                  shapes: Codes[bytes]) -> dict[str, np.ndarray] | None:
    """Columns for one batch of complete events; the Codes ``names``, ``lanes``, ``categories`` and
    ``shapes`` (the raw ``Input Dims``) grow.

    Fields are read in C (attrgetter and map) and converted by numpy; only an
    odd value (a string, an out-of-range id) takes the slow path.
    """
    count = len(events)
    if not count:
        return None

    args = list(map(FIELD["args"], events))
    dims = list(map(INPUT_DIMS, args))
    recorded = np.fromiter(map(is_not, dims, repeat(_NULL)), bool, count)
    shape = np.full(count, NO_ID, np.int32)
    if recorded.any():  # the raw bytes as they are: a code per distinct text, decoded once per trace
        shape[recorded] = np.fromiter(map(shapes.__getitem__, map(bytes, compress(dims, recorded.tolist()))),
                                      np.int32)

    def field(name: str, objects: list[Any] = events) -> Callable[[], Iterator[Any]]:
        getter = (ARG if objects is args else FIELD)[name]
        return lambda: map(getter, objects)

    return {
        "ts": floats(field("ts"), count),
        "dur": floats(field("dur"), count),
        "category": np.fromiter(map(categories.__getitem__, map(FIELD["cat"], events)), np.int32, count),
        "name": np.fromiter(map(names.__getitem__, map(FIELD["name"], events)), np.int32, count),
        "lane": np.fromiter(map(lanes.__getitem__, zip(map(FIELD["pid"], events), map(FIELD["tid"], events),
                                                       strict=True)), np.int32, count),
        "correlation": identifiers(field("correlation", args), count),
        "external_id": identifiers(field("external_id", args), count),
        "sequence": identifiers(field("sequence", args), count),
        "waits_for": identifiers(field("waits_for", args), count),
        "bytes": floats(field("bytes", args), count),
        "occupancy": occupancies(args, count),
        "graph_id": identifiers(field("graph_id", args), count),
        "graph_node": identifiers(field("graph_node", args), count),
        "recorded_shapes": recorded,
        "shape": shape,
    }


def kind_codes(categories: Codes[str | None]) -> npt.NDArray[np.int8]:
    """Kind code for each category code, as a lookup table."""
    table = np.zeros(max(len(categories), 1), dtype=np.int8)
    for category, code in categories.items():
        table[code] = KIND[CATEGORY_KINDS.get(str(category or "").lower(), "other")]
    return table


INPUT_TEXTS = (attrgetter("input_dims"), attrgetter("input_type"), attrgetter("concrete_inputs"),
               attrgetter("input_strides"))  # what an op the analysis sizes records of its inputs


class DecodedInputs(dict[tuple[bytes, ...], OpInputs | None]):
    """The texts of an op's Input Dims, Input type, Concrete Inputs and Input Strides → those inputs, decoded
    once per distinct text (calls with the same inputs share the lists: read, never written), and now, so that
    no batch buffer stays alive; None where Input Dims or Input type is not a list."""

    def __missing__(self, key: tuple[bytes, ...]) -> OpInputs | None:
        try:
            dims, types, concrete, strides = (msgspec.json.decode(raw) for raw in key)
        except (msgspec.DecodeError, RecursionError):
            dims = None
        found = self[key] = (OpInputs(dims, types, concrete if isinstance(concrete, list) else [],
                                      strides if isinstance(strides, list) else [])
                             if isinstance(dims, list) and isinstance(types, list) else None)
        return found


def sized_inputs(events: list[_Event], offsets: list[int], decoded: DecodedInputs) -> Iterator[OpInputs | None]:
    """The decoded inputs of the events at ``offsets``, their texts read in C (map and attrgetter)."""
    args = list(map(FIELD["args"], map(events.__getitem__, offsets)))
    return map(decoded.__getitem__, zip(*(map(bytes, map(text, args)) for text in INPUT_TEXTS), strict=True))


COMM_ARGS = {"Input Dims": "input_dims", "Input type": "input_type", "In msg nelems": "in_msg_nelems",
             "dtype": "dtype", "Seq": "seq", "Comms Id": "comms_id", "Process Group Name": "group_name",
             "Process Group Ranks": "group_ranks", "In split size": "in_split", "Out split size": "out_split",
             "Out msg nelems": "out_msg_nelems", "Group size": "group_size", "Collective name": "collective_name"}


def decode_comm_args(args: _Args) -> dict[str, Any]:
    """The args that size a collective's message and say which collective it is, those present, decoded now
    (as ``decode_shapes``)."""
    found = {}
    for key, attribute in COMM_ARGS.items():
        raw = getattr(args, attribute)
        if raw is not _NULL:
            try:
                found[key] = msgspec.json.decode(raw)
            except (msgspec.DecodeError, RecursionError):
                continue
    return found


def carries_collective(events: list[_Event]) -> npt.NDArray[np.bool_]:
    """Mask of the events whose args name a collective (``Seq``, ``Process Group Name``): NCCL's kernels in
    newer traces, whatever their name."""
    args = list(map(FIELD["args"], events))
    found = np.zeros(len(events), bool)
    for mark in COLLECTIVE_MARKS:
        found |= np.fromiter(map(is_not, map(mark, args), repeat(_NULL)), bool, len(events))
    return found


def sizes_messages(name: str) -> bool:
    """Whether an op's args may size a collective's message: the backend's op, or ``record_param_comms``."""
    return name == "record_param_comms" or BACKEND_OP.match(name) is not None


TRACE_SUFFIXES = (".json", ".json.gz")


def trace_files(path: Path | str) -> list[Path]:
    """The trace files at ``path``: the file itself, or every trace in a folder (one per rank).

    In a folder, an entry named like a trace that is not a regular file (a FIFO, a device, a link to nothing,
    a folder) is refused in one line, not skipped: a rank left out unsaid would change the job's verdict.
    """
    path = Path(path)
    if not is_folder(path):
        return [path]
    try:
        entries = sorted(path.iterdir())
        named = [entry for entry in entries if entry.name.endswith(TRACE_SUFFIXES)]
        for entry in named:
            refuse_unless_file(entry)
        folders = [entry.name for entry in entries if not entry.name.endswith(TRACE_SUFFIXES) and is_folder(entry)]
    except OSError as error:
        raise TraceError(f"{shown(path)}: {error.strerror or error}") from None
    if not named:
        inside = f"; it holds folders ({', '.join(map(shown, folders[:5]))}{', …' if len(folders) > 5 else ''}): " \
            "name one of them" if folders else ""
        raise TraceError(f"{shown(path)}: no .json or .json.gz trace files in this folder{inside}")
    return named


def refuse_unless_file(entry: Path) -> None:
    """A one-line TraceError unless ``entry``, in a folder of rank traces, is a regular file (through links)."""
    try:
        mode = os.stat(entry).st_mode
    except FileNotFoundError:
        raise TraceError(f"{shown(entry)}: a symbolic link to nothing, named like a trace; remove it or "
                         "point it at the rank's trace") from None
    except OSError as error:  # a loop of links, a name too long to follow
        raise TraceError(f"{shown(entry)}: {error.strerror or error}, named like a trace") from None
    if stat.S_ISREG(mode):
        return
    kind = "a folder" if stat.S_ISDIR(mode) else next((name for test, name in FILE_KINDS if test(mode)),
                                                       "not a regular file")
    raise TraceError(f"{shown(entry)}: {kind}, named like a trace; a folder of rank traces holds trace files")


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
    batches = new_batches()
    document = decode_document(source, raw, batches["repaired"])
    events, document.traceEvents = document.traceEvents or [], None
    if max(map(len, events), default=0) > MAX_EVENT_BYTES:
        raise too_large(source, "an event")
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


def too_large(source: Path | str, what: str) -> TraceError:
    return TraceError(f"{shown(source)}: {what} holds more than {format_size(MAX_EVENT_BYTES)} of JSON, more "
                      "than a profiler writes: damaged, or built to exhaust memory; not read")


def new_batches() -> Batches:
    """What the batches of one trace add up to: column chunks, the value codes, shapes, skip counts."""
    return {"chunks": [], "names": Codes(), "lanes": Codes(), "categories": Codes(), "shape_texts": Codes(),
            "shapes": {}, "decoded_inputs": DecodedInputs(), "comm_args": {}, "skipped": {},
            "repaired": {}, "count": 0, "phases": {}, "thread_names": {},
            "memory": {"ts": [], "bytes": [], "total": [], "lane": [], "lanes": Codes(), "device": [],
                       "devices": Codes()}}


def add_batch(batches: Batches, complete: list[_Event]) -> None:
    """Append one batch of complete events to ``batches``."""
    chunk = batch_columns(complete, batches["names"], batches["lanes"], batches["categories"], batches["shape_texts"])
    if chunk is None:
        return
    batches["chunks"].append(chunk)
    sized_codes = [code for name, code in batches["names"].items() if name in GEMM_OPS or name in MODELLED_OPS]
    offsets = np.flatnonzero(np.isin(chunk["name"], sized_codes)).tolist()
    batches["shapes"].update((batches["count"] + offset, inputs) for offset, inputs
                             in zip(offsets, sized_inputs(complete, offsets, batches["decoded_inputs"]), strict=True)
                             if inputs is not None)
    comm_codes = [code for name, code in batches["names"].items() if sizes_messages(name)]
    for offset in np.flatnonzero(np.isin(chunk["name"], comm_codes) | carries_collective(complete)):
        batches["comm_args"][batches["count"] + int(offset)] = decode_comm_args(complete[offset].args)
    batches["count"] += len(complete)


TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]')
LIST_OPENS = re.compile(rb"\s*:\s*\[")


def top_level_events(head: bytes) -> tuple[int, int] | None:
    """(the offset just after the ``[`` that opens the event list, the depth inside that list), or None if
    ``head`` does not reach it.

    The list is the document's own ``traceEvents``, or the document itself
    when it is a bare array of events (the Trace Event Format's JSON Array
    Format). Strings are skipped whole and brackets counted, so a
    ``traceEvents`` key nested inside metadata that comes first is not taken
    for the real one.
    """
    depth = 0
    for token in TOKENS.finditer(head):
        first = token.group()[:1]
        if first == b'"':
            if depth == 1 and token.group() == b'"traceEvents"' and (opens := LIST_OPENS.match(head, token.end())):
                return opens.end(), 2
        elif depth == 0 and first == b"[":
            return token.end(), 1
        else:
            depth += 1 if first in b"[{" else -1
    return None


def load_streaming(path: Path, progress: Progress | None = None, max_bytes: int = MAX_BYTES) -> Trace | None:
    """Load a trace a block at a time, whatever its layout: one event per line as Kineto writes it, all on
    one line as minifiers write it, or padded with whitespace.

    Each block is cut after the last comma between two events, found by
    tracking strings and brackets (``event_separator``); the events before
    it are decoded and dropped, and a block of whitespace alone is kept as
    one space. Memory stays near a block plus the columns. Returns None,
    having read nothing into the result, when something cannot be decoded or
    the file ends inside the list: the caller then reads it whole, and
    reports any error.
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


def next_block(reader: Capped, size: int | None = None) -> bytes:
    """The next block of the stream (BLOCK bytes unless ``size`` says); one space for a block of whitespace
    between tokens, which one space separates as well (a gzip file can inflate to gigabytes of padding)."""
    before = reader.nesting
    block = reader.read(size or BLOCK)
    if before.in_string or not block.isspace() or b"\x0b" in block or b"\x0c" in block:  # not JSON's whitespace
        return block
    return b" "


def stream_events(path: Path, reader: Capped, size: int, progress: Progress | None) -> Trace | None:
    head, want = b"", HEAD_READ
    while (found := top_level_events(head)) is None:
        block, want = next_block(reader, min(want, BLOCK)), 2 * want
        if not block:  # the whole file is in `head`, its whitespace runs collapsed: no need to read it again
            return parse_checked(head, path, progress)
        if len(head) >= HEAD_BYTES:
            raise TraceError(f"{shown(path)}: no traceEvents list in its first {format_size(HEAD_BYTES)}; "
                             "not a torch.profiler trace")
        head += block
    start, list_depth = found
    skeleton_start = head[:start]
    # One buffer, grown and trimmed in place; its first byte is spare, so that a batch's events can be
    # decoded where they lie, between a '[' written there and a ']' written over the comma after them.
    pending = bytearray(b"[")
    pending += head[start:]
    shallowest = block_depth(head[start:], Nesting(list_depth)).shallowest
    batches = new_batches()
    searched = 1  # pending[1:searched] holds no comma between events
    while shallowest >= list_depth:  # the list is still open at the end of `pending`
        comma = event_separator(pending, searched, reader.nesting, list_depth)
        if comma is not None:
            pending[0], pending[comma] = ord("["), ord("]")
            with memoryview(pending) as view, view[: comma + 1] as events:
                add_batch(batches, decode_batch(events, batches))
            del pending[:comma]
        if len(pending) > MAX_EVENT_BYTES:  # what is left is one event, not yet ended
            raise too_large(path, "an event")
        searched = len(pending) - len(reader.nesting.held)
        if not (block := next_block(reader)):
            return None  # the file ends inside the list: reading it whole says so
        pending += block
        shallowest = reader.levels.shallowest
        if progress and size:
            progress(min(reader.position() / size, 1.0))
    return finish_stream(path, reader, pending, list_depth, skeleton_start, batches)


def finish_stream(path: Path, reader: Capped, pending: bytearray, list_depth: int, skeleton_start: bytes,
                  batches: Batches) -> Trace | None:
    """The last events, up to the ']' that closes the list (``pending`` holds it), then the rest of the
    document, read to its end."""
    close = list_end(pending, list_depth)
    if close is None:
        return None
    pending[0] = ord("[")
    with memoryview(pending) as view, view[: close + 1] as events:
        add_batch(batches, decode_batch(events, batches))
    rest = [bytes(pending[close + 1 :])]
    size = len(skeleton_start) + len(rest[0])
    while block := next_block(reader):
        rest.append(block)
        size += len(block)
        if size > MAX_EVENT_BYTES:
            raise too_large(path, "the document around the event list")
    return assemble(path, batches, document_of(skeleton_start + b"]" + b"".join(rest), path, batches["repaired"]))


_COMMA = ord(",")
_STRUCTURE = np.zeros(256, bool)
_STRUCTURE[list(b'"[]{},')] = True
TAIL = 64 << 10  # how far back from a block's end the first look for a comma between events goes


def structure(text: bytes, state: Nesting) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.uint8],
                                                   npt.NDArray[np.int32]]:
    """(offset, byte, depth after it) of each comma and bracket outside strings in ``text`` (``neutral``
    already), which starts in ``state``."""
    codes = np.frombuffer(text, np.uint8)
    offsets = np.flatnonzero(_STRUCTURE[codes])
    found = codes[offsets]
    quotes = found == _QUOTE
    outside = ~(np.bitwise_xor.accumulate(quotes) ^ state.in_string) & ~quotes
    offsets, found = offsets[outside], found[outside]
    return offsets, found, state.depth + np.cumsum(_STEP[found], dtype=np.int32)


def run_start(data: bytearray, position: int, floor: int) -> int:
    """``position``, or the start of the run of backslashes it falls in (no earlier than ``floor``)."""
    if data[position - 1 : position] != b"\\":
        return position
    return floor + len(bytes(data[floor:position]).rstrip(b"\\"))


def event_separator(data: bytearray, start: int, end_state: Nesting, list_depth: int) -> int | None:
    """The offset of the last comma between two events of the list in ``data[start:]``, or None.

    ``end_state`` is where the scan stands at the end of ``data`` (its held
    backslashes excluded), and the list is open there. Only the end is
    scanned, as far back as it takes: the parity of its quotes gives the
    string state at its start, the brackets in it the depth there.
    """
    end, width = len(data) - len(end_state.held), TAIL
    while True:
        low = run_start(data, max(end - width, start), start)  # escapes pair from the start of their run
        text = neutral(bytes(data[low:end]))
        in_string = end_state.in_string ^ (text.count(b'"') % 2 == 1)
        offsets, found, depths = structure(text, Nesting(0, in_string))
        base = end_state.depth - (int(depths[-1]) if len(depths) else 0)
        commas = np.flatnonzero((found == _COMMA) & (depths == list_depth - base))
        if len(commas):
            return low + int(offsets[commas[-1]])
        if low <= start:
            return None
        width *= 8


def list_end(data: bytearray, list_depth: int) -> int | None:
    """The offset of the ']' that closes the list, which ``data[1:]`` starts just inside; None if not there.
    ``block_depth`` finds the stretch of TAIL bytes it is in, and ``structure`` the place in that stretch."""
    state = Nesting(list_depth)
    for start in range(1, len(data), TAIL):
        stretch = bytes(data[start : start + TAIL])
        levels = block_depth(stretch, state)
        if levels.shallowest < list_depth:
            offsets, found, depths = structure(neutral(state.held + stretch), state._replace(held=b""))
            closing = np.flatnonzero(depths < list_depth)
            first = int(closing[0]) if len(closing) else -1
            return start - len(state.held) + int(offsets[first]) if first >= 0 and found[first] == ord("]") else None
        state = levels.after
    return None


def valid_times(columns: dict[str, np.ndarray], skipped: dict[str, int]) -> npt.NDArray[np.bool_]:
    """Mask of the events whose start and duration are numbers a profiler could have measured."""
    ts, dur = columns["ts"], columns["dur"]
    finite = np.isfinite(ts) & np.isfinite(dur)
    negative = finite & (dur < 0)
    implausible = finite & ~negative & ((np.abs(ts) > TS_LIMIT) | (dur > DUR_LIMIT) | ((dur > 0) & (dur < DUR_FLOOR)))
    reasons = (("without a numeric ts or dur", ~finite), ("with a negative duration", negative),
               ("with a start or duration no profiler measures (beyond the year 2286, over 11 days, or under "
                "a picosecond)", implausible))
    for reason, mask in reasons:
        if mask.any():
            add_count(skipped, reason, int(mask.sum()))
    valid: npt.NDArray[np.bool_] = finite & ~negative & ~implausible
    return valid


def drop_impossible_bytes(sizes: npt.NDArray[np.float64], skipped: dict[str, int]) -> None:
    """Make NaN (not recorded) each count of bytes that no copy moves, infinite or over COPY_BYTES_LIMIT,
    so that every sum of bytes stays finite; count the events that had one."""
    impossible = np.abs(sizes) > COPY_BYTES_LIMIT  # inf too; NaN compares False
    if impossible.any():
        sizes[impossible] = math.nan
        add_count(skipped, "from the byte totals: their bytes are infinite or over 1 EiB, more than any copy "
                  "moves", int(impossible.sum()))


def assemble(path: Path | str, batches: Batches, document: _Document) -> Trace:
    """One Trace from the batches: valid events only, sorted by (start, -duration)."""
    chunks, skipped, memory = batches["chunks"], batches["skipped"], batches["memory"]
    columns = {key: np.concatenate([chunk.pop(key) for chunk in chunks]) for key in (list(chunks[0]) if chunks else ())}
    if not columns or not len(columns["ts"]):
        raise TraceError(f"{shown(path)}: the trace holds no complete events, at most metadata: nothing a verdict "
                         "could rest on")
    valid = valid_times(columns, skipped)
    kept = np.flatnonzero(valid)
    if not len(kept):
        raise TraceError(f"{shown(path)}: the trace holds no complete events with valid times")
    order = kept[np.lexsort((-columns["dur"][kept], columns["ts"][kept]))]
    new_index = np.full(len(valid), -1)
    new_index[order] = np.arange(len(order))
    for key in list(columns):
        columns[key] = columns[key][order]
    drop_impossible_bytes(columns["bytes"], skipped)
    categories = columns.pop("category")
    columns["kind"] = kind_codes(batches["categories"])[categories]
    return Trace(
        **columns,
        names=tuple(batches["names"]),
        lanes=tuple(batches["lanes"]),
        shape_texts=tuple(text.decode("utf-8", "replace") for text in batches["shape_texts"]),
        shapes={int(new_index[i]): v for i, v in batches["shapes"].items() if new_index[i] >= 0},
        comm_args={int(new_index[i]): v for i, v in batches["comm_args"].items() if v and new_index[i] >= 0},
        phases=batches["phases"],
        thread_names={lane: tuple(names) for lane, names in batches["thread_names"].items()},
        memory_ts=np.array(memory["ts"], dtype=np.float64),
        memory_bytes=np.array(memory["bytes"], dtype=np.float64),
        memory_lane=np.array(memory["lane"], dtype=np.int32),
        memory_lanes=tuple(memory["lanes"]),
        memory_total=np.array(memory["total"], dtype=np.float64),
        memory_device=np.array(memory["device"], dtype=np.int32),
        memory_devices=tuple(memory["devices"]),
        base_time_ns=0.0 if document.baseTimeNanoseconds is None else number(scalar(document.baseTimeNanoseconds)),
        host_name=host_name(document),
        runtime_versions={key: str(value) for key in RUNTIME_VERSIONS
                          if (value := scalar(getattr(document, key))) is not None},
        device_properties=tuple(d for d in document.deviceProperties or () if isinstance(d, dict))
        if isinstance(document.deviceProperties, list) else (),
        distributed_info=document.distributedInfo if isinstance(document.distributedInfo, dict) else None,
        skipped=skipped,
        repaired=batches["repaired"],
        unread=unread_categories(batches["categories"], categories, columns["kind"]),
    )


RUNTIME_VERSIONS = ("cuda_runtime_version", "cuda_driver_version")


def host_name(document: _Document) -> str | None:
    """The machine the trace was written on: Kineto's top-level ``host_name``, else ``distributedInfo``'s."""
    info = document.distributedInfo if isinstance(document.distributedInfo, dict) else {}
    return next((name for name in (document.host_name, info.get("host_name")) if isinstance(name, str) and name),
                None)


def unread_categories(codes: Codes[str | None], categories: np.ndarray, kinds: np.ndarray) -> dict[str, int]:
    """Complete events by category, for the categories the analysis does not read and that are not the
    profiler's bookkeeping: another vendor's device events (``mtia_ccp_events``), for instance."""
    other = kinds == KIND["other"]
    counts = np.bincount(categories[other], minlength=len(codes))
    return {str(category): int(counts[code]) for category, code in codes.items()
            if counts[code] and str(category or "").lower() not in BOOKKEEPING_CATEGORIES}
