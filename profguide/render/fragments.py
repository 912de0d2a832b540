"""The Markdown of the fragments that pages include: tables, captions, provenance, figures with their hand-off.

Every string that comes from a trace is escaped. A figure's SVG is its own
file, included into the page by the fragment (``--8<--``), so that it sits
inline and follows the page's colour scheme, and the same SVG is never
committed twice; each figure comes with its caption, its provenance, a link
to download its trace and a button that opens the trace in Perfetto.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, cast
from xml.sax.saxutils import escape

from profguide.render.facts import longest_took, peak_tflops, recorded_on, share, share_of_peak, tflops
from profguide.text import (
    cell,
    code,
    code_cell,
    count_of,
    cut,
    format_duration,
    format_size,
    kernel_name,
    markdown_table,
    three_figures,
)

if TYPE_CHECKING:  # types only: the analyses stay unloaded until a fragment's maker runs them
    from profguide.analysis.launches import OccupancyQueries
    from profguide.analysis.peaks import Peaks
    from profguide.analysis.regions import TreeEntry
    from profguide.analysis.summarise import Facts
    from profguide.analysis.summary import GemmRow, Step, Summary

    class CollapsedEntry(TreeEntry):
        """A call tree's entry with the run of like leaves it stands for (``collapsed``)."""

        count: int
        leaf: bool


def steps_table(steps: Sequence[Step]) -> str:
    """Each profiled step's duration, and how it compares with the fastest."""
    if not steps:
        return ""
    fastest = min(step["dur_us"] for step in steps)
    return markdown_table(("Step", "Duration", "× fastest"),
                          [(step["step"], format_duration(step["dur_us"]), f"{step['dur_us'] / fastest:.2f}")
                           for step in steps], "rrr")


def provenance_line(meta: Mapping[str, Any]) -> str:
    """Where and how the recording was made: device, versions, date, and the parameters it ran with."""
    if meta.get("real"):
        return real_provenance_line(meta)
    parts = [escape(part) for part in recorded_on(meta)]
    parts.append(f"Python {escape(meta['python'])}")
    parts.append(escape(meta["recorded_at"][:10]))
    if meta.get("ranks", 1) > 1:
        parts.append(f"{meta['ranks']} processes")
    parts.append(", ".join(f"{escape(str(name))}={escape(str(value))}" for name, value in meta["params"].items()))
    return "Recorded on " + " · ".join(part for part in parts if part)


def real_provenance_line(meta: Mapping[str, Any]) -> str:
    """Where a trace this guide did not record came from: its file, device, source and licence."""
    rank = f", rank {meta['rank']} of {meta['world_size']}" if meta.get("rank") is not None and meta.get(
        "world_size") else ""
    return (f"A trace from another project: {code(meta['file'].rpartition('/')[2])}, made on "
            f"{escape(meta['device_name'])}{rank} · source: [{escape(meta['source'])}]({escape(meta['source_url'])})"
            f" · licence: {escape(meta['licence'])}")


def real_provenance_words(meta: Mapping[str, Any]) -> str:
    """The same in plain words, for an SVG's title (escaped by the figure code)."""
    return f"{meta['device_name']}; {meta['source']}; {meta['licence']} licence"


def run_words(meta: Mapping[str, Any]) -> str:
    """The run a claim was measured on, in plain words for a tooltip and a table cell: the recording and its
    machine, or the real trace and where it came from."""
    if meta.get("real"):
        return f"{meta['file'].rpartition('/')[2]} · {meta['device_name']} · {meta['source']}"
    parts = [meta["recording"], *recorded_on(meta)]
    parts += [meta["recorded_at"][:10]] + (["CPU stand-in for a GPU recording"] if meta.get("cpu_standin") else [])
    return " · ".join(parts)


def provenance_note(meta: Mapping[str, Any]) -> str:
    """One small line under a table: where its numbers come from, whether they stand in for a GPU run, and
    a link to the trace they were measured on."""
    standin = " · <strong>CPU stand-in</strong> for a GPU recording" if meta.get("cpu_standin") else ""
    link = f" · [download the trace](/{trace_url(meta)})"
    return f"<small>{provenance_line(meta)}{standin}{link}</small>\n"


def trace_url(meta: Mapping[str, Any]) -> str:
    """Where the site serves the recording's trace (rank 0's for several ranks), from the site's root."""
    if meta.get("real"):
        file: str = meta["file"]
        return file.removeprefix("docs/")
    name = "trace.json.gz" if meta.get("ranks", 1) == 1 else "trace-rank0.json.gz"
    return f"generated/{meta['recording']}/{name}"


def standin_notice(meta: Mapping[str, Any]) -> str:
    if not meta.get("cpu_standin"):
        return ""
    return (
        '!!! warning "CPU stand-in"\n'
        "    This recording is meant for a GPU, but no GPU recording of it exists yet:\n"
        f"    it was made on the CPU ({escape(meta['device_name'])}). It has no GPU lane and no\n"
        "    kernels; a maintainer refreshes it on a GPU runner with `make figures`.\n\n"
    )


