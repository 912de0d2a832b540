"""Check what the guide's pages say about a recording against the recording.

Each claim (``profguide.site.recordings.Claim``) quotes a sentence of a page
and names a measurement; this module finds the sentence on the page, takes
the measurement from the recording's data, and compares it with the claim's
bound. A claim about one device is checked on that device's run: a claim
about the CPU beside a CUDA recording on the CPU run kept with it; a claim
about CUDA beside a CPU stand-in waits for the GPU run, and says so. Any
other claim that cannot be checked fails the build, as does a claim that
names what no run, real trace or vocabulary holds: a misspelt name would
otherwise pass for an absent one.
"""

import functools
import json
import textwrap
from collections import Counter
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Annotated, Literal, get_args, get_origin, get_type_hints

import numpy as np

from profguide.analysis import collectives, kernel_resources, stacks
from profguide.analysis.communication import communication, step_communication
from profguide.analysis.compile import compile_markers, step_counts
from profguide.analysis.compiled_calls import compiled_calls
from profguide.analysis.diff import TraceDiff
from profguide.analysis.families import FAMILY_WORDS, Family, family_values, kernel_family, split_label
from profguide.analysis.host import CPU_ACTIVITIES, host_breakdown
from profguide.analysis.idle import IDLE_CAUSES, busy_intervals, idle_breakdown
from profguide.analysis.intervals import clip_each, inside_any, union_length
from profguide.analysis.kernels import busiest_gemm_times, gemm_calls, gemm_throughput, kernel_rows, top_kernels
from profguide.analysis.launches import launch_delays, occupancy_queries, profiler_overhead, synchronisations
from profguide.analysis.memory import CATEGORIES as MEMORY_CATEGORIES
from profguide.analysis.memory import frees_in_region, left_at_end, memory_timeline, ratio_at_end
from profguide.analysis.ops import (
    MODULE,
    host_times,
    joined_device_us,
    launch_owners,
    module_op_device,
    module_rows,
    op_rows,
    positions_inside,
    region_rows,
)
from profguide.analysis.regions import (
    ops_in_each_call,
    ops_in_region,
    python_calls_by_region,
    region_calls,
    region_tree,
)
from profguide.analysis.rules import JOB_RULES, RULES
from profguide.analysis.select import (
    first_of,
    gpu_window,
    host_syncs,
    kinds_mask,
    launch_of,
    names_where,
    on_a_stream,
    overlapping,
    profiler_steps,
    steps_total_us,
)
from profguide.analysis.startup import setup_calls
from profguide.analysis.summarise import measured_window
from profguide.analysis.verdict import HOST_VERDICTS, VERDICTS
from profguide.errors import RecordingError, TraceError
from profguide.site import marks, operators, recordings
from profguide.site.data import load_once
from profguide.site.render import run_words
from profguide.stats import median
from profguide.text import cell, code, count_of, markdown_table
from profguide.trace.model import KIND, NO_ID

# What checking a claim can come to. A claim waits only as a prediction about CUDA runs beside a CPU stand-in of
# a recording meant for CUDA; every other claim is checked on the run it names, or the build fails on it.
HOLDS, FAILS, WAITS = "holds", "fails", "waits"
NOT_CHECKED, MISNAMED, NOT_ON_PAGE = "not checked", "misnamed", "not on its page"
FAILING = (FAILS, NOT_CHECKED, MISNAMED, NOT_ON_PAGE)

MEASURES = {}  # kind of measure (a subclass of recordings.Measure) → the function that takes it


def takes(kind):
    """Register the function below as the way to take measures of ``kind``: ``function(measure, data)``."""

    def register(function):
        if kind in MEASURES:
            raise ValueError(f"{kind.__name__} is taken by {MEASURES[kind].__name__} already")
        MEASURES[kind] = function
        return function

    return register


def occurrences(trace, region):
    """Durations of every occurrence of a region, in order of start (``ProfilerStep``: every step)."""
    if region == "ProfilerStep":
        return np.array([step["dur_us"] for step in profiler_steps(trace)])
    if region not in trace.names:
        return np.empty(0)
    named = (trace.name == trace.names.index(region)) & np.isin(trace.kind, [KIND["annotation"], KIND["cpu_op"]])
    return trace.dur[named]


@takes(recordings.FirstOverRest)
def first_over_rest(measure, data):
    durations = occurrences(data.trace, measure.region)
    return float(durations[0] / durations[1:].max()) if len(durations) > 1 else None


@takes(recordings.SlowestOverFastest)
def slowest_over_fastest(measure, data):
    durations = occurrences(data.trace, measure.region)
    return float(durations.max() / durations.min()) if len(durations) > 1 and durations.min() > 0 else None


@takes(recordings.OutsideOps)
def outside_ops(measure, data):
    later = region_calls(data.trace, measure.region)[1:]
    total = sum(call["dur_us"] for call in later)
    return sum(call["dur_us"] - call["in_ops_us"] for call in later) / total if total else None


@takes(recordings.CpuShare)
def cpu_share(measure, data):
    rows = {row["name"]: row for row in data.rows}
    if measure.part not in rows or measure.whole not in rows or not rows[measure.whole]["cpu_total_us"]:
        return None
    part = rows[measure.part]["self_cpu_us" if measure.self_time else "cpu_total_us"]
    return part / rows[measure.whole]["cpu_total_us"]


@takes(recordings.DeviceShare)
def device_share(measure, data):
    """GPU time of the kernels ``part`` launched (joined by External id) over all kernel time."""
    trace = data.trace
    kernels = trace.kind == KIND["kernel"]
    everything = float(trace.dur[kernels].sum())
    if measure.part not in trace.names or not everything:
        return None
    ids = trace.external_id[(trace.name == trace.names.index(measure.part)) & (trace.kind == KIND["cpu_op"])]
    launched = kernels & np.isin(trace.external_id, ids[ids != NO_ID])
    return float(trace.dur[launched].sum()) / everything


@takes(recordings.StepCount)
def step_count(_measure, data):
    return float(len(profiler_steps(data.trace)))


@takes(recordings.StepNumber)
def step_number(measure, data):
    steps = profiler_steps(data.trace)
    if not steps:
        return None
    return float(steps[0 if measure.which == "first" else -1]["step"])


@takes(recordings.Encloses)
def encloses(measure, data):
    trace = data.trace
    outer, inner = first_of(trace, measure.outer), first_of(trace, measure.inner)
    if outer is None or inner is None:
        return None
    inside = trace.ts[outer] <= trace.ts[inner] and trace.end[inner] <= trace.end[outer]
    return 1.0 if inside else 0.0


@takes(recordings.GpuBusyShare)
def gpu_busy_share(_measure, data):
    window = gpu_window(data.trace)
    if window is None or window[1] <= window[0]:
        return None
    return union_length(*busy_intervals(data.trace, window)) / (window[1] - window[0])


@takes(recordings.SyncOverKernels)
def sync_over_kernels(_measure, data):
    kernel_us = float(data.trace.dur[data.trace.kind == KIND["kernel"]].sum())
    longest = synchronisations(data.trace)["longest"]
    if not kernel_us or not longest:
        return None
    return longest[0]["dur_us"] / kernel_us


@takes(recordings.RowValue)
def row_value(measure, data):
    row = next((row for row in data.rows if row["name"] == measure.name), None)
    value = row.get(measure.column) if row else None
    return float(value) if isinstance(value, (int, float)) else None


@takes(recordings.ColumnShare)
def column_share(measure, data):
    part = row_value(recordings.RowValue(measure.part, measure.column), data)
    whole = row_value(recordings.RowValue(measure.whole, measure.column), data)
    return part / whole if part is not None and whole else None


