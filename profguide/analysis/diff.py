"""What ``profguide diff BEFORE AFTER`` compares: two traces' facts, or two folders' jobs, side by side.

Each side is loaded and measured on its own (in a worker process each when
both are files, with ``profguide.analysis.job``'s pool helpers): the worker
sends back a small ``Side``, never the trace, and the comparing is done here.

Counts and times are per ProfilerStep when both traces have steps, so that a
run of five steps compares with one of three; per iteration when both have
iterations found without them (``profguide.analysis.startup``); else over
each trace's window.
The kernels counted are those launched inside the steps (by their launch
call's start), or, without steps, those that start in explain's window. Every
share of time (GPU busy, idle by cause, host activities) is a share of the
window explain measures, and its µs per step is that share of the step time.
"""

from functools import partial
from pathlib import Path
from typing import Annotated, Literal, TypedDict, final

import numpy as np
from msgspec import Meta

from profguide import trace
from profguide.analysis.families import GEMM, TRITON, kernel_family
from profguide.analysis.intervals import Mask, Window
from profguide.analysis.job import folder_job, results_in_pool, trace_summary
from profguide.analysis.kernels import by_name, in_window
from profguide.analysis.ops import memory_peak, op_rows
from profguide.analysis.roofline import roofline_rows
from profguide.analysis.select import kinds_mask, launch_of
from profguide.analysis.summary import SCHEMA_VERSION, FolderJob, RankRow, RooflineRow, SchemaVersion, TraceSummary
from profguide.errors import UsageError
from profguide.files import is_folder
from profguide.limits import MAX_BYTES
from profguide.stats import median
from profguide.text import count_of, format_duration, shown
from profguide.trace.model import Trace

SHARED_NAMES_PCT = 50  # under this share of kernel time in names both sides share, on either side: match by role
Totals = dict[str, tuple[float, float]]  # name (or role) → (count, total µs)
OpTotals = dict[tuple[str, str], tuple[float, float]]  # (op name, input shapes) → (calls, self CPU µs)
RooflineKey = tuple[str, str, str]  # (op name, input shapes, type)


class Side(TypedDict):
    """What a worker measures of one trace and sends back: its summary and its kernels' totals."""

    summary: TraceSummary
    kernels: Totals  # every kernel counted (see the module's doc), by name
    launches: int  # the distinct calls that launched them
    ops: OpTotals  # the ops that start in the steps (else in explain's window, else anywhere)
    memory_peak: dict[str, float]  # device (cpu, cuda:0) → the peak of allocated bytes; empty without [memory]
    roofline: dict[RooflineKey, RooflineRow]  # the ops with a formula that start where ``ops`` are counted


def counted_kernels(loaded: Trace, summary: TraceSummary) -> Mask:
    """The kernels launched inside the ProfilerSteps (by their launch call's start, else their own), or,
    without steps, those that start in explain's window."""
    kernels = kinds_mask(loaded, ("kernel",))
    span = counted_span(summary)
    if not summary["steps"]:
        return kernels & in_window(loaded, span) if span else kernels & False
    start, end = span  # type: ignore[misc]  # a trace with steps has a span
    indices = np.flatnonzero(kernels)
    launch = launch_of(loaded, indices)
    when = np.where(launch >= 0, loaded.ts[np.maximum(launch, 0)], loaded.ts[indices])
    chosen = np.zeros(len(loaded), dtype=bool)
    chosen[indices[(when >= start) & (when < end)]] = True
    return chosen


def name_totals(loaded: Trace, selected: Mask) -> Totals:
    """(count, total µs) by name of the selected events."""
    codes, starts, durations = by_name(loaded, selected)
    if not len(codes):
        return {}
    counts, totals = np.diff(starts, append=len(durations)), np.add.reduceat(durations, starts)
    return {loaded.names[int(code)]: (float(count), float(total))
            for code, count, total in zip(codes, counts, totals, strict=True)}


def side_of(loaded: Trace, file: Path | str) -> Side:
    """One side of a diff, from its loaded trace; ``file`` names it."""
    summary = trace_summary(loaded, file)
    kernels = counted_kernels(loaded, summary)
    launch = launch_of(loaded, np.flatnonzero(kernels))
    return {"summary": summary, "kernels": name_totals(loaded, kernels),
            "launches": int(np.unique(launch[launch >= 0]).size),
            "ops": {(row["name"], row["shapes"]): (float(row["calls"]), row["self_cpu_us"])
                    for row in op_rows(loaded, counted_span(summary))},
            "memory_peak": {peak["device"]: peak["peak_bytes"] for peak in memory_peak(loaded) or []},
            "roofline": {(row["name"], row["shapes"], row["dtype"]): row
                         for row in roofline_rows(loaded, counted_span(summary))}}