def caption(title: str, facts: Facts) -> str:
    """The figure's caption: what it shows, with the numbers the analysis measured."""
    sentences = [
        f"{escape(title)}, over {format_duration(facts['window_us'])}: "
        f"{count_of(facts['cpu_lanes'], 'CPU thread lane')}, {count_of(facts['gpu_lanes'], 'GPU stream lane')}."
    ]
    if facts["kernel_count"]:
        top = facts["top_kernels"][0]
        sentences.append(
            f"{count_of(facts['kernel_count'], 'kernel')} ran for {format_duration(facts['kernel_time_us'])} "
            f"in all; the most time went to {code(top['name'][:80])} "
            f"({format_duration(top['total_us'])})."
        )
    else:
        sentences.append(f"{count_of(facts['cpu_ops'], 'CPU op')} and {count_of(0, 'GPU kernel')}.")
    sync = facts["longest_sync"]
    if sync:
        sentences.append(
            f"The longest synchronisation, {longest_took(sync['name'], sync['dur_us'], code)}."
        )
    return " ".join(sentences)


def callout_sentence(callouts: Sequence[tuple[int, str]]) -> str:
    """'Numbered: 1 matmul_bias, 2 aten::mm.' for the callouts drawn, '' for none."""
    if not callouts:
        return ""
    return " Numbered: " + ", ".join(f"<b>{n}</b> {code(name)}" for n, name in callouts) + "."


def included(svg_path: str) -> str:
    """A figure's SVG, included from its file into a page: the figure sits inline, in the page's colours, and a
    link to the file itself reads it at full size on a narrow screen (docs/assets/figures.css)."""
    return (f'<div class="pg-figure">\n--8<-- "{svg_path}"\n</div>\n\n'
            f'[Open the figure at full size](/{svg_path.removeprefix("docs/")}){{: .pg-full-size }}\n\n')


def figure_fragment(title: str, meta: Mapping[str, Any], facts: Facts, svg_path: str,
                    callouts: Sequence[tuple[int, str]] = (), drawn: str = "") -> str:
    """Markdown for a page: stand-in notice, the inline figure, caption, provenance, trace hand-off.

    ``drawn`` is a sentence saying which part of the trace the figure draws, when not all of it.
    """
    trace_path = trace_url(meta)
    return (
        standin_notice(meta)
        + included(svg_path)
        + f"{drawn}{caption(title, facts)}{callout_sentence(callouts)}\n"
        + "{: .pg-caption }\n\n"
        + f"<small>{provenance_line(meta)} · [download the trace](/{trace_path}) · "
        + f'<button class="md-button pg-perfetto" data-trace="{trace_path}" data-title="{escape(title)}">'
        + "Open in Perfetto</button></small>\n"
    )


def extra_figure_fragment(svg_path: str, caption_text: str) -> str:
    """An inline figure with a plain caption, for the second and third figures of a recording."""
    return included(svg_path) + f"{caption_text}\n{{: .pg-caption }}\n"


def calls_table(calls: Sequence[Mapping[str, float]]) -> str:
    """Each call of a region: its duration, the time in the ops it called and outside them, against the fastest.

    ``calls`` are dicts with ``dur_us``, ``in_ops_us`` and, on a GPU, ``kernel_us``.
    """
    fastest = min(call["dur_us"] for call in calls)
    on_gpu = any(call.get("kernel_us") for call in calls)
    headings = ("Call", "Duration", "In the ops it called", "In no op", *(("GPU kernels",) if on_gpu else ()),
                "× fastest")
    rows = [(number, format_duration(call["dur_us"]), format_duration(call["in_ops_us"]),
             format_duration(call["dur_us"] - call["in_ops_us"]),
             *((format_duration(call.get("kernel_us", 0.0)),) if on_gpu else ()), f"{call['dur_us'] / fastest:.1f}")
            for number, call in enumerate(calls, 1)]
    return markdown_table(headings, rows, "r" * len(headings))


def collapsed(entries: Sequence[TreeEntry]) -> list[CollapsedEntry]:
    """Runs of the same leaf event at the same depth (``aten::resolve_conj`` three times) as one entry with a count."""
    merged: list[CollapsedEntry] = []
    for position, entry in enumerate(entries):
        following = entries[position + 1] if position + 1 < len(entries) else None
        is_leaf = following is None or following["depth"] <= entry["depth"]
        previous = merged[-1] if merged else None
        if (is_leaf and not entry["launched"] and previous and previous["leaf"] and
                (previous["depth"], previous["name"]) == (entry["depth"], entry["name"])):
            previous["count"] += 1
            previous["dur_us"] += entry["dur_us"]
        else:
            merged.append({**entry, "count": 1, "leaf": is_leaf and not entry["launched"]})
    return merged


def call_tree(entries: Sequence[TreeEntry], width: int = 64, widest: int = 96) -> str:
    """A region's call tree (``region_tree``) as text: one event a line, indented by depth, with its time;
    the GPU ops a call launched on the lines under it, after an arrow. The times line up in one column,
    after the longest name up to ``widest`` characters (longer names are cut)."""
    rows = []
    for entry in collapsed(entries):
        rows.append(("  " * entry["depth"] + entry["name"] + (f" ×{entry['count']}" if entry["count"] > 1 else ""),
                     entry["dur_us"]))
        rows += [("  " * (entry["depth"] + 1) + "→ " + kernel_name(name), dur) for name, dur in entry["launched"]]
    column = min(max([width, *(len(label) for label, _ in rows)]), widest)
    return "".join(f"{cut(label, column):<{column}} {format_duration(dur):>10}\n" for label, dur in rows)