def table_row_names(text):
    """The names in the first column of a table ``key_averages().table()`` printed (right-aligned to its width)."""
    lines = text.splitlines()
    rule = next((line for line in lines if line.startswith("-")), None)
    if rule is None:
        return []
    width = len(rule.split("  ")[0])
    rules = [i for i, line in enumerate(lines) if line.startswith("-")]
    body = lines[rules[1] + 1:rules[2]] if len(rules) >= 3 else []
    return [line[:width].strip() for line in body if line[:width].strip()]


@takes(recordings.TableRows)
def table_rows(measure, data):
    path = data.folder / recordings.Table(measure.table).file
    if not path.is_file():
        return None
    return float(table_row_names(path.read_text()).count(measure.name))


@takes(recordings.ExplainBusyShare)
def explain_busy_share(_measure, data):
    busy_pct = data.summary["gpu_busy_pct"]
    return None if busy_pct is None else busy_pct / 100


@takes(recordings.IdleShare)
def idle_share(measure, data):
    """Idle time of one cause over the window ``profguide explain`` measures (None without GPU work)."""
    if not on_a_stream(data.trace).any():
        return None
    ops, window, _, _ = measured_window(data.trace)
    cause = idle_breakdown(data.trace, window, ops)["by_cause"].get(measure.cause)
    length = window[1] - window[0]
    return cause["idle_us"] / length if cause and length > 0 else None


@takes(recordings.DeviceSetupShare)
def device_setup_share(_measure, data):
    setup = data.summary["device_setup"]
    return None if setup is None else setup["pct"] / 100


@takes(recordings.DeviceSetupCall)
def device_setup_call(measure, data):
    """The union over threads of the set-up calls named ``call`` over that of every set-up call, in explain's
    window: both the same kind of time, so the share is at most 1 however the calls overlap across threads (the
    report's ``top`` adds overlapping calls' times, which the union of all of them does not)."""
    setup, window = data.summary["device_setup"], data.summary["window"]
    if not setup or not setup["us"] or measure.call not in data.trace.names:
        return None
    trace, window = data.trace, (window["start_us"], window["end_us"])
    named = np.flatnonzero(setup_calls(trace) & (trace.name == trace.names.index(measure.call))
                           & overlapping(trace, window))
    return union_length(*clip_each(trace.ts[named], trace.end[named], window)) / setup["us"] if len(named) else None


# HolisticTraceAnalysis's own temporal breakdown of every real trace, by file name, with the HTA version and the
# command that obtained it (benchmarks/hta_reference.py, run where HTA is installed): HTA is no dependency.
HTA_REFERENCE = "benchmarks/results/hta_temporal_breakdown.json"


def htas_idle_share(root, file_name):
    """The GPU idle share HTA reported for the trace ``file_name`` (its idle time over its window, unrounded),
    from the reference under ``root``; None for a trace the reference does not hold or HTA could not analyse."""
    found = json.loads((Path(root) / HTA_REFERENCE).read_text())["traces"].get(file_name, {})
    exact = found.get("idle_pct_exact")
    return None if exact is None else exact / 100


@takes(recordings.IdleBelowHtas)
def idle_below_htas(_measure, data):
    """HTA's own idle share of a real trace less explain's: only a real trace has HTA's answer at hand."""
    summary = data.summary
    htas = htas_idle_share(data.root, data.trace_path().name) if data.real else None
    if htas is None or summary["gpu_idle_pct"] is None:
        return None
    return htas - summary["gpu_idle_pct"] / 100


@takes(recordings.QueueingOverLaunch)
def queueing_over_launch(_measure, data):
    found = launch_delays(data.trace)
    delay, queueing = found["launch_delay_us"].get("runtime"), found["queueing_us"]
    return queueing["p50"] / delay["p50"] if delay and queueing and delay["p50"] > 0 else None


@takes(recordings.LaunchGap)
def launch_gap(measure, data):
    found = launch_delays(data.trace)
    gaps = found["launch_delay_us"].get("runtime") if measure.kind == "launch delay" else found["queueing_us"]
    if not gaps:
        return None
    if not measure.per_step:
        return gaps["p50"]
    step = median_step(data.trace)
    return gaps["p50"] / step if step else None


def in_step(starts, step):
    """Which of the times ``starts`` fall inside ``step``'s window."""
    return (starts >= step["start_us"]) & (starts < step["start_us"] + step["dur_us"])


def started_in(starts, step):
    """How many of the times ``starts`` fall inside ``step``'s window."""
    return int(in_step(starts, step).sum())


@takes(recordings.SyncsPerStep)
def syncs_per_step(_measure, data):
    starts = data.trace.ts[host_syncs(data.trace)]
    counts = [started_in(starts, step) for step in profiler_steps(data.trace)]
    return float(min(counts)) if counts else None


@takes(recordings.SyncOverStep)
def sync_over_step(_measure, data):
    median, longest = median_step(data.trace), synchronisations(data.trace)["longest"]
    return longest[0]["dur_us"] / median if median and longest else None


@takes(recordings.MeanOverMedian)
def mean_over_median(_measure, data):
    top = top_kernels(data.trace, limit=1)
    return top[0]["mean"] / top[0]["p50"] if top and top[0]["p50"] > 0 else None


@takes(recordings.PeakShare)
def peak_share(_measure, data):
    rows = gemm_throughput(data.trace)
    return rows[0]["pct_of_peak"] / 100 if rows and rows[0]["pct_of_peak"] is not None else None


@takes(recordings.OccupancyQueries)
def occupancy_share(measure, data):
    found = occupancy_queries(data.trace)
    if measure.of == "queries":
        return found["next"][measure.family] / found["queries"] if found["queries"] else None
    after = [after for name, family, after in found["launched"]
             if family == measure.family and measure.name_contains in name]
    return sum(after) / len(after) if after else None


@takes(recordings.CommunicationHidden)
def communication_hidden(measure, data):
    share = communication(data.trace, named=measure.kernels)["overlap_pct"]
    return None if share is None else share / 100


@takes(recordings.CommunicationExposed)
def communication_exposed(measure, data):
    shares = [row["exposed_us"] / row["window_us"] for row in step_communication(data.trace)
              if row["overlapped_us"] + row["exposed_us"] > 0 and row["window_us"] > 0]
    if not shares:
        return None
    return min(shares) if measure.which == "least" else max(shares)


@takes(recordings.OpsInRegion)
def ops_in(measure, data):
    if measure.under:
        return ops_under(region_tree(data.trace, measure.region), measure.op, measure.under)
    found = ops_in_region(data.trace, measure.region, measure.op)
    return None if found is None else float(found)


def ops_under(tree, op, under):
    """How many ``op`` entries of a region's call tree (``region_tree``) have an ``under`` entry among the
    entries that enclose them; None without the region."""
    if not tree:
        return None
    found, enclosing = 0, []
    for entry in tree:
        del enclosing[entry["depth"]:]
        found += entry["name"] == op and under in enclosing
        enclosing.append(entry["name"])
    return float(found)


@takes(recordings.PythonCallsInRegion)
def python_calls_in_region(measure, data):
    row = next((row for row in python_calls_by_region(data.trace) if row["region"] == measure.region), None)
    if row is None:
        return None
    if measure.count == "calls per op":
        return row["python_calls"] / row["ops"] if row["ops"] else None
    return float(row["python_calls"] if measure.count == "calls" else row["ops"])


def memory_sizes(data):
    """The recording's memory timeline by category (``memory-timeline.json``), or None when it has none."""
    try:
        return memory_timeline(data.json_file("memory-timeline.json"))[1]
    except (RecordingError, ValueError):
        return None


