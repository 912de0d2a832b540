"""The calls of a region that runs a compiled function: which compiled graph each ran, and which compiled."""

from typing import TypedDict

from profguide.analysis.compile import host_named, is_compilation, is_region
from profguide.analysis.select import Indices
from profguide.trace.model import Trace


class CompiledCall(TypedDict):
    """One call of a region that runs a compiled function (``compiled_calls``)."""

    dur_us: float
    graphs: list[str]
    compiles: int
    compile_us: float


def outermost(trace: Trace, indices: Indices) -> list[int]:
    """The events of ``indices`` that no other of them encloses (``dynamo`` encloses
    ``_compile.compile_inner`` in torch 2.5 and later: one compilation, counted once)."""
    return [i for i in indices if not any(trace.ts[o] <= trace.ts[i] and trace.end[i] <= trace.end[o]
                                          for o in indices if o != i)]


def compiled_calls(trace: Trace, region: str) -> list[CompiledCall]:
    """Every occurrence of the region ``region``, in order of start: its duration, the ``F/R`` (frame and
    recompilation) of each compiled region that ran inside it, and the compilations inside it and their time."""
    regions, compiling = host_named(trace, is_region), host_named(trace, is_compilation)
    found: list[CompiledCall] = []
    for index in host_named(trace, lambda name: name == region):
        def inside(indices: Indices, call: int = index) -> Indices:
            held: Indices = indices[(trace.lane[indices] == trace.lane[call]) & (trace.ts[indices] >= trace.ts[call])
                                    & (trace.end[indices] <= trace.end[call])]
            return held

        compiles = outermost(trace, inside(compiling))
        found.append({
            "dur_us": float(trace.dur[index]),
            "graphs": [trace.names[trace.name[i]].rpartition(": ")[2] for i in inside(regions)],
            "compiles": len(compiles),
            "compile_us": float(sum(trace.dur[i] for i in compiles)),
        })
    return found
