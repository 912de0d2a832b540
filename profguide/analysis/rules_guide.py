"""The guide's own rules: what its pages show going wrong, and the job rules over a folder of rank traces.

Each check reads what ``summarise`` already measured and goes back to the
trace's columns only for the place to look (``at_us``) or for a count the
summary does not keep, over distinct names and numpy masks.
"""

import numpy as np

from profguide.analysis.compile import COMPILE_ID, compile_ids, host_named, is_region
from profguide.analysis.graphs import uses_graphs
from profguide.analysis.idle import LATE_LAUNCH, busy_intervals
from profguide.analysis.intervals import Window, clip_each, covered
from profguide.analysis.kernels import in_window
from profguide.analysis.ranks import STRAGGLER_WAIT_PCT, label
from profguide.analysis.rule import Evidence, JobRule, Rule
from profguide.analysis.select import kinds_mask, names_where, nesting_depths, overlapping
from profguide.analysis.startup import COLD_START_RATIO, setup_calls
from profguide.analysis.summary import Job, MeasuredWindow, Summary
from profguide.analysis.verdict import share_of
from profguide.patterns import COMMUNICATION, LAUNCH_CALL
from profguide.stats import median
from profguide.text import count_of, cut, format_duration
from profguide.trace.model import HOST_KINDS, Trace

# basics/steps.md: a first step pays for set-up once; the ratio is the one ``startup.iterations`` uses for a cold
# first iteration. A median of the others needs two of them, and a last step may be a phantom (the profiler's
# exit, reading-output/footprint.md), so steps are compared from three on.
COLD_STEPS_AT_LEAST = 3
# Device set-up this share of the window (CUDA context, allocator, lazy module loads) skews every other share in
# it; the verdict calls a window start-up from ``startup.STARTUP_PCT`` (50%), this rule warns well before.
DEVICE_SETUP_PCT = 10
# with_stack starts the profiler's Python tracer, which records a python_function event at every Python call
# (reading-output/footprint.md): a training step recorded with it holds about as many as it holds ops, more in the
# forward and fewer in the backward, and a trace without it none, so a tenth of the host's events is far from both.
WITH_STACK_PYTHON_PCT = 10
# torch-compile/when-it-pays.md: a step is launch-bound when the GPU waits for the host launching small ops;
# the verdict's launch-bound needs that wait to be the largest idle cause, this rule half the window.
LAUNCH_BOUND_IDLE_PCT = 50
# Launches per ProfilerStep (per window without steps) from which one CUDA graph replay saves many launches.
MANY_LAUNCHES_PER_STEP = 100
# multi-gpu/overlap.md: exposed communication is time the step cannot hide; the verdict calls a window
# communication-bound over ``verdict.EXPOSED_COMMUNICATION_PCT`` (30%), this rule points at it from a tenth.
EXPOSED_COMMUNICATION_PCT = 10


def span_of(window: MeasuredWindow) -> Window:
    return window["start_us"], window["end_us"]


# cold-first-step


def starts_with_prefill(summary: Summary) -> bool:
    """The first ProfilerStep holds the start of a prefill step (an engine's, or a generation loop's own region):
    it is slow because it reads the whole prompt, not because it is cold."""
    first, serving = summary["steps"][0], summary["serving"]
    return serving is not None and any(
        step["phase"] == "prefill" and first["start_us"] <= step["start_us"] < first["start_us"] + first["dur_us"]
        for step in serving["steps"])


def slow_first_step(summary: Summary) -> Evidence | None:
    steps = summary["steps"]
    if len(steps) < COLD_STEPS_AT_LEAST or starts_with_prefill(summary):
        return None
    first, rest = steps[0], median([step["dur_us"] for step in steps[1:]])
    if not rest:
        return None
    ratio = first["dur_us"] / rest
    if ratio < COLD_START_RATIO:
        return None
    return Evidence(ratio, f"ProfilerStep#{first['step']} took {format_duration(first['dur_us'])}, {ratio:.1f}× "
                           f"the median of the {count_of(len(steps) - 1, 'step')} after it "
                           f"({format_duration(rest)})", first["start_us"])