@takes(recordings.MemoryLeftAtEnd)
def memory_left_at_end(measure, data):
    sizes = memory_sizes(data)
    return left_at_end(sizes, measure.category) if sizes else None


@takes(recordings.MemoryRatioAtEnd)
def memory_ratio_at_end(measure, data):
    sizes = memory_sizes(data)
    return ratio_at_end(sizes, measure.part, measure.whole) if sizes else None


@takes(recordings.OpsInStep)
def ops_in_step(measure, data):
    steps, trace = profiler_steps(data.trace), data.trace
    if not steps:
        return None
    return float(started_in(trace.ts[trace.kind == KIND["cpu_op"]], steps[0 if measure.which == "first" else -1]))


def from_results(data, *keys, read=None):
    """The entry of the run's ``results.json`` that ``keys`` lead to (``"timer", "median_us"``: the Timer's median),
    passed through ``read`` when given; None where the run wrote no ``results.json``, the entry is not there, or
    it is not what ``read`` takes. The measures read ``results.json`` through this, and ``fragments.results_of``
    too."""
    try:
        found = data.results
        for key in keys:
            found = found[key]
        return found if read is None else read(found)
    except (RecordingError, KeyError, IndexError, TypeError):
        return None


@takes(recordings.StepTimeRatio)
def step_time_ratio(measure, data):
    """From ``results.json``: ``{"configurations": [{"name", "median_step_us"}, …]}``."""
    medians = from_results(data, "configurations", read=lambda rows: {row["name"]: row["median_step_us"]
                                                                      for row in rows})
    if medians is None:
        return None
    part, whole = medians.get(measure.part), medians.get(measure.whole)
    return part / whole if part and whole else None


def logged_messages(data):
    """From ``results.json``: ``{"logged": [message, …]}``, what the snippet kept of torch's log; None without it."""
    return from_results(data, "logged", read=list)


@takes(recordings.TimesLogged)
def times_logged(measure, data):
    logged = logged_messages(data)
    return None if logged is None else float(logged.count(measure.message))


def device_numbers(data):
    """The numbers the trace's ``deviceProperties`` give its first GPU, by key."""
    devices = data.trace.device_properties
    return {key: float(value) for key, value in (devices[0].items() if devices else ())
            if isinstance(value, int | float) and not isinstance(value, bool)}


@takes(recordings.DeviceProperty)
def device_property(measure, data):
    return device_numbers(data).get(measure.key)


@takes(recordings.HostShare)
def host_share(measure, data):
    host = host_breakdown(data.trace)
    return host["by_activity"][measure.activity]["us"] / host["dur_us"] if host and host["dur_us"] else None


@takes(recordings.HostShareFall)
def host_share_fall(measure, data):
    here, baseline = host_share(measure, data), host_share(measure, data.sibling(measure.baseline))
    return baseline / here if here and baseline is not None else None


@takes(recordings.HostLead)
def host_lead(measure, data):
    host = host_breakdown(data.trace)
    leads = []
    for row in host["windows"] if host else []:
        others = max(us for activity, us in row["by_activity_us"].items() if activity != measure.activity)
        leads.append(row["by_activity_us"][measure.activity] / others if others else np.inf)
    return min(leads, default=None)


@takes(recordings.PerStepFall)
def per_step_fall(measure, data):
    def median_count(run):
        return median([row[measure.count] for row in step_counts(run.trace)])

    here, baseline = median_count(data), median_count(data.sibling(measure.baseline))
    return baseline / here if here and baseline is not None else None


@takes(recordings.DiffValue)
def diff_value(measure, data):
    found = data.diff[measure.field]
    return (found[measure.key] if measure.key else found)[measure.part]


@takes(recordings.DiffRows)
def diff_rows(measure, data):
    return float(sum(row["status"] == measure.status for row in data.diff[measure.rows]))


@takes(recordings.RuleFixed)
def rule_fixed(measure, data):
    def fires(summary):
        return any(row["rule"] == measure.rule for row in summary["findings"])

    return 1.0 if fires(data.compared_run.summary) and not fires(data.summary) else 0.0


@takes(recordings.VerdictIs)
def verdict_is(measure, data):
    return 1.0 if data.summary["verdict"] == measure.verdict else 0.0


@takes(recordings.BackendOutsideCall)
def backend_outside_call(measure, data):
    return collectives.outside_calls_share(data.trace, measure.collective)


@takes(recordings.EnclosedShare)
def enclosed_share(measure, data):
    return collectives.inside_share(data.trace, measure.inner, measure.outer)


@takes(recordings.CollectivesPerStep)
def collectives_per_step(measure, data):
    return collectives.fewest_per_step(data.trace, measure.collective)


@takes(recordings.CommStreamShare)
def comm_stream_share(_measure, data):
    return collectives.comm_stream_share(data.trace)


@takes(recordings.StragglerIs)
def straggler_is(measure, data):
    job = data.job
    if job is None or job["straggler"] is None:
        return None
    return 1.0 if job["ranks"][job["straggler"]]["rank"] == measure.rank else 0.0


@takes(recordings.StragglerWait)
def straggler_wait(_measure, data):
    job = data.job
    shares = [row["wait_pct"] for row in (job["ranks"] if job else []) if row["wait_pct"] is not None]
    return max(shares) / 100 if job and job["straggler"] is not None and shares else None


@takes(recordings.RanksLineUp)
def ranks_line_up(_measure, data):
    job = data.job
    return None if job is None or not job["shared_collectives"] else 0.0 if job["strays"] else 1.0


@takes(recordings.RanksNamed)
def ranks_named(_measure, data):
    return collectives.ranks_named([loaded.distributed_info for loaded in data.traces])


@takes(recordings.NamedInRegion)
def named_in_region(measure, data):
    tree = region_tree(data.trace, measure.region)
    return float(sum(entry["name"].startswith(measure.prefix) and measure.containing in entry["name"]
                     for entry in tree[1:])) if tree else None


@takes(recordings.FirstOverMedian)
def first_over_median(measure, data):
    durations = occurrences(data.trace, measure.region)
    return float(durations[0] / median(durations[1:])) if len(durations) > 1 else None


@takes(recordings.CallsThatCompile)
def calls_that_compile(measure, data):
    calls = compiled_calls(data.trace, measure.region)
    return float(sum(call["compiles"] > 0 for call in calls)) if calls else None


@takes(recordings.SyncInsideStep)
def sync_inside_step(_measure, data):
    trace, syncs = data.trace, host_syncs(data.trace)
    starts, durations = trace.ts[syncs], trace.dur[syncs]
    shares = [durations[in_step(starts, step)].max(initial=0) / step["dur_us"]
              for step in profiler_steps(trace) if step["dur_us"] > 0]
    return float(max(shares)) if shares and len(syncs) else None


@takes(recordings.LongestSyncAfterSteps)
def longest_sync_after_steps(_measure, data):
    steps, longest = profiler_steps(data.trace), synchronisations(data.trace)["longest"]
    if not steps or not longest:
        return None
    return 1.0 if longest[0]["start_us"] >= max(step["start_us"] + step["dur_us"] for step in steps) else 0.0


@takes(recordings.KernelSpread)
def kernel_spread(measure, data):
    trace = data.trace
    named = (trace.kind == KIND["kernel"]) & names_where(trace, lambda name: measure.name_contains in name)
    ratios = [row[measure.statistic] / row["p50"] for row in kernel_rows(trace, named) if row["p50"] > 0]
    if not ratios:
        return None
    return max(ratios) if measure.which == "most" else min(ratios)


