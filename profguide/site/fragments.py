"""The fragments a page can include from a recording, by name, and how each is made from the recording.

A page includes ``docs/generated/<recording>/<fragment>``; the build renders
exactly the fragments that pages include. Each maker takes a
``RecordingData`` and returns the files it writes (name → text): a figure's
fragment comes with its SVG file, which the fragment includes.
"""

import json
from xml.sax.saxutils import escape

from profguide import diff as diff_view
from profguide import explain
from profguide import ops_view as ops_markdown
from profguide.analysis import collectives, kernel_resources, memory, stacks
from profguide.analysis import compile as compile_analysis
from profguide.analysis.communication import communication, step_communication
from profguide.analysis.compiled_calls import compiled_calls
from profguide.analysis.families import CONVOLUTION, kernel_family
from profguide.analysis.host import host_breakdown
from profguide.analysis.job import trace_summary
from profguide.analysis.kernels import gemm_throughput
from profguide.analysis.launches import occupancy_queries
from profguide.analysis.ops import (
    BACKWARD_FUNCTION,
    joined_device_us,
    module_rows,
    op_rows,
    ops_view,
    region_places,
    region_rows,
    sequence_joins,
)
from profguide.analysis.regions import ops_in_each_call, python_calls_by_region, region_calls, region_tree
from profguide.analysis.select import first_of, profiler_steps, step_window, steps_total_us
from profguide.errors import RecordingError, UsageError
from profguide.figures import charts
from profguide.figures.flame import flame_svg
from profguide.figures.host_steps import host_steps_svg
from profguide.figures.memory import memory_timeline_svg
from profguide.figures.ranks import job_svg
from profguide.figures.timeline import timeline_svg
from profguide.patterns import STEP
from profguide.site import claims, render
from profguide.site.catalogue import RECORDINGS
from profguide.site.measures.results import TimerRatio
from profguide.stats import median
from profguide.text import cell, code, code_cell, count_of, format_duration, format_size, kernel_name, markdown_table
from profguide.trace.model import KIND

GENERATED = "docs/generated"


class FragmentError(ValueError):
    """A page asks for a fragment that this recording cannot give."""


def svg_path(data, name):
    return f"{GENERATED}/{data.recording.id}/{name}"


def attributed(data, title):
    """An SVG's title; a real trace's also names its device, source and licence, so that the figure carries them."""
    return f"{title} ({render.real_provenance_words(data.meta)})" if data.real else title


def source_note(data):
    """A real trace's provenance under each of its fragments; a recording's is under its main figure only."""
    return "\n" + render.provenance_note(data.meta) if data.real else ""


def present_first(trace, names):
    """The first event of each name that the trace holds, as (name, index)."""
    return [(name, index) for name in names if (index := first_of(trace, name)) is not None]


def figure(data):
    """The annotated timeline of rank 0, with its caption, provenance and hand-off."""
    spec, trace = data.recording.figure, data.trace
    callouts = [(number, name) for number, (name, _) in enumerate(present_first(trace, spec.callouts), 1)]
    brackets = [(float(trace.ts[i]), float(trace.end[i]), f"{name}: {format_duration(float(trace.dur[i]))}")
                for name, i in present_first(trace, spec.brackets)]
    rank = " (rank 0)" if data.ranks > 1 else ""
    window, drawn, step = None, "", ""
    if spec.step is not None:  # a long trace is drawn one step at a time: a whole one would not fit a page
        try:
            window = step_window(trace, spec.step)
        except UsageError as error:
            raise FragmentError(str(error)) from None
        step = f", ProfilerStep#{spec.step}"
        drawn = (f"Drawn: ProfilerStep#{spec.step} and the GPU work it launched, "
                 f"{format_duration(window[1] - window[0])}. The whole trace: ")
    svg = timeline_svg(trace, window, title=attributed(data, f"Timeline: {data.title}{rank}{step}"),
                       highlight=spec.highlight, brackets=brackets, callouts=callouts)
    fragment = render.figure_fragment(data.title + rank, data.meta, data.facts,
                                      svg_path(data, "timeline.svg"), callouts, drawn)
    return {"timeline.svg": svg, "figure.md": fragment}


def provenance(data):
    return {"provenance.md": render.provenance_note(data.meta)}


def steps(data):
    """Each recorded step's duration against the fastest."""
    found = data.facts["steps"]
    if not found:
        raise FragmentError("no ProfilerStep in this recording")
    return {"steps.md": render.steps_table(found) + "\n" + render.provenance_note(data.meta)}


def compare(data):
    """The first step beside the fastest one, on one time scale."""
    found = data.facts["steps"]
    if len(found) < 2:
        raise FragmentError("fewer than two ProfilerSteps to compare")
    first, fastest = found[0], min(found[1:], key=lambda s: s["dur_us"])
    panels = [(f"ProfilerStep#{s['step']}: {format_duration(s['dur_us'])}", data.trace,
               step_window(data.trace, s["step"])) for s in (first, fastest)]
    svg = charts.comparison_svg(panels, title="The first step and the fastest one, on one time scale")
    caption = (f"The first step, ProfilerStep#{first['step']}, above the fastest, ProfilerStep#{fastest['step']}, "
               f"drawn on the same time scale: the first took {first['dur_us'] / fastest['dur_us']:.2f}× as long.")
    return {"compare.svg": svg, "compare.md": render.extra_figure_fragment(svg_path(data, "compare.svg"), caption)}