def counted_span(summary: TraceSummary) -> Window | None:
    """Where ops are counted: from the first ProfilerStep's start to the last one's end, else explain's window,
    else (a trace without GPU work or steps) everywhere."""
    steps, window = summary["steps"], summary["window"]
    if steps:
        return steps[0]["start_us"], max(step["start_us"] + step["dur_us"] for step in steps)
    return (window["start_us"], window["end_us"]) if window else None


def file_side(file: Path, max_bytes: int = MAX_BYTES) -> Side:
    """One side of a diff, from its file: what a worker sends back (the trace is dropped there)."""
    return side_of(trace.load(file, max_bytes=max_bytes), file)


def file_sides(before: Path, after: Path, max_bytes: int = MAX_BYTES, workers: int | None = None) -> tuple[Side, Side]:
    """Both sides, read at once by two worker processes (``workers`` 1: one after the other, here, with one
    trace in memory at a time); the same file named twice (or through a link) is read once, here."""
    if before.resolve() == after.resolve():
        same = file_side(before, max_bytes)
        return same, same
    if workers == 1:
        return file_side(before, max_bytes), file_side(after, max_bytes)
    found = list(results_in_pool([before, after], partial(file_side, max_bytes=max_bytes), None, 2))
    return found[0], found[1]


class Quantity(TypedDict):
    """One number on both sides, and how it changed."""

    before: Annotated[float | None, Meta(description="its value on BEFORE; null where not measured")]
    after: Annotated[float | None, Meta(description="its value on AFTER; null where not measured")]
    change: Annotated[float | None, Meta(description="after minus before; null unless both are measured")]
    ratio: Annotated[float | None, Meta(description="after over before; null unless both are measured and "
                                                    "before is not 0")]
    change_pct: Annotated[float | None, Meta(description="the change as a share of before, in %")]


class SideFacts(TypedDict):
    """What the diff quotes about one side."""

    file: Annotated[str, Meta(description="the trace's path")]
    device: Annotated[str | None, Meta(description="the GPU's name; null when the trace does not say")]
    verdict: Annotated[str, Meta(description="explain's verdict")]
    verdict_text: Annotated[str, Meta(description="the verdict in a sentence")]
    steps: Annotated[int, Meta(description="how many ProfilerSteps")]
    step_us: Annotated[float | None, Meta(description="the median ProfilerStep; without steps, the median "
                                                      "iteration in explain's window, else the window's length; "
                                                      "null when there is none")]
    step_is: Annotated[str, Meta(description="what step_us is, in words")]
    window_us: Annotated[float | None, Meta(description="the length of the window the shares are of")]


class Change(TypedDict):
    """Kernels of one name (or role), or ops of one name and input shapes, on both sides."""

    name: Annotated[str, Meta(description="the kernel's or op's name; a role (gemm, attention…) when kernels "
                                          "are matched by role")]
    shapes: Annotated[str | None, Meta(description="the ops' input shapes as the trace writes them, \"\" where "
                                                   "not recorded; null for kernels")]
    status: Annotated[Literal["added", "removed", "changed", "same"], Meta(description="added: only on AFTER; "
                                                                                      "removed: only on BEFORE")]
    before_count: Annotated[float, Meta(description="how many on BEFORE, per step (see `per`)")]
    after_count: Annotated[float, Meta(description="how many on AFTER, per step")]
    before_us: Annotated[float, Meta(description="their time on BEFORE, per step (kernels: their durations; ops: "
                                                 "their self CPU time)")]
    after_us: Annotated[float, Meta(description="their time on AFTER, per step")]
    change_us: Annotated[float, Meta(description="after_us minus before_us")]


class RuleChanges(TypedDict):
    """Which rules (``profguide.analysis.rules``) fire on one side, on the other, or on both."""

    gone: Annotated[list[str], Meta(description="the rules that fire on BEFORE and not on AFTER")]
    new: Annotated[list[str], Meta(description="those that fire on AFTER and not on BEFORE")]
    kept: Annotated[list[str], Meta(description="those that fire on both")]


def rule_changes(before: TraceSummary, after: TraceSummary) -> RuleChanges:
    """The rules' ids by side, each list in the order the rules are tried."""
    fired = [[row["rule"] for row in summary["findings"]] for summary in (before, after)]
    return {"gone": [rule for rule in fired[0] if rule not in fired[1]],
            "new": [rule for rule in fired[1] if rule not in fired[0]],
            "kept": [rule for rule in fired[0] if rule in fired[1]]}


