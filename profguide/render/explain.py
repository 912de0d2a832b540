"""``profguide explain``: what a trace says, in plain words, with the numbers behind it.

The verdict comes first, then the evidence, then where to look in Perfetto.
Times that point into the trace are given from the trace's first event, as
Perfetto's timeline shows them.
"""

import re
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, cast

import msgspec

from profguide.analysis.families import family_sentence
from profguide.analysis.host import CPU_LABELS, OUTSIDE
from profguide.analysis.idle import LATE_LAUNCH
from profguide.analysis.ranks import label, ranks_to_show
from profguide.analysis.summary import (
    CaptureJoin,
    CompileMarkers,
    DeviceSetup,
    Finding,
    FolderJob,
    GraphUse,
    HostBreakdown,
    RankRow,
    Serving,
    TraceSummary,
)
from profguide.render.facts import (
    kernel_times,
    longest_took,
    peak_tflops,
    percent,
    seen_at,
    share,
    share_of_peak,
    tflops,
)
from profguide.render.roofline import roofline_lines
from profguide.stats import median
from profguide.text import CONTROL, cell, clocks_note, code_cell, count_of, cut, format_duration, markdown_table, shown

if TYPE_CHECKING:  # the shapes --ops and diff print, imported only for the type checker: explain does without
    from profguide.analysis.diff import JobDiff, TraceDiff
    from profguide.analysis.op_view import OpsView

RANKS_SHOWN = 16  # a folder of more ranks: the text lists the straggler and those that waited longest (--json all)
HOST_STEPS_SHOWN = 8  # a trace without GPU work: the steps whose split the text lists (--json has all)
IDLE_LABELS = {
    "host": "waiting for the host to launch",
    "sync": "host blocked in a sync",
    "profiler": "the profiler's own work",
    "queued": "next op already queued",
    "other": "unexplained",
}


# Characters msgspec writes as they are that a terminal acts on (DEL, C1 controls, bidi overrides): written as JSON
# escapes instead, which decode to the same string. They can stand only inside strings.
JSON_ESCAPES = {code: f"\\u{code:04x}" for code in CONTROL if code >= 0x7F}


def to_json(summary: "TraceSummary | FolderJob | OpsView | TraceDiff | JobDiff") -> str:
    """The stable ``--json`` form of a trace's summary or of a folder's job (``profguide.analysis.summary``), of
    ``--ops`` (``profguide.analysis.ops``) and of ``diff`` (``profguide.analysis.diff``)."""
    return msgspec.json.format(msgspec.json.encode(summary, order="sorted"), indent=1).decode().translate(JSON_ESCAPES)


def at(summary: TraceSummary, ts: float) -> str:
    """A point in the trace as Perfetto shows it: time since the trace's first event."""
    return f"+{format_duration(ts - summary['trace_start_us'])}"


def headline(summary: TraceSummary) -> str:
    device = cut(summary["device"]) if summary["device"] else "device not named in the trace"
    rank = f", rank {summary['rank']}" if summary["rank"] is not None else ""
    return f"{shown(Path(summary['file']).name)} ({device}{rank}, {count_of(summary['events'], 'complete event')})"


def host_lines(host: HostBreakdown, steps_shown: int = HOST_STEPS_SHOWN) -> list[str]:
    """Where the host's time went on a trace without GPU work: in all, each step (a few), other threads."""
    windows = host["windows"]
    labels = [row["label"].removeprefix("ProfilerStep") for row in windows]
    over = (f"the {labels[0]}" if not labels[0].startswith("#")
            else f"ProfilerStep{labels[0]}" if len(windows) == 1
            else f"{count_of(len(windows), 'ProfilerStep')} ({labels[0]}..{labels[-1]})")
    activities = sorted(host["by_activity"].items(), key=lambda item: -item[1]["us"])
    parts = [f"{row['meaning']} {share(row['us'], host['dur_us'])}"
             + (f" ({cut(row['top'][0][0], 60)})" if row["top"] and row["top"][0][0] != OUTSIDE else "")
             for activity, row in activities if row["us"]]
    lines = [f"Host time on thread {host['thread']} over {over}, {format_duration(host['dur_us'])}: "
             + "; ".join(parts) + "."]
    if len(windows) > 1:
        for row in windows[:steps_shown]:
            spent = ", ".join(f"{CPU_LABELS[activity]} {share(us, row['dur_us'])}"
                              for activity, us in sorted(row["by_activity_us"].items(), key=lambda item: -item[1])
                              if us)
            lines.append(f"{row['label']}, {format_duration(row['dur_us'])}: {spent or 'nothing recorded'}.")
        if len(windows) > steps_shown:
            lines.append(f"… and {count_of(len(windows) - steps_shown, 'more step')} (--json has every one).")
    for thread in host["other_threads"]:
        lines.append(f"Thread {thread['thread']} was busy {format_duration(thread['busy_us'])} "
                     f"({share(thread['busy_us'], host['dur_us'])}) of that time, most in {cut(thread['top'], 60)}.")
    return lines