FAMILIES = {"gemm": "matrix multiply (cuBLAS, CUTLASS, cuDNN)", "elementwise": "elementwise (PyTorch)",
            "other": "other"}


def no_group(_name: str) -> str | None:
    return None


def occupancy_table(found: OccupancyQueries, group_of: Callable[[str], str | None] = no_group, limit: int = 8) -> str:
    """``occupancy_queries``'s launches: by kernel family, then the matrix-multiply kernels one by one, each
    with how many launches came right after an occupancy query. ``group_of`` gives the label of the row a kernel
    is counted on with others (its name counted among the row's), or None for a row of its own."""
    def row(label: str, flags: list[bool]) -> tuple[str, str, str]:
        return label, f"{len(flags):,}", f"{sum(flags):,} ({sum(flags) / len(flags):.0%})"

    by_family: dict[str, list[bool]] = {}
    by_row: dict[tuple[str, str], list[bool]] = {}
    names: dict[tuple[str, str], set[str]] = {}
    for name, family, after in found["launched"]:
        by_family.setdefault(family, []).append(after)
        if family == "gemm":
            group = group_of(name)
            key = ("group", group) if group else ("kernel", kernel_name(name))
            by_row.setdefault(key, []).append(after)
            names.setdefault(key, set()).add(name)

    def row_label(key: tuple[str, str]) -> str:
        kind, text = key
        return code_cell(text) if kind == "kernel" else f"{cell(text)} ({count_of(len(names[key]), 'name')})"

    kernels = sorted(by_row.items(), key=lambda item: -len(item[1]))[:limit]
    queries = found["queries"]
    return (markdown_table(("Kernels", "Launches", "Right after an occupancy query"),
                           [row(label, by_family[family]) for family, label in FAMILIES.items() if family in by_family],
                           "lrr")
            + "\n" + markdown_table(("Matrix-multiply kernel", "Launches", "Right after an occupancy query"),
                                    [row(row_label(key), flags) for key, flags in kernels], "lrr")
            + f"\n{queries:,} occupancy {'query' if queries == 1 else 'queries'} in all.\n")


def tflops_table(rows: Sequence[GemmRow], device: str) -> str:
    """Each matrix multiply (op, shapes, type): its FLOPs, kernel time, achieved TFLOP/s and the datasheet's peak.

    ``rows`` are ``profguide.analysis.kernels.gemm_throughput``'s.
    """
    def cells(row: GemmRow) -> tuple[str, ...]:
        achieved = "–" if row["tflops"] is None else tflops(row["tflops"])
        peak = "not in profguide's table" if row["peak_tflops"] is None else peak_tflops(row["peak_tflops"])
        of_peak = "–" if row["pct_of_peak"] is None else share_of_peak(row["pct_of_peak"])
        return (code(row["op"]), cell(row["input_dims"]), code(row["dtype"]), f"{row['calls']:,}",
                f"{row['flops'] / row['calls'] / 1e9:,.1f}", format_duration(row["kernel_us"]), achieved, peak, of_peak)

    return markdown_table(("Op", "Input shapes", "Type", "Calls", "GFLOP per call", "Kernel time", "Achieved",
                           f"Peak, {cell(device)}", "Share of peak"), [cells(row) for row in rows], "lllrrrrrr")


PHASES: Mapping[object, str] = {  # by ``ph``, which a loosely decoded trace may give as any JSON scalar
    "X": "complete event: a name, a start and a duration",
    "M": "metadata: names and sort order of processes and threads",
    "i": "instant event: a point in time",
    "s": "flow start: the launch end of a launch → kernel arrow",
    "f": "flow end: the kernel end of that arrow",
}


def phases_table(counts: Mapping[object, int]) -> str:
    """The events of a trace by ``ph``: how many of each, and what they are."""
    rows = [(code(phase), PHASES.get(phase, "another kind of event"), f"{count:,}")
            for phase, count in sorted(counts.items(), key=lambda item: (-item[1], str(item[0])))]
    return markdown_table(("`ph`", "What it is", "Events"), [*rows, ("", "all events", f"{sum(counts.values()):,}")],
                          "llr")


BENCHMARK_ROWS = {
    "read": "reading the file's bytes",
    "decode": "msgspec decoding it into typed structs (the floor)",
    "profguide": "`profguide explain --json`",
    "draw": "`profguide draw`",
    "hta": "HolisticTraceAnalysis {version}: load + temporal breakdown",
}


# What explain and draw aim for, against the ratios the benchmark measures: (the goal in words, the ratio,
# "at most" or "at least", the bound). The page states no goal of its own: the table under the results does.
BENCHMARK_GOALS = (
    ("`explain` in no more than 1.3× the time of the decoding floor", "explain_over_decode_time", "at most", 1.3),
    ("`explain` at least 15× faster than HTA", "hta_over_profguide_time", "at least", 15),
    ("`explain` in no more than an eighth of HTA's peak memory", "profguide_over_hta_memory", "at most", 1 / 8),
    ("`draw` in no more than 1.5× the time of `explain`", "draw_over_explain_time", "at most", 1.5),
)