@takes(recordings.OpMedianOver)
def op_median_over(measure, data):
    here, there = occurrences(data.trace, measure.op), occurrences(data.sibling(measure.baseline).trace, measure.op)
    if not len(here) or not len(there) or median(there) <= 0:
        return None
    return median(here) / median(there)


@takes(recordings.BusiestGemmSpread)
def busiest_gemm_spread(measure, data):
    times = busiest_gemm_times(data.trace)
    if len(times) < 2 or median(times) <= 0:
        return None
    top = np.percentile(times, 95) if measure.statistic == "p95" else times.max()
    return float(top) / median(times)


def calls_on(trace, op, shapes):
    """The calls of the matrix multiply ``op`` on inputs of the shapes ``shapes`` (``gemm_calls``)."""
    return [call for call in gemm_calls(trace) if call.key[:2] == (op, shapes)]


def gemm_kernels_named(call, part):
    """Whether the call (``gemm_calls``) launched a GEMM kernel, and every one it launched holds ``part`` in its
    name (in any case): a call with no GEMM kernel (a fill alone) runs no tile, so holds none."""
    gemms = [name.lower() for name in call.kernels if kernel_family(name).family == "gemm"]
    return bool(gemms) and all(part.lower() in name for name in gemms)


@takes(recordings.GemmCallsNamed)
def gemm_calls_named(measure, data):
    calls = calls_on(data.trace, measure.op, measure.shapes)
    if not calls:
        return None
    return sum(gemm_kernels_named(call, measure.contains) for call in calls) / len(calls)


@takes(recordings.GemmCallRatio)
def gemm_call_ratio(measure, data):
    one, other = (calls_on(data.trace, measure.op, shapes) for shapes in (measure.shapes, measure.other))
    if not one or not other:
        return None
    below = median(np.array([call.kernel_us for call in other]))
    return median(np.array([call.kernel_us for call in one])) / below if below > 0 else None


@takes(recordings.OpOverKernelMedian)
def op_over_kernel_median(measure, data):
    trace = data.trace
    ops, kernels = occurrences(trace, measure.op), trace.dur[trace.kind == KIND["kernel"]]
    if not len(ops) or not len(kernels) or median(kernels) <= 0:
        return None
    return median(ops) / median(kernels)


def op_durations_inside(trace, op, region):
    """The durations of the ``op`` events that start inside an occurrence of the region ``region``, on its thread."""
    if op not in trace.names or region not in trace.names:
        return np.empty(0)
    calls = np.flatnonzero((trace.name == trace.names.index(region))
                           & np.isin(trace.kind, [KIND["annotation"], KIND["cpu_op"]]))
    if not len(calls):
        return np.empty(0)
    times = host_times(trace)
    first, last = positions_inside(trace, times, calls)
    inside = times.order[np.concatenate([np.arange(start, end) for start, end in zip(first, last, strict=True)])]
    return trace.dur[inside[trace.name[inside] == trace.names.index(op)]]


@takes(recordings.OpMedianInRegions)
def op_median_in_regions(measure, data):
    here = op_durations_inside(data.trace, measure.op, measure.region)
    there = op_durations_inside(data.trace, measure.op, measure.other)
    return median(here) / median(there) if len(here) and len(there) and median(there) > 0 else None


@takes(recordings.FreesInRegion)
def frees_in(measure, data):
    counts = frees_in_region(data.trace, measure.region)
    return float(counts[0 if measure.which == "first" else -1]) if counts else None


@takes(recordings.OverheadEvents)
def overhead_events(_measure, data):
    return float(profiler_overhead(data.trace)["events"])


@takes(recordings.OpsWithShapes)
def ops_with_shapes(_measure, data):
    trace = data.trace
    ops = trace.kind == KIND["cpu_op"]
    return float(trace.recorded_shapes[ops].mean()) if ops.any() else None


@takes(recordings.KernelsJoined)
def kernels_joined(measure, data):
    trace = data.trace
    kernels = trace.kind == KIND["kernel"]
    if not kernels.any():
        return None
    ops = trace.external_id[(trace.kind == KIND["cpu_op"]) & (trace.external_id != NO_ID)]
    joined = np.isin(trace.external_id[kernels], ops)
    if not measure.before:
        return float(joined.mean())
    starts = trace.ts[kernels]
    return float((starts[~joined] < starts[joined].min()).mean()) if joined.any() and not joined.all() else None


@takes(recordings.QueriesInside)
def queries_inside(measure, data):
    trace = data.trace
    host = np.isin(trace.kind, [KIND["runtime"], KIND["driver"]])
    queries = np.flatnonzero(host & names_where(trace, lambda name: name.startswith("cudaOccupancy")))
    if not len(queries):
        return None
    ops = np.flatnonzero((trace.kind == KIND["cpu_op"]) & names_where(trace, lambda name: measure.op in name))
    inside = [((trace.lane[ops] == trace.lane[query]) & (trace.ts[ops] <= trace.ts[query])
               & (trace.end[ops] >= trace.end[query])).any() for query in queries]
    return float(np.mean(inside))


@takes(recordings.FreedInside)
def freed_inside(measure, data):
    prefix = "cpu" if measure.memory == "cpu" else "device"
    own = row_value(recordings.RowValue(measure.name, f"self_{prefix}_memory_bytes"), data)
    everything = row_value(recordings.RowValue(measure.name, f"{prefix}_memory_bytes"), data)
    if own is None or everything is None or everything <= own:
        return None
    return -own / (everything - own)


def communication_share(data, part_of, among=lambda _row: True):
    """The share of the communication kernels' time in the rows (by call and kernel name) that ``among`` picks
    (all by default) that is in the rows ``part_of`` picks; the join of kernel to call reads the events'
    correlation ids."""
    rows = [row for row in collectives.communication_by_call(data.trace) if among(row)]
    total = sum(row["us"] for row in rows)
    return sum(row["us"] for row in rows if part_of(row)) / total if total else None


@takes(recordings.CommunicationByCall)
def communication_by_call(measure, data):
    return communication_share(data, lambda row: row["call"] == measure.call)


@takes(recordings.CommunicationKernelNamed)
def communication_kernel_named(measure, data):
    return communication_share(data, lambda row: measure.contains in row["kernel"],
                               lambda row: not measure.call or row["call"] == measure.call)


@takes(recordings.KernelsDecoded)
def kernels_decoded(measure, data):
    trace = data.trace
    codes = trace.name[trace.kind == KIND["kernel"]]
    present, counts = np.unique(codes, return_counts=True)
    decoded = [(kernel_family(trace.names[code]), int(count)) for code, count in zip(present.tolist(),
                                                                                      counts.tolist(), strict=True)]
    of_family = [(found, count) for found, count in decoded if found.family == measure.family]
    total = sum(count for _, count in of_family)
    if not measure.field:
        return float(total)
    said = sum(count for found, count in of_family if split_label(getattr(found, measure.field)) == measure.value)
    if measure.count:
        return float(said)
    return said / total if total else None


@takes(recordings.RankHostShare)
def rank_host_share(measure, data):
    if measure.rank >= len(data.traces):
        return None
    host = host_breakdown(data.traces[measure.rank])
    if not host or not host["dur_us"]:
        return None
    spent = host["by_activity"][measure.activity]
    us = dict(spent["top"]).get(measure.label) if measure.label else spent["us"]
    return None if us is None else us / host["dur_us"]


@takes(recordings.LargestBucketShare)
def largest_bucket_share(_measure, data):
    shares = []
    for row in collectives.step_buckets(data.trace):
        known = [size for size in row["sizes"] if size]
        if known:
            shares.append(max(known) / sum(known))
    return min(shares, default=None)


