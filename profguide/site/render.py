"""The Markdown fragments that pages include: tables, captions, provenance, figures with their hand-off.

Every string that comes from a trace is escaped. Figures are inlined as SVG
so that they follow the page's colour scheme; each comes with its caption,
its provenance, a link to download its trace and a button that opens the
trace in Perfetto.
"""

from xml.sax.saxutils import escape

from profguide.text import count_of, format_duration


def markdown_cell(text):
    """Text for a Markdown table cell, as code: pipes and backticks made harmless."""
    return "<code>" + escape(text).replace("|", "&#124;").replace("`", "&#96;") + "</code>"


def averages_table(rows, limit=10):
    """``key_averages`` rows as a Markdown table, sorted as the profiler's table was.

    Device columns appear only when some op spent time on a device.
    """
    on_device = any(row["device_total_us"] > 0 for row in rows)
    sort_key = "device_total_us" if on_device else "cpu_total_us"
    ordered = sorted(rows, key=lambda row: (-row[sort_key], row["name"]))[:limit]
    header = ["Name", "Calls", "Self CPU", "CPU total"]
    if on_device:
        header += ["Self device", "Device total"]
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|",
    ]
    for row in ordered:
        cells = [
            markdown_cell(row["name"]),
            str(row["count"]),
            format_duration(row["self_cpu_us"]),
            format_duration(row["cpu_total_us"]),
        ]
        if on_device:
            cells += [format_duration(row["self_device_us"]), format_duration(row["device_total_us"])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


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
    """Where the recording came from: device, versions, date."""
    parts = [escape(meta["device_name"]), f"torch {escape(meta['torch'])}"]
    if meta.get("cuda"):
        parts.append(f"CUDA {escape(meta['cuda'])}")
    parts.append(f"Python {escape(meta['python'])}")
    parts.append(escape(meta["recorded_at"][:10]))
    return "Recorded on " + " · ".join(parts)


def provenance_note(meta):
    """One small line under a table: where its numbers come from, and whether they stand in for a GPU run."""
    standin = " · <strong>CPU stand-in</strong> for a GPU recording" if meta.get("cpu_standin") else ""
    return f"<small>{provenance_line(meta)}{standin}</small>\n"


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


def figure_fragment(recording_id, title, meta, facts, svg, callouts=()):
    """Markdown for a page: stand-in notice, the inline figure, caption, provenance, trace hand-off."""
    trace_path = f"generated/{recording_id}/trace.json.gz"
    return (
        standin_notice(meta)
        + f'<div class="pg-figure">\n{svg.strip()}\n</div>\n\n'
        + f"{caption(title, facts)}{callout_sentence(callouts)}\n"
        + "{: .pg-caption }\n\n"
        + f"<small>{provenance_line(meta)} · [download the trace](/{trace_path}) · "
        + f'<button class="md-button pg-perfetto" data-trace="{trace_path}" data-title="{escape(title)}">'
        + "Open in Perfetto</button></small>\n"
    )


def extra_figure_fragment(svg, caption_text):
    """An inline figure with a plain caption, for the second and third figures of a recording."""
    return f'<div class="pg-figure">\n{svg.strip()}\n</div>\n\n{caption_text}\n{{: .pg-caption }}\n'



def benchmark_fragment(results):
    """Markdown for the site from ``benchmarks/explain_vs_hta.py --json`` output: both tools side by side."""
    ours, hta, source = results["profguide"], results["hta"], results["trace"]
    rows = [
        ("`profguide explain --json`", ours, ours["result"]["gpu_idle_pct"]),
        (f"HolisticTraceAnalysis {escape(results['hta_version'])}: load + temporal breakdown", hta,
         hta["result"]["idle_pct"]),
    ]
    lines = [
        "| Tool | Wall time (median) | Peak memory (median) | GPU idle |",
        "|---|---:|---:|---:|",
        *(
            f"| {name} | {run['wall_s_median']:.2f} s | {run['maxrss_mib_median']:,.0f} MiB | {idle:.2f}% |"
            for name, run, idle in rows
        ),
        "",
        f"**{results['hta_over_profguide_time']:.1f}× faster** and "
        f"**{results['profguide_over_hta_memory']:.2f}× the peak memory** of HTA, on a trace of "
        f"{source['events']:,} events ({source['bytes'] / 2**20:,.0f} MiB of JSON): "
        f"{source['copies']} copies of `{escape(source['source'].rsplit('/', 1)[-1])}` end to end. "
        f"Each tool ran {results['repeats']} times in a fresh process.",
        "",
        f"<small>Measured {escape(results['date'][:10])} on {escape(results['machine'])}; "
        f"profguide {escape(results['profguide_version'])}. Rerun with `python3 benchmarks/explain_vs_hta.py "
        "--json benchmarks/results/explain_vs_hta.json`.</small>",
    ]
    return "\n".join(lines) + "\n"