def machine_words(machine: object) -> str:
    """A benchmark's machine in words: the fields its script records (``benchmarks/provenance.py``: CPU model,
    cores, memory, operating system, Python), or the one string a results file from before them holds."""
    if not isinstance(machine, dict):
        return str(machine) if machine else "a machine not recorded"
    cores, usable, memory = machine.get("cores"), machine.get("usable_cores"), machine.get("memory_gib")
    cores_words = f"{cores} cores" if cores else None
    if cores_words and usable and usable != cores:
        cores_words += f" ({usable} of them usable)"
    parts = [machine.get("cpu"), cores_words, f"{memory:g} GiB of memory" if memory else None,
             machine.get("os"), f"Python {machine['python']}" if machine.get("python") else None]
    return ", ".join(part for part in parts if part) or "a machine not recorded"


def commit_words(checkout: Mapping[str, Any] | None) -> str:
    """The commit a benchmark measured, and whether the checkout held changes beside it: "commit not recorded"
    for a results file from before the scripts recorded it."""
    found = checkout or {}
    commit = found.get("commit")
    if not commit:
        return "commit not recorded"
    return f"commit {commit[:8]}" + (" with uncommitted changes" if found.get("dirty") else "")


def measured_on(results: Mapping[str, Any]) -> str:
    """Where a benchmark's results were measured, for its fragment's note: the machine and the commit."""
    return f"{machine_words(results.get('machine'))}; {commit_words(results.get('checkout'))}"


def goals_table(ratios: Mapping[str, float]) -> str:
    """Each goal, the ratio the run measured, and whether it meets the goal."""
    rows = []
    for words, key, side, bound in BENCHMARK_GOALS:
        value = ratios[key]
        met = value <= bound if side == "at most" else value >= bound
        rows.append((words, f"{value:.2f}×", "✓ yes" if met else "✗ no"))
    return markdown_table(("Goal", "Measured", "Met"), rows, "lrl")


def benchmark_fragment(results: Mapping[str, Any], svg_path: str) -> str:
    """Markdown for the site from ``benchmarks/explain_vs_hta.py --json`` output: every tool side by side,
    the ratios, and the scaling figure."""
    tools, source, ratio = results["tools"], results["trace"], results["ratios"]
    rows = []
    for name, label in BENCHMARK_ROWS.items():
        run = tools.get(name)
        if not run or not run.get("ok"):
            continue
        result = run.get("result") or {}
        idle = result.get("gpu_idle_pct", result.get("idle_pct"))
        rows.append((label.format(version=cell(results.get("hta_version"))), f"{run['wall_s_median']:.2f} s",
                     f"{run['cpu_s_median']:.2f} s", f"{run['maxrss_mib_median']:,.0f} MiB",
                     "–" if idle is None else f"{idle:.2f}%"))
    lines = [
        markdown_table(("What runs", "Wall time (median)", "CPU time", "Peak memory", "GPU idle"), rows, "lrrrr"),
        f"On a trace of {source['events']:,} events ({source['bytes'] / 2**20:,.0f} MiB of JSON, "
        f"{source['copies']} copies of `{escape(source['source'])}` end to end), `explain` took "
        f"**{ratio['explain_over_decode_time']:.2f}×** the time of decoding the file into typed structs, ran "
        f"**{ratio['hta_over_profguide_time']:.1f}× faster** than HTA in "
        f"**{ratio['profguide_over_hta_memory']:.2f}×** its peak memory, and `draw` took "
        f"**{ratio['draw_over_explain_time']:.2f}×** the time of `explain`. Each ran {results['repeats']} times, "
        "each time in a fresh process.",
        "",
        goals_table(ratio),
    ]
    if results.get("scaling"):
        lines += [included(svg_path) + "The same, on traces of 1 to "
                  f"{max(row['copies'] for row in results['scaling'])} copies: `explain` and the decoding floor "
                  "against the number of events.\n{: .pg-caption }", ""]
    lines.append(
        f"<small>Measured {escape(results['date'][:10])} on {escape(measured_on(results))}; "
        f"profguide {escape(str(results['profguide_version']))}, "
        f"msgspec {escape(str(results.get('msgspec_version')))}. "
        "Rerun with `python3 benchmarks/explain_vs_hta.py --json benchmarks/results/explain_vs_hta.json`.</small>")
    return "\n".join(lines) + "\n"


def real_verdicts_table(summaries: Iterable[tuple[str, Summary]]) -> str:
    """Each real trace's verdict, the trust check's confidence beside it, and the measurement that decided it:
    [(file name, ``summarise`` of it)]."""
    rows = [(code(name), cell(summary["device"] or "not named"),
             format_duration(summary["window"]["dur_us"]) if summary["window"] else "no GPU work",
             code(summary["verdict"]), code(summary["trust"]["confidence"]), cell(summary["verdict_basis"]))
            for name, summary in summaries]
    return markdown_table(("Trace", "Device", "Window", "Verdict", "Trust", "Decided by"), rows, "llrlll")


HTA_AGREEMENT_POINTS = 2.0  # how close the idle share by HTA's rule keeps to HTA's own, in percentage points


class HtaComparison(NamedTuple):
    """One real trace's GPU idle share as HolisticTraceAnalysis reported it and as profguide measures it."""

    name: str  # the trace's file name
    device: str | None
    window_us: float | None  # explain's window; None without GPU work
    gpu_ops: int  # the ops HTA's rule counts, inside that window
    by_htas_rule: float | None  # idle %, HTA's rule on the trace's own times
    gpu_idle_pct: float | None  # explain's own idle %
    reference: dict[str, Any]  # HTA's answer for the trace, or its error, from the reference file ({}: none)