def trust_line(summary: TraceSummary) -> str:
    """The trust check's confidence, and each check the trace failed, with where it first shows."""
    trust = summary["trust"]
    if not trust["reasons"]:
        return f"Trust: high — every check passed ({trust['checks']} checks)."
    return f"Trust: {trust['confidence']} — " + "; ".join(
        reason["seen"] + (f" (first at {at(summary, reason['at_us'])})" if reason["at_us"] is not None else "")
        for reason in trust["reasons"]) + "."


def verdict_lines(summary: TraceSummary) -> list[str]:
    lines = [f"Verdict: {summary['verdict']}. {summary['verdict_text']}", f"Decided by: {summary['verdict_basis']}.",
             trust_line(summary)]
    lines += graph_lines(summary["graphs"]) + capture_lines(summary["capture"])
    if summary["serving"]:
        lines += serving_lines(summary["serving"])
    if summary["host"]:
        lines += host_lines(summary["host"])
    window, idle = summary["window"], summary["idle"]
    if window and idle:
        lines.append(
            f"GPU busy {percent(summary['gpu_busy_pct'])}, idle {percent(summary['gpu_idle_pct'])} "
            f"of {format_duration(window['dur_us'])} ({summary['window_definition']})."
        )
        by_htas_rule = summary["gpu_idle_pct_by_htas_rule"]
        if by_htas_rule is not None:
            lines.append(f"GPU idle by HolisticTraceAnalysis's rule (its ops, at the trace's own times): "
                         f"{percent(by_htas_rule)} of the same window.")
        causes = idle["by_cause"]
        parts = [
            f"{IDLE_LABELS[cause]} {100 * row['idle_us'] / window['dur_us']:.1f}% ({row['gaps']:,} gaps)"
            for cause, row in causes.items()
            if row["idle_us"] > 0
        ]
        if parts:
            lines.append("Idle time by cause: " + "; ".join(parts) + ".")
        activities = [
            f"{row['meaning']} {100 * row['idle_us'] / window['dur_us']:.1f}%"
            + (f" ({cut(row['top'][0][0], 60)})" if row["top"] and row["top"][0][0] != OUTSIDE else "")
            for activity, row in sorted(idle["by_activity"].items(), key=lambda item: -item[1]["idle_us"])
            if window["dur_us"] and 100 * row["idle_us"] / window["dur_us"] >= 0.05  # 0.0% would say nothing
        ]
        if activities:
            waited = sum(causes[cause]["idle_us"] for cause in LATE_LAUNCH)
            lines.append(f"While the GPU waited for the host ({' and '.join(IDLE_LABELS[c] for c in LATE_LAUNCH)}: "
                         f"{100 * waited / window['dur_us']:.1f}% of the window), the host was, in shares of the "
                         "window that add up to it: " + "; ".join(activities) + ".")
    return lines


def graph_lines(graphs: GraphUse | None) -> list[str]:
    """What the trace does with CUDA graphs: a line for its captures (then it is a capture trace), one for the
    replays in the window; none when it does neither."""
    if graphs is None:
        return []
    lines = []
    if graphs["captures"]:
        lines.append(f"A capture trace: {count_of(graphs['captures'], 'stream capture')} recorded "
                     f"{count_of(graphs['captured_calls'], 'launch call')} into CUDA graphs; those kernels did not "
                     "run while captured, so the times here are the capture's, not the replay's.")
    if graphs["replayed_ops"]:
        distinct = "" if graphs["graphs"] is None else f" of {count_of(graphs['graphs'], 'graph')}"
        lines.append(f"CUDA graph replay: {count_of(graphs['replayed_ops'], 'GPU op')} "
                     f"({percent(graphs['replayed_pct'])} of the GPU ops' time in the window) replayed by "
                     f"{count_of(graphs['launches'], 'graph launch call')}{distinct}.")
    return lines


