"""The recordings of *Graphs and compiled decoding*: the decoder's generation eager and compiled (static cache, and
dynamic cache), and the real capture and replay of vLLM's piecewise CUDA graphs on an MI300X."""

from __future__ import annotations

from typing import TYPE_CHECKING

from profguide.site.measures.compile import CompileMarker, PerStepFall
from profguide.site.measures.graphs import CallsHolding, CapturedByShare, GraphUse
from profguide.site.measures.host import CallCount
from profguide.site.measures.kernels import KernelsJoined
from profguide.site.measures.ops import NamedInRegion
from profguide.site.measures.summary import VerdictIs
from profguide.site.parts import TRACELENS
from profguide.site.recordings import Claim, Figure, RealTrace, Recording

if TYPE_CHECKING:
    from profguide.site.recordings import Measure

PAGE = "serving-a-model/compiled-decoding.md"
SNIPPET = "snippets.serving_a_model.compiled_decoding"
NEW_TOKENS = 16  # the prefill's step, then fifteen decode steps
SIZES = {"vocabulary": 32000, "layers": 8, "width": 1024, "heads": 16, "hidden": 4096, "batch": 1,
         "prompt_tokens": 512}
# One thread: on the small shared machine that makes the stand-ins, an op split over two threads waits for the
# second. Inductor's C++ build time grows with the graph, not the sizes: two layers keep it short.
SIZES_ON_CPU = {"vocabulary": 2048, "layers": 2, "width": 256, "heads": 4, "hidden": 1024, "batch": 1,
                "prompt_tokens": 64, "threads": 1}
PREFILL_CPU = "prefill bs=1 toks=64"
DECODE = "decode bs=1 toks=1"
EAGER = "serving-decode-eager"
FIRST_GRAPH, SECOND_GRAPH, THIRD_GRAPH = (f"Torch-Compiled Region: 0/{n}" for n in range(3))
GRAPH_CALL = "## Call CompiledFxGraph"
DECODE_KERNEL = "graph_1_cpp_fused_"  # Inductor's C++ kernels of the second graph compiled: the decode step's
GRAPH_LAUNCHES = ("cudaGraphLaunch", "hipGraphLaunch")
CAPTURE = "serving-vllm-capture"
MOE = "vllm::moe_forward"  # vLLM's fused mixture-of-experts op, which the capture records


def claim(page_words: str, measure: Measure, at_least: float, at_most: float | None = None,
          device: str | None = None) -> Claim:
    return Claim(PAGE, page_words, measure, at_least=at_least, at_most=at_least if at_most is None else at_most,
                 device=device)


def decoding(run_id: str, title: str, claims: tuple[Claim, ...], compared_with: str = "",
             **params: object) -> Recording:
    """One generation of ``NEW_TOKENS`` tokens after the one that compiles, one ProfilerStep a phase's step."""
    return Recording(
        id=run_id,
        module=SNIPPET,
        function="profile_decoding",
        params={"new_tokens": NEW_TOKENS, **params, **SIZES},
        cpu_params=SIZES_ON_CPU,
        title="{layers}-layer decoder (width {width}, {heads} heads, MLP {hidden}), " + title
              + ": a prompt of {prompt_tokens} tokens, then {new_tokens} tokens",
        figure=Figure(trees=(DECODE,)),
        claims=claims,
        compared_with=compared_with,
    )


RECORDINGS = (
    decoding(EAGER, "eager, static cache", (
        claim("the eager decode step holds no compiled region", NamedInRegion(DECODE, "Torch-Compiled Region"), 0),
    ), compiled=False),
    decoding("serving-decode-compiled", "compiled, static cache", (
        claim("Every decode step runs the same compiled graph, `Torch-Compiled Region: 0/1`",
              CallsHolding(DECODE, SECOND_GRAPH), NEW_TOKENS - 1),
        claim("the prefill runs the other one, `0/0`", CallsHolding(PREFILL_CPU, FIRST_GRAPH), 1, device="cpu"),
        claim("and no step of the generation compiles anything", CompileMarker("compilations"), 0),
        claim("one call of Inductor's graph", NamedInRegion(DECODE, GRAPH_CALL), 1),
        claim("on the CPU, the decode step's graph runs a handful of Inductor's C++ kernels",
              NamedInRegion(DECODE, DECODE_KERNEL), 4, 12, device="cpu"),
        claim("The compiled step runs between a quarter and a third as many ops as the eager one",
              PerStepFall("ops", EAGER), 3, 4, device="cpu"),
        claim("On a GPU, the compiled decode step should launch at most half as many kernels as the eager one",
              PerStepFall("kernels", EAGER), 2, 1000, device="cuda"),
        claim("and replay no CUDA graph: the default mode captures none", CallCount("cudaGraphLaunch"), 0,
              device="cuda"),
    ), compared_with=EAGER, compiled=True),
    decoding("serving-decode-reduce-overhead", 'compiled with mode="reduce-overhead", static cache', (
        claim("On the CPU, `reduce-overhead` runs the same two graphs", CallsHolding(DECODE, SECOND_GRAPH),
              NEW_TOKENS - 1, device="cpu"),
        claim("and launches no graph", CompileMarker("cuda_graph_launches"), 0, device="cpu"),
        claim("On a GPU, each decode step should replay its graph with one `cudaGraphLaunch`",
              CallsHolding(DECODE, "cudaGraphLaunch"), NEW_TOKENS - 1, device="cuda"),
    ), compared_with=EAGER, compiled=True, mode="reduce-overhead"),
    decoding("serving-decode-dynamic-compiled", "compiled, dynamic cache", (
        claim("The first decode step runs `Torch-Compiled Region: 0/1`", NamedInRegion(DECODE, SECOND_GRAPH), 1),
        claim("every decode step after it runs `0/2`", CallsHolding(DECODE, THIRD_GRAPH), NEW_TOKENS - 2),
    ), compiled=True, cache="dynamic"),
)

REAL_TRACES = (
    RealTrace(
        id=CAPTURE,
        file="docs/traces/mi300x_vllm_piecewise_graph_capture.json.gz",
        title="vLLM capturing its piecewise graphs on an MI300X",
        **TRACELENS,
        claims=(
            claim("`explain`'s verdict on the capture is `graph-capture`", VerdictIs("graph-capture"), 1),
            claim("25 stream captures", GraphUse("captures"), 25),
            claim("record 361 launch calls", GraphUse("captured_calls"), 361),
        ),
    ),
    RealTrace(
        id="serving-vllm-replay",
        file="docs/traces/mi300x_vllm_piecewise_graph_execution.json.gz",
        title="vLLM replaying its piecewise graphs on an MI300X: one step of prefill and decode requests",
        **TRACELENS,
        compared_with=CAPTURE,
        claims=(
            claim("25 graph launches", GraphUse("launches"), 25),
            claim("replay 361 GPU ops", GraphUse("replayed_ops"), 361),
            claim("almost all the GPU's time in the step", GraphUse("replayed_share"), 0.9, 1),
            claim("only about an eighth of the trace's kernels are joined to an op", KernelsJoined(), 0.1, 0.16),
            claim("Every replayed op is matched to the op that captured it", CapturedByShare(), 1),
            claim("`vllm::moe_forward` captured about five sixths of the replayed GPU time", CapturedByShare(MOE),
                  0.78, 0.88),
        ),
    ),
)