@takes(recordings.RegionTimeRatio)
def region_time_ratio(measure, data):
    def spent(call):
        return {"in all": call["dur_us"], "in ops": call["in_ops_us"],
                "outside ops": call["dur_us"] - call["in_ops_us"]}[measure.part]

    first = region_calls(data.trace, measure.region)
    later = [spent(call) for call in region_calls(data.trace, measure.other)
             if first and call["start_us"] > first[0]["start_us"]]
    return spent(first[0]) / max(later) if later and max(later) > 0 else None


@takes(recordings.LaunchedBy)
def launched_by(measure, data):
    trace = data.trace
    kernels = np.flatnonzero((trace.kind == KIND["kernel"])
                             & names_where(trace, lambda name: measure.kernels.lower() in name.lower()))
    launches = launch_of(trace, kernels)
    launches = launches[launches >= 0]
    if not len(launches):
        return None
    return float(np.mean([trace.names[code] in measure.calls for code in trace.name[launches]]))


@takes(recordings.CompileMarker)
def compile_marker(measure, data):
    value = compile_markers(data.trace).get(measure.key)
    return None if value is None else float(value)


def self_time(trace, region, prefix):
    """The self time of the first event whose name starts with ``prefix`` in the first ``region``: its duration
    less that of the events directly under it (None when there is no such event)."""
    tree = region_tree(trace, region)
    for position, entry in enumerate(tree[1:], 1):
        if entry["name"].startswith(prefix):
            under = 0.0
            for inner in tree[position + 1:]:
                if inner["depth"] <= entry["depth"]:
                    break
                under += inner["dur_us"] if inner["depth"] == entry["depth"] + 1 else 0.0
            return entry["dur_us"] - under
    return None


@takes(recordings.SelfTimeRatio)
def self_time_ratio(measure, data):
    here = self_time(data.trace, measure.region, measure.prefix)
    there = self_time(data.trace, measure.other, measure.prefix)
    return here / there if here is not None and there else None


def median_step(trace):
    return median([step["dur_us"] for step in profiler_steps(trace)])


@takes(recordings.MedianStepRatio)
def median_step_ratio(measure, data):
    here, baseline = median_step(data.trace), median_step(data.sibling(measure.baseline).trace)
    return here / baseline if here and baseline else None


@takes(recordings.CompileShare)
def compile_share(measure, data):
    calls = compiled_calls(data.trace, measure.region)
    return calls[0]["compile_us"] / calls[0]["dur_us"] if calls and calls[0]["dur_us"] > 0 else None


@takes(recordings.RegionShare)
def region_share(measure, data):
    rows = {row["name"]: row for row in region_rows(data.trace)}

    def share(region):
        row = rows.get(region)
        if row is None:
            return None
        key = "cpu_us" if measure.time == "cpu" else "device_us"
        passes = {"forward": row[key], "backward": row[f"backward_{key}"]}
        return passes.get(measure.passes, passes["forward"] + passes["backward"]) / whole

    if measure.time == "cpu":
        whole = steps_total_us(data.trace)
    else:
        whole = joined_device_us(data.trace)
    if not whole:
        return None
    found = share(measure.region)
    if found is None or not measure.among:
        return found
    return 1.0 if all(found >= (share(other) or 0.0) for other in measure.among) else 0.0


@takes(recordings.RegionCount)
def region_count(measure, data):
    return float(next((row["calls"] for row in region_rows(data.trace) if row["name"] == measure.region), 0))


@takes(recordings.BackwardOverForward)
def backward_over_forward(measure, data):
    row = next((row for row in region_rows(data.trace) if row["name"] == measure.region), None)
    key = "cpu_us" if measure.time == "cpu" else "device_us"
    return row[f"backward_{key}"] / row[key] if row and row[key] else None


@takes(recordings.KernelsPerCall)
def kernels_per_call(measure, data):
    rows = region_rows(data.trace) if measure.region else module_rows(data.trace)
    row = next((row for row in rows if row["name"] == (measure.region or measure.module)), None)
    return row["kernels"] / row["calls"] if row and row["calls"] else None


@takes(recordings.ModuleShare)
def module_share(measure, data):
    if measure.ops:
        inside = module_op_device(data.trace, measure.module)
        whole = sum(inside.values())
        return sum(inside.get(op, 0.0) for op in measure.ops) / whole if whole else None
    row = next((row for row in module_rows(data.trace) if row["name"] == measure.module), None)
    whole = joined_device_us(data.trace)
    return row["device_us"] / whole if row and whole else None


@takes(recordings.DiffRowRatio)
def diff_row_ratio(measure, data):
    row = next((row for row in data.diff[measure.rows] if row["name"] == measure.name), None)
    return row["after_us"] / row["before_us"] if row and row["before_us"] else None


def op_totals(trace, op):
    """The op view's rows of the op ``op`` (one a set of input shapes) added up, by column; None without such an
    op."""
    rows = [row for row in op_rows(trace) if row["name"] == op]
    if not rows:
        return None
    return {column: float(sum(row[column] for row in rows)) for column in get_args(recordings.OpColumn)}


@takes(recordings.OpTotal)
def op_total(measure, data):
    totals = op_totals(data.trace, measure.op)
    return None if totals is None else totals[measure.column]


@takes(recordings.OpShare)
def op_share(measure, data):
    part, whole = op_totals(data.trace, measure.part), op_totals(data.trace, measure.whole)
    return part[measure.column] / whole[measure.column] if part and whole and whole[measure.column] else None


@takes(recordings.NestedIn)
def nested_in(measure, data):
    """Each call of ``outer`` counts the ``inner`` events that start at or after its start and before its end, on
    its thread (a call inside another call of ``outer`` counts them again)."""
    trace = data.trace
    if measure.outer not in trace.names:
        return None
    host = kinds_mask(trace, ("cpu_op", "annotation", "runtime", "driver"))
    calls = np.flatnonzero(host & (trace.name == trace.names.index(measure.outer)))
    if not len(calls):
        return None
    inner = trace.names.index(measure.inner) if measure.inner in trace.names else -1
    inside = np.flatnonzero(host & (trace.name == inner))
    found = 0
    for lane in np.unique(trace.lane[calls]).tolist():
        starts = np.sort(trace.ts[inside[trace.lane[inside] == lane]])
        mine = calls[trace.lane[calls] == lane]
        found += int((np.searchsorted(starts, trace.end[mine]) - np.searchsorted(starts, trace.ts[mine])).sum())
    return found / len(calls)


@takes(recordings.OpsPerCall)
def ops_per_call(measure, data):
    counts = ops_in_each_call(data.trace, measure.region, measure.prefix)
    return float(median(counts)) if counts else None


@takes(recordings.KernelsInside)
def kernels_inside(measure, data):
    """A GPU op is inside a call when the op or region that owns it (the innermost one open at its launch,
    ``profguide.analysis.ops.launch_owners``) starts inside the call on its thread."""
    trace = data.trace
    if measure.op:
        code = trace.names.index(measure.op) if measure.op in trace.names else -1
        calls = np.flatnonzero((trace.name == code) & (trace.kind == KIND["cpu_op"]))
    else:
        codes = [code for code, name in enumerate(trace.names)
                 if (match := MODULE.match(name)) and match["name"] == measure.module]
        calls = np.flatnonzero(kinds_mask(trace, ("python",)) & np.isin(trace.name, codes))
    if not len(calls):
        return None
    times = host_times(trace)
    first, last = positions_inside(trace, times, calls)
    work, owner = launch_owners(trace, times.order, times.tree)
    names = [trace.names[code] for code in trace.name[work]]
    kept = np.array([(not measure.family or kernel_family(name).family == measure.family)
                     and measure.named in name for name in names], dtype=bool)
    owner = np.sort(owner[kept])
    return float((np.searchsorted(owner, last) - np.searchsorted(owner, first)).sum()) / len(calls)