class RooflineChange(TypedDict):
    """An op with a formula, one set of input shapes and one type, on both sides: how near its roof it ran, and
    what its main kernel's name says changed."""

    name: Annotated[str, Meta(description="the op's name")]
    shapes: Annotated[str, Meta(description="its input shapes as the trace writes them")]
    dtype: Annotated[str, Meta(description="the type its work is done in")]
    fraction: Annotated[Quantity, Meta(description="the share of its roof it reached (RooflineRow.fraction)")]
    tflops: Annotated[Quantity, Meta(description="its achieved TFLOP/s")]
    device_us: Annotated[Quantity, Meta(description="the time of its GPU work per call")]
    kernels: Annotated[tuple[str, str], Meta(description="its main kernel's name, (before, after)")]
    kernel_changes: Annotated[list[str], Meta(description="what the kernel's name says changed: library, "
                                                          "precision, tensor cores, layout, tile, split-K, "
                                                          "backend, each as 'field before → after'")]


@final  # a diff of files or of folders: `"ranks" in found` tells them apart
class TraceDiff(TypedDict):
    """``profguide diff --json`` of two trace files."""

    schema_version: Annotated[SchemaVersion, Meta(description="the version of this shape")]
    before: Annotated[SideFacts, Meta(description="BEFORE, the first trace")]
    after: Annotated[SideFacts, Meta(description="AFTER, the second trace")]
    same_input: Annotated[bool, Meta(description="whether both name the same file")]
    verdict_changed: Annotated[bool, Meta(description="whether the verdicts differ")]
    per: Annotated[Literal["step", "window"], Meta(description="what counts and times are per: a step when both "
                                                              "traces have ProfilerSteps or iterations found "
                                                              "without them, else the whole window")]
    step_us: Annotated[Quantity, Meta(description="the step time (SideFacts.step_us)")]
    gpu_busy_pct: Annotated[Quantity, Meta(description="the GPU's busy time as a share of the window")]
    gpu_busy_us: Annotated[Quantity, Meta(description="that share of the step time, µs per step")]
    idle_pct: Annotated[dict[str, Quantity], Meta(description="GPU idle time by cause (host, sync, profiler, "
                                                              "queued, other), as a share of the window")]
    idle_us: Annotated[dict[str, Quantity], Meta(description="the same, µs per step")]
    host_pct: Annotated[dict[str, Quantity], Meta(description="host activities: while the GPU waited for the "
                                                              "host, or on a trace without GPU work the host's "
                                                              "own time, by activity, as a share of the window")]
    host_us: Annotated[dict[str, Quantity], Meta(description="the same, µs per step")]
    host_meaning: Annotated[dict[str, str], Meta(description="each host activity in words")]
    launches: Annotated[Quantity, Meta(description="runtime and driver calls that launched the kernels, per step")]
    memory_peak_bytes: Annotated[dict[str, Quantity], Meta(description="the peak of allocated bytes by device "
                                                                       "(cpu, cuda:0), where a side recorded "
                                                                       "memory (profile_memory=True)")]
    kernels_matched_by: Annotated[Literal["name", "role", "none"], Meta(
        description="name; role (the kernel's family) when under half the kernel time on either side is in "
                    "names both share, as between devices or vendors; none without kernels on either side")]
    shared_kernel_pct: Annotated[tuple[float, float] | None, Meta(
        description="the share of kernel time in names both sides share, (before, after); null without kernels")]
    kernels: Annotated[list[Change], Meta(description="every kernel name (or role) on either side, largest "
                                                      "|change_us| first")]
    ops: Annotated[list[Change], Meta(description="every op, by name and input shapes, on either side, largest "
                                                  "|change_us| (self CPU time) first")]
    rules: Annotated[RuleChanges, Meta(description="the rules that fired on each side (explain's findings)")]
    roofline: Annotated[list[RooflineChange], Meta(description="the ops with a formula on both sides, by name, "
                                                               "shapes and type: their share of the roof and "
                                                               "their kernel, most change in time per call first")]
    sentence: Annotated[str, Meta(description="what the change did, in one sentence, from the largest change")]


# What a kernel's name says (``kernel_family``) that the diff reports when it changes, and its word.
KERNEL_FIELDS = (("family", "family"), ("library", "library"), ("precision", "precision"),
                 ("tensor_cores", "tensor cores"), ("layout", "layout"), ("tile", "tile"), ("split_k", "split-K"),
                 ("backend", "backend"))


