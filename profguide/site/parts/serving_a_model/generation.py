"""The recordings of Part 6, Serving a model: a small decoder generating, at batch 1 and at batch 8, and the
prefill and the decode step timed as the prompt and the batch grow."""

from __future__ import annotations

from typing import TYPE_CHECKING

from profguide.site.measures.generation import SweptRatio
from profguide.site.measures.serving import PhaseVerdictIs, ServingEngineIs, ServingSteps
from profguide.site.measures.summary import DiffRows, DiffValue, RuleFires, VerdictIs
from profguide.site.measures.timing import FirstOverMedian, MedianStepRatio
from profguide.site.recordings import Claim, Figure, Recording

if TYPE_CHECKING:
    from profguide.site.fragment_run import Maker
    from profguide.site.measures.generation import Per, Phase
    from profguide.site.recordings import Measure, Run

PAGE = "serving-a-model/generation.md"
GENERATION = "snippets.serving_a_model.generation"
SWEEP = "snippets.serving_a_model.generation_sweep"
# The GPU sizes are profile_generation's defaults (a model of about 0.1 B parameters); the CPU stand-in's are a
# small one that records in seconds. One thread: on the small shared machine that makes the stand-ins, an op split
# over two threads waits for the second, and the phases' times would measure that wait.
SIZES = {"vocabulary": 32000, "layers": 8, "width": 1024, "heads": 16, "hidden": 4096}
SIZES_ON_CPU = {"vocabulary": 2048, "layers": 2, "width": 256, "heads": 4, "hidden": 1024, "threads": 1}
PROMPT, PROMPT_ON_CPU = 512, 64
NEW_TOKENS, NEW_TOKENS_ON_CPU = 32, 16
BATCH_1 = "serving-generation-batch-1"
SWEPT_BATCHES, SWEPT_BATCHES_ON_CPU = [1, 8, 32], [1, 4, 16]
SWEPT_PROMPTS, SWEPT_PROMPTS_ON_CPU = [128, 512, 2048], [16, 64, 256]


def generation_run(batch: int, claims: tuple[Claim, ...], compared_with: str = "") -> Recording:
    """One generation, one ProfilerStep a phase's step: #1 the prefill, the others its decode steps. The figure
    draws the whole generation; the page's decode figure (decode_figure) one decode step."""
    return Recording(
        id=f"serving-generation-batch-{batch}",
        module=GENERATION,
        function="profile_generation",
        params={"new_tokens": NEW_TOKENS, "batch": batch, "prompt_tokens": PROMPT, **SIZES},
        cpu_params={"new_tokens": NEW_TOKENS_ON_CPU, "prompt_tokens": PROMPT_ON_CPU, **SIZES_ON_CPU},
        title="A decoder of {layers} blocks (width {width}, {heads} heads, vocabulary {vocabulary}) generating "
              "{new_tokens} tokens after a prompt of {prompt_tokens}, batch {batch}",
        figure=Figure(),
        claims=claims,
        compared_with=compared_with,
    )


def on_cpu(page_words: str, measure: Measure, at_least: float, at_most: float) -> Claim:
    return Claim(PAGE, page_words, measure, at_least=at_least, at_most=at_most, device="cpu")


def on_gpu(page_words: str, measure: Measure, at_least: float, at_most: float) -> Claim:
    return Claim(PAGE, page_words, measure, at_least=at_least, at_most=at_most, device="cuda")


def swept(phase: Phase, batch: int, prompt_tokens: int, other: tuple[Phase, int, int], per: Per = "step") -> SweptRatio:
    """The sweep's ``phase`` at (batch, prompt) over ``other`` (phase, batch, prompt)."""
    return SweptRatio(phase, batch, prompt_tokens, *other, per=per)


FIRST_STEP = "ProfilerStep"  # every step: the first is the prefill, the others the decode steps
SHORT, LONG = SWEPT_PROMPTS_ON_CPU[0], SWEPT_PROMPTS_ON_CPU[-1]
LARGEST = SWEPT_BATCHES_ON_CPU[-1]