def capture_lines(join: CaptureJoin | None) -> list[str]:
    """With ``--capture``: the replayed GPU time by the op that captured it."""
    if join is None:
        return []
    unmatched = (f"; {count_of(join['unmatched_ops'], 'op')} matched no capture (another number of nodes)"
                 if join["unmatched_ops"] else "")
    ops = "; ".join(f"{cut(row['op'], 60)} {format_duration(row['us'])} ({count_of(row['ops'], 'op')})"
                    for row in join["by_op"])
    return [f"Replayed GPU time by the op that captured it ({shown(join['file'])}, "
            f"{count_of(join['replayed_ops'], 'replayed op')}{unmatched}): {ops or 'none joined'}."]


def total(values: list[int | None]) -> int | None:
    """The steps' tokens added up; None where a step's annotation does not give them."""
    return None if any(value is None for value in values) else sum(value or 0 for value in values)


def batch_words(batches: list[int | None]) -> str:
    """The requests each step holds, as ", batch 8" or ", batch 1 to 46"; nothing where a step's annotation does not
    say. Never added up: a request decoding over 30 steps is one request in each of them."""
    if not batches or any(batch is None for batch in batches):
        return ""
    known = [batch or 0 for batch in batches]
    return f", batch {min(known):,}" + ("" if min(known) == max(known) else f" to {max(known):,}")


def serving_lines(serving: Serving) -> list[str]:
    """A line per phase of a serving trace: its steps, the requests a step holds and the tokens, and its verdict."""
    lines = []
    for phase in serving["phases"]:
        steps = [step for step in serving["steps"] if step["phase"] == phase["phase"]]
        tokens = total([step["tokens"] for step in steps])
        sizes = batch_words([step["batch"] for step in steps]) + ("" if tokens is None else
                                                                  f", {count_of(tokens, 'token')}")
        lines.append(f"Serving ({serving['engine']}), {phase['phase']}: {count_of(phase['steps'], 'step')}{sizes}; "
                     f"{phase['verdict']} over {format_duration(phase['window']['dur_us'])}: {phase['verdict_basis']}.")
    return lines