def kernel_changes(before: str, after: str) -> list[str]:
    """What two kernels' names say differs between them, as 'tile 64x64x64 → 128x128x64'."""
    if before == after:
        return []
    first, second = kernel_family(before), kernel_family(after)

    def said(value: object) -> str:
        return "not said" if value is None else "yes" if value is True else "no" if value is False else str(value)

    return [f"{word} {said(getattr(first, field))} → {said(getattr(second, field))}"
            for field, word in KERNEL_FIELDS if getattr(first, field) != getattr(second, field)]


def roofline_changes(before: dict[RooflineKey, RooflineRow],
                     after: dict[RooflineKey, RooflineRow]) -> list[RooflineChange]:
    """The ops with a formula on both sides, most change in time per call first."""
    found = []
    for key in before.keys() & after.keys():
        first, second = before[key], after[key]
        found.append(RooflineChange(
            name=key[0], shapes=key[1], dtype=key[2], fraction=quantity(first["fraction"], second["fraction"]),
            tflops=quantity(first["tflops"], second["tflops"]),
            device_us=quantity(first["device_us"] / first["calls"], second["device_us"] / second["calls"]),
            kernels=(first["kernel"], second["kernel"]),
            kernel_changes=kernel_changes(first["kernel"], second["kernel"])))
    return sorted(found, key=lambda row: (-abs(row["device_us"]["change"] or 0.0), row["name"], row["shapes"]))


def quantity(before: float | None, after: float | None) -> Quantity:
    """``before`` and ``after``, and the change between them where both are measured."""
    if before is None or after is None:
        return {"before": before, "after": after, "change": None, "ratio": None, "change_pct": None}
    change = after - before
    return {"before": before, "after": after, "change": change, "ratio": after / before if before else None,
            "change_pct": 100 * change / before if before else None}


def steady_iterations(summary: TraceSummary) -> list[float]:
    """The lengths of the iterations in explain's window, found without ProfilerSteps (``Summary.iterations``):
    every one, or all but a cold first one, which the window leaves out; empty where none were found."""
    found = summary["iterations"]
    if not found:
        return []
    starts = found["starts_us"]
    lengths = [end - start for start, end in zip(starts, [*starts[1:], found["last_end_us"]], strict=True)]
    return lengths[1:] if found["cold_start"] else lengths


def steps_counted(summary: TraceSummary) -> int:
    """How many steps the counts are divided by: the ProfilerSteps, else the iterations ``steady_iterations``
    finds; 0 for neither."""
    return len(summary["steps"]) or len(steady_iterations(summary))


def step_time(summary: TraceSummary) -> tuple[float | None, str]:
    """(the step time, what it is): the median ProfilerStep, else the median iteration in explain's window, so
    that traces of different lengths compare; else the window's length."""
    if summary["steps"]:
        return median([step["dur_us"] for step in summary["steps"]]), "the median ProfilerStep"
    if iterations := steady_iterations(summary):
        found = summary["iterations"]
        assert found is not None  # ``steady_iterations`` found some
        return median(iterations), f"the median iteration ({found['found_by']}; no ProfilerSteps)"
    length = window_length(summary)
    return length, "explain's window (no ProfilerSteps)" if length is not None else "nothing measured"


def window_length(summary: TraceSummary) -> float | None:
    """The length of the window the shares are of: the GPU window, or the host's steps on a CPU-only trace."""
    if summary["window"]:
        return summary["window"]["dur_us"]
    return summary["host"]["dur_us"] if summary["host"] else None


def side_facts(summary: TraceSummary) -> SideFacts:
    step_us, step_is = step_time(summary)
    return {"file": summary["file"], "device": summary["device"], "verdict": summary["verdict"],
            "verdict_text": summary["verdict_text"], "steps": len(summary["steps"]), "step_us": step_us,
            "step_is": step_is, "window_us": window_length(summary)}


def host_shares(summary: TraceSummary) -> tuple[dict[str, float], dict[str, str]]:
    """The host activities' shares of the window (%), and their meanings: while the GPU waited for the host,
    or the host's own time on a trace without GPU work."""
    idle, host, length = summary["idle"], summary["host"], window_length(summary)
    if not length:
        return {}, {}
    if idle:
        rows = idle["by_activity"]
        return ({key: 100 * row["idle_us"] / length for key, row in rows.items()},
                {key: row["meaning"] for key, row in rows.items()})
    if host:
        return ({key: 100 * row["us"] / length for key, row in host["by_activity"].items()},
                {key: row["meaning"] for key, row in host["by_activity"].items()})
    return {}, {}


def idle_shares(summary: TraceSummary) -> dict[str, float]:
    """GPU idle time by cause, as shares of the window (%)."""
    idle, length = summary["idle"], window_length(summary)
    return {cause: 100 * row["idle_us"] / length for cause, row in idle["by_cause"].items()} \
        if idle and length else {}


