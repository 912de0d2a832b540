"""The trace model: event kinds that do not depend on the torch version or vendor, and Trace, a trace's
complete events as typed numpy columns.

Each event's category becomes a *kind*: old traces say ``Kernel`` and
``Runtime`` where new ones say ``kernel`` and ``cuda_runtime``; ROCm traces
reuse the CUDA names.
"""

import math
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from profguide.jsontypes import JSON, JSONObject

# Kinds, in code order; the code is an index into this tuple.
KIND_NAMES = (
    "other", "cpu_op", "annotation", "gpu_annotation", "runtime", "driver",
    "kernel", "memcpy", "memset", "sync", "python", "overhead",
)
KIND = {name: code for code, name in enumerate(KIND_NAMES)}
# Category (lower-cased) → kind. "operator", "runtime", "memcpy", "memset" are the old schema's names;
# "overhead" is the profiler's own work that CUPTI reports (an Activity Buffer Request, a Buffer Flush).
CATEGORY_KINDS = {
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
    "overhead": "overhead",
}
# Categories of kind "other" that say nothing about a device: the profiler's own bars and instants. CUDA 13's
# ``cuda_event`` marks where a cudaEventRecord reached its stream (kineto#1164): a point in the stream's queue,
# no work of the GPU's, read as the profiler's bookkeeping.
BOOKKEEPING_CATEGORIES = frozenset({"trace", "cpu_instant_event", "ac2g", "fwdbwd", "external_correlation",
                                    "cuda_event"})
# Kineto moves each stream's "Stream Sync" events to a row of their own, tid = stream + this offset, named
# "stream N (sync)" (kineto#1356, ``kSyncStreamTidOffset`` in libkineto's output_json.cpp): a row, not a stream.
SYNC_TID_OFFSET = 1_000_000
SYNC_ROW_NAME = re.compile(r"stream \S+ \(sync\)")


GPU_KINDS = frozenset({"kernel", "memcpy", "memset", "gpu_annotation", "sync"})
GPU_WORK_KINDS = frozenset({"kernel", "memcpy", "memset"})
HOST_KINDS = frozenset({"cpu_op", "annotation", "runtime", "driver", "python"})
NO_ID = -1

LaneId = int | str | None  # a pid or a tid: ints and strings as the trace writes them, anything else as its JSON
Lane = tuple[LaneId, LaneId]  # (pid, tid)


@dataclass(frozen=True, slots=True)
class Slice:
    """One complete event, for drawing: a named interval on a lane. Times in µs."""

    name: str
    kind: str
    ts: float
    dur: float
    pid: LaneId
    tid: LaneId
    correlation: int | None = None
    external_id: int | None = None

    @property
    def end(self) -> float:
        return self.ts + self.dur


class OpInputs(NamedTuple):
    """What the trace records of one op call's inputs, decoded: ``Input Dims``, ``Input type``, ``Concrete
    Inputs`` and ``Input Strides`` (the last two [] where the trace has none, before torch 2.2)."""

    dims: list[JSON]
    types: list[JSON]
    concrete: list[JSON]
    strides: list[JSON]


