"""The floor under `profguide explain`: msgspec decoding a trace file into typed structs, and nothing else.

    python benchmarks/decode_floor.py TRACE.json

Every event becomes a struct with the fields `explain` reads (phase, category,
name, start, duration, process and thread, and the arguments it uses); the
script prints how many there are. It needs msgspec alone, and stands apart
from profguide on purpose: it is what any tool that reads these fields in
Python must at least do.
"""

import sys

import msgspec


class Args(msgspec.Struct):
    correlation: int | str | None = None
    external_id: int | str | None = msgspec.field(name="External id", default=None)
    bytes: float | str | None = None
    occupancy: float | str | None = msgspec.field(name="est. achieved occupancy %", default=None)
    input_dims: msgspec.Raw = msgspec.field(name="Input Dims", default=msgspec.Raw(b"null"))
    input_type: msgspec.Raw = msgspec.field(name="Input type", default=msgspec.Raw(b"null"))


class Event(msgspec.Struct):
    ph: str | None = None
    cat: str | None = None
    name: str | None = None
    ts: float | str | None = None
    dur: float | str | None = None
    pid: int | str | None = None
    tid: int | str | None = None
    args: Args | None = None


class Document(msgspec.Struct):
    traceEvents: list[Event]


if __name__ == "__main__":
    with open(sys.argv[1], "rb") as stream:
        document = msgspec.json.decode(stream.read(), type=Document)
    print(len(document.traceEvents))
