"""What the measures, the claims check and the fragment makers read of a run of the guide: ``Run``.

A protocol of its own, apart from ``profguide.site.data`` which implements it: the measures and the page makers that
the parts modules hold are imported with the catalogue, and data (which finds a run's siblings in the catalogue)
must not be among what they import. The analyses' types are named for the checker only: a parts module is imported
on a bare GPU machine, where numpy and msgspec may be missing.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from profguide.analysis.diff import TraceDiff
    from profguide.analysis.summarise import Facts
    from profguide.analysis.summary import FolderJob, Summary
    from profguide.site.recordings import RealTrace, Recording
    from profguide.trace.model import Trace

SummaryRow = dict[str, Any]  # a row of ``averages.json``: its ``name``, the ``TIMES`` and the memory columns
Meta = dict[str, Any]  # ``meta.json``: a run's provenance and cache key (``profguide.site.staleness``)


class Run(Protocol):
    """One run of the guide as the build reads it, a recording's or a real trace's, each part loaded once: what a
    measure (``profguide.site.measures``) computes its value from. A part a run does not have (a real trace's
    summary rows, a run compared with none) raises RecordingError."""

    @property
    def recording(self) -> Recording | RealTrace: ...
    @property
    def real(self) -> bool: ...  # a real trace from another machine, not a recording this guide made
    @property
    def kept(self) -> bool: ...  # the CPU run kept beside a recording's CUDA run
    @property
    def folder(self) -> Path: ...
    @property
    def ranks(self) -> int: ...
    @property
    def meta(self) -> Meta: ...
    @property
    def traces(self) -> tuple[Trace, ...]: ...
    @property
    def trace(self) -> Trace: ...  # rank 0's
    @property
    def facts(self) -> Facts: ...
    @property
    def summary(self) -> Summary: ...
    @property
    def compared_run(self) -> Run: ...
    @property
    def diff(self) -> TraceDiff: ...
    @property
    def job(self) -> FolderJob | None: ...
    @property
    def rows(self) -> list[SummaryRow]: ...
    @property
    def results(self) -> Any: ...  # parsed JSON
    @property
    def title(self) -> str: ...
    @property
    def params(self) -> dict[str, Any]: ...
    @property
    def files(self) -> Iterable[str]: ...  # the files the run consists of (the rest are rendered)

    def trace_path(self, rank: int = 0) -> Path: ...
    def json_file(self, name: str) -> Any: ...
    def sibling(self, recording_id: str) -> Run: ...
    def run_on(self, device: str) -> Run | None: ...
