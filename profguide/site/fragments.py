"""The fragments a page can include from a recording, by name, and how each is made from the recording.

A page includes ``docs/generated/<recording>/<fragment>``; the build renders
exactly the fragments that pages include. Each maker takes a run
(``profguide.site.fragment_run``) and returns the files it writes (name →
text): a figure's fragment comes with its SVG file, which the fragment
includes. The fragments here are those any page may include; a fragment only
one page includes is made in that page's parts module (its ``FRAGMENTS``),
for the recordings declared there.
"""

import functools
from collections.abc import Sequence
from typing import TypedDict, cast
from xml.sax.saxutils import escape

from profguide.analysis import collectives
from profguide.analysis.compiled_calls import CompiledCall, compiled_calls
from profguide.analysis.families import CONVOLUTION, kernel_family
from profguide.analysis.job import trace_summary
from profguide.analysis.kernels import gemm_throughput
from profguide.analysis.launches import occupancy_queries
from profguide.analysis.op_view import ops_view
from profguide.analysis.ops import joined_device_us, module_rows, op_rows
from profguide.analysis.regions import region_names, region_tree
from profguide.analysis.select import first_spans, occurrences, step_window
from profguide.errors import RecordingError, UsageError
from profguide.figures import charts
from profguide.figures.ranks import job_svg
from profguide.figures.timeline import timeline_svg
from profguide.render import diff as diff_view
from profguide.render import explain
from profguide.render import fragments as render
from profguide.render import ops as ops_markdown
from profguide.render.facts import per_call
from profguide.render.fragments import percent
from profguide.site import claims
from profguide.site.catalogue import MODULES, RECORDINGS
from profguide.site.fragment_run import (
    FragmentError,
    Maker,
    attributed,
    results_of,
    snippet_runs,
    source_note,
    svg_path,
)
from profguide.site.measures.results import TimerRatio
from profguide.site.recordings import Run
from profguide.stats import median
from profguide.text import code, code_cell, count_of, format_duration, kernel_name, markdown_table


def figure(data: Run) -> dict[str, str]:
    """The annotated timeline of rank 0, with its caption, provenance and hand-off."""
    svg, fragment = timeline_figure(data, data.recording.figure.step, "timeline.svg")
    return {"timeline.svg": svg, "figure.md": fragment}


def timeline_figure(data: Run, step: int | None, svg_name: str) -> tuple[str, str]:
    """The annotated timeline of rank 0, of the whole trace or of ``ProfilerStep#step`` alone, and its fragment,
    which includes it as ``svg_name``: a page that draws two steps of one recording names the second."""
    spec, trace = data.recording.figure, data.trace
    callouts = [(number, name) for number, (name, *_) in enumerate(first_spans(trace, spec.callouts), 1)]
    brackets = [(start, end, f"{name}: {format_duration(dur)}")
                for name, start, end, dur in first_spans(trace, spec.brackets)]
    rank = " (rank 0)" if data.ranks > 1 else ""
    window, drawn, step_words = None, "", ""
    if step is not None:  # a long trace is drawn one step at a time: a whole one would not fit a page
        try:
            window = step_window(trace, step)
        except UsageError as error:
            raise FragmentError(str(error)) from None
        step_words = f", ProfilerStep#{step}"
        drawn = (f"Drawn: ProfilerStep#{step} and the GPU work it launched, "
                 f"{format_duration(window[1] - window[0])}. The whole trace: ")
    svg = timeline_svg(trace, window, title=attributed(data, f"Timeline: {data.title}{rank}{step_words}"),
                       highlight=spec.highlight, brackets=brackets, callouts=callouts)
    return svg, render.figure_fragment(data.title + rank, data.meta, data.facts, svg_path(data, svg_name), callouts,
                                       drawn)


def provenance(data: Run) -> dict[str, str]:
    return {"provenance.md": render.provenance_note(data.meta)}


def steps(data: Run) -> dict[str, str]:
    """Each recorded step's duration against the fastest."""
    found = data.facts["steps"]
    if not found:
        raise FragmentError("no ProfilerStep in this recording")
    return {"steps.md": render.steps_table(found) + "\n" + render.provenance_note(data.meta)}


def spread(data: Run) -> dict[str, str]:
    """Every duration of the top kernel (or of the figure's op on a recording without kernels)."""
    top = data.facts["top_kernels"]
    name = top[0]["name"] if top else data.recording.figure.spread
    if not name or len(durations := charts.op_durations(data.trace, name)) < 2:
        raise FragmentError(f"fewer than two occurrences of {name!r} to spread")
    where = "in the trace" if data.real else "in the recording"
    svg = charts.spread_svg(kernel_name(name), durations, title=attributed(data, f"Spread of {name}"),
                            unit_label=where)
    caption = (f"Every duration of {code(name[:80])} {where}, one dot each, "
               "with the median, the mean (dashed) and the 95th percentile.")
    return {"spread.svg": svg,
            "spread.md": render.extra_figure_fragment(svg_path(data, "spread.svg"), caption) + source_note(data)}