def footprints(data, kernels=""):
    """The kernel launches of the run's trace with their footprint (``profguide.analysis.kernel_resources``), of the
    kernels whose name holds ``kernels`` in lower case: [(launch, fit)], those whose fit can be worked out."""
    found = [(launch, kernel_resources.fit(launch)) for launch in kernel_resources.kernel_launches(data.trace_path())
             if kernels.lower() in launch.name.lower()]
    return [(launch, fit) for launch, fit in found if fit is not None]


def footprint_value(value, launch, fit):
    if value.startswith("blocks by "):
        return fit.by[value.removeprefix("blocks by ")]
    return {"registers": launch.registers, "shared memory": launch.shared, "threads": launch.threads,
            "blocks": fit.blocks, "theoretical": fit.theoretical, "recorded": launch.recorded}[value]


@takes(recordings.KernelFootprint)
def kernel_footprint(measure, data):
    values = [footprint_value(measure.value, launch, fit) for launch, fit in footprints(data, measure.kernels)]
    values = [value for value in values if value is not None]
    return float(median(values)) if values else None


@takes(recordings.OccupancyLimit)
def occupancy_limit(measure, data):
    found = footprints(data, measure.kernels)
    return sum(measure.limit in fit.limited_by for _, fit in found) / len(found) if found else None


@takes(recordings.OccupancyReadsZero)
def occupancy_reads_zero(measure, data):
    above = {"above default": True, "within default": False}.get(measure.shared_memory)
    found = [launch for launch, _ in footprints(data, measure.kernels)
             if launch.recorded is not None and (not measure.calls or launch.call in measure.calls)
             and (above is None or kernel_resources.above_default(launch) is above)
             and (not measure.full_grid or kernel_resources.fills_the_gpu(launch))]
    return sum(launch.recorded == 0 for launch in found) / len(found) if found else None


@takes(recordings.SyncBusyShare)
def sync_busy_share(_measure, data):
    longest = synchronisations(data.trace)["longest"]
    if not longest or longest[0]["dur_us"] <= 0:
        return None
    return longest[0]["gpu_busy_during_us"] / longest[0]["dur_us"]


@takes(recordings.FreedOutsideOps)
def freed_outside_ops(measure, data):
    """A memory event is inside an op when an op that starts inside the call, on its thread, is open at its time
    (``profguide.analysis.intervals.inside_any``); the bytes are net: allocations less frees."""
    trace = data.trace
    if measure.region not in trace.names or len(trace.memory_device) != len(trace.memory_ts):
        return None
    calls = np.flatnonzero((trace.name == trace.names.index(measure.region))
                           & kinds_mask(trace, ("annotation", "cpu_op")))
    device_type = 0 if measure.memory == "cpu" else 1  # c10's DeviceType: 0 the CPU, 1 CUDA (and ROCm)
    devices = [code for code, (kind, _) in enumerate(trace.memory_devices) if kind == device_type]
    memory_lanes = {lane: code for code, lane in enumerate(trace.memory_lanes)}
    on_device = np.isin(trace.memory_device, devices)
    inside = outside = 0.0
    for call in calls.tolist():
        start, end, lane = trace.ts[call], trace.end[call], trace.lane[call]
        events = np.flatnonzero(on_device & (trace.memory_lane == memory_lanes.get(trace.lanes[lane], -1))
                                & (trace.memory_ts >= start) & (trace.memory_ts <= end))
        ops = np.flatnonzero((trace.kind == KIND["cpu_op"]) & (trace.lane == lane) & (trace.ts >= start)
                             & (trace.end <= end))
        ops = ops[ops != call]
        in_op = inside_any(trace.ts[ops], trace.end[ops], trace.memory_ts[events])
        inside += float(trace.memory_bytes[events][in_op].sum())
        outside += float(trace.memory_bytes[events][~in_op].sum())
    return -outside / inside if inside > 0 else None


@takes(recordings.CallCount)
def call_count(measure, data):
    trace = data.trace
    calls = kinds_mask(trace, ("runtime", "driver")) & names_where(trace, lambda name: name.startswith(measure.prefix))
    return float(calls.sum())


@takes(recordings.TimerRatio)
def timer_ratio(measure, data):
    """The median of the op's events as ``occurrences`` takes them (ops and regions of that name), over the
    Timer's; the page's timer fragment prints this value."""
    durations = occurrences(data.trace, measure.op)
    timer_us = from_results(data, "timer", "median_us")
    return median(durations) / timer_us if len(durations) and timer_us else None


def exported_stacks(data, which="verbose"):
    """The stacks ``export_stacks`` wrote in the run (``results.json``), parsed; None without them."""
    return from_results(data, "stacks" if which == "verbose" else "stacks_without_option", read=stacks.folded)


@takes(recordings.StackLines)
def stack_lines(measure, data):
    found = exported_stacks(data, measure.which)
    return None if found is None else float(len(found))


@takes(recordings.StackTime)
def stack_time(measure, data):
    found = exported_stacks(data)
    whole = stacks.time_under(found, measure.over) if found else 0
    return stacks.time_under(found, measure.frame) / whole if whole else None


@takes(recordings.ExecutionTraceCovers)
def execution_trace_covers(_measure, data):
    nodes = from_results(data, "nodes_by_name", read=Counter)
    if nodes is None:
        return None
    trace = data.trace
    events = Counter(trace.names[code] for code in trace.name[kinds_mask(trace, ("cpu_op", "annotation"))])
    total = sum(events.values())
    return sum((events & nodes).values()) / total if total else None


@takes(recordings.LastCollective)
def last_collective(measure, data):
    return from_results(data, "ranks", measure.rank,
                        read=lambda buffer: float(max(entry["seq"] for entry in buffer)) if buffer else None)


def measured(measure, data):
    """The value of ``measure`` on a recording's data (its first rank), or None when it cannot be taken."""
    return MEASURES[type(measure)](measure, data)


# The closed sets a measure's strings come from (the annotations of profguide.site.recordings), by name.
CLOSED_SETS = {
    "idle cause": lambda: set(IDLE_CAUSES),
    "host activity": lambda: set(CPU_ACTIVITIES),
    "memory category": lambda: set(MEMORY_CATEGORIES),
    "verdict": lambda: {*VERDICTS, *HOST_VERDICTS},
    "rule": lambda: {rule.id for rule in (*RULES, *JOB_RULES)},
    "diff field": lambda: set(TraceDiff.__annotations__),
    "kernel family": lambda: set(FAMILY_WORDS),
    "family field": lambda: set(Family._fields) - {"family"},
}


@dataclass(frozen=True)
class Vocabulary:
    """The names a claim may use that its own runs need not hold: torch's operator registry (an op a run is
    said not to call) and every name in the guide's real traces (a kernel or a runtime call a GPU run is
    predicted to show)."""

    names: frozenset
    joined: str  # every name, as written, one a line: what a part of a name is looked for in


def vocabulary_of(names):
    names = frozenset(names)
    return Vocabulary(names, "\n".join(sorted(names)))


def vocabulary(root):
    """The vocabulary of the guide at ``root``: torch's operators and the names in ``docs/traces`` (a trace
    that cannot be read adds none: the build reports it where a page shows it)."""
    names = set(operators.names())
    for path in sorted((Path(root) / "docs" / "traces").glob("*.json.gz")):
        try:
            names.update(load_once(path).names)
        except TraceError:
            continue
    return vocabulary_of(names)