def evidence_lines(summary: TraceSummary) -> list[str]:
    lines = []
    steps = summary["steps"]
    if steps:
        slowest = max(steps, key=lambda s: s["dur_us"])
        typical_us = cast(float, median([s["dur_us"] for s in steps]))  # a median of one step or more is a number
        lines.append(
            f"Steps: {count_of(len(steps), 'ProfilerStep')} (#{steps[0]['step']}"
            f"{'' if len(steps) == 1 else '..#' + str(steps[-1]['step'])}), median "
            f"{format_duration(typical_us)}, slowest #{slowest['step']} "
            f"{format_duration(slowest['dur_us'])}."
        )
    lines += startup_lines(summary)
    families = family_sentence(summary["kernel_families"])
    if families:
        lines.append(f"Kernels by family: {families}")
    for api, stats in summary["launch_delay_us"].items():
        lines.append(
            f"Launch delay ({api} API, call end to GPU start, stream empty): p50 {format_duration(stats['p50'])}, "
            f"p95 {format_duration(stats['p95'])}, max {format_duration(stats['max'])} "
            f"over {count_of(stats['count'], 'op')}"
            f"{clocks_note(stats['p50'], stats['p95'], stats['max'])}."
        )
    queueing = summary["queueing_us"]
    if queueing:
        lines.append(
            f"Queueing (call end to GPU start, behind earlier work on the stream): p50 "
            f"{format_duration(queueing['p50'])}, p95 {format_duration(queueing['p95'])} "
            f"over {count_of(queueing['count'], 'op')}{clocks_note(queueing['p50'], queueing['p95'])}."
        )
    skew = summary["clock_skew"]
    if skew and skew["ops_starting_before_launch"]:
        lines.append(
            f"Clock skew: {skew['ops_starting_before_launch']:,} GPU ops start before the call that launched them: "
            f"the GPU's clock runs at least {format_duration(skew['at_least_us'])} ahead of the host's."
        )
    for name, row in summary["profiler_overhead"]["by_name"].items():
        lines.append(
            f"Profiler overhead: {cut(name)} {row['count']:,}×, {format_duration(row['total_us'])}, the GPU idle for "
            f"{format_duration(row['gpu_idle_during_us'])} of it; first at {at(summary, row['first_start_us'])}."
        )
    left_out = summary["left_out_of_window"]
    if left_out:
        lines.append(
            f"Window: {left_out['rule']}; here that is {left_out['ops']:,} ops, {percent(left_out['busy_pct'])} of "
            "the GPU's busy time, so they are measured too."
        )
    for category, count in summary["unanalysed_events"].items():
        lines.append(f"Not analysed: {count:,} events of category {cut(category)}.")
    syncs = summary["synchronisations"]
    if syncs["host_calls"]:
        longest = syncs["longest"][0]
        lines.append(
            f"Synchronisations: {syncs['host_calls']:,} host sync calls, {format_duration(syncs['host_time_us'])} "
            f"in all, during which the GPU was busy {format_duration(syncs['gpu_busy_during_us'])}; the longest, "
            f"{longest_took(longest['name'], longest['dur_us'])} at {at(summary, longest['start_us'])}."
        )
    comm = summary["communication"]
    if comm["kernels"]:
        lines.append(
            f"Communication: {comm['kernels']:,} kernels, {format_duration(comm['kernel_us'])}, "
            f"{percent(comm['overlap_pct'])} overlapped with computation "
            f"({format_duration(comm['exposed_us'])} exposed)."
        )
    for traffic in summary["memory_traffic"][:3]:
        bandwidth = f" at {traffic['gb_per_s']:.1f} GB/s" if traffic["gb_per_s"] else ""
        size = f", {traffic['bytes'] / 1e6:,.1f} MB" if traffic["bytes"] else ""
        lines.append(f"{cut(traffic['name'])}: {traffic['count']:,}×, {format_duration(traffic['total_us'])}"
                     f"{size}{bandwidth}.")
    for gemm in summary["gemm"][:3]:
        if gemm["tflops"] is None:
            continue
        peak = (
            f" ({share_of_peak(gemm['pct_of_peak'])} of the datasheet's {peak_tflops(gemm['peak_tflops'])})"
            if gemm["pct_of_peak"] is not None and gemm["peak_tflops"] is not None else ""
        )
        lines.append(
            f"{gemm['op']} {gemm['input_dims']} {cut(gemm['dtype'])}: {tflops(gemm['tflops'])}{peak} "
            f"over {gemm['calls']:,} calls."
        )
    lines += roofline_lines(summary["roofline"])
    lines += compile_lines(summary["compile"])
    for reason, count in summary["skipped_events"].items():
        lines.append(f"Skipped {count:,} events {reason}.")
    for repair, count in summary["repairs"].items():
        lines.append(f"Mended to read the trace ({repair}): {count:,}.")
    return lines


def setup_words(setup: DeviceSetup) -> str:
    calls = ", ".join(f"{cut(name, 40)} {format_duration(us)}" for name, us in setup["top"])
    return format_duration(setup["us"]) + (f" ({calls})" if calls else "")


def startup_lines(summary: TraceSummary) -> list[str]:
    """The iterations found without ProfilerStep, the cold start set apart, and device set-up in the window."""
    lines = []
    found = summary["iterations"]
    if found:
        lines.append(f"Iterations (no ProfilerStep; found by {cut(found['found_by'], 60)}): {found['count']:,}, "
                     f"median {format_duration(found['median_us'])}.")
        cold = found["cold_start"]
        if cold:
            lines.append(f"Cold start: the first iteration took {format_duration(cold['dur_us'])}, "
                         f"{cold['times_median']:.1f}× the median, at {at(summary, cold['start_us'])}, "
                         f"{setup_words(cold['setup'])} of it in device set-up; the verdict is on the iterations "
                         "after it.")
    setup = summary["device_setup"]
    if setup and setup["us"] and summary["window"]:
        lines.append(f"Device set-up: {setup_words(setup)}, {percent(setup['pct'])} of the window.")
    return lines


