"""The recordings of torch.compile, *What compiling costs*: the calls of a compiled function as its shapes change."""

from __future__ import annotations

from typing import TYPE_CHECKING

from profguide.site.measures.compile import CallsThatCompile, CompileShare
from profguide.site.measures.timing import FirstOverMedian
from profguide.site.recordings import Claim, Figure, Recording

if TYPE_CHECKING:
    from profguide.site.fragment_run import Maker
    from profguide.site.recordings import Run

PAGE = "torch-compile/cost.md"


def calls_recording(recording_id: str, dynamic: bool | None, claims: tuple[Claim, ...]) -> Recording:
    """The calls of the compiled function as the rows change, compiled with ``dynamic``: one of three runs that
    the cost page's calls table puts side by side."""
    return Recording(id=recording_id, module="snippets.torch_compile.cost", function="profile_calls",
                     params={"dynamic": dynamic, "cold": True},
                     title="The calls of a compiled x @ w + b as the rows of x change, dynamic={dynamic}",
                     figure=Figure(region="call"), claims=claims)


RECORDINGS = (
    calls_recording("compile-cost", None, (
        Claim(PAGE, "The first call took more than a thousand times as long as the calls after it",
              FirstOverMedian("call"), at_least=1000, at_most=10000),
        Claim(PAGE, "nearly all of it went to compiling", CompileShare("call"), at_least=0.9, at_most=1),
        Claim(PAGE, "the first new shape compiled again", CallsThatCompile("call"), at_least=2, at_most=2),
    )),
    calls_recording("compile-cost-static", False, (
        Claim(PAGE, "`dynamic=False` compiles once for each shape", CallsThatCompile("call"), at_least=3, at_most=3),
    )),
    calls_recording("compile-cost-dynamic", True, (
        Claim(PAGE, "`dynamic=True` compiles once, for every shape", CallsThatCompile("call"), at_least=1,
              at_most=1),
    )),
)


COMPILE_PHASES = {  # torch._dynamo.utils.compile_times()'s rows that the guide explains, outermost first
    "_compile.compile_inner": "Dynamo: the whole compilation of the frame",
    "bytecode_tracing": "Dynamo: tracing the bytecode into a graph",
    "OutputGraph.call_user_compiler": "The backend: AOTAutograd, then Inductor",
    "compile_fx_inner": "Inductor: lowering the graph, generating and loading its code",
    "async_compile.wait": "Inductor: waiting for the generated kernels to compile",
    "build_guards": "Dynamo: the guards that decide when to reuse the graph",
}


# The fragments only this page's recordings give (the generic ones: profguide.site.fragments). Their imports
# are inside them: `profguide record` imports this module on a bare GPU machine, with the standard library only.


def compile_times(data: Run) -> dict[str, str]:
    """What ``torch._dynamo.utils.compile_times()`` reported after the run, by phase, each compilation in turn,
    under the time the trace gives the calls that compiled."""
    from profguide.analysis.compiled_calls import compiled_calls
    from profguide.errors import RecordingError
    from profguide.render import fragments as render
    from profguide.site.fragment_run import FragmentError
    from profguide.text import code, format_duration, markdown_table

    try:
        phases = data.results["compile_times"]
        cache = data.results["fx_graph_cache"]
    except (RecordingError, KeyError, TypeError):
        raise FragmentError("results.json does not hold compile_times") from None
    compiling = [call for call in compiled_calls(data.trace, data.recording.figure.region or "") if call["compiles"]]
    if not compiling:
        raise FragmentError("no call of the figure's region compiled")
    def durations(values: list[float]) -> str:
        return ", ".join(format_duration(value) for value in values)

    rows = [("The calls that compiled", "the trace", durations([c["dur_us"] for c in compiling])),
            ("Compiling, inside them", "the trace", durations([c["compile_us"] for c in compiling]))]
    rows += [(f"{what} ({code(name)})", "`compile_times()`", durations([1e6 * s for s in phases[name]]))
             for name, what in COMPILE_PHASES.items() if name in phases]
    sentence = f"Inductor's cache of compiled graphs on disk, over the run: hits {cache['hits']}, " \
               f"misses {cache['misses']}."
    return {"compile-times.md": markdown_table(("Measured", "By", "Each time, in order"), rows, "llr") + "\n"
            + sentence + "\n\n" + render.provenance_note(data.meta)}


FRAGMENTS: dict[str, Maker] = {"compile-times.md": compile_times}