def run_names(runs):
    """Every name the traces of ``runs`` hold (their string tables), with ``ProfilerStep`` where a run has
    steps: the word by which a measure means every step."""
    names = set()
    for run in runs:
        for loaded in getattr(run, "traces", None) or (run.trace,):
            names.update(loaded.names)
    if any(name.startswith("ProfilerStep#") for name in names):
        names.add("ProfilerStep")
    return vocabulary_of(names)


def strings_of(measure):
    """Each string ``measure`` holds, with what it stands for: [(field, value, kind)]; ``kind`` is the name of
    its annotation (``"event"``, ``"idle cause"``…) or the members of a closed ``Literal``."""
    hints = get_type_hints(type(measure), include_extras=True)
    found = []
    for item in fields(measure):
        value, hint = getattr(measure, item.name), hints[item.name]
        if get_origin(hint) is tuple:
            hint = get_args(hint)[0]
            values = value
        else:
            values = (value,)
        if get_origin(hint) is Literal:
            kind = frozenset(get_args(hint))
        elif get_origin(hint) is Annotated:
            kind = hint.__metadata__[0]
        else:
            continue  # a number or a flag
        found += [(item.name, one, kind) for one in values if one != ""]
    return found


def allowed(kind, measure, data):
    """The members of a closed set that depend on the run (its tables, its configurations, its diff's keys, a
    family field's values), or of one the analysis defines; None for a kind of name looked up in runs."""
    if isinstance(kind, frozenset):
        return kind
    if kind in CLOSED_SETS:
        return CLOSED_SETS[kind]()
    if kind == "table":
        return {table.name for table in data.recording.tables}
    if kind == "configuration":
        return from_results(data, "configurations", read=lambda rows: {row["name"] for row in rows}) or set()
    if kind == "log message":
        return set(logged_messages(data) or ())
    if kind == "python function":
        return {stacks.function_of(frame) for frames, _ in exported_stacks(data) or () for frame in frames}
    if kind == "device property":
        return set(device_numbers(data))
    if kind == "diff key":
        found = data.diff.get(measure.field)
        return set(found) if isinstance(found, dict) else set()
    if kind == "diff row":
        return {row["name"] for row in data.diff.get(measure.rows, ())}
    if kind == "family value":
        return family_values(measure.field)  # None for a tile or fused ops, parts of a name looked up as such
    if kind == "compile marker":
        return set(compile_markers(data.trace))
    if kind == "gemm shapes":
        return {call.key[1] for call in gemm_calls(data.trace)}
    if kind == "run":
        from profguide.site.catalogue import REAL_TRACES, RECORDINGS

        return {run.id for run in (*RECORDINGS, *REAL_TRACES)}
    return None


def known_name(value, kind, names):
    """Whether one of ``names`` (a Vocabulary) is ``value`` (an event), holds it (a part of a name) or is a call
    of the module class ``value``. A part of a name is looked for as written, case and all: most measures match
    it so (``measure.named in name``), and one in another case would pass the check and then measure 0."""
    if kind == "event":
        return value in names.names
    if kind in ("name part", "family value"):  # a tile, fused ops: parts of a kernel's name
        return value in names.joined
    if kind == "module":
        return any((call := MODULE.match(name)) and call["name"] == value for name in names.names)
    raise ValueError(f"no way to look up a name of kind {kind!r}")


def unknown_strings(measure, data, known):
    """The strings of ``measure`` that name nothing: [(field, value, kind, members of its set or None)].
    ``known`` gives the Vocabularies to look names up in: the runs the claim reads, then the guide's."""
    unknown = []
    for field_name, value, kind in strings_of(measure):
        members = allowed(kind, measure, data)
        if members is not None:
            if value not in members:
                unknown.append((field_name, value, kind, members))
        elif not any(known_name(value, kind, names) for names in known()):
            unknown.append((field_name, value, kind, None))
    return unknown


def runs_read(claim, data):
    """The runs a claim reads besides the one it is checked on: the CPU run kept beside it, the run it is
    compared with, and the runs its measure names."""
    runs = []
    cpu = data.run_on("cpu")
    if cpu is not None and cpu is not data:
        runs.append(cpu)
    if data.recording.compared_with:
        runs.append(data.compared_run)
    named = allowed("run", claim.measure, data)
    runs += [data.sibling(value) for _, value, kind in strings_of(claim.measure) if kind == "run" and value in named]
    return runs


@dataclass(frozen=True)
class ClaimCheck:
    """A claim, the value measured for it, and the outcome.

    ``anchor`` names the claim's row in the table of every claim (the recording and the claim's place in its
    list); ``run`` says in words what it was measured on; ``reason`` why it was not checked, or which of its
    names nothing holds.
    """

    recording: str
    claim: object
    value: float | None
    outcome: str
    device: str
    anchor: str = ""
    run: str = ""
    reason: str = ""

    def line(self):
        """One line for a person: the page, the words, the measurement and the outcome."""
        claim = self.claim
        value = "cannot be measured" if self.value is None else f"{self.value:.3g}"
        where = f'{claim.page} says "{claim.says}" of {self.recording}'
        if self.outcome == NOT_ON_PAGE:
            return (f"{where}, but the page no longer says it inside a mark, [...]{{.claim}}: "
                    "update the claim or the page")
        if self.outcome == WAITS:
            return f"{where}: about {claim.device} runs, waiting for one beside this {self.device} stand-in"
        if self.outcome in (NOT_CHECKED, MISNAMED):
            return f"{where}: {self.reason}"
        return f"{where}: {claim.measure.describe()} = {value}, must be {claim.bound()}: {self.outcome}"


def holds(claim, value):
    if value is None or not np.isfinite(value):
        return False
    return (claim.at_least is None or value >= claim.at_least) and (claim.at_most is None or value <= claim.at_most)


def checked_run(claim, data):
    """The run a claim is checked on, and otherwise why not: (run, None) or (None, (outcome, reason)).

    A claim about no device in particular is checked on the run the page shows; one about the device that
    run was made on, on it too. A claim about the CPU beside a CUDA run is checked on the CPU run kept with
    it. A claim about CUDA beside a CPU stand-in waits for the GPU run that will replace it. Anything else
    can never be checked, and the build fails on it, saying what to change.
    """
    device = data.meta["device"]
    if claim.device in (None, device):
        return data, None
    kind = "trace" if getattr(data, "real", False) else "recording"
    if claim.device == "cpu":
        cpu = data.run_on("cpu") if kind == "recording" else None
        if cpu is not None:
            return cpu, None
        return None, (NOT_CHECKED, f"about CPU runs, and the {kind} holds a {device} run with no CPU run kept "
                                   "beside it: record that (`make figures` records what is missing), or reword "
                                   f"the claim for {device} runs")
    if kind == "recording" and data.meta.get("cpu_standin"):
        return None, (WAITS, "")
    return None, (NOT_CHECKED, f"about {claim.device} runs, and the {kind} is a {device} run that no "
                               f"{claim.device} run will replace: point the claim at a recording meant for "
                               f"{claim.device} (or a real trace of one), or reword it for {device} runs")


def misnamed_words(unknown):
    """Why a claim's names fail, in one clause."""
    words = []
    for field_name, value, kind, members in unknown:
        if members is None:
            words.append(f'{field_name} "{value}" names no {kind} of the runs it reads, of the guide\'s real '
                         "traces or of torch\'s operators")
        else:
            words.append(f'{field_name} "{value}" is no {kind if isinstance(kind, str) else "choice"} '
                         f"(one of: {', '.join(sorted(members))})")
    return "; ".join(words) + ": a misspelling?"