def compared(before: dict[str, float], after: dict[str, float]) -> dict[str, Quantity]:
    """Each key of either, on both sides (0 where one side lacks it)."""
    return {key: quantity(before.get(key, 0.0), after.get(key, 0.0)) for key in sorted(before.keys() | after.keys())}


def scaled(shares: dict[str, float], scale: float | None) -> dict[str, float]:
    """Shares (%) of the window as µs of ``scale``."""
    return {key: pct * scale / 100 for key, pct in shares.items()} if scale is not None else {}


def shared_pct(mine: Totals, theirs: Totals) -> float:
    """The share of ``mine``'s time in names ``theirs`` has too."""
    total = sum(us for _, us in mine.values())
    return 100 * sum(us for name, (_, us) in mine.items() if name in theirs) / total if total else 100.0


def by_role(totals: Totals) -> Totals:
    """The totals by kernel family (gemm, attention, elementwise…) instead of by name."""
    roles: dict[str, list[float]] = {}
    for name, (count, us) in totals.items():
        row = roles.setdefault(kernel_family(name).family, [0.0, 0.0])
        row[0] += count
        row[1] += us
    return {role: (count, us) for role, (count, us) in roles.items()}


def changes(before: OpTotals, after: OpTotals, divisors: tuple[int, int], ops: bool = True) -> list[Change]:
    """Every (name, shapes) of either side, per step (``divisors``: each side's steps), largest |change| first;
    kernels (``ops`` False) have shapes "" and are given none."""
    rows: list[Change] = []
    for key in before.keys() | after.keys():
        (count_a, us_a), (count_b, us_b) = before.get(key, (0.0, 0.0)), after.get(key, (0.0, 0.0))
        per_step = count_a / divisors[0], us_a / divisors[0], count_b / divisors[1], us_b / divisors[1]
        status: Literal["added", "removed", "changed", "same"] = (
            "added" if key not in before else "removed" if key not in after
            else "same" if per_step[:2] == per_step[2:] else "changed")
        rows.append({"name": key[0], "shapes": key[1] if ops else None, "status": status,
                     "before_count": per_step[0], "after_count": per_step[2], "before_us": per_step[1],
                     "after_us": per_step[3], "change_us": per_step[3] - per_step[1]})
    rows.sort(key=lambda row: (-abs(row["change_us"]), row["name"], row["shapes"] or ""))
    return rows


def ops_by_name(rows: list[Change]) -> list[Change]:
    """Op rows of every shape added up by name (``shapes`` None), largest |change| first."""
    per_name: dict[str, list[float]] = {}
    for row in rows:
        totals = per_name.setdefault(row["name"], [0.0, 0.0, 0.0, 0.0])
        for index, key in enumerate(("before_count", "after_count", "before_us", "after_us")):
            totals[index] += row[key]  # type: ignore[literal-required]
    merged: list[Change] = [{"name": name, "shapes": None, "before_count": counts[0], "after_count": counts[1],
                             "before_us": counts[2], "after_us": counts[3], "change_us": counts[3] - counts[2],
                             "status": "added" if not counts[0] else "removed" if not counts[1]
                             else "same" if counts[0] == counts[1] and counts[2] == counts[3] else "changed"}
                            for name, counts in per_name.items()]
    merged.sort(key=lambda row: (-abs(row["change_us"]), row["name"]))
    return merged


def unshaped(totals: Totals) -> OpTotals:
    return {(name, ""): row for name, row in totals.items()}


