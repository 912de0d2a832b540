"""Each kernel's resource footprint and occupancy, by name, for ``profguide explain --ops``.

A row gathers the launches of one kernel name: its footprint (registers, shared memory, threads a block), how
many of its blocks fit on an SM and what limits them (``kernel_resources.fit``), the trace's own occupancy
column, and notes that say how to read a low number. The trace's column reads 0 in three cases that say nothing
of how the kernel ran (``kernel_resources``' module text says why): a block that uses more shared memory than
the default per-block limit, for which Kineto's calculator finds no block fits; a grid too small to give an SM
a whole percent, as Kineto writes whole percents; and, should neither hold, a launch through the driver API,
which the column is often said not to measure.
"""

from collections import defaultdict
from pathlib import Path
from typing import Annotated, TypedDict

from msgspec import Meta

from profguide.analysis.kernel_resources import Fit, Launch, fills_the_gpu, fit, kernel_launches, whole
from profguide.text import count_of

FOOTPRINTS_SHOWN = 15  # the text's footprint table; --json has every row

EXPECTED = "expected: holds a tile in shared memory"
SMALL_GRID = "grid smaller than the GPU"
NOT_MEASURED = "column not measured"


class FootprintRow(TypedDict):
    """The launches of one kernel name with their resource footprint and occupancy."""

    name: Annotated[str, Meta(description="the kernel's name as the trace writes it")]
    launches: Annotated[int, Meta(description="how many launches of that name")]
    device_us: Annotated[float, Meta(description="their total time on the GPU")]
    registers: Annotated[int, Meta(description="registers per thread, of the footprint with the most time")]
    shared_bytes: Annotated[int, Meta(description="shared memory a block, static and dynamic, in bytes")]
    threads: Annotated[int, Meta(description="threads a block")]
    grid_blocks: Annotated[int, Meta(description="blocks in the grid of that footprint's longest launch")]
    other_footprints: Annotated[int, Meta(description="how many other footprints (registers, shared memory, "
                                                      "threads) launches of this name have; the row shows the "
                                                      "one with the most time")]
    blocks_per_sm: Annotated[int | None, Meta(description="how many blocks fit on one SM at once (CUDA's occupancy "
                                                          "calculator); null when deviceProperties lack what it "
                                                          "needs")]
    warps_per_sm: Annotated[int | None, Meta(description="the warps of those blocks")]
    theoretical: Annotated[float | None, Meta(description="the theoretical occupancy: those warps over the most "
                                                          "an SM holds, as a fraction")]
    recorded: Annotated[float | None, Meta(description="the trace's est. achieved occupancy, as a fraction, mean "
                                                       "over that footprint's launches weighted by time; null "
                                                       "when the trace has no such column")]
    limited_by: Annotated[list[str], Meta(description="what limits the blocks an SM holds, by this calculation: "
                                                      "registers, shared memory, warps, blocks")]
    trace_limited_by: Annotated[list[str], Meta(description="what limits it by the trace's own occupancy object "
                                                            "(kineto#1330); empty when the trace has none")]
    notes: Annotated[list[str], Meta(description="how to read a low occupancy: expected for a kernel that holds "
                                                 "a tile in shared memory, a grid smaller than the GPU, a column "
                                                 "that reads 0 without measuring the kernel")]


def holds_a_tile(launch: Launch, limits: tuple[str, ...]) -> bool:
    """Whether registers or shared memory limit the launch while its blocks use all the shared memory a block
    gets by default, or more (which a kernel must opt in to): a kernel that keeps a tile on chip, as flash
    attention and GEMM mainloops do, and holds few blocks by design."""
    default = whole(launch.device.get("sharedMemPerBlock"))
    return default is not None and 0 < default <= launch.shared and bool({"registers", "shared memory"} & set(limits))


def under_a_percent(launch: Launch, fitted: Fit | None) -> bool:
    """Whether Kineto's estimate, the blocks that fit or the grid's blocks per SM if fewer, in threads over the
    most an SM holds, is under the 1 % that its whole percents can show."""
    sms, most = whole(launch.device.get("numSms")), whole(launch.device.get("maxThreadsPerMultiprocessor"))
    if fitted is None or not sms or not most:
        return False
    return min(fitted.blocks, launch.blocks / sms) * launch.threads / most < 0.01


def zero_reading(launch: Launch, fitted: Fit | None) -> str | None:
    """Why the trace's column reads 0 for this launch, when it does and it can be said; else None."""
    if launch.recorded != 0:
        return None
    default = whole(launch.device.get("sharedMemPerBlock"))
    if default is not None and launch.shared > default:
        return (f"{NOT_MEASURED} (reads 0): the profiler's calculator assumes the default shared memory a block, "
                "which this kernel exceeds")
    if under_a_percent(launch, fitted):
        return f"{NOT_MEASURED} (reads 0): the grid is too small for the whole percents the profiler writes"
    if launch.call.startswith("cu") and not launch.call.startswith("cuda"):
        return f"{NOT_MEASURED}: launched through the driver API ({launch.call})"
    return None


def row_notes(launch: Launch, fitted: Fit | None) -> list[str]:
    notes = [EXPECTED] if fitted and holds_a_tile(launch, fitted.limited_by) else []
    if fills_the_gpu(launch) is False:
        notes.append(f"{SMALL_GRID}: {count_of(launch.blocks, 'block')} for {whole(launch.device.get('numSms')):,} SMs")
    zero = zero_reading(launch, fitted)
    return notes + ([zero] if zero else [])


def footprint_row(launches: list[Launch]) -> FootprintRow:
    """The row of one kernel name's launches (at least one)."""
    by_footprint: dict[tuple[int, int, int], list[Launch]] = defaultdict(list)
    for launch in launches:
        by_footprint[launch.registers, launch.shared, launch.threads].append(launch)
    main = max(by_footprint.values(), key=lambda group: sum(launch.dur_us for launch in group))
    longest = max(main, key=lambda launch: launch.dur_us)
    fitted = fit(longest)
    limits: tuple[str, ...] = fitted.limited_by if fitted else ()
    recorded = [launch for launch in main if launch.recorded is not None]
    weight = sum(launch.dur_us for launch in recorded)
    mean = (sum((launch.recorded or 0) * launch.dur_us for launch in recorded) / weight if weight
            else sum(launch.recorded or 0 for launch in recorded) / len(recorded) if recorded else None)
    return FootprintRow(name=longest.name, launches=len(launches), device_us=sum(launch.dur_us for launch in launches),
                        registers=longest.registers, shared_bytes=longest.shared, threads=longest.threads,
                        grid_blocks=longest.blocks, other_footprints=len(by_footprint) - 1,
                        blocks_per_sm=fitted.blocks if fitted else None,
                        warps_per_sm=fitted.blocks * fitted.warps if fitted else None,
                        theoretical=fitted.theoretical if fitted else None, recorded=mean, limited_by=list(limits),
                        trace_limited_by=list(dict.fromkeys(limit for launch in main
                                                            for limit in launch.recorded_limits)),
                        notes=row_notes(longest, fitted))


def footprint_rows(path: Path | str, limit: int | None = None) -> list[FootprintRow]:
    """The kernels of the trace at ``path`` by name, most time first (the first ``limit``), with their footprint
    and occupancy; empty when the trace records no footprint (CPU traces, ROCm traces without registers)."""
    by_name: dict[str, list[Launch]] = defaultdict(list)
    for launch in kernel_launches(path):
        by_name[launch.name].append(launch)
    rows = sorted((footprint_row(launches) for launches in by_name.values()), key=lambda row: -row["device_us"])
    return rows[:limit]
