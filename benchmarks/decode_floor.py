"""The floor under `profguide explain`: msgspec decoding a trace file into typed structs, and nothing else.

    python benchmarks/decode_floor.py TRACE.json

Every event becomes a struct with the fields `explain` reads, as its loader
(profguide/trace/loader.py) declares them: a complete event's category, name,
start, duration, process, thread and the arguments it uses (correlation,
External id, sequence number, the event a stream wait names, bytes, occupancy,
graph and node ids, and the shapes, message sizes and collective fields it
keeps undecoded); a metadata event's name, process, thread and `args.name`; an
instant's name, start, process, thread and the allocator's `args` (`Bytes`,
`Total Allocated`, `Device Type`, `Device Id`); every other phase its `ph`
alone; and the document's deviceProperties, distributedInfo,
baseTimeNanoseconds, host_name and CUDA runtime and driver versions.
tests/test_benchmarks.py fails when the loader's structs read a field these do
not. Like the loader's, the structs are not tracked by the
garbage collector (`gc=False`): a tool that reads these fields need not pay
for collections over a million objects without cycles, and a floor that did
would flatter whatever is measured against it. The script prints how many
events there are. It needs msgspec alone, and stands apart from profguide on
purpose: it is what any tool that reads these fields in Python must at least do.
"""

import sys
from typing import Union

import msgspec

NULL = msgspec.Raw(b"null")
# The other phases of the Trace Event Format: decoded as their tag, their fields skipped, as the loader does.
OTHER_PHASES = ("B", "E", "I", "C", "b", "n", "e", "s", "t", "f", "P", "N", "O", "D", "V", "v", "R", "c")


class Args(msgspec.Struct, gc=False):
    correlation: int | str | None = None
    external_id: int | str | None = msgspec.field(name="External id", default=None)
    sequence: int | str | None = msgspec.field(name="Sequence number", default=None)
    waits_for: int | str | None = msgspec.field(name="wait_on_cuda_event_record_corr_id", default=None)
    bytes: float | str | None = None
    occupancy: float | str | dict[str, object] | None = msgspec.field(name="est. achieved occupancy %",
                                                                       default=None)
    occupancy_detail: msgspec.Raw = msgspec.field(name="occupancy", default=NULL)
    graph_id: int | str | None = msgspec.field(name="graph id", default=None)
    graph_node: int | str | None = msgspec.field(name="graph node id", default=None)
    input_dims: msgspec.Raw = msgspec.field(name="Input Dims", default=NULL)
    input_type: msgspec.Raw = msgspec.field(name="Input type", default=NULL)
    concrete_inputs: msgspec.Raw = msgspec.field(name="Concrete Inputs", default=NULL)
    input_strides: msgspec.Raw = msgspec.field(name="Input Strides", default=NULL)
    in_msg_nelems: msgspec.Raw = msgspec.field(name="In msg nelems", default=NULL)
    dtype: msgspec.Raw = NULL
    seq: msgspec.Raw = msgspec.field(name="Seq", default=NULL)
    comms_id: msgspec.Raw = msgspec.field(name="Comms Id", default=NULL)
    group_name: msgspec.Raw = msgspec.field(name="Process Group Name", default=NULL)
    group_ranks: msgspec.Raw = msgspec.field(name="Process Group Ranks", default=NULL)
    in_split: msgspec.Raw = msgspec.field(name="In split size", default=NULL)
    out_split: msgspec.Raw = msgspec.field(name="Out split size", default=NULL)
    out_msg_nelems: msgspec.Raw = msgspec.field(name="Out msg nelems", default=NULL)
    group_size: msgspec.Raw = msgspec.field(name="Group size", default=NULL)
    collective_name: msgspec.Raw = msgspec.field(name="Collective name", default=NULL)


class Complete(msgspec.Struct, gc=False, tag_field="ph", tag="X"):
    cat: str | None = None
    name: str = ""
    ts: float | str | None = None
    dur: float | str | None = None
    pid: int | str | None = None
    tid: int | str | None = None
    args: Args | None = None


class NameArgs(msgspec.Struct, gc=False):
    name: object = None


class Metadata(msgspec.Struct, gc=False, tag_field="ph", tag="M"):
    name: object = None
    pid: int | str | None = None
    tid: int | str | None = None
    args: NameArgs | None = None


class BytesArgs(msgspec.Struct, gc=False):
    bytes: object = msgspec.field(name="Bytes", default=None)
    total_allocated: object = msgspec.field(name="Total Allocated", default=None)
    device_type: object = msgspec.field(name="Device Type", default=None)
    device_id: object = msgspec.field(name="Device Id", default=None)


class Instant(msgspec.Struct, gc=False, tag_field="ph", tag="i"):
    name: object = None
    ts: float | str | None = None
    pid: int | str | None = None
    tid: int | str | None = None
    args: BytesArgs | None = None


OTHERS = tuple(msgspec.defstruct(f"Phase{index}", [], tag_field="ph", tag=phase, gc=False)
               for index, phase in enumerate(OTHER_PHASES))
Event = Union[(Complete, Metadata, Instant, *OTHERS)]  # type: ignore[valid-type]  # noqa: UP007 - a union built from a tuple


class Document(msgspec.Struct, gc=False):
    traceEvents: list[Event]
    deviceProperties: object = None
    distributedInfo: object = None
    baseTimeNanoseconds: object = None
    host_name: object = None
    cuda_runtime_version: object = None
    cuda_driver_version: object = None


if __name__ == "__main__":
    with open(sys.argv[1], "rb") as stream:
        document = msgspec.json.decode(stream.read(), type=Document)
    print(len(document.traceEvents))