def slow_first_iteration(summary: Summary) -> Evidence | None:
    found = summary["iterations"]
    cold = found["cold_start"] if found else None
    if found is None or cold is None:
        return None
    setup = cold["setup"]
    inside = f"; device set-up {format_duration(setup['us'])} of it" if setup["us"] else ""
    return Evidence(cold["times_median"], f"the first iteration ({cut(found['found_by'])}) took "
                                          f"{format_duration(cold['dur_us'])}, {cold['times_median']:.1f}× the "
                                          f"median of the {count_of(found['count'] - 1, 'iteration')} after it"
                                          f"{inside}; explain's window leaves it out", cold["start_us"])


def setup_in_window(trace: Trace, summary: Summary) -> Evidence | None:
    setup, window = summary["device_setup"], summary["window"]
    if setup is None or window is None or setup["pct"] < DEVICE_SETUP_PCT:
        return None
    calls = np.flatnonzero(setup_calls(trace) & overlapping(trace, span_of(window)))
    top = ", ".join(f"{cut(name, 40)} {format_duration(us)}" for name, us in setup["top"])
    return Evidence(setup["pct"], f"device set-up {setup['pct']:.0f}% of the window ({format_duration(setup['us'])} "
                                  f"of {format_duration(window['dur_us'])}): {top}",
                    float(trace.ts[calls[0]]) if len(calls) else None)


def cold_first_step(trace: Trace, summary: Summary) -> Evidence | None:
    """The first ProfilerStep (or iteration, without steps) at least twice the others' median, else device
    set-up over a tenth of the window."""
    return slow_first_step(summary) or slow_first_iteration(summary) or setup_in_window(trace, summary)


# profiler-overhead-options


def profiler_overhead_options(trace: Trace, summary: Summary) -> Evidence | None:
    """with_stack on: python_function events at least a tenth of the host's; the other options and the
    profiler's own work are named beside it."""
    python = kinds_mask(trace, ("python",))
    count, host = int(python.sum()), int(kinds_mask(trace, HOST_KINDS).sum())
    pct = 100 * count / host if host else 0.0
    if pct < WITH_STACK_PYTHON_PCT:
        return None
    parts = [f"with_stack on: {count_of(count, 'python_function event')}, {pct:.0f}% of the host's "
             f"{count_of(host, 'event')}"]
    ops = kinds_mask(trace, ("cpu_op",))
    shaped = int((trace.recorded_shapes & ops).sum())
    if shaped:
        parts.append(f"record_shapes on: {shaped:,} of {count_of(int(ops.sum()), 'op')} carry their input shapes")
    if len(trace.memory_ts):
        parts.append(f"profile_memory on: {count_of(len(trace.memory_ts), 'allocator event')}")
    overhead = summary["profiler_overhead"]
    if overhead["events"]:
        parts.append(f"the profiler's own work: {count_of(overhead['events'], 'event')}, "
                     f"{format_duration(overhead['total_us'])} ({cut(', '.join(overhead['by_name']), 60)})")
    return Evidence(pct, "; ".join(parts), float(trace.ts[np.argmax(python)]))


# recompilations


def recompilations(trace: Trace, summary: Summary) -> Evidence | None:
    """A compiled frame compiled again (compile ids F/R with R above 0)."""
    markers = summary["compile"]
    if not markers["recompilations"]:
        return None
    again = [f"{frame}/{attempt}" for frame, attempt in compile_ids(trace) if attempt > 0]
    recompiling = names_where(trace, lambda name: "_data" in name and (found := COMPILE_ID.search(name)) is not None
                              and found.group(2) != "0")
    share_text = f", {markers['compile_pct']:.0f}% of {markers['window']}" if markers["compile_pct"] is not None else ""
    return Evidence(markers["recompilations"],
                    f"{markers['recompilations']} of {count_of(markers['compilations'], 'compilation')} recompiled a "
                    f"frame (compile ids {', '.join(again)}); compiling took {format_duration(markers['compile_us'])}"
                    f"{share_text}",
                    float(trace.ts[np.argmax(recompiling)]) if recompiling.any() else None)


