"""Draw traces as SVG timelines and write the Markdown fragments pages include.

Output is deterministic (same trace, same bytes) and every string that comes
from a trace is escaped, so a hostile op name renders as text.
"""

import math
from xml.sax.saxutils import escape, quoteattr

from profguide import analysis
from profguide.trace import HOST_KINDS

# Okabe–Ito colours: distinguishable with the common colour-vision deficiencies.
# Each kind: (fill, text colour on that fill, legend label).
STYLE = {
    "annotation": ("#CC79A7", "#000000", "record_function region"),
    "cpu_op": ("#0072B2", "#FFFFFF", "CPU op (aten::…)"),
    "runtime": ("#E69F00", "#000000", "CUDA runtime call"),
    "driver": ("#D55E00", "#FFFFFF", "CUDA driver call"),
    "python": ("#999999", "#000000", "Python function"),
    "kernel": ("#009E73", "#FFFFFF", "GPU kernel"),
    "memcpy": ("#F0E442", "#000000", "GPU memcpy"),
    "memset": ("#56B4E9", "#000000", "GPU memset"),
}
WIDTH = 800
LABEL_WIDTH = 150
RIGHT_MARGIN = 16
ROW_HEIGHT = 20
ROW_GAP = 2
LANE_GAP = 12
LEGEND_ROW = 20
AXIS_HEIGHT = 34
FONT_SIZE = 13
CHAR_WIDTH = 7.6  # average advance of the 13 px sans-serif face, for fitting labels
MAX_DEPTH = 8


def format_duration(us):
    """A duration in µs as a short human string: 850 ns, 12.3 µs, 4.56 ms, 1.20 s."""
    if us < 1:
        return f"{us * 1000:.0f} ns"
    if us < 100:
        return f"{us:.1f} µs"
    if us < 1000:
        return f"{us:.0f} µs"
    if us < 1_000_000:
        return f"{us / 1000:.2f} ms"
    return f"{us / 1_000_000:.2f} s"


def format_tick(us):
    """An axis label: like format_duration, without trailing zeros (500 ms, 1.5 s)."""
    if us == 0:
        return "0"
    number, unit = format_duration(us).split(" ")
    if "." in number:
        number = number.rstrip("0").rstrip(".")
    return f"{number} {unit}"


def nice_tick_step(span, target_ticks=6):
    """A 1, 2 or 5 × 10^k step giving about ``target_ticks`` ticks over ``span``."""
    raw = span / target_ticks
    magnitude = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if factor * magnitude >= raw:
            return factor * magnitude
    return 10 * magnitude


def fit_label(name, width):
    """``name`` cut to fit ``width`` pixels, with an ellipsis; '' if nothing useful fits."""
    room = int((width - 6) / CHAR_WIDTH)
    if room >= len(name):
        return name
    if room < 4:
        return ""
    return name[: room - 1] + "…"


def lane_label(pid, tid, on_gpu):
    if on_gpu:
        return f"GPU {pid} · stream {tid}"
    return f"CPU · tid {tid}"


def lane_rows(trace, lane, kinds, start, end):
    """The slices of one lane inside the window, each with its nesting depth."""
    mask = trace.lane_mask([lane]) & analysis.kinds_mask(trace, kinds)
    slices = trace.slices(start, end, mask)
    return list(zip(slices, analysis.nesting_depths(slices), strict=True))


def slice_svg(s, depth, x_of, top, end_clip):
    fill, ink, _ = STYLE[s.kind]
    x0 = x_of(max(s.ts, x_of.start))
    x1 = x_of(min(s.end, end_clip))
    width = max(x1 - x0, 1.0)
    y = top + depth * (ROW_HEIGHT + ROW_GAP)
    tooltip = f"{s.name}\n{format_duration(s.dur)} · {STYLE[s.kind][2]}"
    parts = [
        f'<g><title>{escape(tooltip)}</title>'
        f'<rect x="{x0:.1f}" y="{y}" width="{width:.1f}" height="{ROW_HEIGHT}" fill="{fill}"/>'
    ]
    label = fit_label(s.name, width)
    if label:
        parts.append(
            f'<text x="{x0 + 3:.1f}" y="{y + ROW_HEIGHT - 6}" fill="{ink}">{escape(label)}</text>'
        )
    parts.append("</g>")
    return "".join(parts)


class XScale:
    """Maps a time in µs to an x coordinate in the plot area."""

    def __init__(self, start, end):
        self.start = start
        self.end = end
        self.scale = (WIDTH - LABEL_WIDTH - RIGHT_MARGIN) / max(end - start, 1e-9)

    def __call__(self, ts):
        return LABEL_WIDTH + (ts - self.start) * self.scale


