"""The recordings of Part 5, Inside a model: a small decoder block trained, eager and compiled."""

from __future__ import annotations

from typing import TYPE_CHECKING

from profguide.site.measures.compile import PerStepFall
from profguide.site.measures.ops import BackwardOverForward, NamedInRegion, RegionCount, RegionShare
from profguide.site.measures.results import TimesLogged
from profguide.site.parts.inside_a_model.mlp import CPP_KERNEL
from profguide.site.recordings import Claim, Figure, Recording

if TYPE_CHECKING:
    from profguide.analysis.ops import RegionPlace, RegionRow
    from profguide.site.fragment_run import Maker
    from profguide.site.recordings import Measure, Run

PAGE = "inside-a-model/transformer-block.md"
BLOCK = "snippets.inside_a_model.transformer_block"
STEPS = 4
SIZES = {"layers": 4, "width": 1024, "heads": 16, "hidden": 4096, "batch": 8, "tokens": 512}
# One thread: on the small shared machine that makes the stand-ins, an op split over two threads waits for the
# second, and the parts' shares would measure that wait.
SIZES_ON_CPU = {"layers": 2, "width": 256, "heads": 4, "hidden": 1024, "batch": 4, "tokens": 128, "threads": 1}
EAGER = "model-block-eager"
PARTS = ("norm", "attention", "MLP", "optimizer")
COMPILED_REGION = "Torch-Compiled Region: 0/0"  # the block's one compiled frame, its first compilation
FORWARD = "CompiledFunction"  # the compiled forward's op; its backward is CompiledFunctionBackward
# What torch 2.13's Dynamo logs, once, where it treats a record_function as a context that does nothing
# (torch/_dynamo/variables/ctx_manager.py, ProfilerRecordFunctionContextVariable).
IGNORED = "Profiler record function <class 'torch.autograd.profiler.record_function'> will be ignored"


def block_run(compiled: bool, claims: tuple[Claim, ...], compared_with: str = "") -> Recording:
    """One training step a ProfilerStep; the parts of the eager forward are regions (compiling drops them)."""
    return Recording(
        id="model-block-compiled" if compiled else EAGER,
        module=BLOCK,
        # Compiled, the run keeps Dynamo's log as its results: the page quotes what Dynamo said of the regions.
        function="profile_block_logged" if compiled else "profile_block",
        params={"compiled": compiled, "steps": STEPS, **SIZES},
        cpu_params=SIZES_ON_CPU,
        title="{layers} pre-norm decoder blocks (width {width}, {heads} heads, MLP {hidden}) trained on {batch} × "
              "{tokens} tokens, " + ("compiled" if compiled else "eager") + ": {steps} steps",
        figure=Figure(step=2, trees=(FORWARD,) if compiled else ()),
        claims=claims,
        compared_with=compared_with,
    )


def claim(page_words: str, measure: Measure, at_least: float, at_most: float | None = None,
          device: str | None = None) -> Claim:
    return Claim(PAGE, page_words, measure, at_least=at_least, at_most=at_least if at_most is None else at_most,
                 device=device)


def on_cpu(page_words: str, measure: Measure, at_least: float, at_most: float | None = None) -> Claim:
    return claim(page_words, measure, at_least, at_most, device="cpu")


def on_gpu(page_words: str, measure: Measure, at_least: float, at_most: float | None = None) -> Claim:
    return claim(page_words, measure, at_least, at_most, device="cuda")


def no_region(page_words: str, region: str) -> Claim:
    return claim(page_words, RegionCount(region), 0)


