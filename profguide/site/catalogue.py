"""Every recording of the guide, in the order of its pages, and lookup by id (standard library only).

The recordings and real traces are those of the modules of ``profguide.site.parts``, found by walking the package:
each module is a page's (its ``PAGE``), and the pages' order is the nav's (``profguide.site.nav``). A new page's
module is found without an edit here.
"""

import importlib
import pkgutil
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import TypeVar, overload

import profguide
from profguide.errors import ProjectError, UsageError
from profguide.site import parts
from profguide.site.nav import page_order
from profguide.site.recordings import RealTrace, Recording

DOCS = Path(profguide.__file__).resolve().parents[1] / "docs"  # the checkout the package is imported from


def page_modules(docs: Path = DOCS) -> list[ModuleType]:
    """The modules of ``profguide.site.parts``, one for each page that has recordings or real traces, in the
    order of the pages in the nav (in the package's order where it is installed without the guide's docs/ beside
    it); ProjectError for a module whose page is not in the nav."""
    found = [importlib.import_module(info.name)
             for info in pkgutil.walk_packages(parts.__path__, f"{parts.__name__}.") if not info.ispkg]
    if not docs.is_dir():  # the package installed without the guide beside it: no pages to order by
        return found
    order = {page: place for place, page in enumerate(page_order(docs))}
    unknown = [module.__name__ for module in found if getattr(module, "PAGE", None) not in order]
    if unknown:
        raise ProjectError(f"{unknown[0]}: its PAGE is no page of the nav (docs/…md)")
    return sorted(found, key=lambda module: order[module.PAGE])


MODULES = page_modules()
RECORDINGS: tuple[Recording, ...] = tuple(r for module in MODULES for r in getattr(module, "RECORDINGS", ()))
# Traces from machines this project does not own, which pages show with their source (never recorded).
REAL_TRACES: tuple[RealTrace, ...] = tuple(r for module in MODULES for r in getattr(module, "REAL_TRACES", ()))


Run = TypeVar("Run", Recording, RealTrace)


@overload
def by_id(recording_id: str) -> Recording: ...
@overload
def by_id(recording_id: str, recordings: Sequence[Run]) -> Run: ...
def by_id(recording_id: str, recordings: Sequence[Recording | RealTrace] = RECORDINGS) -> Recording | RealTrace:
    """Return the recording named ``recording_id`` (of the guide's, or of ``recordings``); raise UsageError with
    the known ids."""
    for recording in recordings:
        if recording.id == recording_id:
            return recording
    known = ", ".join(r.id for r in recordings)
    raise UsageError(f"no recording named {recording_id!r} (known: {known})")