def compared(comparison: HtaComparison) -> bool:
    """Whether HTA's idle share and the one by its rule can be set side by side: the trace has a window (GPU
    work) and HTA read it."""
    return comparison.window_us is not None and "error" not in comparison.reference


def hta_points(comparison: HtaComparison) -> float:
    """HTA's idle share less the one by its rule, in percentage points."""
    exact: float = comparison.reference["idle_pct_exact"]
    return exact - cast(float, comparison.by_htas_rule)  # a compared trace has a window, so a share by the rule


def hta_us_per_op(comparison: HtaComparison) -> float:
    """HTA's extra idle time (``hta_points``) over the window, in µs per GPU op HTA's rule counts in it."""
    window_us = cast(float, comparison.window_us)  # a compared trace has a window
    return hta_points(comparison) / 100 * window_us / comparison.gpu_ops if comparison.gpu_ops else 0.0


def hta_agreement_row(comparison: HtaComparison) -> tuple[str, ...]:
    device = cell(comparison.device or "not named") if comparison.window_us is not None else "no GPU work"
    explains = "–" if comparison.gpu_idle_pct is None else f"{comparison.gpu_idle_pct:.2f}%"
    if not compared(comparison):
        hta = "fails" if "error" in comparison.reference else "–"
        return code(comparison.name), device, "–", hta, "–", "–", "–", explains
    # Only where HTA rounds the times is the difference spread over the ops: elsewhere it has other causes.
    rounded = comparison.reference["ts_rounded_to_us"]
    return (code(comparison.name), device, "sub-µs" if rounded else "whole µs",
            f"{comparison.reference['idle_pct_exact']:.2f}%", f"{comparison.by_htas_rule:.2f}%",
            f"{hta_points(comparison):+.2f}", f"{hta_us_per_op(comparison):+.2f} µs" if rounded else "–", explains)


def hta_agreement_fragment(comparisons: Sequence[HtaComparison], reference: Mapping[str, Any]) -> str:
    """Markdown: each real trace's GPU idle share by HolisticTraceAnalysis (``reference``, as
    ``benchmarks/hta_reference.py`` wrote it) beside the idle share by HTA's rule and ``gpu_idle_pct``, and what
    the comparison finds, in sentences made from the same numbers."""
    table = markdown_table(
        ("Trace", "Device", "Times", f"HTA {escape(reference['hta_version'])}", "HTA's rule, here",
         "Difference, points", "Difference per GPU op", "<code>gpu_idle_pct</code>"),
        [hta_agreement_row(comparison) for comparison in comparisons], "lllrrrrr")
    read = [c for c in comparisons if compared(c)]
    outside = [c for c in read if abs(hta_points(c)) > HTA_AGREEMENT_POINTS]
    whole = [c for c in read if not c.reference["ts_rounded_to_us"]]
    fractional = [hta_us_per_op(c) for c in read if c.reference["ts_rounded_to_us"]]
    failed = [code(c.name) for c in comparisons if "error" in c.reference]
    idle = [code(c.name) for c in comparisons if c.window_us is None and "error" not in c.reference]
    answered = [c for c in comparisons if c.reference and "error" not in c.reference]
    sentences = [f"HTA reads {len(answered)} of these {len(comparisons)} traces. On {len(read) - len(outside)} of them "
                 f"the idle share by its rule is within {HTA_AGREEMENT_POINTS:g} percentage points of HTA's"
                 + "".join(f"; on {code(c.name)} HTA's is {abs(hta_points(c)):.2f} points "
                           f"{'higher' if hta_points(c) > 0 else 'lower'}" for c in outside) + "."]
    if whole:
        sentences.append(f"On the {len(whole)} written in whole microseconds, the two agree to within "
                         f"{max(abs(hta_points(c)) for c in whole):.2f} points.")
    if fractional and min(fractional) >= 0:
        sentences.append(f"On the {len(fractional)} with fractions of a microsecond, HTA's is never lower, and "
                         f"higher by at most {max(fractional):.2f} µs of idle time per GPU op.")
    elif fractional:
        sentences.append(f"On the {len(fractional)} with fractions of a microsecond, HTA's differs from it by "
                         f"{min(fractional):+.2f} to {max(fractional):+.2f} µs of idle time per GPU op.")
    if failed:
        sentences.append(f"HTA stops with an error on {', '.join(failed)}; the reference file holds each error.")
    if idle:
        sentences.append(f"{', '.join(idle)} {'holds' if len(idle) == 1 else 'hold'} no GPU work: no idle share to "
                         "compare.")
    # pg-reflow: on a phone each row reads as a block of labelled cells (docs/assets/figures.css).
    return (f'<div class="pg-reflow" markdown>\n\n{table}\n</div>\n\n' + " ".join(sentences) + "\n\n"
            f"<small>HTA's values: HolisticTraceAnalysis {escape(reference['hta_version'])}, obtained "
            f"{escape(reference['obtained'])}, kept in `benchmarks/results/hta_temporal_breakdown.json`; "
            "profguide's: measured by this build. `tests/analysis/test_hta_agreement.py` checks the two against each "
            "other.</small>\n")


RANKS_SPEEDUP_GOAL = 1.6  # explain DIR on two cores against one, on the benchmark's largest folder