def axis_svg(x_of, top):
    span = x_of.end - x_of.start
    step = nice_tick_step(span)
    parts = [
        f'<line x1="{LABEL_WIDTH}" y1="{top}" x2="{WIDTH - RIGHT_MARGIN}" y2="{top}" stroke="#555"/>'
    ]
    tick = 0.0
    while tick <= span + step * 1e-6:
        x = x_of(x_of.start + tick)
        parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + 5}" stroke="#555"/>')
        parts.append(
            f'<text x="{x:.1f}" y="{top + 18}" text-anchor="middle" fill="#333">'
            f"{escape(format_tick(tick))}</text>"
        )
        tick += step
    return "".join(parts)


def legend_svg(kinds):
    """The legend for the kinds drawn, wrapped into rows; returns (svg, height)."""
    parts = []
    x, y = LABEL_WIDTH, 8
    for kind in STYLE:
        if kind not in kinds:
            continue
        fill, _, label = STYLE[kind]
        item_width = 16 + int(len(label) * CHAR_WIDTH) + 18
        if x + item_width > WIDTH and x > LABEL_WIDTH:
            x, y = LABEL_WIDTH, y + LEGEND_ROW
        parts.append(f'<rect x="{x}" y="{y}" width="12" height="12" fill="{fill}"/>')
        parts.append(f'<text x="{x + 16}" y="{y + 10}" fill="#333">{escape(label)}</text>')
        x += item_width
    return "".join(parts), y + LEGEND_ROW


def timeline_svg(trace, window=None, title="Profiler timeline"):
    """An SVG timeline: CPU thread lanes with nested ops, GPU stream lanes, a time axis.

    ``window`` is (start, end) in the trace's µs; by default the whole activity.
    """
    start, end = window or analysis.activity_window(trace)
    pad = (end - start) * 0.01
    x_of = XScale(start - pad, end + pad)
    gpu_kinds = {"kernel", "memcpy", "memset"}
    lane_specs = [(lane, HOST_KINDS, False) for lane in analysis.cpu_lanes(trace)]
    lane_specs += [(lane, gpu_kinds, True) for lane in analysis.gpu_lanes(trace)]

    lanes = []
    for lane, kinds, on_gpu in lane_specs:
        rows = [(s, d) for s, d in lane_rows(trace, lane, kinds, start, end) if d < MAX_DEPTH]
        if rows:
            lanes.append((lane, on_gpu, rows))
    legend, y = legend_svg({s.kind for _, _, rows in lanes for s, _ in rows})
    body = []
    y += 4
    for lane, on_gpu, rows in lanes:
        depth_count = max(d for _, d in rows) + 1
        lane_height = depth_count * (ROW_HEIGHT + ROW_GAP)
        label = lane_label(*lane, on_gpu)
        body.append(
            f'<rect x="0" y="{y - 4}" width="{WIDTH}" height="{lane_height + 8}" fill="#F4F4F6"/>'
            f'<text x="8" y="{y + ROW_HEIGHT - 6}" fill="#222" font-weight="600">'
            f"{escape(fit_label(label, LABEL_WIDTH - 8))}</text>"
        )
        for s, depth in rows:
            body.append(slice_svg(s, depth, x_of, y, x_of.end))
        y += lane_height + LANE_GAP
    body.append(axis_svg(x_of, y))
    height = y + AXIS_HEIGHT
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
        f'width="{WIDTH}" height="{height}" role="img" aria-label={quoteattr(title)} '
        f'font-family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif" font-size="{FONT_SIZE}">'
        f"<title>{escape(title)}</title>"
        f'<rect width="{WIDTH}" height="{height}" rx="6" fill="#FFFFFF"/>'
        + legend
        + "".join(body)
        + "</svg>\n"
    )


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


def count_of(n, noun):
    """'no GPU lanes', '1 kernel', '3 kernels'."""
    if n == 0:
        return f"no {noun}s"
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


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


def figure_fragment(recording_id, title, meta, facts):
    """Markdown for a page: notice, figure, caption, provenance and trace download."""
    base = f"/generated/{recording_id}"
    return (
        standin_notice(meta)
        + '<figure markdown="span">\n'
        f"  ![Timeline: {escape(title)}]({base}/timeline.svg)\n"
        f'  <figcaption markdown="span">{caption(title, facts)}<br>\n'
        f"  <small>{provenance_line(meta)} · "
        f"[download the trace]({base}/trace.json.gz) and open it in "
        "[Perfetto](https://ui.perfetto.dev)</small></figcaption>\n"
        "</figure>\n"
    )


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
