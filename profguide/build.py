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

from profguide import analysis, explain, record, render, trace
from profguide.progress import step


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
    facts = analysis.facts(loaded)
    files = {
        "timeline.svg": render.timeline_svg(loaded, title=f"Timeline: {recording.title}"),
        "figure.md": render.figure_fragment(recording.id, recording.title, meta, facts),
        "table.md": render.averages_table(rows) + "\n" + render.provenance_note(meta),
        "provenance.md": render.provenance_note(meta),
        "facts.json": json.dumps(facts, indent=1, sort_keys=True) + "\n",
    }
    if facts["steps"]:
        files["steps.md"] = render.steps_table(facts["steps"]) + "\n" + render.provenance_note(meta)
    files["explain.md"] = explain.to_markdown(explain.explain_trace(loaded, folder / "trace.json.gz"))
    return files


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
