"""A kernel's resource footprint as a CUDA trace records it, and how many of its blocks fit on one SM.

Kineto writes, for each kernel of a CUDA trace, its ``registers per thread``, its ``shared memory`` (static and
dynamic, bytes a block), its ``block`` and ``grid``, and an ``est. achieved occupancy %``; the trace's
``deviceProperties`` give each GPU's registers, shared memory and threads per SM. The trace model keeps none of
the footprint (``profguide.trace`` reads what the timing analyses need), so this module reads it from the file.

How many blocks fit on an SM at once is the least of four limits, as CUDA's occupancy calculator
(``cuda_occupancy.h``, ``cudaOccMaxActiveBlocksPerMultiprocessor``) computes them for compute capability 7.0
and later: the register file, split among four sub-partitions and handed to each warp in units of 256
registers; the shared memory, with the part the system reserves for each block; the warps an SM holds; and
the blocks an SM holds. The *theoretical occupancy* is the warps of those blocks over the most an SM holds.

The trace's own column is another number: Kineto computes it with the same calculator
(``kernelOccupancy`` in ``libkineto/src/DeviceProperties.cpp``) but tells it that the kernel did not opt
in to more shared memory than the default per-block limit (``sharedMemPerBlock``), and caps the blocks by the
grid (blocks over SMs). A kernel that uses more shared memory than that limit gets no block from the
calculator, and its column reads 0 however it runs; a kernel whose grid leaves SMs empty reads less than its
theoretical occupancy.
"""

import functools
import math
import os
from pathlib import Path
from typing import Any, Literal, NamedTuple

import msgspec

from profguide.errors import TraceError
from profguide.jsontypes import JSONObject
from profguide.trace.loader import occupancy_value, read_bytes

# The most blocks one SM holds at once, by compute capability (CUDA C++ Programming Guide, "Technical
# Specifications per Compute Capability"); an unknown device sets no such limit here.
MAX_BLOCKS_PER_SM = {(7, 0): 32, (7, 5): 16, (8, 0): 32, (8, 6): 16, (8, 7): 16, (8, 9): 24, (9, 0): 32,
                     (10, 0): 32, (12, 0): 32}
REGISTER_UNIT = 256  # registers go to a warp in units of this many (cuda_occupancy.h, compute capability 7.0 on)
SUB_PARTITIONS = 4  # an SM's register file is split among this many sub-partitions, each with its own warps
Limit = Literal["registers", "shared memory", "warps", "blocks"]
LIMITS: tuple[Limit, ...] = ("registers", "shared memory", "warps", "blocks")  # what can limit the blocks an SM holds


class Launch(NamedTuple):
    """One kernel launch of a trace, with its footprint as Kineto wrote it."""

    name: str
    dur_us: float
    call: str  # the runtime or driver call that launched it ("" when the trace does not hold it)
    registers: int  # per thread
    shared: int  # bytes of shared memory a block, static and dynamic
    threads: int  # a block
    blocks: int  # the grid
    recorded: float | None  # the trace's est. achieved occupancy, as a fraction (None when absent)
    device: JSONObject  # the GPU's deviceProperties entry
    recorded_limits: tuple[str, ...] = ()  # what limits it by the trace's ``occupancy`` object (kineto#1330), if any


class Fit(NamedTuple):
    """How many blocks of a kernel fit on one SM, by each limit and in all (None: no limit of that kind)."""

    by: dict[Limit, int | None]  # limit (``LIMITS``) → blocks, or None where it sets no limit
    blocks: int
    limited_by: tuple[Limit, ...]  # the limits equal to ``blocks``
    theoretical: float  # the warps of ``blocks`` over the most an SM holds
    default_shared: int | None  # the default per-block shared memory limit, which Kineto's column assumes
    warps: int  # a block's


class _Event(msgspec.Struct, gc=False):
    ph: Any = None
    cat: Any = None
    name: Any = None
    dur: Any = None
    args: Any = None


