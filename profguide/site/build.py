"""Keep ``docs/generated/`` in step with the snippets, then render it.

For each recording: decide whether the committed recording is fresh (its
cache key matches the snippet and parameters), re-record it when asked to
and when its device is here, and render its figure and tables. A CPU
machine never replaces a CUDA recording: it reports it as stale instead.
"""

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

import numpy as np

from profguide import explain, trace
from profguide.analysis.select import step_window
from profguide.analysis.verdict import facts as trace_facts
from profguide.figures import charts
from profguide.figures.timeline import timeline_svg
from profguide.site import record, render
from profguide.progress import step
from profguide.text import format_duration, kernel_name


@dataclass(frozen=True)
class Status:
    """What the build found for one recording and what it did."""

    id: str
    state: str  # "fresh", "stale" or "missing"
    action: str = "kept"  # "kept", "recorded on cpu", "recorded on cuda", "not refreshed: …"


def recording_state(recording, root, generated):
    meta = record.read_meta(Path(generated) / recording.id)
    if meta is None:
        return "missing", None
    if meta.get("cache_key") != record.cache_key(recording, root):
        return "stale", meta
    return "fresh", meta


def refresh_device(recording, meta, cuda_here):
    """The device to re-record a stale or missing recording on, or the reason not to.

    Returns (device, None) or (None, reason).
    """
    if recording.device == "cuda" and cuda_here:
        return "cuda", None
    if recording.device == "cuda" and record.is_cuda_recording(meta):
        return None, "stale CUDA recording; no GPU here to refresh it (run `make figures` on a GPU)"
    return "cpu", None


def rendered_files(recording, folder):
    """Every file rendered from a recording's folder: name → text."""
    folder = Path(folder)
    meta = json.loads((folder / "meta.json").read_text())
    rows = json.loads((folder / "averages.json").read_text())
    loaded = trace.load(folder / "trace.json.gz")
    facts = trace_facts(loaded)
    timeline, callouts = annotated_timeline(recording, loaded)
    files = {
        "timeline.svg": timeline,
        "figure.md": render.figure_fragment(recording.id, recording.title, meta, facts, timeline, callouts),
        "table.md": render.averages_table(rows) + "\n" + render.provenance_note(meta),
        "provenance.md": render.provenance_note(meta),
        "facts.json": json.dumps(facts, indent=1, sort_keys=True) + "\n",
        "explain.md": explain.to_markdown(explain.explain_trace(loaded, folder / "trace.json.gz")),
    }
    if facts["steps"]:
        files["steps.md"] = render.steps_table(facts["steps"]) + "\n" + render.provenance_note(meta)
    files.update(step_figures(recording, loaded, facts))
    return files


def annotated_timeline(recording, loaded):
    """The recording's timeline with the annotations it asks for; returns (svg, callouts drawn)."""
    spec = recording.figure
    present = set(loaded.names)
    callouts = [(n, name) for n, name in enumerate((c for c in spec.get("callouts", ()) if c in present), 1)]
    brackets = []
    for name in (n for n in spec.get("brackets", ()) if n in present):
        first = int(np.flatnonzero(loaded.name == loaded.names.index(name))[0])
        start, dur = float(loaded.ts[first]), float(loaded.dur[first])
        brackets.append((start, start + dur, f"{name}: {format_duration(dur)}"))
    svg = timeline_svg(loaded, title=f"Timeline: {recording.title}", highlight=spec.get("highlight", ()),
                               brackets=brackets, callouts=callouts)
    return svg, callouts


def step_figures(recording, loaded, facts):
    """The first step beside the fastest, the spread of one op's durations, and busy/idle by step."""
    spec, steps, files = recording.figure, facts["steps"], {}
    if spec.get("compare_first_step") and len(steps) > 1:
        first, fastest = steps[0], min(steps[1:], key=lambda s: s["dur_us"])
        panels = [(f"ProfilerStep#{s['step']}: {format_duration(s['dur_us'])}", loaded,
                   step_window(loaded, s["step"])) for s in (first, fastest)]
        svg = charts.comparison_svg(panels, title="The first step and the fastest one, on one time scale")
        files["compare.svg"] = svg
        files["compare.md"] = render.extra_figure_fragment(
            svg, f"The first step, ProfilerStep#{first['step']}, above the fastest, ProfilerStep#{fastest['step']}, "
            f"drawn on the same time scale: the first took {first['dur_us'] / fastest['dur_us']:.2f}× as long.")
    names = [row["name"] for row in facts["top_kernels"][:1]] or list(spec.get("spread", ()))
    if spec.get("spread") and names and len(durations := charts.op_durations(loaded, names[0])) > 1:
        svg = charts.spread_svg(kernel_name(names[0]), durations, title=f"Spread of {names[0]}")
        files["spread.svg"] = svg
        files["spread.md"] = render.extra_figure_fragment(
            svg, f"Every duration of <code>{escape(names[0][:80])}</code> in the recording, one dot each, "
            f"with the median and the 95th percentile.")
    if spec.get("breakdown") and steps:
        files.update(breakdown_files(loaded, facts))
    return files