RECORDINGS = (
    generation_run(1, (
        on_cpu("On the CPU, the prefill step took several times as long as a decode step", FirstOverMedian(FIRST_STEP),
               3, 20),
        on_gpu("on a GPU, the prefill should take no more than a few times as long as a decode step",
               FirstOverMedian(FIRST_STEP), 1, 6),
        on_gpu("and `explain` should call the run launch-bound", VerdictIs("launch-bound"), 1, 1),
        Claim(PAGE, "the steps it reads are the regions' own", ServingEngineIs("record_function"), at_least=1,
              at_most=1),
        Claim(PAGE, "one prefill step", ServingSteps("steps", "prefill"), at_least=1, at_most=1),
        on_cpu("it calls the decode steps host-compute-bound", PhaseVerdictIs("decode", "host-compute-bound"), 1, 1),
        Claim(PAGE, "its cold-start rule stays silent on this run", RuleFires("cold-first-step"), at_least=0,
              at_most=0),
    )),
    generation_run(8, (
        on_cpu("On the CPU, a step at batch 8 took longer than at batch 1, but less than eight times as long",
               DiffValue("step_us"), 1.1, 8),
        Claim(PAGE, "No op was added", DiffRows("ops", "added"), at_least=0, at_most=0),
        Claim(PAGE, "and none removed", DiffRows("ops", "removed"), at_least=0, at_most=0),
        on_gpu("on a GPU, a decode step at batch 8 should take about as long as at batch 1",
               MedianStepRatio(BATCH_1), 0.8, 1.5),
    ), compared_with=BATCH_1),
    Recording(
        id="serving-generation-sweep",
        module=SWEEP,
        function="sweep",
        params={"prompt_lengths": SWEPT_PROMPTS, "batches": SWEPT_BATCHES, "prompt_tokens": PROMPT,
                "new_tokens": 16, "repeats": 3, **SIZES},
        cpu_params={"prompt_lengths": SWEPT_PROMPTS_ON_CPU, "batches": SWEPT_BATCHES_ON_CPU,
                    "prompt_tokens": PROMPT_ON_CPU, "repeats": 5, **SIZES_ON_CPU},
        claims=(
            on_cpu("a token cost a decode step several times what it cost the prefill",
                   swept("decode", 1, PROMPT_ON_CPU, ("prefill", 1, PROMPT_ON_CPU), per="token"), 2, 10),
            on_cpu("per token, a prefill of 256 tokens cost about what one of 64 did",
                   swept("prefill", 1, LONG, ("prefill", 1, PROMPT_ON_CPU), per="token"), 0.7, 1.4),
            on_cpu("a prompt of 16 tokens cost more a token",
                   swept("prefill", 1, SHORT, ("prefill", 1, LONG), per="token"), 1.1, 4),
            on_cpu("A decode step grew far less: a prompt sixteen times as long made it less than three times as long",
                   swept("decode", 1, LONG, ("decode", 1, SHORT)), 1, 3),
            on_cpu("A batch of sixteen made a decode step longer, but much less than sixteen times as long",
                   swept("decode", LARGEST, PROMPT_ON_CPU, ("decode", 1, PROMPT_ON_CPU)), 1.2, 10),
            on_gpu("On a GPU, a decode step of a batch of 32 should take less than twice as long as one of batch 1",
                   swept("decode", SWEPT_BATCHES[-1], PROMPT, ("decode", 1, PROMPT)), 0.8, 2),
        ),
        title="The decoder's prefill and decode step, timed over prompts of {prompt_lengths} tokens at batch 1 and "
              "batches of {batches} at a prompt of {prompt_tokens}",
    ),
)


DECODE_STEP = 2  # the first decode step: ProfilerStep#1 is the prefill


def decode_figure(data: Run) -> dict[str, str]:
    """The timeline of the first decode step, to set beside the figure's (the prefill's)."""
    from profguide.site.fragments import timeline_figure

    svg, fragment = timeline_figure(data, DECODE_STEP, "decode-timeline.svg")
    return {"decode-timeline.svg": svg, "decode-figure.md": fragment}


def sweep_table(data: Run) -> dict[str, str]:
    """Each configuration the sweep timed: its batch and prompt, its prefill and decode step, and each per token."""
    from profguide.render import fragments as render
    from profguide.site.fragment_run import results_of
    from profguide.text import format_duration, markdown_table

    points, repeats, new_tokens = results_of(data, "the sweep's configurations", "points", "repeats", "new_tokens")
    rows = [(f"{point['batch']:,}", f"{point['prompt_tokens']:,}", format_duration(point["prefill_us"]),
             format_duration(point["prefill_us"] / (point["batch"] * point["prompt_tokens"])),
             format_duration(point["decode_us"]), format_duration(point["decode_us"] / point["batch"]))
            for point in points]
    table = markdown_table(("Batch", "Prompt tokens", "Prefill", "Prefill per token", "Decode step",
                            "Decode per token"), rows, "rrrrrr")
    sentence = (f"Medians over {repeats:,} generations of {new_tokens:,} tokens a configuration, after one to warm "
                "up, timed by the clock without the profiler; a decode step's median is over all its steps.")
    return {"sweep.md": render.standin_notice(data.meta) + table + "\n" + sentence + "\n\n"
            + render.provenance_note(data.meta)}


FRAGMENTS: dict[str, Maker] = {"decode-figure.md": decode_figure, "sweep.md": sweep_table}
