"""What a fragment maker reads and shares: the run it is given, the error it raises, where its SVG goes, its
provenance note, the other runs of its snippet function and the entries of the run's ``results.json``.

A maker is ``maker(run) -> {file name: text}``. The generic makers live in ``profguide.site.fragments``; the
makers only one page uses live in that page's parts module (``profguide.site.parts``), which the catalogue
imports on a bare GPU machine: this module imports nothing that leads back to the catalogue.
"""

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from profguide.errors import RecordingError
from profguide.render import fragments as render
from profguide.site.recordings import Recording, Run

GENERATED = "docs/generated"


class FragmentError(ValueError):
    """A page asks for a fragment that this recording cannot give."""


Maker = Callable[[Run], dict[str, str]]


def svg_path(run: Run, name: str) -> str:
    return f"{GENERATED}/{run.recording.id}/{name}"


def attributed(run: Run, title: str) -> str:
    """An SVG's title; a real trace's also names its device, source and licence, so that the figure carries them."""
    return f"{title} ({render.real_provenance_words(run.meta)})" if run.real else title


def source_note(run: Run) -> str:
    """A real trace's provenance under each of its fragments; a recording's is under its main figure only."""
    return "\n" + render.provenance_note(run.meta) if run.real else ""


def snippet_runs(run: Run, recordings: Iterable[Recording]) -> list[Run]:
    """This recording and the other recordings of its snippet function in ``recordings`` (a page's, or the
    catalogue's) that have been made, in their order, as runs; a recording ``recordings`` does not list comes
    first, and a real trace alone."""
    if not isinstance(run.recording, Recording):
        return [run]
    spec = run.recording
    runs = [run if r.id == spec.id else run.sibling(r.id) for r in recordings
            if (r.module, r.function) == (spec.module, spec.function) and (run.folder.parent / r.id).is_dir()]
    return runs if any(found is run for found in runs) else [run, *runs]


def results_of(run: Run, what: str, *keys: str) -> list[Any]:
    """The entries ``keys`` of the run's ``results.json``; FragmentError naming ``what`` when it lacks them."""
    try:
        results: Mapping[str, Any] = run.results
        return [results[key] for key in keys]
    except (RecordingError, KeyError, IndexError, TypeError):
        raise FragmentError(f"results.json is missing or does not hold {what}") from None
