"""The fragments a page can include from a recording, by name, and how each is made from the recording.

A page includes ``docs/generated/<recording>/<fragment>``; the build renders
exactly the fragments that pages include. Each maker takes a
``RecordingData`` and returns the files it writes (name → text): a figure's
fragment comes with its SVG file, which the fragment includes.
"""

import gzip
import json
from collections import Counter
from xml.sax.saxutils import escape

from profguide import explain
from profguide.analysis.regions import region_calls
from profguide.analysis.select import first_of, step_window
from profguide.analysis.verdict import facts
from profguide.figures import charts
from profguide.figures.timeline import timeline_svg
from profguide.site import render
from profguide.text import count_of, format_duration, kernel_name

GENERATED = "docs/generated"


class FragmentError(ValueError):
    """A page asks for a fragment that this recording cannot give."""


def svg_path(data, name):
    return f"{GENERATED}/{data.recording.id}/{name}"


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
    svg = timeline_svg(trace, title=f"Timeline: {data.title}{rank}", highlight=spec.highlight, brackets=brackets,
                       callouts=callouts)
    fragment = render.figure_fragment(data.title + rank, data.meta, facts(trace),
                                      svg_path(data, "timeline.svg"), callouts)
    return {"timeline.svg": svg, "figure.md": fragment}


def provenance(data):
    return {"provenance.md": render.provenance_note(data.meta)}


def steps(data):
    """Each recorded step's duration against the fastest."""
    found = facts(data.trace)["steps"]
    if not found:
        raise FragmentError("no ProfilerStep in this recording")
    return {"steps.md": render.steps_table(found) + "\n" + render.provenance_note(data.meta)}


def compare(data):
    """The first step beside the fastest one, on one time scale."""
    found = facts(data.trace)["steps"]
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
    top = facts(data.trace)["top_kernels"]
    name = top[0]["name"] if top else data.recording.figure.spread
    durations = charts.op_durations(data.trace, name) if name else []
    if len(durations) < 2:
        raise FragmentError(f"fewer than two occurrences of {name!r} to spread")
    svg = charts.spread_svg(kernel_name(name), durations, title=f"Spread of {name}")
    caption = (f"Every duration of <code>{escape(name[:80])}</code> in the recording, one dot each, "
               "with the median and the 95th percentile.")
    return {"spread.svg": svg, "spread.md": render.extra_figure_fragment(svg_path(data, "spread.svg"), caption)}


def breakdown(data):
    """Each step's GPU busy time and idle time by cause, or a line saying there is no GPU work to split."""
    if not facts(data.trace)["kernel_count"]:
        return {"breakdown.md": "*This recording has no GPU work (a CPU stand-in, or a CPU-only run), so there "
                                "is no GPU time to split into busy and idle.*\n"}
    svg = charts.breakdown_svg(charts.step_breakdowns(data.trace))
    caption = ("Each step's window, from its start until the GPU finished what it launched, split into GPU busy "
               "time and idle time by cause.")
    return {"breakdown.svg": svg,
            "breakdown.md": render.extra_figure_fragment(svg_path(data, "breakdown.svg"), caption)}


def explained(data):
    """What ``profguide explain --markdown`` says about rank 0's trace."""
    return {"explain.md": explain.to_markdown(explain.explain_trace(data.trace, data.trace_path()))}


def calls(data):
    """Each call of the figure's region, first call against the later ones, with a sentence that says so."""
    region = data.recording.figure.region
    found = region_calls(data.trace, region) if region else []
    if len(found) < 2:
        raise FragmentError(f"fewer than two calls of {region!r} to compare")
    first, later = found[0], found[1:]
    slowest = max(call["dur_us"] for call in later)
    sentence = (f"The first call of <code>{escape(region)}</code> took {format_duration(first['dur_us'])}, "
                f"{first['dur_us'] / slowest:.0f}× the slowest of the {count_of(len(later), 'later call')}; "
                f"{format_duration(first['dur_us'] - first['in_ops_us'])} of it was in no op.")
    return {"calls.md": render.calls_table(found) + "\n" + sentence + "\n\n" + render.provenance_note(data.meta)}


def events(data):
    """The events of rank 0's trace by kind (``ph``), with the share of complete events in words."""
    document = json.loads(gzip.decompress(data.trace_path().read_bytes()))
    counts = Counter(event.get("ph") for event in document["traceEvents"] if isinstance(event, dict))
    total = sum(counts.values())
    sentence = (f"Of the {count_of(total, 'event')} in this recording's trace, {counts.get('X', 0):,} are "
                "complete events.")
    return {"events.md": sentence + "\n\n" + render.phases_table(counts) + "\n" + render.provenance_note(data.meta)}


FRAGMENTS = {
    "figure.md": figure,
    "provenance.md": provenance,
    "steps.md": steps,
    "compare.md": compare,
    "spread.md": spread,
    "breakdown.md": breakdown,
    "explain.md": explained,
    "calls.md": calls,
    "events.md": events,
}