def ranks_benchmark_fragment(results: Mapping[str, Any]) -> str:
    """Markdown from ``benchmarks/explain_ranks.py --json`` output: each folder on one core and on two, the
    speed-up, peak memory, and whether the goal for the largest folder is met."""
    rows = [(f"{row['ranks']:,}", f"{row['bytes'] / 2**20:,.0f} MiB", f"{row['explain_1core_wall_s']:.2f} s",
             f"{row['explain_2core_wall_s']:.2f} s", f"{row['explain_speedup']:.2f}×", f"{row['draw_speedup']:.2f}×",
             f"{row['explain_2core_maxrss_mib']:,.0f} / {row['explain_2core_workers_maxrss_mib']:,.0f} MiB",
             "✓" if row["same_answer"] else "✗")
            for row in results["rows"]]
    table = markdown_table(("Ranks", "JSON", "explain, 1 core", "2 cores", "Speed-up", "draw speed-up",
                            "Peak memory, command / largest worker", "Same answer"), rows, "rrrrrrrl")
    largest = max(results["rows"], key=lambda row: row["ranks"])
    met = largest["explain_speedup"] >= RANKS_SPEEDUP_GOAL
    load = results.get("load_average_before")
    return (table + f"\nGoal: `explain DIR` of {largest['ranks']:,} ranks at least {RANKS_SPEEDUP_GOAL:g}× faster "
            f"on two cores than on one: {largest['explain_speedup']:.2f}×, {'✓ met' if met else '✗ not met'}.\n\n"
            f"<small>Measured {escape(results['date'][:10])} on {escape(measured_on(results))}"
            + (f", load average {load[0]:.2f} before the runs" if load else "")
            + f"; {results['repeats']} runs each, medians. Rerun with `python3 benchmarks/explain_ranks.py --json "
            "benchmarks/results/explain_ranks.json`.</small>\n")


READERS = {"json": "the JSON, `profguide.trace.load`", "pyarrow": "the Parquet tables, pyarrow",
           "duckdb": "the Parquet tables, DuckDB"}


def readback_benchmark_fragment(results: Mapping[str, Any]) -> str:
    """Markdown from ``benchmarks/export_readback.py --json`` output: reading a trace's JSON against reading its
    exported tables, each reader's import and read, the speed-ups, and whether the goal is met."""
    trace, readers = results["trace"], results["readers"]
    rows = [(READERS[name], f"{found['import_s']:.2f} s", f"{found['read_s']:.3f} s", f"{found['rows']:,}",
             "–" if name == "json" else f"{results['read_speedup'][name]:.1f}×",
             "–" if name == "json" else f"{results['whole_speedup'][name]:.1f}×")
            for name, found in readers.items()]
    table = markdown_table(("Reading", "Import", "Read", "Rows", "Read speed-up", "With the import"), rows,
                           "lrrrrr")
    goal = results["goal_speedup"]
    best = max(results["read_speedup"].values())
    load = results.get("load_average_before")
    return (table + f"\nThe trace: {trace['copies']} copies of `{escape(trace['source'])}`, {trace['events']:,} "
            f"events, {trace['bytes'] / 2**20:,.0f} MiB of JSON; its tables take "
            f"{results['parquet_bytes'] / 2**20:,.1f} MiB and took {results['export_s']:.1f} s to export. Goal: "
            f"the tables read back at least {goal:g}× faster than the JSON by one of the readers: {best:.1f}×, "
            f"{'✓ met' if best >= goal else '✗ not met'}.\n\n"
            f"<small>Measured {escape(results['date'][:10])} on {escape(measured_on(results))}"
            + (f", load average {load[0]:.2f} before the runs" if load else "")
            + f"; each reader in a fresh process, {results['repeats']} runs, medians. Rerun with `python3 "
            "benchmarks/export_readback.py --json benchmarks/results/export_readback.json`.</small>\n")


def diff_benchmark_fragment(results: Mapping[str, Any]) -> str:
    """Markdown from ``benchmarks/diff_and_rules.py --json`` output: ``diff`` of two traces against one
    ``explain``, and the rules' time against ``explain``'s, each with its goal."""
    trace = results["trace"]
    diff_met = results["diff_over_explain"] <= results["diff_goal"]
    rules_met = results["rules_over_explain"] <= results["rules_goal"]
    rows = [("`explain A --json`", f"{results['explain_s']:.2f} s", "1×", "–"),
            ("`diff A B --json`", f"{results['diff_s']:.2f} s", f"{results['diff_over_explain']:.2f}×",
             f"≤ {results['diff_goal']:g}× {'✓' if diff_met else '✗'}"),
            ("the rules, inside `explain A`", f"{1000 * results['rules_s']:.0f} ms",
             f"{100 * results['rules_over_explain']:.1f}%", f"≤ {100 * results['rules_goal']:g}% "
             f"{'✓' if rules_met else '✗'}")]
    table = markdown_table(("Command", "Wall time", "Of one explain", "Goal"), rows, "lrrl")
    return (table + f"\n<small>Two traces of {trace['events']:,} events ({trace['mib']:,.0f} MiB of JSON each, "
            f"{trace['copies']} copies of `{escape(trace['source'])}`), measured {escape(results['date'])} on "
            f"{escape(measured_on(results))}; {results['repeats']} runs each, alternating, medians. Rerun with "
            "`python3 benchmarks/diff_and_rules.py --json benchmarks/results/diff_and_rules.json`.</small>\n")


