"""Load a torch.profiler (Kineto) Chrome trace into a small typed model.

Only the complete events (``ph: X``) are kept; each event's category is mapped to a kind that does not depend on the
torch version that wrote it (old traces say ``Kernel`` and ``Runtime`` where
new ones say ``kernel`` and ``cuda_runtime``).
"""

import gzip
import json
import zlib
from dataclasses import dataclass
from pathlib import Path

# Category → kind. Old Kineto schemas used the capitalised names.
KINDS = {
    "cpu_op": "cpu_op",
    "operator": "cpu_op",
    "user_annotation": "annotation",
    "gpu_user_annotation": "gpu_annotation",
    "cuda_runtime": "runtime",
    "runtime": "runtime",
    "cuda_driver": "driver",
    "kernel": "kernel",
    "gpu_memcpy": "memcpy",
    "memcpy": "memcpy",
    "gpu_memset": "memset",
    "memset": "memset",
    "cuda_sync": "sync",
    "python_function": "python",
}
GPU_KINDS = frozenset({"kernel", "memcpy", "memset", "gpu_annotation", "sync"})
HOST_KINDS = frozenset({"cpu_op", "annotation", "runtime", "driver", "python"})


class TraceError(ValueError):
    """The file is not a trace this loader can read; the message is one line."""


@dataclass(frozen=True, slots=True)
class Slice:
    """One complete event: a named interval on a lane. Times are in µs."""

    name: str
    kind: str
    ts: float
    dur: float
    pid: object
    tid: object
    correlation: int | None = None
    external_id: int | None = None

    @property
    def end(self):
        return self.ts + self.dur

    @property
    def on_gpu(self):
        return self.kind in GPU_KINDS


@dataclass(frozen=True)
class Trace:
    """The slices of a trace, sorted by start time, with its metadata."""

    slices: tuple
    device_properties: tuple = ()
    base_time_ns: int | None = None


def read_json(path):
    """Parse a ``.json`` or ``.json.gz`` file; raise TraceError with one line on failure."""
    path = Path(path)
    try:
        raw = path.read_bytes()
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        return json.loads(raw)
    except FileNotFoundError:
        raise TraceError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise TraceError(f"{path}: is a folder, not a trace file") from None
    except (EOFError, gzip.BadGzipFile, zlib.error):
        raise TraceError(f"{path}: truncated or corrupt gzip data") from None
    except UnicodeDecodeError:
        raise TraceError(f"{path}: not UTF-8 text") from None
    except json.JSONDecodeError as error:
        raise TraceError(f"{path}: not valid JSON ({error.msg} at byte {error.pos})") from None


def as_int(value):
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def slice_from_event(event):
    """A Slice for a complete event, or None for events the model does not keep."""
    if not isinstance(event, dict) or event.get("ph") != "X":
        return None
    try:
        ts = float(event["ts"])
        dur = float(event.get("dur", 0))
    except (KeyError, TypeError, ValueError):
        return None
    if dur < 0 or ts != ts or dur != dur:  # negative or NaN
        return None
    category = str(event.get("cat", "")).lower()
    args = event.get("args") if isinstance(event.get("args"), dict) else {}
    return Slice(
        name=str(event.get("name", "")),
        kind=KINDS.get(category, "other"),
        ts=ts,
        dur=dur,
        pid=event.get("pid"),
        tid=event.get("tid"),
        correlation=as_int(args.get("correlation")),
        external_id=as_int(args.get("External id")),
    )


def load(path):
    """Load the trace at ``path`` (``.json`` or ``.json.gz``)."""
    document = read_json(path)
    if not isinstance(document, dict) or not isinstance(document.get("traceEvents"), list):
        raise TraceError(f"{path}: no traceEvents list; not a torch.profiler trace")
    events = document["traceEvents"]
    slices = sorted(
        (s for s in map(slice_from_event, events) if s is not None),
        key=lambda s: (s.ts, -s.dur),
    )
    if not slices:
        raise TraceError(f"{path}: the trace holds no complete events")
    return Trace(
        slices=tuple(slices),
        device_properties=tuple(document.get("deviceProperties") or ()),
        base_time_ns=as_int(document.get("baseTimeNanoseconds")),
    )