def breakdown(data: Run) -> dict[str, str]:
    """Each step's GPU busy time and idle time by cause. A run without GPU work has none to split: a page shows
    a real GPU trace's instead, never a fragment that says there is nothing."""
    if not data.facts["kernel_count"]:
        raise FragmentError("no GPU work to split into busy and idle: include a GPU run's breakdown")
    svg = charts.breakdown_svg(charts.step_breakdowns(data.trace),
                               title=attributed(data, "GPU time: busy and idle by cause"))
    caption = ("Each step's window, from its start until the GPU finished what it launched, split into GPU busy "
               "time and idle time by cause.")
    return {"breakdown.svg": svg,
            "breakdown.md": render.extra_figure_fragment(svg_path(data, "breakdown.svg"), caption)
            + source_note(data)}


def explained(data: Run) -> dict[str, str]:
    """What ``profguide explain --markdown`` says about rank 0's trace."""
    return {"explain.md": explain.to_markdown(trace_summary(data.trace, data.trace_path()))
            + source_note(data)}


def achieved_tflops(data: Run) -> dict[str, str]:
    """Achieved TFLOP/s of each matrix multiply whose shapes were recorded, against the datasheet's peak. A run
    without kernels joined to such multiplies has none: a page shows a real GPU trace's instead."""
    rows = gemm_throughput(data.trace)
    if not rows:
        raise FragmentError("no kernel joined to a matrix multiply with its shapes: include a GPU run's rates")
    return {"tflops.md": render.tflops_table(rows, data.meta["device_name"]) + "\n"
            + render.provenance_note(data.meta)}


def chains(data: Run) -> dict[str, str]:
    """The call tree under the first occurrence of each event the figure names (``Figure.trees``), or else
    under each ``record_function`` region of rank 0, in order."""
    trace = data.trace
    names: Sequence[str] = data.recording.figure.trees
    if not names:
        names = region_names(trace)
    trees = [region_tree(trace, name) for name in names]
    if not names or not all(trees):
        raise FragmentError("no event to take apart: " + (", ".join(names) if names else "no record_function region"))
    blocks = [render.call_tree(tree) for tree in trees]
    return {"chains.md": "```text\n" + "\n".join(blocks) + "```\n\n" + render.provenance_note(data.meta)}


def convolution_group(name: str) -> str | None:
    """The occupancy table's row for a convolution's kernels, all of one library together (cuDNN names each of its
    many kernels its own way), or None for a GEMM, which has a row of its own."""
    decoded = kernel_family(name)
    if decoded.family != CONVOLUTION:
        return None
    return f"convolution kernels, {decoded.library}" if decoded.library else "convolution kernels"


def occupancy(data: Run) -> dict[str, str]:
    """Launches by kernel family, and how many came right after an occupancy query."""
    found = occupancy_queries(data.trace)
    if not found["queries"]:
        raise FragmentError("no cudaOccupancy… query in this trace")
    return {"occupancy.md": render.occupancy_table(found, convolution_group) + "\n"
            + render.provenance_note(data.meta)}


def collective_anatomy(data: Run) -> dict[str, str]:
    """Rank 0's collectives layer by layer: the call, its parameters, the backend's op, the GPU's share, the
    reducer; each with the thread or stream it runs on; then each step's buckets and their sizes."""
    rows = collectives.anatomy(data.trace)
    if not rows:
        raise FragmentError("no collective (c10d::, gloo:, nccl:) in this trace")
    # DDP's buckets are all-reduces that it calls; others' all-reduces (gloo's reduce-scatter for FSDP) are not.
    steps = collectives.step_buckets(data.trace) if any(row["name"] == "c10d::allreduce_" for row in rows) else []
    buckets = render.buckets_table(steps, "`all_reduce`") if any(row["sizes"] for row in steps) else ""
    return {"collectives.md": render.anatomy_table(rows, collectives.LAYERS) + "\n" + buckets + "\n"
            + render.provenance_note(data.meta)}


def rank_table(data: Run) -> dict[str, str]:
    """The job's verdict, its straggler and each rank's row, as ``profguide explain DIR --markdown`` gives them."""
    if data.ranks < 2 or data.job is None:  # no job of one trace
        raise FragmentError("one trace: a job's table needs the traces of several ranks")
    files = ", ".join(code(data.trace_path(rank).name) for rank in range(data.ranks))
    return {"rank-table.md": explain.job_markdown_body(data.job)
            + f"\nRank files: {files}.\n\n" + render.provenance_note(data.meta)}