def trace_diff(before: Side, after: Side) -> TraceDiff:
    """What changed from ``before`` to ``after``."""
    first, second = before["summary"], after["summary"]
    facts = side_facts(first), side_facts(second)
    counted = steps_counted(first), steps_counted(second)
    per: Literal["step", "window"] = "step" if all(counted) else "window"
    divisors = counted if per == "step" else (1, 1)
    scales = tuple(fact["step_us"] if per == "step" else fact["window_us"] for fact in facts)
    kernels_a, kernels_b = before["kernels"], after["kernels"]
    shared = (shared_pct(kernels_a, kernels_b), shared_pct(kernels_b, kernels_a)) if kernels_a or kernels_b else None
    matched_by: Literal["name", "role", "none"] = (
        "none" if shared is None else "role" if kernels_a and kernels_b and min(shared) < SHARED_NAMES_PCT
        else "name")
    if matched_by == "role":
        kernels_a, kernels_b = by_role(kernels_a), by_role(kernels_b)
    (host_a, meaning_a), (host_b, meaning_b) = host_shares(first), host_shares(second)
    busy = [summary["gpu_busy_pct"] for summary in (first, second)]
    found: TraceDiff = {
        "schema_version": SCHEMA_VERSION, "before": facts[0], "after": facts[1],
        "same_input": before is after, "verdict_changed": first["verdict"] != second["verdict"], "per": per,
        "step_us": quantity(facts[0]["step_us"], facts[1]["step_us"]),
        "gpu_busy_pct": quantity(busy[0], busy[1]),
        "gpu_busy_us": quantity(*(None if pct is None or scale is None else pct * scale / 100
                                  for pct, scale in zip(busy, scales, strict=True))),
        "idle_pct": compared(idle_shares(first), idle_shares(second)),
        "idle_us": compared(scaled(idle_shares(first), scales[0]), scaled(idle_shares(second), scales[1])),
        "host_pct": compared(host_a, host_b),
        "host_us": compared(scaled(host_a, scales[0]), scaled(host_b, scales[1])),
        "host_meaning": {**meaning_a, **meaning_b},
        "launches": quantity(before["launches"] / divisors[0], after["launches"] / divisors[1]),
        "memory_peak_bytes": {device: quantity(before["memory_peak"].get(device), after["memory_peak"].get(device))
                              for device in sorted(before["memory_peak"].keys() | after["memory_peak"].keys())},
        "kernels_matched_by": matched_by, "shared_kernel_pct": shared,
        "kernels": changes(unshaped(kernels_a), unshaped(kernels_b), divisors, ops=False),
        "ops": changes(before["ops"], after["ops"], divisors),
        "rules": rule_changes(first, second),
        "roofline": roofline_changes(before["roofline"], after["roofline"]),
        "sentence": "",
    }
    found["sentence"] = sentence(found)
    return found


def count_words(count: float, noun: str) -> str:
    """'1 kernel', '2.5 kernels'."""
    shown_count = f"{count:,.0f}" if count == round(count) else f"{count:,.1f}"
    return f"{shown_count} {noun}{'' if shown_count == '1' else 's'}"


def signed_pct(change_pct: float) -> str:
    """'+4%', '−4%' (a minus sign, as print writes it), '±0%'."""
    rounded = round(change_pct)
    return "±0%" if rounded == 0 else f"+{rounded}%" if rounded > 0 else f"−{-rounded}%"


def share_words(us: float, scale: float | None, per: str) -> str:
    """``us`` as a share of the step (or window) it is per."""
    return f"{100 * us / scale:.1f}% of the {per}" if scale else format_duration(us)


ROLE_WORDS = {GEMM: "GEMM", TRITON: "Triton"}  # a role as it is written before "kernels"; the others as named


def kernel_words(row: Change, role: bool, per: str, scales: tuple[float | None, float | None]) -> str:
    """What happened to one kernel name (or role), with its numbers."""
    name = f"{ROLE_WORDS.get(row['name'], row['name'])} kernels" if role else f"`{shown(row['name'])}`"
    per_words = f"per {per}" if per == "step" else "in the window"
    if row["status"] == "removed":
        return (f"{name} {'are' if role else 'is'} gone: {count_words(row['before_count'], 'kernel')} fewer "
                f"{per_words}, {share_words(row['before_us'], scales[0], per)}")
    if row["status"] == "added":
        return (f"{name} {'are' if role else 'is'} new: {count_words(row['after_count'], 'kernel')} more "
                f"{per_words}, {share_words(row['after_us'], scales[1], per)}")
    counts = "" if row["before_count"] == row["after_count"] else \
        f" ({count_words(row['before_count'], 'kernel')} → {count_words(row['after_count'], 'kernel')})"
    return (f"{name} {'took less' if row['change_us'] < 0 else 'took more'} time: "
            f"{format_duration(row['before_us'])} → {format_duration(row['after_us'])} {per_words}{counts}")


def op_words(row: Change, per: str, scales: tuple[float | None, float | None]) -> str:
    """What happened to the ops of one name and shapes, with their calls and self CPU time."""
    name = f"`{shown(row['name'])}`" + (f" on {shown(row['shapes'])}" if row["shapes"] else "")
    per_words = f"per {per}" if per == "step" else "in the window"
    if row["status"] == "removed":
        return (f"{name} is gone: {count_words(row['before_count'], 'call')} fewer {per_words}, "
                f"{share_words(row['before_us'], scales[0], per)} in its own CPU time")
    if row["status"] == "added":
        return (f"{name} is new: {count_words(row['after_count'], 'call')} more {per_words}, "
                f"{share_words(row['after_us'], scales[1], per)} in its own CPU time")
    return (f"{name} took {'less' if row['change_us'] < 0 else 'more'} CPU time of its own: "
            f"{format_duration(row['before_us'])} → {format_duration(row['after_us'])} {per_words} "
            f"({count_words(row['before_count'], 'call')} → {count_words(row['after_count'], 'call')})")


