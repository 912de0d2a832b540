"""What a fragment maker reads and shares: the run it is given, the error it raises, where its SVG goes, its
provenance note, the other runs of its snippet function and the entries of the run's ``results.json``.

A maker is ``maker(run) -> {file name: text}``. The generic makers live in ``profguide.site.fragments``; the
makers only one page uses live in that page's parts module (``profguide.site.parts``), which the catalogue
imports on a bare GPU machine: this module imports nothing that leads back to the catalogue.
"""

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol

from profguide.errors import RecordingError
from profguide.render import fragments as render
from profguide.site.recordings import RealTrace, Recording

GENERATED = "docs/generated"


class FragmentError(ValueError):
    """A page asks for a fragment that this recording cannot give."""


class FragmentRun(Protocol):
    """A recording or a real trace as a maker reads it (``profguide.site.data``): its spec and provenance, its
    traces and what the analyses make of them, each computed once. The analyses' types are Any here: their
    modules import numpy and msgspec, which a parts module may not need on a bare GPU machine."""

    recording: Recording | RealTrace
    folder: Path
    real: bool

    @property
    def meta(self) -> dict[str, Any]: ...
    @property
    def title(self) -> str: ...
    @property
    def ranks(self) -> int: ...
    @property
    def params(self) -> dict[str, Any]: ...
    @property
    def files(self) -> Iterable[str]: ...
    @property
    def results(self) -> Any: ...  # results.json, whatever the snippet wrote
    @property
    def trace(self) -> Any: ...  # profguide.trace.Trace
    @property
    def traces(self) -> tuple[Any, ...]: ...
    @property
    def facts(self) -> Any: ...  # profguide.analysis.verdict.Facts
    @property
    def summary(self) -> Any: ...  # profguide.analysis.summary.Summary
    @property
    def job(self) -> Any: ...  # profguide.analysis.summary.FolderJob, None for one rank
    @property
    def diff(self) -> Any: ...  # profguide.analysis.diff.TraceDiff

    def trace_path(self, rank: int = 0) -> Path: ...
    def json_file(self, name: str) -> Any: ...  # a JSON file of the recording, as read
    def sibling(self, recording_id: str) -> "FragmentRun": ...


Maker = Callable[[Any], dict[str, str]]  # takes a FragmentRun; Any so that a maker may ask for no more than it reads


def svg_path(run: FragmentRun, name: str) -> str:
    return f"{GENERATED}/{run.recording.id}/{name}"


def attributed(run: FragmentRun, title: str) -> str:
    """An SVG's title; a real trace's also names its device, source and licence, so that the figure carries them."""
    return f"{title} ({render.real_provenance_words(run.meta)})" if run.real else title


def source_note(run: FragmentRun) -> str:
    """A real trace's provenance under each of its fragments; a recording's is under its main figure only."""
    return "\n" + render.provenance_note(run.meta) if run.real else ""


def snippet_runs(run: FragmentRun, recordings: Iterable[Recording]) -> list[FragmentRun]:
    """This recording and the other recordings of its snippet function in ``recordings`` (a page's, or the
    catalogue's) that have been made, in their order, as runs; a recording ``recordings`` does not list comes
    first, and a real trace alone."""
    if not isinstance(run.recording, Recording):
        return [run]
    spec = run.recording
    runs = [run if r.id == spec.id else run.sibling(r.id) for r in recordings
            if (r.module, r.function) == (spec.module, spec.function) and (run.folder.parent / r.id).is_dir()]
    return runs if any(found is run for found in runs) else [run, *runs]


def results_of(run: FragmentRun, what: str, *keys: str) -> list[Any]:
    """The entries ``keys`` of the run's ``results.json``; FragmentError naming ``what`` when it lacks them."""
    try:
        results: Mapping[str, Any] = run.results
        return [results[key] for key in keys]
    except (RecordingError, KeyError, IndexError, TypeError):
        raise FragmentError(f"results.json is missing or does not hold {what}") from None