def spread(data):
    """Every duration of the top kernel (or of the figure's op on a recording without kernels)."""
    top = data.facts["top_kernels"]
    name = top[0]["name"] if top else data.recording.figure.spread
    durations = charts.op_durations(data.trace, name) if name else []
    if len(durations) < 2:
        raise FragmentError(f"fewer than two occurrences of {name!r} to spread")
    where = "in the trace" if data.real else "in the recording"
    svg = charts.spread_svg(kernel_name(name), durations, title=attributed(data, f"Spread of {name}"),
                            unit_label=where)
    caption = (f"Every duration of {code(name[:80])} {where}, one dot each, "
               "with the median, the mean (dashed) and the 95th percentile.")
    return {"spread.svg": svg,
            "spread.md": render.extra_figure_fragment(svg_path(data, "spread.svg"), caption) + source_note(data)}


def breakdown(data):
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


def explained(data):
    """What ``profguide explain --markdown`` says about rank 0's trace."""
    return {"explain.md": explain.to_markdown(trace_summary(data.trace, data.trace_path()))
            + source_note(data)}


def calls(data):
    """Each call of the figure's region, first call against the later ones, with a sentence that says so."""
    region = data.recording.figure.region
    found = region_calls(data.trace, region) if region else []
    if len(found) < 2:
        raise FragmentError(f"fewer than two calls of {region!r} to compare")
    first, later = found[0], found[1:]
    slowest = max(call["dur_us"] for call in later)
    sentence = (f"The first call of {code(region)} took {format_duration(first['dur_us'])}, "
                f"{first['dur_us'] / slowest:.0f}× the slowest of the {count_of(len(later), 'later call')}; "
                f"{format_duration(first['dur_us'] - first['in_ops_us'])} of it was in no op.")
    return {"calls.md": render.calls_table(found) + "\n" + sentence + "\n\n" + render.provenance_note(data.meta)}


def events(data):
    """The events of rank 0's trace by kind (``ph``), with the share of complete events in words."""
    counts = data.trace.phases
    total = sum(counts.values())
    sentence = (f"Of the {count_of(total, 'event')} in this recording's trace, {counts.get('X', 0):,} are "
                "complete events.")
    return {"events.md": sentence + "\n\n" + render.phases_table(counts) + "\n" + render.provenance_note(data.meta)}


def achieved_tflops(data):
    """Achieved TFLOP/s of each matrix multiply whose shapes were recorded, against the datasheet's peak. A run
    without kernels joined to such multiplies has none: a page shows a real GPU trace's instead."""
    rows = gemm_throughput(data.trace)
    if not rows:
        raise FragmentError("no kernel joined to a matrix multiply with its shapes: include a GPU run's rates")
    return {"tflops.md": render.tflops_table(rows, data.meta["device_name"]) + "\n"
            + render.provenance_note(data.meta)}


def chains(data):
    """The call tree under the first occurrence of each event the figure names (``Figure.trees``), or else
    under each ``record_function`` region of rank 0, in order."""
    trace = data.trace
    names = data.recording.figure.trees
    if not names:
        annotations = trace.kind == KIND["annotation"]
        names = [name for name in dict.fromkeys(trace.names[code] for code in trace.name[annotations])
                 if not STEP.match(name)]
    trees = [region_tree(trace, name) for name in names]
    if not names or not all(trees):
        raise FragmentError("no event to take apart: " + (", ".join(names) if names else "no record_function region"))
    blocks = [render.call_tree(tree) for tree in trees]
    return {"chains.md": "```text\n" + "\n".join(blocks) + "```\n\n" + render.provenance_note(data.meta)}


def convolution_group(name):
    """The occupancy table's row for a convolution's kernels, all of one library together (cuDNN names each of its
    many kernels its own way), or None for a GEMM, which has a row of its own."""
    decoded = kernel_family(name)
    if decoded.family != CONVOLUTION:
        return None
    return f"convolution kernels, {decoded.library}" if decoded.library else "convolution kernels"


def occupancy(data):
    """Launches by kernel family, and how many came right after an occupancy query."""
    found = occupancy_queries(data.trace)
    if not found["queries"]:
        raise FragmentError("no cudaOccupancy… query in this trace")
    return {"occupancy.md": render.occupancy_table(found, convolution_group) + "\n"
            + render.provenance_note(data.meta)}


def memory_figure(data):
    """Memory by category over the recorded steps (``memory-timeline.json``), each step's start marked."""
    if not (data.folder / "memory-timeline.json").is_file():
        raise FragmentError("no memory-timeline.json in this recording (its Recording needs memory_timeline=True)")
    try:
        times, sizes = memory.memory_timeline(data.json_file("memory-timeline.json"))
        times = memory.to_trace_clock(times, data.trace)
        steps = [(f"ProfilerStep#{s['step']}", s["start_us"]) for s in profiler_steps(data.trace)]
        where = "the GPU" if data.meta["device"] == "cuda" else "the CPU"
        svg = memory_timeline_svg(times, sizes, steps, title=f"Memory on {where} by category: {data.title}")
    except ValueError as error:
        raise FragmentError(str(error)) from None
    total = sum(sizes.values())
    peak = int(total.argmax())
    largest = max(sizes, key=lambda category: sizes[category][peak])
    caption = (f"The bytes each of torch's memory categories held on {where}, stacked, over "
               f"{count_of(len(steps), 'recorded step')} (a dashed line where each starts). At the peak, "
               f"{format_size(int(total[peak]))} in all; the largest category then, {largest}, held "
               f"{format_size(int(sizes[largest][peak]))}.")
    fragment = (render.standin_notice(data.meta) + render.extra_figure_fragment(svg_path(data, "memory-timeline.svg"),
                                                                               caption))
    return {"memory-timeline.svg": svg, "memory-timeline.md": fragment + "\n" + render.provenance_note(data.meta)}