@dataclass(frozen=True, eq=False)
class Trace:
    """The complete events of a trace as columns, sorted by (start, -duration).

    ``name``, ``kind`` and ``lane`` are codes into ``names``, ``KIND_NAMES`` and
    ``lanes`` ((pid, tid) pairs). Ids are -1 where absent (``sequence`` is an op's autograd ``Sequence
    number``, the same on the forward op that made an autograd node and on the backward function that runs
    it; torch counts them per thread; ``waits_for`` is a Stream Wait Event's or Event Sync's
    ``wait_on_cuda_event_record_corr_id``); ``bytes`` and
    ``occupancy`` are NaN where absent. ``shapes`` maps an event index to its
    decoded inputs (``OpInputs``) for the ops whose work the analysis sizes only (``MODELLED_OPS``; every
    event's ``Input Dims``, as the trace writes it, is ``shape_texts[shape]``);
    ``comm_args`` maps the index of each collective's backend op
    (``nccl:all_reduce``) and ``record_param_comms`` to the args that size its
    message (``Input Dims``, ``Input type``, ``In msg nelems``, ``dtype``) and the metadata torch's trace validator
    asks of it (``Out msg nelems``, ``Group size``, ``Collective name``), and of each event whose args
    say which collective it is (an NCCL kernel's ``Seq``, ``Comms Id``, ``Process Group Name`` and
    ``Ranks``, ``In split size`` and ``Out split size``) to those.

    Besides the complete events: ``phases`` counts every event by phase (``ph``);
    ``thread_names`` holds each (pid, tid)'s ``thread_name`` metadata, in trace
    order; ``memory_*`` are the allocator's ``[memory]`` instants in file order
    (their ``Bytes``, negative for a free, and lane codes into ``memory_lanes``; the allocator's ``Total
    Allocated`` after each, NaN where absent, on its device, a code into ``memory_devices``: (Device Type,
    Device Id) pairs as recorded, c10's DeviceType 0 for the CPU, 1 for CUDA);
    ``base_time_ns`` is ``baseTimeNanoseconds``, where the trace's clock starts; ``host_name`` the machine
    that wrote it (Kineto's ``host_name`` metadata, kineto#1323, or ``distributedInfo``'s), None where absent;
    ``runtime_versions`` the CUDA runtime and driver versions torch's streaming exporter writes at the top.
    """

    ts: NDArray[np.float64]
    dur: NDArray[np.float64]
    kind: NDArray[np.int8]
    name: NDArray[np.int32]
    lane: NDArray[np.int32]
    correlation: NDArray[np.int64]
    external_id: NDArray[np.int64]
    sequence: NDArray[np.int64]
    waits_for: NDArray[np.int64]
    bytes: NDArray[np.float64]
    occupancy: NDArray[np.float64]
    recorded_shapes: NDArray[np.bool_]  # whether the event's args hold its Input Dims (record_shapes=True)
    shape: NDArray[np.int32]  # a code into ``shape_texts``: the event's Input Dims as written, -1 where absent
    graph_id: NDArray[np.int64]  # the CUDA graph a replayed GPU op belongs to (Kineto's ``graph id``), -1 where absent
    graph_node: NDArray[np.int64]  # its node in that graph (``graph node id``), -1 where absent
    names: tuple[str, ...]
    lanes: tuple[Lane, ...]
    shape_texts: tuple[str, ...] = ()
    shapes: dict[int, OpInputs] = field(default_factory=dict)
    device_properties: tuple[JSONObject, ...] = ()
    distributed_info: JSONObject | None = None
    skipped: dict[str, int] = field(default_factory=dict)
    repaired: dict[str, int] = field(default_factory=dict)  # what the loader mended to read it → how many
    # category → complete events of kinds the analysis does not read
    unread: dict[str, int] = field(default_factory=dict)
    comm_args: dict[int, JSONObject] = field(default_factory=dict)
    phases: dict[object, int] = field(default_factory=dict)  # a loosely decoded trace's ``ph`` may be any JSON scalar
    thread_names: dict[Lane, tuple[str, ...]] = field(default_factory=dict)
    memory_ts: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    memory_bytes: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    memory_lane: NDArray[np.int32] = field(default_factory=lambda: np.zeros(0, np.int32))
    memory_lanes: tuple[Lane, ...] = ()
    memory_total: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    memory_device: NDArray[np.int32] = field(default_factory=lambda: np.zeros(0, np.int32))
    memory_devices: tuple[tuple[LaneId, LaneId], ...] = ()  # (Device Type, Device Id), each as a lane id is kept
    base_time_ns: float = 0.0
    host_name: str | None = None
    runtime_versions: dict[str, str] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.ts)

    @cached_property
    def end(self) -> NDArray[np.float64]:
        """Each event's end (µs), computed once: the analyses ask for it often."""
        return self.ts + self.dur

    @cached_property
    def sync_rows(self) -> frozenset[int]:
        """The lane codes of Kineto's stream-sync rows (``SYNC_TID_OFFSET``): named "stream N (sync)", or,
        unnamed, a tid past the offset that holds sync events alone. Their events are syncs, not a stream's."""
        named = {lane for lane, names in self.thread_names.items()
                 if any(SYNC_ROW_NAME.fullmatch(name.strip()) for name in names)}
        syncs = self.kind == KIND["sync"]
        only_syncs = set(np.unique(self.lane[syncs]).tolist()) - set(np.unique(self.lane[~syncs]).tolist())
        return frozenset(code for code, lane in enumerate(self.lanes)
                         if lane in named or (code in only_syncs and isinstance(lane[1], int)
                                              and lane[1] >= SYNC_TID_OFFSET))

    def slice(self, index: int) -> Slice:
        """Event ``index`` as a Slice."""
        pid, tid = self.lanes[self.lane[index]]
        correlation, external_id = int(self.correlation[index]), int(self.external_id[index])
        return Slice(
            name=self.names[self.name[index]],
            kind=KIND_NAMES[self.kind[index]],
            ts=float(self.ts[index]),
            dur=float(self.dur[index]),
            pid=pid,
            tid=tid,
            correlation=None if correlation == NO_ID else correlation,
            external_id=None if external_id == NO_ID else external_id,
        )

    def slices(self, start: float = -math.inf, end: float = math.inf,
               mask: NDArray[np.bool_] | None = None) -> list[Slice]:
        """The events that overlap [start, end] (and ``mask``), as Slices in trace order."""
        selected = (self.end >= start) & (self.ts <= end)
        if mask is not None:
            selected &= mask
        return [self.slice(i) for i in np.flatnonzero(selected).tolist()]