def ranks_figure(data: Run) -> dict[str, str]:
    """The ranks one above the other on one time axis, aligned on a collective they all ran."""
    if data.ranks < 2 or data.job is None:  # no job of one trace
        raise FragmentError("one trace: there are no ranks to draw one above the other")
    job = data.job
    by_file = {data.trace_path(rank).name: loaded for rank, loaded in enumerate(data.traces)}
    svg, _ = job_svg(job, lambda row: by_file[row["file"]], title=attributed(data, f"The ranks of {data.title}"))
    aligned = job["aligned_on"]
    how = (f"each rank's clock shifted so that the same {code(kernel_name(aligned['name']))} ends at the "
           "dashed line on every rank" if aligned else "each from the start of its window")
    caption = (f"{escape(data.title)}: the ranks one above the other on one time axis, {how}; each rank's "
               "main thread, the threads or streams its collectives ran on (outlined), and its busiest GPU streams.")
    return {"ranks.svg": svg, "ranks-figure.md": render.standin_notice(data.meta)
            + render.extra_figure_fragment(svg_path(data, "ranks.svg"), caption) + "\n"
            + render.provenance_note(data.meta)}


def compile_calls(data: Run) -> dict[str, str]:
    """Each call of the figure's region in this recording and in the other recordings of its snippet function
    (one column each, named by their ``dynamic``): how long it took, the compiled graph it ran (``F/R``), and
    whether it compiled; the rows are named by what the results call their ``rows`` (``rows_are``; rows of ``x`` by
    default). Without provenance: the page includes each run's ``provenance.md`` under it."""
    region = data.recording.figure.region
    try:
        if not region:
            raise KeyError(region)
        runs = [(run, run.results, compiled_calls(run.trace, region)) for run in snippet_runs(data, RECORDINGS)]
        rows = runs[0][1]["rows"]
        if not all(len(calls) == len(found["rows"]) == len(rows) for _, found, calls in runs):
            raise KeyError(region)
    except (RecordingError, KeyError, TypeError):
        raise FragmentError(f"each run needs results.json with the rows of its calls and one {region!r} per row") \
            from None

    def call_words(call: CompiledCall) -> str:
        graphs = ", ".join(call["graphs"])
        done = f"**compiled** {graphs} in {format_duration(call['compile_us'])}" if call["compiles"] else graphs
        return f"{format_duration(call['dur_us'])}: {done}"

    varies = runs[0][1].get("rows_are", "Rows of `x`")  # what the snippet changed from call to call
    table = markdown_table(("Call", varies, *(f"`dynamic={found['dynamic']}`" for _, found, _ in runs)),
                           [(number, count, *(call_words(calls[number - 1]) for _, _, calls in runs))
                            for number, count in enumerate(rows, 1)], "rr" + "l" * len(runs))
    sentence = "; ".join(f"with `dynamic={found['dynamic']}`, {sum(c['compiles'] > 0 for c in calls)} of the "
                         f"{count_of(len(calls), 'call')} compiled" for _, found, calls in runs)
    # Each run's provenance is its own fragment (provenance.md), which the page includes under this one.
    return {"compile-calls.md": table + "\n" + sentence[0].upper() + sentence[1:] + ".\n"}


def op_view(data: Run) -> dict[str, str]:
    """What ``profguide explain --ops --markdown`` says of rank 0's trace: ops, kernels, the roofline, modules,
    the memory peak."""
    view = ops_view(data.trace, str(data.trace_path().name), path=data.trace_path())
    return {"ops.md": render.standin_notice(data.meta) + ops_markdown.to_markdown(view) + source_note(data)}


def diffed(data: Run) -> dict[str, str]:
    """What ``profguide diff --markdown`` says of the run this one is compared with (``compared_with``) against
    this one."""
    if not data.recording.compared_with:
        raise FragmentError("this run is compared with no other (its compared_with is empty)")
    # pg-reflow: on a phone each row of its tables reads as a block of labelled cells (docs/assets/figures.css).
    return {"diff.md": render.standin_notice(data.meta) + '<div class="pg-reflow" markdown>\n\n'
            + diff_view.to_markdown(data.diff) + "\n</div>\n" + source_note(data)}


def modules(data: Run) -> dict[str, str]:
    """Rank 0's ``nn.Module`` forward calls by class: their device time and its share of all that the trace joins
    to an op, the GPU ops each call launched, and their CPU time."""
    trace = data.trace
    rows = module_rows(trace)
    if not rows:
        raise FragmentError("no nn.Module events (the trace was not recorded with with_stack)")
    device_us = joined_device_us(trace)
    cells = [(code_cell(row["name"]), f"{row['calls']:,}", format_duration(row["device_us"]),
              percent(row["device_us"], device_us), per_call(row["kernels"], row["calls"]),
              format_duration(row["cpu_us"])) for row in rows]
    table = markdown_table(("Module", "Calls", "Device", "Share of device time", "Kernels per call", "CPU total"),
                           cells, "lrrrrr")
    return {"modules.md": f'<div class="pg-reflow" markdown>\n\n{table}\n</div>\n\n'
            + f"Of {format_duration(device_us)} of GPU time that the trace joins to an op. A module inside another "
            + "counts in both rows.\n\n" + source_note(data)}