def activity_words(meaning: str, change: Quantity, pct: Quantity, per: str) -> str:
    """What happened to one host activity (or idle cause), with its numbers."""
    per_words = f"per {per}" if per == "step" else "in the window"
    # "the time spent in the backward pass rose", "the time spent loading data fell": every activity's words
    # read after "spent"
    return (f"the time spent {meaning} {'fell' if (change['change'] or 0) < 0 else 'rose'}: "
            f"{format_duration(change['before'] or 0.0)} → {format_duration(change['after'] or 0.0)} {per_words} "
            f"({pct['before'] or 0.0:.1f}% → {pct['after'] or 0.0:.1f}% of the window)")


def sentence(found: TraceDiff) -> str:
    """What the change did, in one sentence, from its largest change (a kernel's or a host activity's time)."""
    if found["same_input"]:
        return "The same trace on both sides: nothing changed."
    scales = tuple(side["step_us"] if found["per"] == "step" else side["window_us"]
                   for side in (found["before"], found["after"]))
    candidates: list[tuple[float, str]] = [
        (abs(row["change_us"]), kernel_words(row, found["kernels_matched_by"] == "role", found["per"],
                                             (scales[0], scales[1])))
        for row in found["kernels"][:1] if row["status"] != "same"]
    if found["kernels_matched_by"] == "none":  # no kernels: what the ops did on the host, by name (a shape that
        # changed is the same op, not one gone and one new)
        candidates += [(abs(row["change_us"]), op_words(row, found["per"], (scales[0], scales[1])))
                       for row in ops_by_name(found["ops"])[:1] if row["status"] != "same"]
    candidates += [(abs(change["change"] or 0.0), activity_words(activity_label(found, key), change,
                                                                 found["host_pct"][key], found["per"]))
                   for key, change in found["host_us"].items() if change["change"]]
    step = found["step_us"]
    parts = [max(candidates)[1]] if candidates else ["no kernel or host activity changed"]
    if step["before"] is not None and step["after"] is not None:
        parts.append(f"step time {format_duration(step['before'])} → {format_duration(step['after'])}"
                     + (f" ({signed_pct(step['change_pct'])})" if step["change_pct"] is not None else ""))
    if found["verdict_changed"]:
        parts.append(f"verdict {found['before']['verdict']} → {found['after']['verdict']}")
    gone = found["rules"]["gone"]
    if gone:
        parts.append(f"{count_of(len(gone), 'rule')} no longer {'fires' if len(gone) == 1 else 'fire'} "
                     f"({', '.join(gone)})")
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "."


def activity_label(found: TraceDiff, key: str) -> str:
    """A host activity in a few words: its meaning up to any bracket."""
    return found["host_meaning"].get(key, key).split(" (")[0]


class RankDiff(TypedDict):
    """One rank on both sides, matched by rank number."""

    rank: Annotated[int | None, Meta(description="the rank distributedInfo gives; null without one (then "
                                                 "matched by file name)")]
    before_verdict: Annotated[str | None, Meta(description="its verdict on BEFORE; null when only on AFTER")]
    after_verdict: Annotated[str | None, Meta(description="its verdict on AFTER; null when only on BEFORE")]
    step_us: Annotated[Quantity, Meta(description="its median ProfilerStep")]
    busy_us: Annotated[Quantity, Meta(description="the GPU's busy time (or the main thread's time in ops)")]
    communication_us: Annotated[Quantity, Meta(description="time any collective ran")]
    exposed_us: Annotated[Quantity, Meta(description="the part of it nothing else overlapped")]
    wait_us: Annotated[Quantity, Meta(description="its wait for the straggler")]


@final
class JobDiff(TypedDict):
    """``profguide diff --json`` of two folders of rank traces."""

    schema_version: Annotated[SchemaVersion, Meta(description="the version of this shape")]
    before_folder: Annotated[str, Meta(description="BEFORE, the first folder")]
    after_folder: Annotated[str, Meta(description="AFTER, the second folder")]
    before_verdict: Annotated[str, Meta(description="the job's verdict on BEFORE")]
    after_verdict: Annotated[str, Meta(description="the job's verdict on AFTER")]
    verdict_changed: Annotated[bool, Meta(description="whether they differ")]
    before_straggler: Annotated[int | None, Meta(description="the straggler's rank on BEFORE; null when none")]
    after_straggler: Annotated[int | None, Meta(description="the straggler's rank on AFTER; null when none")]
    step_us: Annotated[Quantity, Meta(description="the ranks' median step time (the median of their medians)")]
    ranks: Annotated[list[RankDiff], Meta(description="a row per rank on either side, in rank order")]
    sentence: Annotated[str, Meta(description="what changed for the job, in one sentence")]