class _Document(msgspec.Struct, gc=False):
    traceEvents: list[_Event] = []  # noqa: N815 (the trace's own field name)
    deviceProperties: Any = None  # noqa: N815


def whole(value: object) -> int | None:
    """A non-negative whole number from a trace's field, or None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        return None
    return int(value)


def product(values: object) -> int | None:
    """The product of a ``block`` or ``grid`` triple, or None when it is not one."""
    if not isinstance(values, list) or not values or any(whole(value) is None for value in values):
        return None
    return math.prod(int(value) for value in values)


def launches_of(raw: bytes) -> list[Launch]:
    """Every kernel of a trace's JSON that carries a footprint (registers, shared memory, block, grid) and a GPU
    whose ``deviceProperties`` say how much an SM holds; in file order."""
    try:
        document = msgspec.json.decode(raw, type=_Document)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return []
    devices = {whole(device.get("id")): device for device in document.deviceProperties or ()
               if isinstance(device, dict)}
    calls: dict[int | None, str] = {}
    for event in document.traceEvents:
        if event.cat in ("cuda_runtime", "cuda_driver", "Runtime") and isinstance(event.args, dict):
            calls.setdefault(whole(event.args.get("correlation")), str(event.name))
    found = []
    for event in document.traceEvents:
        if event.ph != "X" or str(event.cat).lower() != "kernel" or not isinstance(event.args, dict):
            continue
        args = event.args
        device = devices.get(whole(args.get("device")))
        registers, shared = whole(args.get("registers per thread")), whole(args.get("shared memory"))
        threads, blocks = product(args.get("block")), product(args.get("grid"))
        if device is None or registers is None or shared is None or blocks is None or not threads:
            continue
        recorded = recorded_occupancy(args)
        dur = event.dur if isinstance(event.dur, (int, float)) else 0.0
        found.append(Launch(str(event.name), float(dur), calls.get(whole(args.get("correlation")), ""), registers,
                            shared, threads, blocks, recorded, device, recorded_limits(args)))
    return found


def recorded_occupancy(args: JSONObject) -> float | None:
    """The trace's est. achieved occupancy as a fraction: the number under ``est. achieved occupancy %``, or the
    one an ``occupancy`` object holds (``occupancy_value``); None when neither holds one."""
    value = occupancy_value(args.get("est. achieved occupancy %"))
    if math.isnan(value) and isinstance(args.get("occupancy"), dict):
        value = occupancy_value(args["occupancy"])
    return None if math.isnan(value) else value / 100


# cudaOccLimitingFactor's bits (cuda_occupancy.h), as kineto#1330 may write ``limitingFactors`` as a number
LIMIT_BITS = {0x01: "warps", 0x02: "registers", 0x04: "shared memory", 0x08: "blocks", 0x10: "barriers"}
LIMIT_WORDS = {"WARP": "warps", "REG": "registers", "SHARED": "shared memory", "SMEM": "shared memory",
               "BLOCK": "blocks", "BARRIER": "barriers"}  # a part of a factor's name → the word this module uses


def limit_word(factor: str) -> str:
    """A limiting factor as the trace names it ("REGS", "SHARED_MEMORY", "registers") in this module's words;
    a name it does not know, lower-cased."""
    upper = factor.strip().upper()
    return next((word for part, word in LIMIT_WORDS.items() if part in upper), factor.strip().lower())


def recorded_limits(args: JSONObject) -> tuple[str, ...]:
    """What limits a kernel's occupancy by the ``occupancy`` object newer Kineto writes in its args (kineto#1330,
    from ``cudaOccResult.limitingFactors``): a bit field, names joined by "|" ("WARPS|REGS"), or a list of names;
    () when the trace gives none."""
    objects = [value for key in ("occupancy", "est. achieved occupancy %") if isinstance(value := args.get(key), dict)]
    factors = next((value for found in objects for key, value in found.items()
                    if "".join(filter(str.isalpha, str(key))).lower() in ("limitingfactors", "limitingfactor")), None)
    if isinstance(factors, int) and not isinstance(factors, bool):
        return tuple(word for bit, word in LIMIT_BITS.items() if factors & bit)
    names = factors.replace(",", "|").split("|") if isinstance(factors, str) else factors
    if not isinstance(names, list):
        return ()
    return tuple(dict.fromkeys(limit_word(name) for name in names if isinstance(name, str) and name.strip()))


@functools.lru_cache(maxsize=8)
def _launches(path: Path, stamp: tuple[int, int]) -> tuple[Launch, ...]:
    return tuple(launches_of(read_bytes(path)))


def kernel_launches(path: Path | str) -> list[Launch]:
    """The kernel launches of the trace at ``path`` with their footprint (``launches_of``), read once while the
    file is unchanged; empty when the file cannot be read or holds none."""
    try:
        stat = os.stat(path)
        return list(_launches(Path(path), (stat.st_size, stat.st_mtime_ns)))
    except (OSError, TraceError):
        return []


def rounded_up(value: int, unit: int) -> int:
    return -(-value // unit) * unit


def fit(launch: Launch) -> Fit | None:
    """How many of the launch's blocks fit on one SM of its GPU, and what limits them; None when the trace's
    ``deviceProperties`` lack what the arithmetic needs.

    A block of ``threads`` is ``warps`` warps. Registers: each warp takes ``registers × warpSize`` registers,
    rounded up to 256; each of the four sub-partitions holds a quarter of the SM's registers, and so as many
    warps as that quarter over a warp's share; the SM holds four times that, and as many blocks as that over
    ``warps``. Shared memory: the SM's shared memory over what a block takes, the kernel's and the part the
    system reserves for each block (the SM's shared memory less the most one block may opt in to). Warps: the
    most threads an SM holds, in warps, over ``warps``. Blocks: the compute capability's limit.
    """
    device = launch.device
    warp, per_sm, registers_per_sm = (whole(device.get(key)) for key in
                                      ("warpSize", "maxThreadsPerMultiprocessor", "regsPerMultiprocessor"))
    shared_per_sm = whole(device.get("sharedMemPerMultiprocessor"))
    if not warp or not per_sm or registers_per_sm is None or shared_per_sm is None:
        return None
    warps = -(-launch.threads // warp)
    most_warps = per_sm // warp
    by: dict[Limit, int | None] = {"warps": most_warps // warps}
    per_warp = rounded_up(launch.registers * warp, REGISTER_UNIT)
    by["registers"] = (SUB_PARTITIONS * (registers_per_sm // SUB_PARTITIONS // per_warp)) // warps if per_warp else None
    opt_in = whole(device.get("sharedMemPerBlockOptin"))
    reserved = max(shared_per_sm - opt_in, 0) if opt_in is not None else 0
    by["shared memory"] = shared_per_sm // (launch.shared + reserved) if launch.shared else None
    major, minor = whole(device.get("computeMajor")), whole(device.get("computeMinor"))
    by["blocks"] = None if major is None or minor is None else MAX_BLOCKS_PER_SM.get((major, minor))
    by = {limit: by[limit] for limit in LIMITS}
    blocks = min(value for value in by.values() if value is not None)
    return Fit(by, blocks, tuple(limit for limit, value in by.items() if value == blocks), blocks * warps / most_warps,
               whole(device.get("sharedMemPerBlock")), warps)


def above_default(launch: Launch) -> bool | None:
    """Whether the launch's blocks use more shared memory than the GPU's default per-block limit (which a kernel
    must opt in to exceed); None when the trace does not give the limit."""
    limit = whole(launch.device.get("sharedMemPerBlock"))
    return None if limit is None else launch.shared > limit


def fills_the_gpu(launch: Launch) -> bool | None:
    """Whether the launch's grid gives every SM of its GPU at least one block; None without the SM count."""
    sms = whole(launch.device.get("numSms"))
    return None if not sms else launch.blocks >= sms