def compile_lines(compiled: CompileMarkers) -> list[str]:
    """What torch.compile left in the trace, a line per kind of evidence; none when it left nothing."""
    lines = []
    if compiled["compiled_regions"]:
        lines.append(
            f"torch.compile: {count_of(compiled['compiled_regions'], 'compiled region')}, "
            f"{percent(compiled['compiled_region_pct'])} of {compiled['window']}; "
            f"{count_of(compiled['graph_calls'], 'call')} of a compiled graph."
        )
    if compiled["compilations"]:
        lines.append(
            f"Compiling: {count_of(compiled['compilations'], 'compilation')} "
            f"({count_of(compiled['recompilations'], 'recompilation')}), "
            f"{format_duration(compiled['compile_us'])}, {percent(compiled['compile_pct'])} of {compiled['window']}."
        )
    gaps = compiled["eager_gaps"] or []
    if gaps:
        longest = max(gaps, key=lambda gap: gap["dur_us"])
        gaps_us = cast(float, compiled["eager_gap_us"])  # set whenever eager_gaps is
        lines.append(
            f"Eager code between the compiled regions of one step (graph breaks, or calls between compiled "
            f"functions): {count_of(len(gaps), 'gap')}, {format_duration(gaps_us)} in all; "
            f"the longest {format_duration(longest['dur_us'])}, in ProfilerStep#{longest['step']}."
        )
    if compiled["triton_kernels"]:
        lines.append(
            f"Triton kernels: {compiled['triton_kernels']:,}, {format_duration(compiled['triton_kernel_us'])}, "
            f"{percent(compiled['triton_pct'])} of the kernels' time."
        )
    if compiled["cuda_graph_launches"]:
        lines.append(f"CUDA graph launches: {compiled['cuda_graph_launches']:,}.")
    return lines


def kernel_lines(summary: TraceSummary, limit: int = 5) -> list[str]:
    return [
        f"{format_duration(row['total_us']):>9}  {row['count']:>6,}×  mean {mean}, p50 {p50}, p95 {p95}, "
        f"max {longest}  {cut(row['name'])}"
        for row in summary["top_kernels"][:limit] for mean, p50, p95, longest in [kernel_times(row)]
    ]


def where_to_look(summary: TraceSummary) -> list[str]:
    lines = []
    window, idle = summary["window"], summary["idle"]
    if window and idle:
        lines.append(f"The window runs from {at(summary, window['start_us'])} to {at(summary, window['end_us'])}.")
        for gap in idle["longest_gaps"][:3]:
            if gap["dur_us"] > 0:
                lines.append(
                    f"Idle gap of {format_duration(gap['dur_us'])} at {at(summary, gap['start_us'])} "
                    f"({IDLE_LABELS[gap['cause']]})."
                )
    return lines


def finding_lines(found: list[Finding], origin: float) -> list[str]:
    """Each rule's finding in a line: its id, what it saw (and where, from ``origin``, the trace's first event),
    the change to try and the guide's page that shows it."""
    return [f"[{row['rule']}] {row['evidence']}" + ("" if seen is None else f" (at +{seen})")
            + f". Try: {row['change']} (guide: {row['guide']})"
            for row in found for seen in [seen_at(row["at_us"], origin)]]


def to_text(summary: TraceSummary) -> str:
    headed = [
        ("Evidence:", evidence_lines(summary)),
        ("What the rules found (the reference page lists every rule):",
         finding_lines(summary["findings"], summary["trace_start_us"])),
        ("Top kernels by total time in the window:", kernel_lines(summary)),
        ("Where to look (times from the trace's first event, as Perfetto shows them):", where_to_look(summary)),
    ]
    lines = [headline(summary), *verdict_lines(summary)]
    for heading, body in headed:
        if body:  # a heading with nothing under it would say nothing
            lines += [heading] + ["  " + line for line in body]
    return "\n".join(lines) + "\n"


def markdown_text(text: str) -> str:
    """Text from a trace, safe in Markdown: HTML escaped (no tag, no ``<autolink>``), and the characters that
    start emphasis, code or a link escaped with a backslash (``__next__`` would turn bold, ``[x](javascript:…)``
    a link)."""
    return re.sub(r"([\\`*_\[\]])", r"\\\1", escape(text))