def profiler_options(options):
    """A configuration's arguments to ``profile()`` in words: none at all, the defaults, or the options."""
    if options is None:
        return "–"
    return ", ".join(code(f"{name}={value}") for name, value in options.items()) or "nothing"


def footprint(data):
    """Each profiler configuration's median step time and its ratio to the steps without a profiler."""
    try:
        found = data.results
        rows, baseline = found["configurations"], found["configurations"][0]["median_step_us"]
        table = markdown_table(("Configuration", "Passed to `profile()`", "Median step", "× no profiler"),
                               [(cell(row["name"]), profiler_options(row["options"]),
                                 format_duration(row["median_step_us"]), f"{row['median_step_us'] / baseline:.2f}")
                                for row in rows], "llrr")
        sentence = (f"Each configuration ran {count_of(found['steps_per_round'], 'step')} in each of "
                    f"{found['rounds']} rounds, the configurations interleaved; each row is the median of its "
                    f"{count_of(found['steps_per_round'] * found['rounds'], 'step')}.")
    except (RecordingError, KeyError, IndexError, TypeError, AttributeError, ZeroDivisionError):
        raise FragmentError("results.json is missing or does not hold the timings of profiler configurations") \
            from None
    return {"footprint.md": table + "\n" + sentence + "\n\n" + render.provenance_note(data.meta)}


def host_steps(data):
    """Each recorded step of this run and of the other recordings of its snippet function, split by host
    activity on one time scale, with a table of the median step and its time loading data (no GPU work)."""
    runs = snippet_runs(data)
    hosts = [host_breakdown(run.trace) for run in runs]
    if not all(host and STEP.match(host["windows"][0]["label"]) for host in hosts):
        raise FragmentError("a run of this snippet has no ProfilerStep to split by host activity")
    svg = host_steps_svg([(run.title, [(w["label"], w["by_activity_us"]) for w in host["windows"]])
                          for run, host in zip(runs, hosts, strict=True)],
                         title="Each recorded step, split by what the main thread was doing")
    table = markdown_table(
        ("Run", "Median step", "Median time loading data", "Share of the steps loading data"),
        [(cell(run.title), format_duration(median([w["dur_us"] for w in host["windows"]])),
          format_duration(median([w["by_activity_us"]["data loading"] for w in host["windows"]])),
          f"{100 * host['by_activity']['data loading']['us'] / host['dur_us']:.1f}%")
         for run, host in zip(runs, hosts, strict=True)], "lrrr")
    caption = ("Each recorded step of each run, one bar per step, all on one time scale. A bar adds up the "
               "time the main thread spent in each activity during the step, in the order a step runs them; "
               "it shows how long, not exactly when.")
    notes = "\n".join(render.provenance_note(run.meta) for run in runs)
    return {"host-steps.svg": svg,
            "host-steps.md": render.extra_figure_fragment(svg_path(data, "host-steps.svg"), caption) + "\n"
            + table + "\n" + notes}


def communication_steps(data):
    """Each step's window split into computation alone, communication hidden behind it, communication exposed
    and neither, with a sentence that gives the share hidden and the range of the share exposed."""
    rows = step_communication(data.trace)
    comm = [row for row in rows if row["overlapped_us"] + row["exposed_us"] > 0]
    if not comm:
        raise FragmentError("no step with communication kernels (NCCL, RCCL) in this trace")
    found = communication(data.trace)
    exposed = [row["exposed_us"] / row["window_us"] for row in comm]
    caption = (f"Each step's window, from its start until the GPU finished what it launched. Over the whole "
               f"trace, {found['overlap_pct']:.1f}% of the communication kernels' time was hidden behind "
               f"computation; exposed communication took {min(exposed):.1%} to {max(exposed):.1%} of a step.")
    return {"communication.svg": charts.communication_svg(rows),
            "communication.md": render.extra_figure_fragment(svg_path(data, "communication.svg"), caption)
            + source_note(data)}


def collective_anatomy(data):
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


def rank_traces(data):
    """Each rank's trace file and what its ``distributedInfo`` says, then the last rank's in full."""
    infos = [loaded.distributed_info for loaded in data.traces]
    files = [data.trace_path(rank).name for rank in range(data.ranks)]
    if not any(infos):
        raise FragmentError("no distributedInfo in this recording's traces")
    shown = json.dumps(infos[-1], indent=2)
    return {"ranks.md": render.ranks_table(infos, files) + f"\n`distributedInfo` of `{files[-1]}`:\n\n"
            + f"```json\n{shown}\n```\n\n" + render.provenance_note(data.meta)}


def rank_table(data):
    """The job's verdict, its straggler and each rank's row, as ``profguide explain DIR --markdown`` gives them."""
    if data.ranks < 2:
        raise FragmentError("one trace: a job's table needs the traces of several ranks")
    files = ", ".join(code(data.trace_path(rank).name) for rank in range(data.ranks))
    return {"rank-table.md": explain.job_markdown_body(data.job)
            + f"\nRank files: {files}.\n\n" + render.provenance_note(data.meta)}