def judged(claim, data, run, refused, names, vocabulary):
    """(value, outcome, reason) of a claim its page makes: ``run`` is the run it is checked on (or None, with
    ``refused`` saying why), ``names`` the Vocabulary of ``data`` itself; its other runs and ``vocabulary`` are
    looked in only for a name ``data`` lacks."""
    def known():
        yield names()
        yield run_names(runs_read(claim, data))
        if vocabulary is not None:
            yield vocabulary

    if refused and refused[0] == NOT_CHECKED:
        return None, *refused  # its names are those of a run that is not there
    unknown = unknown_strings(claim.measure, run or data, known)
    if unknown:
        return None, MISNAMED, misnamed_words(unknown)
    if refused:
        return None, *refused
    value = measured(claim.measure, run)
    return value, HOLDS if holds(claim, value) else FAILS, ""


def check(recording, data, docs, vocabulary=None):
    """Check every claim of ``recording`` against its data and its page under ``docs``: a claim's words must lie
    inside a mark on its page (``profguide.site.marks``), and each name it measures must be known: held by a
    run it reads or by ``vocabulary`` (``vocabulary(root)``: torch's operators, the real traces' names). A claim
    whose run cannot be read is not checked, and says why."""
    checks = []
    names = functools.cache(lambda: run_names([data]))
    for number, claim in enumerate(recording.claims, 1):
        page = Path(docs) / claim.page
        words = marks.marked(page.read_text()) if page.is_file() else []
        run = None
        if not any(marks.holds_words(marked, claim.says) for marked in words):
            value, outcome, reason = None, NOT_ON_PAGE, ""
        else:
            try:
                run, refused = checked_run(claim, data)
                value, outcome, reason = judged(claim, data, run, refused, names, vocabulary)
            except (RecordingError, TraceError) as error:
                value, outcome, reason = None, NOT_CHECKED, f"cannot be measured: {error}"
        shown = run or data
        checks.append(ClaimCheck(recording.id, claim, value, outcome, shown.meta["device"],
                                 f"claim-{recording.id}-{number}", run_words(shown.meta), reason))
    return checks


def mark_problems(docs, checks):
    """One line for each way the marks on the pages under ``docs`` and the claims disagree: a mark that shows no
    claim (a sentence shown as checked that nothing checks), a mark that shows another page's claim, and a
    claim that more than one mark shows."""
    entries = [{"says": c.claim.says, "page": c.claim.page, "anchor": c.anchor} for c in checks]
    lines, times_shown = [], {}
    for page in sorted(Path(docs).rglob("*.md")):
        relative = str(page.relative_to(docs))
        if relative.startswith("generated/"):
            continue
        text = page.read_text()
        if marks.marked(text) and marks.checked_include(relative) not in text:
            lines.append(f"{relative} marks sentences as checked but does not list them: end it with "
                         f"{marks.checked_include(relative)}")
        for words in marks.marked(text):
            found = marks.shown(words, entries)
            if not found:
                lines.append(f'{relative} marks "{words}" as checked, but no claim checks it')
            for entry in found:
                if entry["page"] != relative:
                    lines.append(f'{relative} marks "{words}", which shows a claim of {entry["page"]}: '
                                 "quote more of the sentence in one of the two claims")
                times_shown[entry["anchor"]] = times_shown.get(entry["anchor"], 0) + 1
    lines += [f'{c.claim.page}: {times_shown[c.anchor]} marks show the claim "{c.claim.says}" of {c.recording}; '
              "quote more of its sentence" for c in checks if times_shown.get(c.anchor, 0) > 1]
    return lines


def failed(checks):
    """The checks that make the build fail: a claim that does not hold, one that names what nothing holds, one no
    run can check, or one its page no longer makes."""
    return [c for c in checks if c.outcome in FAILING]


def counts(checks):
    """What came of the claims, in numbers: checked (measured and compared with their bounds), holding,
    failing (whatever makes the build fail) and waiting (predictions about GPU runs beside CPU stand-ins)."""
    return {"claims": len(checks), "checked": sum(c.outcome in (HOLDS, FAILS) for c in checks),
            "holding": sum(c.outcome == HOLDS for c in checks), "failing": len(failed(checks)),
            "waiting": sum(c.outcome == WAITS for c in checks)}


def claims_table(checks):
    """Markdown: every claim of the guide, with the value measured for it and the outcome; each row links to the
    claim's row in its page's own list (``page_claims``)."""
    rows = [(f"[{cell(c.claim.page.removesuffix('.md'))}](../{cell(c.claim.page)}#{c.anchor})",
             cell(c.claim.says, markdown=True), code(c.recording), measured_words(c), cell(c.claim.bound(), True),
             result_words(c)) for c in checks]
    return markdown_table(("Page", "The page says", "Recording", "Measured", "Must be", "Result"), rows, "llllll")


def measured_words(check):
    """What was measured for a claim and its value, in a cell (the measure's words are the guide's Markdown)."""
    return cell(check.claim.measure.describe(), markdown=True) + " = " + (
        "–" if check.value is None else f"{check.value:.3g}")


DEVICE_WORDS = {"cuda": "GPU", "cpu": "CPU", None: "any"}
STATES = {HOLDS: "holds", WAITS: "waits", **{outcome: "fails" for outcome in FAILING}}


def mark_entry(c):
    """What the mark of one claim shows (``profguide.site.marks``): its state, its label and its tooltip."""
    claim, state = c.claim, STATES[c.outcome]
    if state == "holds":
        label = "✓"
        title = (f"Checked: {claim.measure.describe()} = {c.value:.3g}, and the words need {claim.bound()}. "
                 f"Run: {c.run}.")
    elif state == "waits":
        device = DEVICE_WORDS[claim.device]
        label = f"waits for a {device} run"
        title = (f"Not checked yet: a prediction about {device} runs, and this page shows {c.run}. A {device} "
                 f"recording will check that {claim.measure.describe()} is {claim.bound()}.")
    else:
        label = "✗ does not hold"
        title = c.line()
    return {"page": claim.page, "says": claim.says, "anchor": c.anchor, "state": state, "label": label,
            "title": title}


def page_claims(checks):
    """Markdown for the end of a page: its checked sentences, what was measured for each and on which run,
    collapsed. Each row is the target of its sentence's mark (``anchor``)."""
    waiting = sum(c.outcome == WAITS for c in checks)
    summary = f"{count_of(len(checks), 'sentence')} on this page checked against their runs" + (
        f", {waiting} waiting for a GPU run" if waiting else "")
    lines = [f'??? abstract "{summary}"',
             "    The build checks each sentence shown with a mark against the run the page shows, and fails when "
             "one no longer holds: a GPU refresh cannot silently falsify a sentence. *How the figures are made* "
             "lists the checks of every page.", ""]
    rows = [(f'<span id="{c.anchor}"></span>{cell(c.claim.says, markdown=True)}',
             measured_words(c), cell(c.claim.bound(), True), result_words(c), cell(c.run, True))
            for c in checks]
    table = markdown_table(("The page says", "Measured", "The words need", "Result", "Run"), rows, "lllll")
    return "\n".join(lines) + "\n" + textwrap.indent(table, "    ")


def result_words(c):
    if c.outcome == HOLDS:
        return "✓ holds"
    if c.outcome == WAITS:
        return f"waits for a {DEVICE_WORDS[c.claim.device]} run"
    return f"✗ {c.outcome}"


def mark_entries(checks):
    """``claims.json``: one entry per claim, for the marks on the pages."""
    return json.dumps([mark_entry(c) for c in checks], indent=1, ensure_ascii=False) + "\n"