RECORDINGS = (
    block_run(False, (
        on_cpu("On the CPU, the MLP takes the largest share of the steps", RegionShare("MLP", among=PARTS), 1),
        on_cpu("more than half", RegionShare("MLP"), 0.5, 1),
        on_cpu("Attention takes about a quarter", RegionShare("attention"), 0.18, 0.32),
        on_cpu("the optimizer about a twentieth", RegionShare("optimizer"), 0.035, 0.07),
        on_cpu("the norms a few percent", RegionShare("norm"), 0.01, 0.09),
        on_cpu("The MLP's backward takes about twice as long as its forward", BackwardOverForward("MLP"), 1.6, 2.4),
        on_cpu("so does attention's", BackwardOverForward("attention"), 1.6, 2.4),
        on_gpu("the MLP should still take the largest share of device time",
               RegionShare("MLP", time="device", among=PARTS), 1),
    )),
    block_run(True, (
        no_region("the compiled run's trace holds no `norm` region", "norm"),
        no_region("no `attention` region", "attention"),
        no_region("and no `MLP` region", "MLP"),
        claim("The compiled run logged it once", TimesLogged(IGNORED), 1),
        on_cpu("On the CPU, the compiled backward takes about three fifths of the steps",
               RegionShare(COMPILED_REGION, passes="backward"), 0.52, 0.68),
        on_cpu("On the CPU, the compiled forward holds one fused kernel for each norm",
               NamedInRegion(FORWARD, CPP_KERNEL, containing="_mean_mul_pow_rsqrt"), 2 * SIZES_ON_CPU["layers"]),
        on_cpu("All but the first of those kernels start with `_unsafe_view_add`",
               NamedInRegion(FORWARD, CPP_KERNEL + "_unsafe_view_add", containing="_mean_mul_pow_rsqrt"),
               2 * SIZES_ON_CPU["layers"] - 1),
        on_gpu("On a GPU, the compiled step should launch between a quarter and two thirds as many kernels as the "
               "eager one", PerStepFall("kernels", EAGER), 1.5, 4),
    ), compared_with=EAGER),
)


# The fragments only this page's recordings give (the generic ones: profguide.site.fragments). Their imports
# are inside them: `profguide record` imports this module on a bare GPU machine, with the standard library only.


def nested_order(rows: list[RegionRow], places: dict[str, RegionPlace]) -> list[tuple[RegionRow, int]]:
    """``rows`` (by name, in their order) with each row that runs inside another (``places``) right after that
    one, those in its forward before those in its backward; as (row, depth)."""
    children: dict[str, list[RegionRow]] = {}
    for row in rows:
        if row["name"] in places:
            children.setdefault(places[row["name"]].parent, []).append(row)
    ordered: list[tuple[RegionRow, int]] = []

    def add(row: RegionRow, depth: int) -> None:
        ordered.append((row, depth))
        for child in sorted(children.get(row["name"], ()), key=lambda child: places[child["name"]].backward):
            add(child, depth + 1)

    for row in rows:
        if row["name"] not in places:
            add(row, 0)
    return ordered