def ranks_figure(data):
    """The ranks one above the other on one time axis, aligned on a collective they all ran."""
    if data.ranks < 2:
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


def snippet_runs(data):
    """This recording and the other recordings of its snippet function that have been made, in catalogue
    order, as data; a recording the catalogue does not list comes first, and a real trace alone."""
    if data.real:
        return [data]
    runs = [data if r.id == data.recording.id else data.sibling(r.id) for r in RECORDINGS
            if (r.module, r.function) == (data.recording.module, data.recording.function)
            and (data.folder.parent / r.id).is_dir()]
    return runs if any(run is data for run in runs) else [data, *runs]


def fusion(data):
    """The eager and the compiled run of one model side by side: ops (and kernels) per step, median step, then
    each op's (and kernel's) count per step."""
    if data.real:
        raise FragmentError("a real trace has no eager run to compare with")
    runs = sorted(snippet_runs(data), key=lambda run: bool(run.params.get("compiled")))
    rows = [(run, compile_analysis.step_counts(run.trace)) for run in runs]
    if len(runs) != 2 or not all(counts for _, counts in rows):
        raise FragmentError("fusion compares an eager and a compiled recording, each with ProfilerSteps")
    kernels = any(row["kernels"] for _, counts in rows for row in counts)

    def per_step(counts, key):
        return median([row[key] for row in counts])

    counted = ("ops", "aten_ops", *(("kernels",) if kernels else ()))
    headings = ("Run", "Ops per step", "`aten::` ops per step", *(("Kernels per step",) if kernels else ()),
                "Median step")
    table = markdown_table(headings, [(cell(run.title), *(f"{per_step(counts, key):g}" for key in counted),
                                       format_duration(per_step(counts, "dur_us"))) for run, counts in rows],
                           "l" + "r" * (len(headings) - 1))
    names = [compile_analysis.names_per_step(run.trace, "cpu_op") for run in runs]
    if kernels:
        names += [compile_analysis.names_per_step(run.trace, "kernel") for run in runs]
    by_name = [(code_cell(shorten(name)), f"{eager.get(name, 0):g}", f"{compiled.get(name, 0):g}")
               for (eager, compiled), shorten in ((names[:2], str), (names[2:], kernel_name))[:1 + kernels]
               for name in sorted(set(eager) | set(compiled), key=lambda n: (-eager.get(n, 0), -compiled.get(n, 0), n))]
    sentence = (f"Each run recorded {count_of(len(rows[0][1]), 'step')} after warm-up calls, in a process of "
                "its own; a count per step is the median over its steps, or, by name, the mean.")
    notes = "\n".join(render.provenance_note(run.meta) for run in runs)
    return {"fusion.md": render.standin_notice(data.meta) + table + "\n"
            + markdown_table(("Op or kernel", "Eager, per step", "Compiled, per step"), by_name, "lrr") + "\n"
            + sentence + "\n\n" + notes}


def variant_row(run, region):
    """One row of ``variants``: the run's variant, what ran, its ops and time a call, and on a GPU its kernels."""
    meant, ran = run.recording.params.get("variant"), run.params.get("variant")
    name = f"[{code(meant)}](/{render.trace_url(run.meta)})"
    waits = "waits for a GPU run"
    if ran != meant:
        return (name, f"nothing: its CPU stand-in ran {code(ran)} instead", "–", "–", waits)
    calls = region_calls(run.trace, region)
    if not calls:
        raise FragmentError(f"{run.recording.id} has no call of {region!r}")
    ops = median(ops_in_each_call(run.trace, region, "aten::"))
    row = next(row for row in region_rows(run.trace) if row["name"] == region)
    on_gpu = (f"{per_call(row['kernels'], row['calls'])} · {format_duration(row['device_us'] / row['calls'])}"
              if run.meta.get("device") == "cuda" else waits)
    return (name, code(ran), f"{ops:g}", format_duration(median([call["dur_us"] for call in calls])), on_gpu)


def variants(data):
    """Each recording of this snippet function by its ``variant`` parameter, side by side: what ran on the device
    it was made on, the ``aten::`` ops a call of the figure's region held and its median time, and on a GPU the
    kernels each call launched and their time; a CPU stand-in that had to run another variant shows nothing of it."""
    region = data.recording.figure.region
    if data.real or not region:
        raise FragmentError("variants compares the recordings of one snippet function, each call in the figure's "
                            "region")
    runs = snippet_runs(data)
    table = markdown_table(("Variant", "Ran", "`aten::` ops a call", "Median call", "On a GPU: kernels · their time "
                            "a call"), [variant_row(run, region) for run in runs], "llrrr")
    sentence = (f"Each variant ran in a process of its own; a call is one `{region}` region, its ops counted at any "
                "depth, its time the median over the recorded calls. The variant's name downloads its trace.")
    notes = "\n".join(render.provenance_note(run.meta) for run in runs)
    # pg-reflow: on a phone each row reads as a block of labelled cells (docs/assets/figures.css).
    return {"variants.md": render.standin_notice(data.meta)
            + f'<div class="pg-reflow" markdown>\n\n{table}\n</div>\n\n{sentence}\n\n{notes}'}