def to_markdown(summary: TraceSummary) -> str:
    lines = [f"**{markdown_text(headline(summary))}**", "",
             f"**{summary['verdict']}**: {markdown_text(summary['verdict_text'])}", ""]
    lines += [f"- {markdown_text(line)}" for line in verdict_lines(summary)[1:] + evidence_lines(summary)]
    if summary["top_kernels"]:
        rows = [(code_cell(row["name"]), format_duration(row["total_us"]), f"{row['count']:,}",
                 *kernel_times(row))
                for row in summary["top_kernels"][:10]]
        lines += ["", markdown_table(("Kernel", "Total", "Calls", "Mean", "p50", "p95", "Max"), rows, "lrrrrrr")]
    lines += finding_markdown(summary["findings"], summary["trace_start_us"])
    looks = where_to_look(summary)
    if looks:
        lines += ["", "Where to look:", ""] + [f"- {line}" for line in looks]
    return "\n".join(lines) + "\n"


def finding_markdown(found: list[Finding], origin: float) -> list[str]:
    """The findings as a Markdown list under a heading line; nothing when no rule found anything."""
    return ["", "What the rules found:", ""] + [f"- {markdown_text(line)}" for line in finding_lines(found, origin)] \
        if found else []


def shown_ranks(job: FolderJob) -> list[RankRow]:
    """The rows the text and Markdown list, in rank order (``ranks_to_show``)."""
    return [job["ranks"][index] for index in ranks_to_show(job, RANKS_SHOWN)]


def job_headline(job: FolderJob) -> str:
    rows = job["ranks"]
    world = f" of a job of {job['world_size']:,}" if job["world_size"] else ""
    backends = sorted({cut(row["backend"]) for row in rows if row["backend"]})
    backend = f", {', '.join(backends)}" if backends else ""
    return f"{shown(Path(job['folder']).name or job['folder'])}: {count_of(len(rows), 'rank trace')}{world}{backend}"


def straggler_sentence(job: FolderJob) -> str:
    """Who the straggler is and how long each other rank waited for it, or why no straggler is named."""
    rows, straggler = job["ranks"], job["straggler"]
    if straggler is None:
        return ""
    waits = [row for index, row in enumerate(rows) if index != straggler]
    longest = max(waits, key=lambda row: row["wait_us"] or 0.0)  # every rank has a wait when a straggler is named
    others = (f"{label(longest)} waited {format_duration(longest['wait_us'] or 0.0)} for it"
              + (f" ({percent(longest['wait_pct'])} of its time)" if longest["wait_pct"] is not None else ""))
    if len(waits) > 1:
        least = format_duration(min(row["wait_us"] or 0.0 for row in waits))
        others = (f"the {count_of(len(waits), 'other rank')} waited {least} to "
                  f"{format_duration(longest['wait_us'] or 0.0)} for it; the longest, {others}")
    shared = count_of(job["shared_collectives"], "collective")
    # Added one by one, not the Communication column's union: each collective's length is one arrival.
    theirs = sorted(row["shared_collective_us"] for row in waits)
    against = (f"{format_duration(theirs[0])} on {label(waits[0])}" if len(waits) == 1 else
               f"{format_duration(theirs[0])} to {format_duration(theirs[-1])} on the other ranks")
    return (f"The straggler is {label(rows[straggler])}: the {shared} every rank ran lasted "
            f"{format_duration(rows[straggler]['shared_collective_us'])} on it, their durations added one by one, "
            f"against {against}, because the others were already waiting in them when it arrived; {others}."
            + host_sentence(job))


def host_sentence(job: FolderJob) -> str:
    """Whether the straggler's machine (host_name) is its own or one it shares with ranks that waited."""
    alone, straggler = job["straggler_host_alone"], job["straggler"]
    if alone is None or straggler is None:
        return ""
    host = cut(job["ranks"][straggler]["host_name"] or "")
    if alone:
        return (f" It ran on the machine named {host}, where no other rank ran: look at that machine first (its GPUs' "
                "clocks and temperature, its network links, what else runs on it).")
    return (f" It ran on the machine named {host}, beside ranks that waited for it: the machine is not the "
            "difference, so look at what the rank itself does differently.")


def is_straggler(job: FolderJob, row: RankRow) -> bool:
    return job["straggler"] is not None and job["ranks"][job["straggler"]] is row


RANK_COLUMNS = ("Rank", "Measured on", "Window", "Busy", "Idle", "Communication", "Exposed", "Waited for the straggler",
                "Verdict")