OUTPUTS = (TraceDiff, JobDiff)  # what ``diff --json`` prints: one of these


def straggler_rank(job: FolderJob) -> int | None:
    index = job["straggler"]
    return None if index is None else job["ranks"][index]["rank"]


def job_step(job: FolderJob) -> float | None:
    steps = [row["median_step_us"] for row in job["ranks"] if row["median_step_us"] is not None]
    return median(steps) if steps else None


def job_diff(before: FolderJob, after: FolderJob) -> JobDiff:
    """What changed from the job in ``before`` to the one in ``after``, rank by rank."""
    def keyed(job: FolderJob) -> dict[int | str, RankRow]:
        return {row["rank"] if row["rank"] is not None else Path(row["file"]).name: row for row in job["ranks"]}

    first, second = keyed(before), keyed(after)
    rows: list[RankDiff] = []
    for key in sorted(first.keys() | second.keys(), key=lambda key: (isinstance(key, str), str(key).zfill(12))):
        a, b = first.get(key), second.get(key)
        rows.append({
            "rank": key if isinstance(key, int) else None,
            "before_verdict": a["verdict"] if a else None, "after_verdict": b["verdict"] if b else None,
            "busy_us": quantity(a["busy_us"] if a else None, b["busy_us"] if b else None),
            "communication_us": quantity(a["communication_us"] if a else None, b["communication_us"] if b else None),
            "exposed_us": quantity(a["exposed_us"] if a else None, b["exposed_us"] if b else None),
            "wait_us": quantity(a["wait_us"] if a else None, b["wait_us"] if b else None),
            "step_us": quantity(a["median_step_us"] if a else None, b["median_step_us"] if b else None),
        })
    found: JobDiff = {
        "schema_version": SCHEMA_VERSION, "before_folder": before["folder"], "after_folder": after["folder"],
        "before_verdict": before["verdict"], "after_verdict": after["verdict"],
        "verdict_changed": before["verdict"] != after["verdict"],
        "before_straggler": straggler_rank(before), "after_straggler": straggler_rank(after),
        "step_us": quantity(job_step(before), job_step(after)), "ranks": rows, "sentence": "",
    }
    found["sentence"] = job_sentence(found, same=before is after)
    return found


def job_sentence(found: JobDiff, same: bool = False) -> str:
    if same:
        return "The same folder on both sides: nothing changed."
    parts = [f"verdict {found['before_verdict']} → {found['after_verdict']}" if found["verdict_changed"]
             else f"verdict {found['after_verdict']} on both"]
    stragglers = found["before_straggler"], found["after_straggler"]
    if stragglers[0] != stragglers[1]:
        parts.append("straggler " + " → ".join("none" if rank is None else f"rank {rank}" for rank in stragglers))
    step = found["step_us"]
    if step["before"] is not None and step["after"] is not None:
        parts.append(f"median step time {format_duration(step['before'])} → {format_duration(step['after'])}"
                     + (f" ({signed_pct(step['change_pct'])})" if step["change_pct"] is not None else ""))
    text = "The job's " + "; ".join(parts)
    return text + "."


def folder_sides(before: Path, after: Path, max_bytes: int = MAX_BYTES,
                 workers: int | None = None) -> tuple[FolderJob, FolderJob]:
    """The jobs in both folders (each read by ``job.folder_job``'s pool); the same folder twice is read once."""
    first = folder_job(before, max_bytes=max_bytes, workers=workers)
    return first, first if before.resolve() == after.resolve() else folder_job(after, max_bytes=max_bytes,
                                                                               workers=workers)


def paths_diff(before: Path, after: Path, max_bytes: int = MAX_BYTES,
               workers: int | None = None) -> TraceDiff | JobDiff:
    """The diff of two trace files or of two folders of rank traces; a folder against a file is a UsageError."""
    if is_folder(before) != is_folder(after):
        folder, file = (before, after) if is_folder(before) else (after, before)
        raise UsageError(f"{shown(folder)} is a folder and {shown(file)} is not: diff two trace files, or two "
                         "folders of rank traces")
    if is_folder(before):
        return job_diff(*folder_sides(before, after, max_bytes, workers))
    return trace_diff(*file_sides(before, after, max_bytes, workers))