def pays(data):
    """Each size's median step eager and compiled, their ratio, the first compiled call, and how many steps
    it takes the compiled steps to win back that first call's extra time."""
    try:
        data.results["configurations"]  # this recording's own results first: the others only add rows
        runs = snippet_runs(data)
        lines = []
        for run in runs:
            timed = {row["name"]: row for row in run.results["configurations"]}
            eager, compiled = timed["eager"], timed["compiled"]
            saved = eager["median_step_us"] - compiled["median_step_us"]
            extra = compiled["first_call_us"] - eager["first_call_us"]
            back = f"{max(extra, 0) / saved:,.0f}" if saved > 0 else "never: the compiled step is not faster"
            lines.append((cell(run.title), f"{run.results['steps']:,}", format_duration(eager["median_step_us"]),
                          format_duration(compiled["median_step_us"]),
                          f"{compiled['median_step_us'] / eager['median_step_us']:.2f}",
                          format_duration(eager["first_call_us"]), format_duration(compiled["first_call_us"]), back))
    except (RecordingError, KeyError, TypeError, ZeroDivisionError):
        raise FragmentError("results.json is missing or does not hold eager and compiled timings") from None
    sentence = ("Each median is over the steps timed, eager and compiled interleaved, after warm-up calls; each "
                "size ran in a process of its own, so that its first compiled call compiled.")
    notes = "\n".join(render.provenance_note(run.meta) for run in runs)
    table = markdown_table(("Run", "Steps timed", "Eager, median step", "Compiled, median step", "Compiled / eager",
                            "First call, eager", "First call, compiled", "Steps to win back the first call"),
                           lines, "lrrrrrrl")
    return {"pays.md": render.standin_notice(data.meta) + table + "\n" + sentence + "\n\n" + notes}


def compile_calls(data):
    """Each call of the figure's region in this recording and in the other recordings of its snippet function
    (one column each, named by their ``dynamic``): how long it took, the compiled graph it ran (``F/R``), and
    whether it compiled; the rows are named by what the results call their ``rows`` (``rows_are``; rows of ``x`` by
    default). Without provenance: the page includes each run's ``provenance.md`` under it."""
    region = data.recording.figure.region
    try:
        runs = [(run, run.results, compiled_calls(run.trace, region)) for run in snippet_runs(data)]
        rows = runs[0][1]["rows"]
        if not region or not all(len(calls) == len(found["rows"]) == len(rows) for _, found, calls in runs):
            raise KeyError(region)
    except (RecordingError, KeyError, TypeError):
        raise FragmentError(f"each run needs results.json with the rows of its calls and one {region!r} per row") \
            from None

    def call_words(call):
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


COMPILE_PHASES = {  # torch._dynamo.utils.compile_times()'s rows that the guide explains, outermost first
    "_compile.compile_inner": "Dynamo: the whole compilation of the frame",
    "bytecode_tracing": "Dynamo: tracing the bytecode into a graph",
    "OutputGraph.call_user_compiler": "The backend: AOTAutograd, then Inductor",
    "compile_fx_inner": "Inductor: lowering the graph, generating and loading its code",
    "async_compile.wait": "Inductor: waiting for the generated kernels to compile",
    "build_guards": "Dynamo: the guards that decide when to reuse the graph",
}


def compile_times(data):
    """What ``torch._dynamo.utils.compile_times()`` reported after the run, by phase, each compilation in turn,
    under the time the trace gives the calls that compiled."""
    try:
        phases = data.results["compile_times"]
        cache = data.results["fx_graph_cache"]
    except (RecordingError, KeyError, TypeError):
        raise FragmentError("results.json does not hold compile_times") from None
    compiling = [call for call in compiled_calls(data.trace, data.recording.figure.region or "") if call["compiles"]]
    if not compiling:
        raise FragmentError("no call of the figure's region compiled")
    def durations(values):
        return ", ".join(format_duration(value) for value in values)

    rows = [("The calls that compiled", "the trace", durations([c["dur_us"] for c in compiling])),
            ("Compiling, inside them", "the trace", durations([c["compile_us"] for c in compiling]))]
    rows += [(f"{what} ({code(name)})", "`compile_times()`", durations([1e6 * s for s in phases[name]]))
             for name, what in COMPILE_PHASES.items() if name in phases]
    sentence = f"Inductor's cache of compiled graphs on disk, over the run: hits {cache['hits']}, " \
               f"misses {cache['misses']}."
    return {"compile-times.md": markdown_table(("Measured", "By", "Each time, in order"), rows, "llr") + "\n"
            + sentence + "\n\n" + render.provenance_note(data.meta)}


def communication_calls(data):
    """Rank 0's communication kernels by the collective whose backend op launched them and by kernel name, each
    with its kernels, their time added one by one and its share of all of it."""
    rows = collectives.communication_by_call(data.trace)
    total = sum(row["us"] for row in rows)
    if not total:
        raise FragmentError("no communication kernel (NCCL, RCCL) in this trace")
    table = markdown_table(("Launched by", "Kernel", "Kernels", "Time", "Share"),
                           [(code(row["call"]) if row["call"] else "no launch in the trace",
                             code_cell(kernel_name(row["kernel"])), f"{row['count']:,}", format_duration(row["us"]),
                             f"{row['us'] / total:.1%}") for row in rows], "llrrr")
    sentence = ("Each communication kernel is joined to the call that launched it: its correlation id leads to "
                "the launch call, and the backend op around that call on its thread names the collective. A "
                "kernel whose launch the trace does not hold was launched before the profiler started. Time: the "
                "kernels' durations added one by one.")
    return {"communication-calls.md": table + "\n" + sentence + "\n" + source_note(data)}