LAYOUT_MEMORY_GOAL = 1.3  # peak memory of another layout of the same events, over one event per line's
LAYOUTS = {"lines": "one event per line, as torch writes it", "one line": "the same events on one line",
           "padding": "a few of them in gzip padding"}


def layout_benchmark_fragment(results: Mapping[str, Any]) -> str:
    """Markdown from ``benchmarks/layout_memory.py --json`` output: each layout's peak memory and time, before
    and after, and whether memory grows with the events rather than with the layout."""
    after, before = results["after"], results.get("before")
    rows = []
    for key, words in LAYOUTS.items():
        now = after["layouts"][key]
        then = before["layouts"][key] if before else None
        rows.append((words, format_size(results["trace"]["bytes"][key]),
                     f"{now['peak_rss_mib']:,.0f} MiB", f"{then['peak_rss_mib']:,.0f} MiB" if then else "–",
                     f"{now['wall_s']:.2f} s", f"{then['wall_s']:.2f} s" if then else "–"))
    table = markdown_table(("Layout", "File", "Peak memory", "Before", "Wall time", "Before"), rows, "lrrrrr")
    ratios = after["ratios"]
    goals = [(f"{LAYOUTS[key]}: peak memory at most {LAYOUT_MEMORY_GOAL:g}× that of one event per line",
              ratios[f"{key}_over_lines_peak_rss_mib"]) for key in ("one line", "padding")]
    lines = markdown_table(("Goal", "Measured", "Met"), [
        (words, f"{value:.2f}×", "✓ yes" if value <= LAYOUT_MEMORY_GOAL else "✗ no") for words, value in goals],
        "lrl")
    inflated = results["trace"].get("padding_inflates_to")
    note = f" (it inflates to {format_size(inflated)})" if inflated else ""
    checkouts = results["checkouts"]
    compared = (f"; *before* is commit {escape(str(checkouts['before']))}, the rest "
                f"{escape(str(checkouts['after']))}" if before else "")
    return (table + f"\nThe padding file{note} and the others hold events of "
            f"`{escape(results['trace']['source'])}`{compared}.\n\n" + lines
            + f"\n<small>Measured {escape(results['date'][:10])} on {escape(measured_on(results))}; "
            f"{results['repeats']} runs each, medians. Rerun with `python3 benchmarks/layout_memory.py` "
            "(see benchmarks/README.md).</small>\n")


def transformers_benchmark_fragment(results: Mapping[str, Any], largest: int = 5) -> str:
    """Markdown from ``benchmarks/install_size.py --transformers … --json`` output: what ``transformers`` adds to
    the install beyond the lock (the ``largest`` distributions, then the rest together), and its Llama model's
    import time against the hand-written decoder's."""
    cost = results["transformers"]
    added = cost["added"]
    rows = [(f"`{escape(found['name'])}` {escape(found['version'])}", format_size(found["bytes"]))
            for found in added[:largest]]
    if len(added) > largest:
        rest = added[largest:]
        rows.append((f"{len(rest)} more", format_size(sum(found["bytes"] for found in rest))))
    rows.append((f"**All {len(added)}**", f"**{format_size(cost['added_bytes'])}**"))
    table = markdown_table(("Added beyond the lock", "On disk"), rows, "lr")
    seconds = cost["import_seconds"]
    sentence = (f"After `import torch`, importing `transformers`' Llama model took {seconds['transformers']:.2f} s; "
                f"importing the guide's decoder took {seconds['hand-written'] * 1000:.0f} ms (medians of "
                f"{cost['import_repeats']} fresh processes).")
    return (table + "\n" + sentence + f"\n\n<small>Measured {escape(results['date'][:10])} on "
            f"{escape(measured_on(results))}. Rerun with `python3 benchmarks/install_size.py --transformers VENV` "
            "(see benchmarks/README.md).</small>\n")


TRACELENS_QUANTITIES = {"flops": "FLOPs", "bytes": "bytes", "tflops": "TFLOP/s", "kernel_us": "kernel time"}


SI_PREFIXES = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def si(value: float) -> str:
    """A count with an SI prefix and four significant digits (294.9 k, 51.58 G): close enough to show a
    difference of a few per cent."""
    for factor, prefix in SI_PREFIXES:
        if abs(value) >= factor:
            return f"{value / factor:.4g} {prefix}"
    return f"{value:.4g}"


def ours_theirs(side: Mapping[str, Any], shown: Callable[[float], str]) -> str:
    """One quantity of a row of ``benchmarks/tracelens_compare.py``: profguide's / TraceLens's."""
    return f"{'–' if side['ours'] is None else shown(side['ours'])} / {shown(side['theirs'])}"