# graph-breaks


def nested_regions(trace: Trace) -> np.ndarray:
    """Indices of the compiled regions that open inside another region on their thread: Dynamo resuming after a
    graph break, in a frame of its own (torch-compile/graph-breaks.md)."""
    regions = host_named(trace, is_region)
    nested = [on_lane[nesting_depths(trace.ts[on_lane], trace.end[on_lane]) > 0]
              for lane in np.unique(trace.lane[regions]).tolist()
              for on_lane in (regions[trace.lane[regions] == lane],)]
    return np.sort(np.concatenate(nested)) if nested else np.zeros(0, np.intp)


def graph_breaks(trace: Trace, summary: Summary) -> Evidence | None:
    """At least one compiled region inside another."""
    markers = summary["compile"]
    if not markers["compiled_regions"]:
        return None
    nested = nested_regions(trace)
    if not len(nested):
        return None
    names = sorted({trace.names[code] for code in trace.name[nested].tolist()})
    eager = (f"; eager code between regions {format_duration(markers['eager_gap_us'])}"
             if markers["eager_gap_us"] else "")
    return Evidence(len(nested), f"{count_of(len(nested), 'compiled region')} of {markers['compiled_regions']:,} "
                                 f"opened inside another ({cut(', '.join(names), 60)}): Dynamo resumed after a "
                                 f"graph break{eager}", float(trace.ts[nested[0]]))


# tiny-launches


def tiny_launches(trace: Trace, summary: Summary) -> Evidence | None:
    """The GPU waited for the host at least half the window, the host launched at least 100 kernels a step, and
    the median kernel ran shorter than the median time between launches; on a trace that neither captures nor
    replays CUDA graphs."""
    window, idle = summary["window"], summary["idle"]
    if window is None or idle is None or not window["dur_us"] or uses_graphs(summary["graphs"]):
        return None  # a capture's launches are recorded, not run, and a replaying step already has its graphs
    late = sum(idle["by_cause"][cause]["idle_us"] for cause in LATE_LAUNCH)
    if 100 * late / window["dur_us"] < LAUNCH_BOUND_IDLE_PCT:
        return None
    span = span_of(window)
    starts = in_window(trace, span)
    launches = np.flatnonzero(names_where(trace, LAUNCH_CALL.match) & kinds_mask(trace, ("runtime", "driver"))
                              & starts)
    steps = max(sum(1 for step in summary["steps"] if step["start_us"] < span[1]
                    and step["start_us"] + step["dur_us"] > span[0]), 1)
    kernels = trace.dur[kinds_mask(trace, ("kernel",)) & starts]
    if len(launches) < max(MANY_LAUNCHES_PER_STEP * steps, 2) or not len(kernels):
        return None
    kernel_us, between_us = median(kernels), median(np.diff(trace.ts[launches]))
    if kernel_us is None or not between_us or kernel_us >= between_us:
        return None
    per = f" over {count_of(steps, 'ProfilerStep')} ({len(launches) // steps:,} a step)" if summary["steps"] else ""
    gaps = [gap for gap in idle["longest_gaps"] if gap["cause"] in LATE_LAUNCH]
    return Evidence(kernel_us / between_us,
                    f"{count_of(len(launches), 'launch call')}{per}; the median kernel ran "
                    f"{format_duration(kernel_us)}, the median time between launches {format_duration(between_us)}; "
                    f"the GPU waited for the host {share_of(late, window['dur_us'])} of the window "
                    f"({format_duration(late)} of {format_duration(window['dur_us'])})",
                    gaps[0]["start_us"] if gaps else float(trace.ts[launches[0]]))