def rule_findings(data):
    """What the rules found on rank 0's trace, as ``explain`` words it: a row a finding, linked to the rule's row
    on the reference page (the rule table's anchors)."""
    found = data.summary["findings"]
    if not found:
        raise FragmentError("no rule finds anything on this run: a page that shows its findings has none to show")
    origin = float(data.trace.ts.min())
    rows = [(f"[`{row['rule']}`](../reference/explain.md#rule-{row['rule']})", cell(row["evidence"], markdown=True),
             format_duration(row["at_us"] - origin) if row["at_us"] is not None else "–",
             cell(row["change"], markdown=True)) for row in found]
    # pg-reflow: on a phone each row reads as a block of labelled cells (docs/assets/figures.css). The time is
    # where to look, not a cost: its heading says so.
    table = markdown_table(("Rule", "What it measured", "Seen at, from the trace's start", "Try"), rows, "llrl")
    return {"findings.md": render.standin_notice(data.meta) + f'<div class="pg-reflow" markdown>\n\n{table}\n</div>\n'
            + source_note(data)}


def op_view(data):
    """What ``profguide explain --ops --markdown`` says of rank 0's trace: ops, modules, the memory peak."""
    return {"ops.md": render.standin_notice(data.meta) + ops_markdown.to_markdown(ops_view(data.trace, str(
        data.trace_path().name))) + source_note(data)}


def diffed(data):
    """What ``profguide diff --markdown`` says of the run this one is compared with (``compared_with``) against
    this one."""
    if not data.recording.compared_with:
        raise FragmentError("this run is compared with no other (its compared_with is empty)")
    # pg-reflow: on a phone each row of its tables reads as a block of labelled cells (docs/assets/figures.css).
    return {"diff.md": render.standin_notice(data.meta) + '<div class="pg-reflow" markdown>\n\n'
            + diff_view.to_markdown(data.diff) + "\n</div>\n" + source_note(data)}


def percent(part, whole):
    return f"{100 * part / whole:.1f}%" if whole else "–"


def per_call(count, calls):
    """A count per call: whole where it is whole (8, not 8.0)."""
    value = count / calls
    return f"{value:,.0f}" if value == int(value) else f"{value:,.1f}"


def nested_order(rows, places):
    """``rows`` (by name, in their order) with each row that runs inside another (``places``) right after that
    one, those in its forward before those in its backward; as (row, depth)."""
    children = {}
    for row in rows:
        if row["name"] in places:
            children.setdefault(places[row["name"]].parent, []).append(row)
    ordered = []

    def add(row, depth):
        ordered.append((row, depth))
        for child in sorted(children.get(row["name"], ()), key=lambda child: places[child["name"]].backward):
            add(child, depth + 1)

    for row in rows:
        if row["name"] not in places:
            add(row, 0)
    return ordered


def step_parts(data):
    """Each ``record_function`` region of rank 0's trace with the backward functions joined to it by sequence
    number (``profguide explain --ops`` finds them so): CPU time by pass, and its share of the steps'; on a GPU,
    the device time launched inside, and its share of all that the trace joins to an op or region. A region that
    runs inside another (``region_places``) comes under it, its time in the pass it runs in, its share in
    parentheses as a part of that one's; the outermost rows and the time outside every region add up to the whole."""
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

    def share(part, whole, depth):
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


def sequence_numbers(data, numbers=4):
    """How ``step-parts.md`` joins a region to its backward, on the first region, in ``region_rows``' order (most
    device time, then most CPU time), whose first call holds an op with a sequence number: the ops of that call
    that carry an autograd sequence number, for the first ``numbers`` numbers, which of them made the node of its
    number, and the backward function that ran that node."""
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


def modules(data):
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


def percent_of(fraction):
    return "–" if fraction is None else f"{100 * fraction:.3g}%"


