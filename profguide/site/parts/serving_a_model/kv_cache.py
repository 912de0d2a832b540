"""The recordings of Part 6, Serving a model: The KV cache."""

from __future__ import annotations

from typing import TYPE_CHECKING

from profguide.site.measures.cache import CategoryInTokens, HeldPerCall, OpAllocationGrowth, OpShareOfRegion
from profguide.site.measures.ops import OpsInRegion
from profguide.site.measures.timing import OpMedianOver
from profguide.site.parts.reading_output.memory import memory_figure
from profguide.site.recordings import Claim, Recording, Table

if TYPE_CHECKING:
    from profguide.site.fragment_run import Maker
    from profguide.site.recordings import Measure, Run

PAGE = "serving-a-model/kv-cache.md"
DYNAMIC, STATIC, LONGER = "serving-kv-dynamic", "serving-kv-static", "serving-kv-dynamic-longer"
# A small model of the size people serve on one GPU, in bfloat16; on the CPU, float32 (a CPU multiplies it fastest),
# a quarter of the width and half the layers, one thread (two would make the ops' times measure thread waits).
# The batch is the same on both, so that the regions' names (``decode bs=4 toks=4``) are too.
PROMPT_TOKENS, NEW_TOKENS, LAYERS_ON_CPU = 512, 16, 4
SIZES = {"new_tokens": NEW_TOKENS, "vocabulary": 32000, "layers": 8, "width": 1024, "heads": 16, "hidden": 4096,
         "batch": 4, "prompt_tokens": PROMPT_TOKENS, "dtype": "bfloat16"}
SIZES_ON_CPU = {"vocabulary": 2048, "layers": LAYERS_ON_CPU, "width": 256, "heads": 4, "hidden": 1024,
                "dtype": "float32", "threads": 1}
DECODE = "decode bs=4 toks=4"
# The tokens whose keys and values the dynamic cache holds when the generation ends (the last token chosen is
# never fed back), and the positions the static cache's buffers have (generation.py sizes them so).
CACHED_AT_END = PROMPT_TOKENS + NEW_TOKENS - 1
BUFFERED = PROMPT_TOKENS + NEW_TOKENS
CACHE_OPS = {"dynamic": "aten::cat", "static": "aten::index_copy_"}


def claim(page_words: str, measure: Measure, at_least: float, at_most: float | None,
          device: str | None = None) -> Claim:
    return Claim(PAGE, page_words, measure, at_least=at_least, at_most=at_most, device=device)


def cache_run(run_id: str, cache: str, claims: tuple[Claim, ...], prompt_tokens: int = PROMPT_TOKENS) -> Recording:
    """One generation with the ``cache`` cache under the memory profiler: a profiler step per phase step."""
    return Recording(
        id=run_id,
        module="snippets.serving_a_model.kv_cache",
        function="profile_cache",
        params={**SIZES, "cache": cache, "prompt_tokens": prompt_tokens},
        cpu_params=SIZES_ON_CPU,
        title="{new_tokens} tokens generated after a {prompt_tokens}-token prompt, batch {batch}, {cache} cache: "
              "{layers} layers of width {width}, {dtype}, memory profiled",
        tables=(Table("memory", sort_by="self_cpu_memory_usage", row_limit=8),),
        memory_timeline=True,
        claims=claims,
    )