def step_parts(data: Run) -> dict[str, str]:
    """Each ``record_function`` region of rank 0's trace with the backward functions joined to it by sequence
    number (``profguide explain --ops`` finds them so): CPU time by pass, and its share of the steps'; on a GPU,
    the device time launched inside, and its share of all that the trace joins to an op or region. A region that
    runs inside another (``region_places``) comes under it, its time in the pass it runs in, its share in
    parentheses as a part of that one's; the outermost rows and the time outside every region add up to the whole."""
    from profguide.analysis.ops import joined_device_us, region_places, region_rows
    from profguide.analysis.select import profiler_steps, steps_total_us
    from profguide.render import fragments as render
    from profguide.render.facts import per_call
    from profguide.render.fragments import percent
    from profguide.site.fragment_run import FragmentError
    from profguide.text import code_cell, count_of, format_duration, markdown_table

    trace = data.trace
    regions = region_rows(trace)
    if not regions:
        raise FragmentError("no record_function region to split the steps by")
    places = region_places(trace)
    steps_us = steps_total_us(trace)
    device_us = joined_device_us(trace)
    on_gpu = device_us > 0
    headings = ["Region", "Calls", "Forward CPU", "Backward CPU", "Share of the steps"]
    if on_gpu:
        headings += ["Forward device", "Backward device", "Share of device time", "Kernels per call"]

    def share(part: float, whole: float, depth: int) -> str:
        return f"({percent(part, whole)})" if depth else percent(part, whole)

    rows, outside_us, outside_device_us = [], steps_us, device_us
    for row, depth in nested_order(regions, places):
        place = places.get(row["name"])
        in_backward = place is not None and place.backward
        cpu = ["–", format_duration(row["cpu_us"])] if in_backward else [
            format_duration(row["cpu_us"]), format_duration(row["backward_cpu_us"]) if row["backward_calls"] else "–"]
        name = code_cell(row["name"])
        if place is not None:
            name = (f"{'↳ ' * depth}{name}<br><small>in {'the backward of ' if in_backward else ''}"
                    f"{code_cell(place.parent)}</small>")
        cpu_us, row_device_us = row["cpu_us"] + row["backward_cpu_us"], row["device_us"] + row["backward_device_us"]
        cells = [name, f"{row['calls']:,}", *cpu, share(cpu_us, steps_us, depth)]
        if on_gpu:
            device = [format_duration(row["device_us"]), format_duration(row["backward_device_us"])]
            cells += [*(device[::-1] if in_backward else device), share(row_device_us, device_us, depth),
                      per_call(row["kernels"], row["calls"])]
        if not depth:
            outside_us, outside_device_us = outside_us - cpu_us, outside_device_us - row_device_us
        rows.append(cells)
    outside = ["Outside every region", "–", "–", "–", percent(max(outside_us, 0.0), steps_us)]
    if on_gpu:
        outside += ["–", "–", percent(max(outside_device_us, 0.0), device_us), "–"]
    rows.append(outside)
    # pg-reflow: on a phone each row reads as a block of labelled cells (docs/assets/figures.css).
    table = markdown_table(headings, rows, "lr" + "r" * (len(headings) - 2))
    nested = ("A row marked ↳ runs inside the row it names, in that row's forward or its backward: its time is "
              "part of that row's, and its share, in parentheses, too. " if places else "")
    return {"step-parts.md": render.standin_notice(data.meta) + f'<div class="pg-reflow" markdown>\n\n{table}\n</div>\n'
            + f"\nOver {count_of(len(profiler_steps(trace)), 'step')} of {format_duration(steps_us)} in all. "
            + nested + "The shares without parentheses and the time outside every region add up to the whole.\n\n"
            + render.provenance_note(data.meta)}


def sequence_numbers(data: Run, numbers: int = 4) -> dict[str, str]:
    """How ``step-parts.md`` joins a region to its backward, on the first region, in ``region_rows``' order (most
    device time, then most CPU time), whose first call holds an op with a sequence number: the ops of that call
    that carry an autograd sequence number, for the first ``numbers`` numbers, which of them made the node of its
    number, and the backward function that ran that node."""
    from profguide.analysis.ops import BACKWARD_FUNCTION, region_rows, sequence_joins
    from profguide.render import fragments as render
    from profguide.site.fragment_run import FragmentError
    from profguide.text import code, code_cell, count_of, markdown_table

    found = next(((row["name"], joins) for row in region_rows(data.trace)
                  if (joins := sequence_joins(data.trace, row["name"], numbers))), None)
    if found is None:
        raise FragmentError("no region holds an op with an autograd sequence number")
    region, joins = found
    rows = [(code(join["op"]), f"{join['sequence']:,}", "yes" if join["makes_node"] else "no",
             code_cell(join["backward"].removeprefix(BACKWARD_FUNCTION)) if join["makes_node"] else "–")
            for join in joins]
    table = markdown_table(("Forward op", "Sequence number", "Made the node", "Backward function "
                            f"(<code>{BACKWARD_FUNCTION.strip()}</code> …)"), rows, "lrll")
    sentence = (f"The ops of the first call of {code(region)}, in the order they started, that carry a sequence "
                f"number: the first {count_of(numbers, 'number')}. The backward function of each number ran in the "
                "backward pass, outside every region of the forward.")
    return {"sequence-numbers.md": f'<div class="pg-reflow" markdown>\n\n{table}\n</div>\n\n{sentence}\n\n'
            + render.provenance_note(data.meta)}


FRAGMENTS: dict[str, Maker] = {"step-parts.md": step_parts, "sequence-numbers.md": sequence_numbers}