def resources(data, limit=12):
    """The kernels of rank 0's trace by footprint, most kernel time first: the threads, registers and shared
    memory of a block as the trace records them, how many blocks fit on one SM by each limit and in all
    (``profguide.analysis.kernel_resources``), the theoretical occupancy, and the trace's own occupancy column.
    Kernels whose short names and footprints agree (ATen's elementwise loops, one per functor) make one row."""
    groups = {}
    for launch in kernel_resources.kernel_launches(data.trace_path()):
        fit = kernel_resources.fit(launch)
        if fit is not None:
            key = (kernel_name(launch.name), launch.threads, launch.registers, launch.shared)
            groups.setdefault(key, []).append((launch, fit))
    if not groups:
        raise FragmentError("no kernel whose footprint the trace records (registers, shared memory, block, grid) "
                            "on a GPU its deviceProperties describe")
    ranked = sorted(groups.values(), key=lambda found: -sum(launch.dur_us for launch, _ in found))

    def blocks(value):
        return "–" if value is None else f"{value:,}"

    rows = []
    for found in ranked[:limit]:
        launch, fit = found[0]
        calls = sorted({one.call for one, _ in found if one.call})
        recorded = [one.recorded for one, _ in found if one.recorded is not None]
        names = len({one.name for one, _ in found})
        shown = code_cell(kernel_name(launch.name)) + (f" ({names:,} kernels)" if names > 1 else "")
        launched = f"{len(found):,}" + (f" by {', '.join(code(call) for call in calls)}" if calls else "")
        # Three numbers a cell, in the order the heading names them: the table fits a wide page unscrolled.
        footprint = f"{launch.threads:,} · {launch.registers:,} · {format_size(launch.shared)}"
        by_limit = " · ".join(blocks(fit.by[one]) for one in ("registers", "shared memory", "warps"))
        rows.append((shown, launched, footprint, by_limit, f"{fit.blocks:,}", ", ".join(fit.limited_by),
                     percent_of(fit.theoretical), percent_of(median(recorded) if recorded else None)))
    # pg-reflow: on a phone each row reads as a block of labelled cells (docs/assets/figures.css).
    table = markdown_table(("Kernel", "Launches", "A block: threads · registers a thread · shared memory",
                            "Blocks an SM by registers · shared memory · warps", "Blocks an SM", "Limited by",
                            "Theoretical occupancy", "The trace's occupancy"), rows, "llrrrlrr")
    default = ranked[0][0][0].device.get("sharedMemPerBlock")
    shown_rows = "every row" if len(ranked) <= limit else f"the {len(rows)} rows with the most time of {len(ranked)}"
    sentence = ("One row for each kernel and footprint, most kernel time first: " + shown_rows + ". Threads, "
                "registers and shared memory are the trace's own; the blocks that fit on one SM by each limit are "
                "worked out from the trace's deviceProperties as CUDA's occupancy calculator does, and the least "
                "of them, in warps over the most warps an SM holds, is the theoretical occupancy. The last column "
                "is the median of the trace's est. achieved occupancy, which the profiler caps at the blocks the "
                "grid gives each SM and works out as if no kernel used more shared memory a block than the "
                "default limit" + (f", {format_size(default)} here" if isinstance(default, int) else "") + ".")
    return {"resources.md": f'<div class="pg-reflow" markdown>\n\n{table}\n</div>\n\n{sentence}\n'
            + source_note(data)}


def host_only_ops(data, limit=15):
    """The ``aten::`` ops of rank 0's trace that launched no GPU work (no device time, their calls of every
    input shape added up), most CPU time first, with their calls: the views and the allocations."""
    totals = {}
    for row in op_rows(data.trace):
        if row["name"].startswith("aten::"):
            total = totals.setdefault(row["name"], {"calls": 0, "cpu_us": 0.0, "device_us": 0.0})
            for column in total:
                total[column] += row[column]
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


def results_of(data, what, *keys):
    """The entries ``keys`` of the run's ``results.json`` (read as ``claims.from_results`` reads it); FragmentError
    naming ``what`` when it lacks them."""
    found = claims.from_results(data, read=lambda results: [results[key] for key in keys])
    if found is None:
        raise FragmentError(f"results.json is missing or does not hold {what}")
    return found


def timer_comparison(data):
    """The Timer's measurement as it prints, and the profiler's median for the same op beside it: its ops and
    regions of that name, the events the claims' ``TimerRatio`` measures, whose value the sentence prints."""
    op, timer, printed = results_of(data, "a Timer's measurement", "op", "timer", "printed")
    durations = claims.occurrences(data.trace, op)
    ratio = claims.measured(TimerRatio(op), data)
    if not len(durations) or ratio is None:
        raise FragmentError(f"no {op} in this recording's trace, or no Timer's median to set it against")
    rows = [("`torch.utils.benchmark.Timer`", format_duration(timer["median_us"]),
             f"{timer['blocks']:,} blocks of {count_of(timer['runs_per_block'], 'run')}"),
            (f"`torch.profiler`: {code(op)} events", format_duration(median(durations)),
             count_of(len(durations), "call"))]
    table = markdown_table(("Measured by", "Median", "From"), rows, "lrl")
    sentence = f"The profiler's median over the Timer's: {ratio:.2f}."
    return {"timer.md": f"```text\n{printed}\n```\n\n{table}\n{sentence}\n\n" + render.provenance_note(data.meta)}


def exported_stack_lines(data):
    (lines,) = results_of(data, "the lines export_stacks wrote", "stacks")
    if not lines:
        raise FragmentError("export_stacks wrote no line in this recording")
    return lines


def stack_lines(data, shown=3):
    """The first lines of the stacks file that end in the snippet's own code, as ``export_stacks`` wrote them."""
    lines, snippet = exported_stack_lines(data), data.recording.snippet
    ending = [line for line in lines if line.rpartition(" ")[0].rpartition(";")[2].startswith(snippet)]
    distinct = {line.rpartition(" ")[0] for line in lines}
    sentence = (f"The file holds {count_of(len(lines), 'line')}, one for each op with its stack, "
                f"and {count_of(len(distinct), 'distinct stack')}; above, the first {shown} that end in "
                f"{code(snippet)}.")
    return {"stacks.md": "```text\n" + "\n".join(ending[:shown]) + "\n```\n\n" + sentence + "\n\n"
            + render.provenance_note(data.meta)}