# exposed-communication


def most_exposed(trace: Trace, span: Window) -> float | None:
    """The start of the communication kernel that the most of its time overlaps no computation."""
    kernels = kinds_mask(trace, ("kernel",)) & overlapping(trace, span)
    is_comm = names_where(trace, COMMUNICATION.search)
    comm = np.flatnonzero(kernels & is_comm)
    if not len(comm):
        return None
    starts, ends = clip_each(trace.ts[comm], trace.end[comm], span)
    exposed = (ends - starts) - covered(busy_intervals(trace, span, kernels & ~is_comm), starts, ends)
    return float(trace.ts[comm[np.argmax(exposed)]])


def exposed_communication(trace: Trace, summary: Summary) -> Evidence | None:
    """Communication that overlaps no computation over a tenth of the window."""
    comm, window = summary["communication"], summary["window"]
    if window is None or not comm["kernel_us"] or not window["dur_us"]:
        return None
    pct = 100 * comm["exposed_us"] / window["dur_us"]
    if pct <= EXPOSED_COMMUNICATION_PCT:
        return None
    top = comm["top"][0]
    return Evidence(pct, f"communication that overlaps no computation {format_duration(comm['exposed_us'])}, "
                         f"{pct:.0f}% of the window ({format_duration(window['dur_us'])}); "
                         f"{count_of(comm['kernels'], 'communication kernel')}, the most time in "
                         f"{cut(top['name'], 60)} ({top['count']:,}, {format_duration(top['total_us'])})",
                    most_exposed(trace, span_of(window)))


# straggler-rank (a job rule)


def straggler_rank(job: Job) -> Evidence | None:
    """The job names a straggler and another rank waited for it at least a tenth of its window."""
    index, rows = job["straggler"], job["ranks"]
    if index is None:
        return None
    waited = [row for position, row in enumerate(rows) if position != index and row["wait_pct"] is not None]
    if not waited:
        return None
    longest = max(waited, key=lambda row: row["wait_pct"] or 0.0)
    pct, window = longest["wait_pct"] or 0.0, longest["window"]
    if pct < STRAGGLER_WAIT_PCT:
        return None
    over = sum(1 for row in waited if (row["wait_pct"] or 0.0) >= STRAGGLER_WAIT_PCT)
    others = (f"; {over} of the {len(waited)} other ranks waited {STRAGGLER_WAIT_PCT}% or more" if len(waited) > 1
              else "")
    length = f" of its {format_duration(window['dur_us'])} window" if window else " of its window"
    return Evidence(pct, f"{label(rows[index])} is the straggler: {label(longest)} waited "
                         f"{format_duration(longest['wait_us'] or 0.0)} for it, {pct:.0f}%{length}, over the "
                         f"{count_of(job['shared_collectives'], 'collective')} every rank ran{others}")


