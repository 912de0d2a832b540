"""The Markdown of the fragments that pages include: tables, captions, provenance, figures with their hand-off.

Every string that comes from a trace is escaped. A figure's SVG is its own
file, included into the page by the fragment (``--8<--``), so that it sits
inline and follows the page's colour scheme, and the same SVG is never
committed twice; each figure comes with its caption, its provenance, a link
to download its trace and a button that opens the trace in Perfetto.
"""

from xml.sax.saxutils import escape

from profguide.text import count_of, format_duration


def steps_table(steps):
    """Each profiled step's duration, and how it compares with the fastest."""
    if not steps:
        return ""
    fastest = min(step["dur_us"] for step in steps)
    lines = ["| Step | Duration | × fastest |", "|---:|---:|---:|"]
    for step in steps:
        lines.append(
            f"| {step['step']} | {format_duration(step['dur_us'])} | {step['dur_us'] / fastest:.2f} |"
        )
    return "\n".join(lines) + "\n"


def provenance_line(meta):
    """Where and how the recording was made: device, versions, date, and the parameters it ran with."""
    parts = [escape(meta["device_name"]), f"torch {escape(meta['torch'])}"]
    if meta.get("cuda"):
        parts.append(f"CUDA {escape(meta['cuda'])}")
    parts.append(f"Python {escape(meta['python'])}")
    parts.append(escape(meta["recorded_at"][:10]))
    if meta.get("ranks", 1) > 1:
        parts.append(f"{meta['ranks']} processes")
    parts.append(", ".join(f"{escape(str(name))}={escape(str(value))}" for name, value in meta["params"].items()))
    return "Recorded on " + " · ".join(part for part in parts if part)


def provenance_note(meta):
    """One small line under a table: where its numbers come from, whether they stand in for a GPU run, and
    a link to the trace they were measured on."""
    standin = " · <strong>CPU stand-in</strong> for a GPU recording" if meta.get("cpu_standin") else ""
    link = f" · [download the trace](/{trace_url(meta)})"
    return f"<small>{provenance_line(meta)}{standin}{link}</small>\n"


def trace_url(meta):
    """Where the site serves the recording's trace (rank 0's for several ranks), from the site's root."""
    name = "trace.json.gz" if meta.get("ranks", 1) == 1 else "trace-rank0.json.gz"
    return f"generated/{meta['recording']}/{name}"


def standin_notice(meta):
    if not meta.get("cpu_standin"):
        return ""
    return (
        '!!! warning "CPU stand-in"\n'
        "    This recording is meant for a GPU, but no GPU recording of it exists yet:\n"
        f"    it was made on the CPU ({escape(meta['device_name'])}). It has no GPU lane and no\n"
        "    kernels; a maintainer refreshes it on a GPU runner with `make figures`.\n\n"
    )


def caption(title, facts):
    """The figure's caption: what it shows, with the numbers the analysis measured."""
    sentences = [
        f"{escape(title)}, over {format_duration(facts['window_us'])}: "
        f"{count_of(facts['cpu_lanes'], 'CPU thread lane')}, {count_of(facts['gpu_lanes'], 'GPU stream lane')}."
    ]
    if facts["kernel_count"]:
        top = facts["top_kernels"][0]
        sentences.append(
            f"{count_of(facts['kernel_count'], 'kernel')} ran for {format_duration(facts['kernel_time_us'])} "
            f"in all; the most time went to <code>{escape(top['name'][:80])}</code> "
            f"({format_duration(top['total_us'])})."
        )
    else:
        sentences.append(f"{count_of(facts['cpu_ops'], 'CPU op')} and {count_of(0, 'GPU kernel')}.")
    sync = facts["longest_sync"]
    if sync:
        sentences.append(
            f"The longest synchronisation, <code>{escape(sync['name'])}</code>, "
            f"took {format_duration(sync['dur_us'])}."
        )
    return " ".join(sentences)


def callout_sentence(callouts):
    """'Numbered: 1 matmul_bias, 2 aten::mm.' for the callouts drawn, '' for none."""
    if not callouts:
        return ""
    return " Numbered: " + ", ".join(f"<b>{n}</b> <code>{escape(name)}</code>" for n, name in callouts) + "."


def included(svg_path):
    """A figure's SVG, included from its file into a page: the figure sits inline, in the page's colours."""
    return f'<div class="pg-figure">\n--8<-- "{svg_path}"\n</div>\n\n'


def figure_fragment(title, meta, facts, svg_path, callouts=()):
    """Markdown for a page: stand-in notice, the inline figure, caption, provenance, trace hand-off."""
    trace_path = trace_url(meta)
    return (
        standin_notice(meta)
        + included(svg_path)
        + f"{caption(title, facts)}{callout_sentence(callouts)}\n"
        + "{: .pg-caption }\n\n"
        + f"<small>{provenance_line(meta)} · [download the trace](/{trace_path}) · "
        + f'<button class="md-button pg-perfetto" data-trace="{trace_path}" data-title="{escape(title)}">'
        + "Open in Perfetto</button></small>\n"
    )


