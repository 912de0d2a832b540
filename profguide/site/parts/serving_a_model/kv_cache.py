"""The recordings of Part 6, Serving a model: The KV cache."""

from __future__ import annotations

from typing import TYPE_CHECKING

from profguide.site.measures.cache import HeldPerCall, OpAllocationGrowth, OpShareOfRegion
from profguide.site.measures.ops import OpsInRegion
from profguide.site.measures.timing import OpMedianOver
from profguide.site.parts.reading_output.memory import memory_figure
from profguide.site.recordings import Claim, Recording, Table

if TYPE_CHECKING:
    from profguide.site.fragment_run import Maker
    from profguide.site.recordings import Measure, Run

PAGE = "serving-a-model/kv-cache.md"
DYNAMIC, STATIC = "serving-kv-dynamic", "serving-kv-static"
# A small model of the size people serve on one GPU, in bfloat16; on the CPU, float32 (a CPU multiplies it fastest),
# a quarter of the width and half the layers, one thread (two would make the ops' times measure thread waits).
# The batch is the same on both, so that the regions' names (``decode bs=4 toks=4``) are too.
SIZES = {"new_tokens": 16, "vocabulary": 32000, "layers": 8, "width": 1024, "heads": 16, "hidden": 4096, "batch": 4,
         "prompt_tokens": 512, "dtype": "bfloat16"}
SIZES_ON_CPU = {"vocabulary": 2048, "layers": 4, "width": 256, "heads": 4, "hidden": 1024,
                "dtype": "float32", "threads": 1}
PREFILL, DECODE = "prefill bs=4 toks=2048", "decode bs=4 toks=4"
CACHE_OPS = {"dynamic": "aten::cat", "static": "aten::index_copy_"}


def claim(page_words: str, measure: Measure, at_least: float, at_most: float, device: str | None = None) -> Claim:
    return Claim(PAGE, page_words, measure, at_least=at_least, at_most=at_most, device=device)


def cache_run(cache: str, claims: tuple[Claim, ...], compared_with: str = "") -> Recording:
    """One generation with the ``cache`` cache under the memory profiler: a profiler step per phase step."""
    return Recording(
        id=DYNAMIC if cache == "dynamic" else STATIC,
        module="snippets.serving_a_model.kv_cache",
        function="profile_cache",
        params={"cache": cache, **SIZES},
        cpu_params=SIZES_ON_CPU,
        title="{new_tokens} tokens generated after a {prompt_tokens}-token prompt, batch {batch}, {cache} cache: "
              "{layers} layers of width {width}, {dtype}, memory profiled",
        tables=(Table("memory", sort_by="self_cpu_memory_usage", row_limit=8),),
        memory_timeline=True,
        claims=claims,
        compared_with=compared_with,
    )


RECORDINGS = (
    cache_run("dynamic", (
        claim("each decode step's `aten::cat` calls allocate exactly one token's keys and values more than the "
              "step's before", OpAllocationGrowth("aten::cat", DECODE), 1, 1),
        claim("each decode step leaves allocated one token's keys and values more, and next to nothing else",
              HeldPerCall(DECODE), 1, 1.01),
        claim("it frees more than it allocates", HeldPerCall(DECODE, "first"), -SIZES["prompt_tokens"], -1),
        claim("a decode step holds two `aten::cat` calls a layer", OpsInRegion(DECODE, "aten::cat"),
              2 * SIZES_ON_CPU["layers"], 2 * SIZES_ON_CPU["layers"], device="cpu"),
        claim("On the CPU stand-in, the concatenations take about a third of each decode step",
              OpShareOfRegion("aten::cat", DECODE), 0.25, 0.45, device="cpu"),
        claim("On a GPU, the concatenations should allocate one token's keys and values more each step in the "
              "GPU's memory", OpAllocationGrowth("aten::cat", DECODE), 1, 1, device="cuda"),
    )),
    cache_run("static", (
        claim("the static cache's decode steps leave next to nothing allocated", HeldPerCall(DECODE), 0, 0.01),
        claim("its `aten::index_copy_` calls allocate nothing at all", OpAllocationGrowth("aten::index_copy_", DECODE),
              0, 0),
        claim("they take a percent or two of a decode step", OpShareOfRegion("aten::index_copy_", DECODE), 0.005,
              0.03, device="cpu"),
        claim("attention takes longer with the static cache than with the dynamic one, by about a half",
              OpMedianOver("aten::scaled_dot_product_attention", DYNAMIC), 1.3, 2, device="cpu"),
        claim("the static cache's decode steps are shorter all the same", OpMedianOver(DECODE, DYNAMIC), 0.5, 0.95,
              device="cpu"),
        claim("on a GPU, its decode steps should leave next to nothing allocated either", HeldPerCall(DECODE), 0,
              0.01, device="cuda"),
    ), compared_with=DYNAMIC),
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

    op = CACHE_OPS[data.params["cache"]]
    where = device_type(data)
    rows = []
    for region in (PREFILL, DECODE):
        for number, ((done, undone), (by_op, _)) in enumerate(zip(
                memory_in_calls(data.trace, region, where), memory_in_calls(data.trace, region, where, op),
                strict=True), 1):
            step = region.split()[0] + ("" if region == PREFILL else f" {number}")
            rows.append((step, format_size(int(done)), format_size(int(undone)), format_size(int(done - undone)),
                         format_size(int(by_op))))
    if not rows:
        raise FragmentError(f"no {PREFILL} or {DECODE} region in this recording")
    table = markdown_table(("Step", "Allocated", "Freed", "Left allocated", f"Allocated in {code(op)}"), rows,
                           "lrrrr")
    return {"cache-steps.md": render.standin_notice(data.meta) + table + "\n\n" + render.provenance_note(data.meta)}


FRAGMENTS: dict[str, Maker] = {"memory-timeline.md": memory_figure, "cache-steps.md": cache_steps}