RULES: tuple[Rule, ...] = (
    Rule(
        id="cold-first-step",
        source="guide",
        detects="a cold first step or warm-up inside the profiled window",
        measures=f"the first ProfilerStep's duration over the median of the steps after it (from "
                 f"{COLD_STEPS_AT_LEAST} steps), else the first iteration's over the others' without steps, at "
                 f"least {COLD_START_RATIO:g}×; else device set-up as a share of the window, at least "
                 f"{DEVICE_SETUP_PCT}%",
        change="profile past the first steps: torch.profiler.schedule(wait=1, warmup=1, active=N), and read the "
               "steady state",
        page="basics/steps.md#why-is-the-first-step-slow",
        shown_by="basics-steps-from-first",
        clean_on="basics-steps-scheduled",
        check=cold_first_step,
    ),
    Rule(
        id="profiler-overhead-options",
        source="guide",
        detects="the profiler's options slowing the host: with_stack at every Python call, and record_shapes and "
                "profile_memory beside it at every op",
        measures=f"python_function events (with_stack) as a share of the host's events, at least "
                 f"{WITH_STACK_PYTHON_PCT}%",
        change="profile with the defaults first and turn on with_stack, record_shapes or profile_memory only for "
               "the question that needs it, for a few scheduled steps",
        page="reading-output/footprint.md#what-each-option-costs",
        shown_by="reading-table-stacks",
        clean_on="reading-table",
        check=profiler_overhead_options,
    ),
    Rule(
        id="recompilations",
        source="guide",
        detects="torch.compile compiling a frame again (a guard failed: a new shape, type or value)",
        measures="compilations with a recompile attempt above 0 (compile id F/R, R > 0), at least 1",
        change="mark the changing dimension dynamic (torch._dynamo.mark_dynamic, or dynamic=True), or pad inputs "
               "to a few shapes; TORCH_LOGS=recompiles names the guard that failed",
        page="torch-compile/cost.md#a-new-shape",
        shown_by="compile-cost-static",
        clean_on="compile-cost-dynamic",
        check=recompilations,
    ),
    Rule(
        id="graph-breaks",
        source="guide",
        detects="graph breaks: Dynamo resuming in a new compiled frame after code it could not put in a graph",
        measures="compiled regions that open inside another region on their thread, at least 1",
        change="find each break's cause with torch._dynamo.explain or TORCH_LOGS=graph_breaks, and remove it "
               "(keep .item(), print and data-dependent Python out of the compiled function)",
        page="torch-compile/graph-breaks.md#reading-the-break",
        shown_by="compile-graph-break",
        clean_on="compile-in-a-trace",
        check=graph_breaks,
    ),
    Rule(
        id="tiny-launches",
        source="guide",
        detects="many kernels shorter than the host's time between launches, which a CUDA graph would replay "
                "with one launch",
        measures=f"the median kernel's duration over the median time between launch calls, under 1, where the "
                 f"GPU waited for the host at least {LAUNCH_BOUND_IDLE_PCT}% of the window and the host launched "
                 f"at least {MANY_LAUNCHES_PER_STEP} kernels a step",
        change="capture the step in a CUDA graph (torch.compile(mode=\"reduce-overhead\"), or "
               "torch.cuda.graphs), or fuse the small ops (torch.compile)",
        page="torch-compile/when-it-pays.md#modereduce-overhead-and-cuda-graphs",
        shown_by="reading-a100-2rank-launches",
        clean_on="compile-a100-cuda-graphs",
        check=tiny_launches,
    ),
    Rule(
        id="exposed-communication",
        source="guide",
        detects="communication that no computation hides",
        measures=f"communication time that overlaps no computation as a share of the window, over "
                 f"{EXPOSED_COMMUNICATION_PCT}%",
        change="overlap communication with computation: DDP's gradient buckets (bucket_cap_mb), FSDP's prefetch, "
               "collectives on their own stream launched before the work that can hide them",
        page="multi-gpu/overlap.md#hidden-and-exposed",
        shown_by="multigpu-a100-16rank-overlap",
        clean_on="multigpu-a100-2rank-overlap",
        check=exposed_communication,
    ),
)

JOB_RULES: tuple[JobRule, ...] = (
    JobRule(
        id="straggler-rank",
        source="guide",
        detects="one rank that the others wait for in their collectives",
        measures=f"the longest wait of another rank for the straggler, as a share of its window, at least "
                 f"{STRAGGLER_WAIT_PCT}%",
        change="find what the straggler does that the others do not (more data, more work, a slower host or GPU, "
               "a log line) and even it out",
        page="multi-gpu/straggler.md#measured-wait-per-rank",
        shown_by="multigpu-straggler",
        clean_on="multigpu-128rank-sample",
        check=straggler_rank,
    ),
)