def tracelens_fragment(results: Mapping[str, Any]) -> str:
    """Markdown from ``benchmarks/tracelens_compare.py --json`` output: each row of TraceLens's reports with
    profguide's FLOPs, bytes and TFLOP/s beside TraceLens's, the reason for each difference beyond the tolerance,
    and the reasons' sentences with their sources."""
    summary, tolerance = results["summary"], results["tolerance"]

    def why(row: Mapping[str, Any]) -> str:
        parts = []
        for quantity in row["beyond"]:
            difference = row[quantity]["difference"]
            size = "" if difference is None else f" {difference:+.0%}"
            parts.append(f"{TRACELENS_QUANTITIES[quantity]}{size}: {code(row['why'][quantity] or 'unexplained')}")
        return "; ".join(parts)

    rows = [(code(row["trace"]), code(row["op"]), code_cell(row["shapes"]), code(row["dtype"]),
             ours_theirs(row["flops"], si), ours_theirs(row["bytes"], si),
             ours_theirs(row["tflops"], lambda value: f"{value:.3g}"), why(row)) for row in results["rows"]]
    table = markdown_table(("Trace", "Op", "Input Dims", "Dtype", "FLOPs (ours / TraceLens)",
                            "Bytes (ours / TraceLens)", "TFLOP/s (ours / TraceLens)", f"Beyond {tolerance:.0%}"),
                           rows, "llllrrrl")
    missed = summary["not_compared"]
    sentence = (f"Of the {summary['rows']} rows of TraceLens's reports, {summary['compared']} were compared"
                + (f" ({missed} had no formula or no device time here)" if missed else "")
                + f": {summary['within']} agree within {tolerance:.0%} in FLOPs, bytes, TFLOP/s and kernel time, "
                f"and {summary['beyond']} differ by more in at least one"
                + (f", {summary['unexplained']} of them for no known reason." if summary["unexplained"]
                   else ", each for one of the reasons below."))
    used = sorted({kind for row in results["rows"] for kind in row["why"].values() if kind})
    explanations = results["explanations"]
    reasons = "".join(f"- {code(kind)}: {cell(explanations[kind]['sentence'])} Source: "
                      f"<a href=\"{cell(explanations[kind]['source'])}\">{cell(explanations[kind]['where'])}</a>\n"
                      for kind in used)
    return (sentence + "\n\n" + table + "\n" + reasons
            + f"\n<small>Compared {escape(results['date'][:10])} on {escape(measured_on(results))}. Rerun with "
            "`python3 benchmarks/tracelens_compare.py --json benchmarks/results/tracelens_comparison.json` "
            "(see benchmarks/README.md).</small>\n")


def scaling_series(results: Mapping[str, Any]) -> list[tuple[str, list[tuple[int, float]]]]:
    """(label, [(events, seconds), …]) for explain and the decoding floor, from the scaling runs."""
    rows = results.get("scaling") or []
    return [(label, [(row["events"], row[key]) for row in rows if row.get(key) is not None])
            for label, key in (("profguide explain", "explain_s"), ("msgspec decode", "decode_s"))]


def anatomy_table(rows: Sequence[Mapping[str, Any]], layers: Mapping[str, str]) -> str:
    """A collective's events layer by layer (``profguide.analysis.collectives.anatomy``); ``layers`` says what
    each layer is, in words."""
    def cells(row: Mapping[str, Any]) -> tuple[str, ...]:
        name = kernel_name(row["name"]) if row["layer"] == "kernel" else row["name"]
        runs_on = cell(row["runs_on"]) + (f" ({row['lanes']} threads)" if row["lanes"] > 1 else "")
        return (layers[row["layer"]], code_cell(name), code(row["category"]), runs_on, f"{row['count']:,}",
                format_duration(row["median_us"]))

    return markdown_table(("Layer", "Event", "Category", "Runs on", "Count", "Median duration"),
                          [cells(row) for row in rows], "llllrr")


def buckets_table(rows: Sequence[Mapping[str, Any]], collective: str) -> str:
    """Each step's ops of one collective and the bytes each sent (``collectives.step_buckets``)."""
    def cells(row: Mapping[str, Any]) -> tuple[int, int, str, str]:
        known = [size for size in row["sizes"] if size is not None]
        each = ", ".join(format_size(size) if size is not None else "not recorded" for size in row["sizes"])
        return row["step"], len(row["sizes"]), each or "—", format_size(sum(known))

    return markdown_table(("Step", f"{collective} ops", "Bytes each", "Together"), [cells(row) for row in rows],
                          "rrlr")


def ranks_table(infos: Sequence[Mapping[str, Any] | None], files: Sequence[str]) -> str:
    """What each rank's trace says about its place in the job (its ``distributedInfo``), beside its file."""
    rows = [(code(file), *(cell((info or {}).get(key, "—")) for key in ("rank", "world_size", "backend", "pg_count")))
            for info, file in zip(infos, files, strict=True)]
    return markdown_table(("File", "`rank`", "`world_size`", "`backend`", "Process groups"), rows, "lrrlr")


def percent(part: float, whole: float) -> str:
    """A share in a table's cell: "–" where there is no whole."""
    return share(part, whole, "–")


PEAK_COLUMNS = (("fp32", "FP32"), ("fp32_matrix", "FP32 matrix"), ("tf32", "TF32"), ("bf16", "BF16"),
                ("fp16", "FP16"), ("fp8", "FP8"), ("fp4", "FP4"), ("int8", "INT8 (TOPS)"))


def peak_table(peaks: Iterable[Peaks]) -> str:
    """The peak table the roofline reads: each GPU's dense TFLOP/s by type, its bandwidth and its datasheet."""
    rows = [(escape(found.model), *(three_figures(found.tflops[key]) if key in found.tflops else "–"
                                    for key, _ in PEAK_COLUMNS),
             three_figures(found.tb_per_s), f"[datasheet]({found.source})") for found in peaks]
    return markdown_table(("GPU", *(label for _, label in PEAK_COLUMNS), "TB/s", "Source"), rows,
                          "l" + "r" * (len(PEAK_COLUMNS) + 1) + "l") + "\n"