def breakdown_files(loaded, facts):
    """Busy and idle time by cause for each step, or a line saying there is no GPU work to split."""
    if not facts["kernel_count"]:
        return {"breakdown.md": "*This recording has no GPU work (a CPU stand-in, or a CPU-only run), so there "
                                "is no GPU time to split into busy and idle.*\n"}
    svg = charts.breakdown_svg(charts.step_breakdowns(loaded))
    return {"breakdown.svg": svg, "breakdown.md": render.extra_figure_fragment(
        svg, "Each step's window, from its start until the GPU finished what it launched, split into GPU busy "
             "time and idle time by cause.")}


BENCHMARKS = {"benchmarks/results/explain_vs_hta.json": "benchmarks/explain-vs-hta.md"}


def benchmark_files(root, generated):
    """Rendered benchmark fragments: path under ``generated`` → text, for each results file present."""
    return {
        Path(generated) / fragment: render.benchmark_fragment(json.loads((Path(root) / results).read_text()))
        for results, fragment in BENCHMARKS.items()
        if (Path(root) / results).exists()
    }


def write_if_changed(path, text):
    """Write ``text`` unless the file already holds it (keeps `mkdocs serve` from looping)."""
    path = Path(path)
    if path.exists() and path.read_text() == text:
        return False
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text)
    temporary.replace(path)
    return True


def outdated_renders(recording, folder):
    """Names of rendered files that are missing or differ from a fresh render."""
    folder = Path(folder)
    return sorted(
        name
        for name, text in rendered_files(recording, folder).items()
        if not (folder / name).exists() or (folder / name).read_text() != text
    )


def build(recordings, root, generated, refresh=False, check=False, cuda_here=None, stream=None):
    """Bring every recording up to date as far as this machine can, then render.

    With ``refresh``, stale or missing recordings are recorded again on their
    device (or as a CPU stand-in where that replaces no CUDA recording). With
    ``check``, nothing is written. Returns the list of Status.
    """
    stream = stream or sys.stderr
    if refresh and cuda_here is None:
        cuda_here = record.cuda_available()
    statuses = []
    total = len(recordings)
    for index, recording in enumerate(recordings, 1):
        state, meta = recording_state(recording, root, generated)
        action = "kept"
        if state != "fresh" and refresh and not check:
            device, reason = refresh_device(recording, meta, cuda_here)
            if device is None:
                action = "not refreshed: " + reason
            else:
                with step(index, total, f"recording {recording.id} on {device}", stream):
                    record.record(recording, device, root, generated)
                state, action = "fresh", f"recorded on {device}"
        folder = Path(generated) / recording.id
        if state == "missing":
            statuses.append(Status(recording.id, state, "nothing to render"))
            continue
        if check:
            outdated = outdated_renders(recording, folder)
            if outdated:
                action = "renders out of date: " + ", ".join(outdated)
        else:
            with step(index, total, f"rendering {recording.id}", stream):
                for name, text in rendered_files(recording, folder).items():
                    write_if_changed(folder / name, text)
        statuses.append(Status(recording.id, state, action))
    for path, text in benchmark_files(root, generated).items():
        if check:
            action = "kept" if path.exists() and path.read_text() == text else f"renders out of date: {path.name}"
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_if_changed(path, text)
            action = "kept"
        statuses.append(Status(path.name, "fresh", action))
    return statuses


def problems(statuses):
    """The statuses that make ``build --check`` fail."""
    return [s for s in statuses if s.state != "fresh" or s.action.startswith("renders out of date")]