def flame(data):
    """The flame graph of the stacks ``export_stacks`` wrote."""
    lines, snippet = exported_stack_lines(data), data.recording.snippet
    svg = flame_svg(stacks.folded(lines), (snippet,), title=f"Flame graph: {data.title}")
    caption = (f"The {count_of(len(lines), 'line')} that `export_stacks` wrote, drawn as a flame graph: each bar "
               "is a Python frame, as wide as the self CPU time of the ops below it, and the frames it called sit "
               "on top of it. Hover over a bar for its file, line and time.")
    return {"flame.svg": svg, "flame.md": render.extra_figure_fragment(svg_path(data, "flame.svg"), caption)
            + "\n" + render.provenance_note(data.meta)}


EXECUTION_TRACE_KEYS = ("id", "name", "ctrl_deps", "inputs", "outputs")  # a node's fields, less its long attrs


def execution_trace(data, rows=10):
    """One node of the execution trace, and its nodes by name beside the profiler's events of the same name."""
    schema, by_name, example = results_of(data, "an execution trace's summary", "schema", "nodes_by_name",
                                          "example")
    trace = data.trace
    events = {name: int((trace.name == trace.names.index(name)).sum()) if name in trace.names else 0
              for name in by_name}
    node = {key: example[key] for key in EXECUTION_TRACE_KEYS if key in example}
    node["attrs"] = [attr for attr in example.get("attrs", []) if attr["name"] == "op_schema"]
    table = markdown_table(("Node name", "Nodes", "Events in the profiler's trace"),
                           [(code(name), count, events[name]) for name, count in list(by_name.items())[:rows]],
                           "lrr")
    besides = [name for name, count in events.items() if not count]
    sentence = (f"The execution trace ({code(schema)}) holds {count_of(sum(by_name.values()), 'node')} under "
                f"{count_of(len(by_name), 'name')}; above, the {rows} most frequent. Names with no event in the "
                f"profiler's trace: {', '.join(code(name) for name in besides) or 'none'}. The node shown is its "
                f"first {code(example['name'])}, with only its operator schema among its attributes.")
    return {"execution-trace.md": f"```json\n{two_levels(node)}\n```\n\n{table}\n{sentence}\n\n"
            + render.provenance_note(data.meta)}


def two_levels(value, indent=""):
    """JSON with a line for each key of ``value`` and of the objects it holds, deeper values on their key's line."""
    if not isinstance(value, dict):
        return json.dumps(value)
    inner = indent + "  "
    lines = [f"{inner}{json.dumps(key)}: {two_levels(item, inner) if not indent else json.dumps(item)}"
             for key, item in value.items()]
    return "{\n" + ",\n".join(lines) + f"\n{indent}}}"


def flight_recorder(data):
    """Each rank's flight recorder: its collectives, in order."""
    (ranks,) = results_of(data, "the ranks' flight recorders", "ranks")
    rows = [(rank, entry["seq"], code(entry["name"]), code(json.dumps(entry["sizes"])))
            for rank, buffer in enumerate(ranks) for entry in buffer]
    table = markdown_table(("Rank", "Collective", "Name", "Input sizes"), rows, "rrll")
    return {"flight-recorder.md": table + "\n" + render.provenance_note(data.meta)}


def python_calls(data):
    """Each ``record_function`` region of rank 0's trace with its ops and the Python calls that ``with_stack``
    recorded inside it, and the calls per op."""
    rows = python_calls_by_region(data.trace)
    if not any(row["python_calls"] for row in rows):
        raise FragmentError("no Python call in any region: the trace was recorded without with_stack")
    cells = [(code_cell(row["region"]), f"{row['ops']:,}", f"{row['python_calls']:,}",
              f"{row['python_calls'] / row['ops']:.2f}" if row["ops"] else "–") for row in rows]
    table = markdown_table(("Region", "Ops", "Python calls", "Python calls per op"), cells, "lrrr")
    sentence = ("Each region counts the ops and the Python calls that lie wholly inside it, at any depth (a call "
                "that returns after the region ends is not counted in it); a Python call is one `python_function` "
                "event, a built-in function's too.")
    return {"python-calls.md": table + "\n" + sentence + "\n\n" + render.provenance_note(data.meta)}


FRAGMENTS = {
    "timer.md": timer_comparison,
    "stacks.md": stack_lines,
    "flame.md": flame,
    "execution-trace.md": execution_trace,
    "flight-recorder.md": flight_recorder,
    "resources.md": resources,
    "host-only-ops.md": host_only_ops,
    "step-parts.md": step_parts,
    "sequence-numbers.md": sequence_numbers,
    "modules.md": modules,
    "diff.md": diffed,
    "ops.md": op_view,
    "findings.md": rule_findings,
    "communication-calls.md": communication_calls,
    "compile-calls.md": compile_calls,
    "compile-times.md": compile_times,
    "fusion.md": fusion,
    "variants.md": variants,
    "pays.md": pays,
    "rank-table.md": rank_table,
    "ranks-figure.md": ranks_figure,
    "collectives.md": collective_anatomy,
    "ranks.md": rank_traces,
    "communication.md": communication_steps,
    "memory-timeline.md": memory_figure,
    "footprint.md": footprint,
    "chains.md": chains,
    "occupancy.md": occupancy,
    "figure.md": figure,
    "provenance.md": provenance,
    "steps.md": steps,
    "compare.md": compare,
    "spread.md": spread,
    "breakdown.md": breakdown,
    "explain.md": explained,
    "calls.md": calls,
    "events.md": events,
    "tflops.md": achieved_tflops,
    "host-steps.md": host_steps,
    "python-calls.md": python_calls,
}