RECORDINGS = (
    cache_run(DYNAMIC, "dynamic", (
        claim("each decode step's `aten::cat` calls allocate exactly one token's keys and values more than the "
              "step's before", OpAllocationGrowth("aten::cat", DECODE), 1, 1),
        claim("each decode step leaves allocated one token's keys and values more, and next to nothing else",
              HeldPerCall(DECODE), 1, 1.01),
        claim("it frees more than it allocates", HeldPerCall(DECODE, "first"), -PROMPT_TOKENS, -1),
        claim("A decode step holds two `aten::cat` calls a layer", OpsInRegion(DECODE, "aten::cat"),
              2 * LAYERS_ON_CPU, 2 * LAYERS_ON_CPU, device="cpu"),
        claim("On the CPU stand-in, the concatenations take about a third of each decode step",
              OpShareOfRegion("aten::cat", DECODE), 0.28, 0.42, device="cpu"),
        claim("when the generation ends, the activations hold the keys and values of every token the cache was given, "
              "the prompt's and every generated token's but the last, and next to nothing else",
              CategoryInTokens("ACTIVATION"), CACHED_AT_END, CACHED_AT_END + 0.1),
        claim("on a GPU, the concatenations should allocate one token's keys and values more each step in the "
              "GPU's memory", OpAllocationGrowth("aten::cat", DECODE), 1, 1, device="cuda"),
    )),
    cache_run(STATIC, "static", (
        claim("the static cache's decode steps leave next to nothing allocated", HeldPerCall(DECODE), 0, 0.01),
        claim("its `aten::index_copy_` calls allocate nothing at all", OpAllocationGrowth("aten::index_copy_", DECODE),
              0, 0),
        claim("they take a percent or two of a decode step", OpShareOfRegion("aten::index_copy_", DECODE), 0.005,
              0.03, device="cpu"),
        claim("attention takes half as long again, or more, with the static cache as with the dynamic one",
              OpMedianOver("aten::scaled_dot_product_attention", DYNAMIC), 1.4, 2.5, device="cpu"),
        claim("the category `Unknown` holds the static cache's buffers, one position for each token of the "
              "generation, and next to nothing else", CategoryInTokens("Unknown"), BUFFERED, BUFFERED + 0.1),
        claim("the static cache's decode steps are shorter all the same", OpMedianOver(DECODE, DYNAMIC), 0.5, 0.95,
              device="cpu"),
        claim("on a GPU, its decode steps should leave next to nothing allocated either", HeldPerCall(DECODE), 0,
              0.01, device="cuda"),
    )),
    # The dynamic cache again, after a prompt four times as long: each concatenation copies four times as much.
    cache_run(LONGER, "dynamic", (
        claim("each `aten::cat` takes more than four times as long: tens of times as long",
              OpMedianOver("aten::cat", DYNAMIC), 10, 99, device="cpu"),
        claim("the concatenations' share of a decode step grows to about three quarters",
              OpShareOfRegion("aten::cat", DECODE), 0.65, 0.85, device="cpu"),
        claim("the matrix multiplies, which read the same weights whatever the length, take about as long as they "
              "did", OpMedianOver("aten::mm", DYNAMIC), 0.8, 1.25, device="cpu"),
    ), prompt_tokens=4 * PROMPT_TOKENS),
)


# The fragments only this page's recordings give (the generic ones: profguide.site.fragments). Their imports
# are inside them: `profguide record` imports this module on a bare GPU machine, with the standard library only.


def cache_steps(data: Run) -> dict[str, str]:
    """Each phase step of the generation: what the allocator handed out and took back inside it, what it left
    allocated, and what the cache's op (``aten::cat`` or ``aten::index_copy_``) allocated in it."""
    from profguide.analysis.memory import memory_in_calls
    from profguide.render import fragments as render
    from profguide.site.fragment_run import FragmentError
    from profguide.site.measures.cache import device_type
    from profguide.text import code, format_size, markdown_table

    if data.real or data.params.get("cache") not in CACHE_OPS:
        raise FragmentError("not a generation of the KV cache page: it has no parameters that name a cache")
    params = data.params
    op = CACHE_OPS[params["cache"]]
    where = device_type(data)
    prefill = f"prefill bs={params['batch']} toks={params['batch'] * params['prompt_tokens']}"  # generation.py's
    rows = []
    for region in (prefill, DECODE):
        for number, ((done, undone), (by_op, _)) in enumerate(zip(
                memory_in_calls(data.trace, region, where), memory_in_calls(data.trace, region, where, op),
                strict=True), 1):
            step = "prefill" if region == prefill else f"decode {number}"
            rows.append((step, format_size(int(done)), format_size(int(undone)), format_size(int(done - undone)),
                         format_size(int(by_op))))
    if not rows:
        raise FragmentError(f"no {prefill} or {DECODE} region in this recording")
    table = markdown_table(("Step", "Allocated", "Freed", "Left allocated", f"Allocated in {code(op)}"), rows,
                           "lrrrr")
    return {"cache-steps.md": render.standin_notice(data.meta) + table + "\n\n" + render.provenance_note(data.meta)}


FRAGMENTS: dict[str, Maker] = {"memory-timeline.md": memory_figure, "cache-steps.md": cache_steps}