def extra_figure_fragment(svg_path, caption_text):
    """An inline figure with a plain caption, for the second and third figures of a recording."""
    return included(svg_path) + f"{caption_text}\n{{: .pg-caption }}\n"


def calls_table(calls):
    """Each call of a region: its duration, the time in the ops it called and outside them, against the fastest.

    ``calls`` are dicts with ``dur_us``, ``in_ops_us`` and, on a GPU, ``kernel_us``.
    """
    fastest = min(call["dur_us"] for call in calls)
    on_gpu = any(call.get("kernel_us") for call in calls)
    header = "| Call | Duration | In the ops it called | In no op |" + (" GPU kernels |" if on_gpu else "")
    lines = [header + " × fastest |", "|---:|---:|---:|---:|" + ("---:|" if on_gpu else "") + "---:|"]
    for number, call in enumerate(calls, 1):
        cells = [str(number), format_duration(call["dur_us"]), format_duration(call["in_ops_us"]),
                 format_duration(call["dur_us"] - call["in_ops_us"])]
        if on_gpu:
            cells.append(format_duration(call.get("kernel_us", 0.0)))
        cells.append(f"{call['dur_us'] / fastest:.1f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


PHASES = {
    "X": "complete event: a name, a start and a duration",
    "M": "metadata: names and sort order of processes and threads",
    "i": "instant event: a point in time",
    "s": "flow start: the launch end of a launch → kernel arrow",
    "f": "flow end: the kernel end of that arrow",
}


def phases_table(counts):
    """The events of a trace by ``ph``: how many of each, and what they are."""
    total = sum(counts.values())
    lines = ["| `ph` | What it is | Events |", "|---|---|---:|"]
    for phase, count in sorted(counts.items(), key=lambda item: (-item[1], str(item[0]))):
        meaning = PHASES.get(phase, "another kind of event")
        lines.append(f"| `{escape(str(phase))}` | {meaning} | {count:,} |")
    lines.append(f"| | all events | {total:,} |")
    return "\n".join(lines) + "\n"


BENCHMARK_ROWS = {
    "read": "reading the file's bytes",
    "decode": "msgspec decoding it into typed structs (the floor)",
    "profguide": "`profguide explain --json`",
    "draw": "`profguide draw`",
    "hta": "HolisticTraceAnalysis {version}: load + temporal breakdown",
}


def benchmark_fragment(results, svg_path):
    """Markdown for the site from ``benchmarks/explain_vs_hta.py --json`` output: every tool side by side,
    the ratios, and the scaling figure."""
    tools, source, ratio = results["tools"], results["trace"], results["ratios"]
    lines = ["| What runs | Wall time (median) | CPU time | Peak memory | GPU idle |", "|---|---:|---:|---:|---:|"]
    for name, label in BENCHMARK_ROWS.items():
        run = tools.get(name)
        if not run or not run.get("ok"):
            continue
        result = run.get("result") or {}
        idle = result.get("gpu_idle_pct", result.get("idle_pct"))
        lines.append(f"| {label.format(version=escape(str(results.get('hta_version'))))} | "
                     f"{run['wall_s_median']:.2f} s | {run['cpu_s_median']:.2f} s | {run['maxrss_mib_median']:,.0f} MiB"
                     f" | {'–' if idle is None else f'{idle:.2f}%'} |")
    lines += [
        "",
        f"On a trace of {source['events']:,} events ({source['bytes'] / 2**20:,.0f} MiB of JSON, "
        f"{source['copies']} copies of `{escape(source['source'])}` end to end), `explain` took "
        f"**{ratio['explain_over_decode_time']:.2f}×** the time of decoding the file into typed structs, ran "
        f"**{ratio['hta_over_profguide_time']:.1f}× faster** than HTA in "
        f"**{ratio['profguide_over_hta_memory']:.2f}×** its peak memory, and `draw` took "
        f"**{ratio['draw_over_explain_time']:.2f}×** the time of `explain`. Each ran {results['repeats']} times, "
        "each time in a fresh process.",
        "",
    ]
    if results.get("scaling"):
        lines += [included(svg_path) + "The same, on traces of 1 to "
                  f"{max(row['copies'] for row in results['scaling'])} copies: `explain` and the decoding floor "
                  "against the number of events.\n{: .pg-caption }", ""]
    lines.append(
        f"<small>Measured {escape(results['date'][:10])} on {escape(results['machine'])}; "
        f"profguide {escape(str(results['profguide_version']))}, "
        f"msgspec {escape(str(results.get('msgspec_version')))}. "
        "Rerun with `python3 benchmarks/explain_vs_hta.py --json benchmarks/results/explain_vs_hta.json`.</small>")
    return "\n".join(lines) + "\n"


def scaling_series(results):
    """(label, [(events, seconds), …]) for explain and the decoding floor, from the scaling runs."""
    rows = results.get("scaling") or []
    return [(label, [(row["events"], row[key]) for row in rows if row.get(key) is not None])
            for label, key in (("profguide explain", "explain_s"), ("msgspec decode", "decode_s"))]