def rank_cells(row: RankRow, straggler: bool = False) -> tuple[str, ...]:
    window = row["window"]["dur_us"] if row["window"] else 0.0
    wait = "–" if row["wait_us"] is None else "the straggler" if straggler else (
        format_duration(row["wait_us"]) + (f" ({percent(row['wait_pct'])})" if row["wait_pct"] is not None else ""))
    return (label(row), row["measured_on"], format_duration(window), share(row["busy_us"], window),
            share(row["idle_us"], window), format_duration(row["communication_us"]),
            format_duration(row["exposed_us"]), wait, row["verdict"])


def job_trust_note(ranks: list[RankRow], named: int = RANKS_SHOWN) -> str:
    """Which ranks' traces the trust check doubts, up to ``named`` of each confidence by name."""
    doubted = []
    for level in ("none", "reduced"):
        names = [label(row) for row in ranks if row["trust"] == level]
        if names:
            more = f" and {len(names) - named:,} more" if len(names) > named else ""
            doubted.append(f"{level} on {', '.join(names[:named])}{more}")
    if not doubted:
        return "Trust: high on every rank: each rank's trace passed every check."
    rest = "; high on the rest" if any(row["trust"] == "high" for row in ranks) else ""
    return f"Trust: {'; '.join(doubted)}{rest} (each rank's explain gives the reasons)."


def job_notes(job: FolderJob) -> list[str]:
    """What the table's columns measure, how the ranks were matched, and what the table leaves out."""
    notes = ["Busy and idle: the GPU's, over explain's window; on a rank without GPU work, the main thread's time "
             "in ops and in no op over the recorded steps (a sleep inside a record_function region is in no op). "
             "Communication: the time in that window when any of the rank's collectives ran, those side by side "
             "counted once. Exposed: the part of it that nothing else on the rank (computation kernels; the main "
             "thread's ops) overlapped."]
    aligned = job["aligned_on"]
    if aligned:
        how = "process group and Seq" if job["matched_by"] == "seq" else "name, stream and order"
        notes.append(f"Collectives matched by {how}: {job['shared_collectives']:,} on every rank; "
                     f"their ends stray from the ranks' clock offsets by {format_duration(job['stray_us'])} "
                     "(median).")
    notes.append(job_trust_note(job["ranks"]))
    left = len(job["ranks"]) - len(shown_ranks(job))
    if left:
        notes.append(f"{count_of(left, 'more rank')} not listed: the straggler and the ranks that waited longest "
                     "are (--json has every one).")
    return notes


def job_to_text(job: FolderJob) -> str:
    rows = shown_ranks(job)
    cells = [RANK_COLUMNS] + [rank_cells(row, is_straggler(job, row)) for row in rows]
    widths = [max(len(str(line[column])) for line in cells) for column in range(len(RANK_COLUMNS))]
    table = ["  " + "  ".join(str(value).ljust(width) for value, width in zip(line, widths, strict=True)).rstrip()
             for line in cells]
    lines = [job_headline(job), f"Job verdict: {job['verdict']}. {job['verdict_text']}"]
    sentence = straggler_sentence(job)
    lines += ([sentence] if sentence else []) + ["Ranks:"] + table + job_notes(job)
    if job["findings"]:
        lines += ["What the job rules found:"] + ["  " + line for line in finding_lines(job["findings"], 0.0)]
    return "\n".join(lines) + "\n"


def job_markdown_body(job: FolderJob) -> str:
    """The job's verdict, straggler, per-rank table and notes in Markdown, without the headline."""
    rows = shown_ranks(job)
    lines = [f"**{job['verdict']}**: {markdown_text(job['verdict_text'])}", ""]
    sentence = straggler_sentence(job)
    if sentence:
        lines += [markdown_text(sentence), ""]
    table = markdown_table(RANK_COLUMNS, [[cell(value) for value in rank_cells(row, is_straggler(job, row))]
                                          for row in rows], "ll" + "r" * 6 + "l")
    return ("\n".join(lines) + "\n" + table + "\n" + "\n".join(markdown_text(note) + "\n" for note in job_notes(job))
            + "\n".join(line + "\n" for line in finding_markdown(job["findings"], 0.0)))


def job_to_markdown(job: FolderJob) -> str:
    return f"**{markdown_text(job_headline(job))}**\n\n" + job_markdown_body(job)