class OpTotals(TypedDict):
    """An op's calls of every input shape added up (``host_only_ops``)."""

    calls: int
    cpu_us: float
    device_us: float


def host_only_ops(data: Run, limit: int = 15) -> dict[str, str]:
    """The ``aten::`` ops of rank 0's trace that launched no GPU work (no device time, their calls of every
    input shape added up), most CPU time first, with their calls: the views and the allocations."""
    totals: dict[str, OpTotals] = {}
    for row in op_rows(data.trace):
        if row["name"].startswith("aten::"):
            total = totals.setdefault(row["name"], {"calls": 0, "cpu_us": 0.0, "device_us": 0.0})
            total["calls"] += row["calls"]
            total["cpu_us"] += row["cpu_us"]
            total["device_us"] += row["device_us"]
    if not any(total["device_us"] for total in totals.values()):
        raise FragmentError("no aten:: op of this trace launched GPU work: every op would be listed")
    idle = sorted((name for name, total in totals.items() if not total["device_us"]),
                  key=lambda name: (-totals[name]["cpu_us"], name))
    rows = [(code(name), f"{totals[name]['calls']:,}", format_duration(totals[name]["cpu_us"]))
            for name in idle[:limit]]
    table = markdown_table(("Op", "Calls", "CPU total"), rows, "lrr")
    listed = "each of them" if len(rows) == len(idle) else f"the {len(rows)} with the most CPU time"
    sentence = (f"{len(idle):,} of the trace's {len(totals):,} `aten::` ops, by name, launched no kernel, copy or "
                f"set in any call; {listed}, by CPU time. A GPU op belongs to the op inside which its launch call "
                "ran.")
    return {"host-only-ops.md": table + "\n" + sentence + "\n" + source_note(data)}


def timer_comparison(data: Run) -> dict[str, str]:
    """The Timer's measurement as it prints, and the profiler's median for the same op beside it: its ops and
    regions of that name, the events the claims' ``TimerRatio`` measures, whose value the sentence prints."""
    op, timer, printed = results_of(data, "a Timer's measurement", "op", "timer", "printed")
    durations = occurrences(data.trace, op)
    ratio = claims.measured(TimerRatio(op), data)
    if not len(durations) or ratio is None:
        raise FragmentError(f"no {op} in this recording's trace, or no Timer's median to set it against")
    profiler_us = cast(float, median(durations))  # of one duration or more: checked above
    rows = [("`torch.utils.benchmark.Timer`", format_duration(timer["median_us"]),
             f"{timer['blocks']:,} blocks of {count_of(timer['runs_per_block'], 'run')}"),
            (f"`torch.profiler`: {code(op)} events", format_duration(profiler_us),
             count_of(len(durations), "call"))]
    table = markdown_table(("Measured by", "Median", "From"), rows, "lrl")
    sentence = f"The profiler's median over the Timer's: {ratio:.2f}."
    return {"timer.md": f"```text\n{printed}\n```\n\n{table}\n{sentence}\n\n" + render.provenance_note(data.meta)}


FRAGMENTS = {
    "timer.md": timer_comparison,
    "host-only-ops.md": host_only_ops,
    "modules.md": modules,
    "diff.md": diffed,
    "ops.md": op_view,
    "compile-calls.md": compile_calls,
    "rank-table.md": rank_table,
    "ranks-figure.md": ranks_figure,
    "collectives.md": collective_anatomy,
    "chains.md": chains,
    "occupancy.md": occupancy,
    "figure.md": figure,
    "provenance.md": provenance,
    "steps.md": steps,
    "spread.md": spread,
    "breakdown.md": breakdown,
    "explain.md": explained,
    "tflops.md": achieved_tflops,
}


@functools.cache
def page_fragments() -> dict[str, dict[str, Maker]]:
    """The fragments each page's parts module (``catalogue.MODULES``) makes for its own recordings and real traces
    alone, by their ids."""
    return {run.id: getattr(module, "FRAGMENTS", {}) for module in MODULES
            for run in (*getattr(module, "RECORDINGS", ()), *getattr(module, "REAL_TRACES", ()))}


def makers_for(run_id: str) -> dict[str, Maker]:
    """The fragments a recording (or real trace) can give: those of every page, then its own page's."""
    return {**FRAGMENTS, **page_fragments().get(run_id, {})}
