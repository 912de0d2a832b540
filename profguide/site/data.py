"""A recording as the build reads it: its spec, provenance, traces and summary rows, each loaded once; and a real
trace from another machine, read through the same attributes where they apply. ``Run`` is what the measures, the
claims check and the fragments read of either."""

import functools
import json
import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, cast

from profguide import trace as trace_io
from profguide.analysis.collectives import rank_and_size
from profguide.analysis.diff import TraceDiff, side_of, trace_diff
from profguide.analysis.job import ranks_job
from profguide.analysis.kernels import device_name
from profguide.analysis.select import on_a_stream
from profguide.analysis.summarise import Facts, facts, summarise
from profguide.analysis.summary import FolderJob, Summary
from profguide.errors import RecordingError
from profguide.site.launch import rank_file, recording_files
from profguide.site.recordings import Meta, RealTrace, Recording, Run, SummaryRow
from profguide.site.staleness import CPU_RUN, read_meta
from profguide.site.staleness import Meta as RecordingMeta
from profguide.trace.model import Trace

TIMES = ("count", "self_cpu_us", "cpu_total_us", "self_device_us", "device_total_us")


def summary_row(row: object) -> bool:
    """Whether ``row`` is a summary row as the recorder writes it: a name and numbers."""
    return isinstance(row, dict) and isinstance(row.get("name"), str) and all(
        isinstance(row.get(key), (int, float)) and not isinstance(row.get(key), bool) for key in TIMES)


@functools.lru_cache(maxsize=8)
def loaded(path: Path, stamp: tuple[int, int]) -> Trace:
    """The trace at ``path`` as it was at ``stamp`` (its size and modification time)."""
    return trace_io.load(path)


def load_once(path: Path | str) -> Trace:
    """The trace at ``path``, loaded once in a build however many read it: several of the guide's real traces
    (``RealTrace``) are one file, each with its own fragments and claims. A file written again is read again."""
    try:
        stat = os.stat(path)
    except OSError:
        return trace_io.load(path)  # which says what is wrong with the path, as it would without the memo
    return loaded(Path(path), (stat.st_size, stat.st_mtime_ns))


class RankTraces:
    """Every rank's trace, loaded once, from ``trace_path(rank)`` for each of ``ranks``; ``trace`` is rank 0's.
    What the claims and fragments compute from them (``facts``, ``summary``, ``job``) is computed once too."""

    recording: Recording | RealTrace
    real: bool

    @property
    def ranks(self) -> int:
        raise NotImplementedError

    def trace_path(self, rank: int = 0) -> Path:
        raise NotImplementedError

    def other_run(self, run_id: str) -> Run:
        """The data of another run of the same kind (a recording's, a real trace's) by its id."""
        raise NotImplementedError

    @classmethod
    def of(cls, *fields: Any, traces: Any, meta: Meta | None = None) -> Any:
        """The data of ``fields`` (a recording and its folders) with its traces given, not read from its folder,
        and its meta too when given: a recording as if made from these traces."""
        data: Any = cls(*fields)
        data.traces = tuple(traces)  # the cached properties' values, set before their first use
        if meta is not None:
            data.meta = meta
        return data

    @cached_property
    def traces(self) -> tuple[Trace, ...]:
        return tuple(load_once(self.trace_path(rank)) for rank in range(self.ranks))

    @property
    def trace(self) -> Trace:
        return self.traces[0]

    @cached_property
    def facts(self) -> Facts:
        """Rank 0's facts (steps, top kernels…), as the verdict reads them."""
        return facts(self.trace)

    @cached_property
    def summary(self) -> Summary:
        """Rank 0's summary, as ``profguide explain`` gives it."""
        return summarise(self.trace)

    @cached_property
    def compared_run(self) -> Run:
        """The data of the run this one is the after of (``compared_with``)."""
        other = self.recording.compared_with
        if not other:
            raise RecordingError(f"{self.recording.id}: is compared with no run (its compared_with is empty)")
        return self.other_run(other)

    @cached_property
    def diff(self) -> TraceDiff:
        """``profguide diff`` of the run this one is the after of (``compared_with``) against this one."""
        before = self.compared_run
        return trace_diff(side_of(before.trace, before.trace_path()), side_of(self.trace, self.trace_path()))

    @cached_property
    def job(self) -> FolderJob | None:
        """The job of the ranks as ``profguide explain DIR`` sees it; None for a single trace."""
        if self.ranks < 2:
            return None
        named = ((self.trace_path(rank).name, loaded) for rank, loaded in enumerate(self.traces))
        return ranks_job(named, self.recording.id)


@dataclass(eq=False)
class RecordingData(RankTraces):
    """One recording's folder, loaded on first use. ``trace`` and ``rows`` are rank 0's.

    ``kept`` marks the CPU run kept beside a recording's CUDA run (in its ``cpu/`` folder): the runs it is
    compared with are then theirs on the CPU too.
    """

    recording: Recording
    folder: Path
    kept: bool = False
    real = False  # a recording this guide made, not a real trace from another machine

    @cached_property
    def meta(self) -> RecordingMeta:
        found = cast(RecordingMeta, read_meta(self.folder))  # this recording's, made: its folder holds a meta.json
        return found

    def run_on(self, device: str) -> "RecordingData | None":
        """This recording's run on ``device``: itself when it was made there; for the CPU beside a CUDA run, the
        CPU run kept in its ``cpu/`` folder; None when there is none."""
        if self.meta["device"] == device:
            return self
        if device != "cpu" or self.kept or read_meta(self.folder / CPU_RUN) is None:
            return None
        return RecordingData(self.recording, self.folder / CPU_RUN, kept=True)

    @property
    def ranks(self) -> int:
        ranks: int = self.meta.get("ranks", 1)
        return ranks

    @property
    def files(self) -> list[str]:
        """The files of the folder that the recording consists of (the rest are rendered)."""
        found: list[str] = recording_files(self.meta)
        return found

    @property
    def params(self) -> dict[str, Any]:
        params: dict[str, Any] = self.meta["params"]
        return params

    @property
    def title(self) -> str:
        return self.recording.title_with(self.params)

    def trace_path(self, rank: int = 0) -> Path:
        path: Path = self.folder / rank_file("trace.json.gz", rank, self.ranks)
        return path

    @cached_property
    def results(self) -> Any:
        """What rank 0's snippet returned besides its trace (``results.json``); RecordingError when absent."""
        return self.json_file(rank_file("results.json", 0, self.ranks))

    def json_file(self, name: str) -> Any:
        """A JSON file of the recording, parsed; RecordingError when it is missing or not JSON."""
        path = self.folder / name
        try:
            return json.loads(path.read_text())
        except (OSError, UnicodeDecodeError, ValueError) as error:
            raise RecordingError(f"{path}: not readable ({str(error).splitlines()[0]})") from None

    def sibling(self, recording_id: str) -> "RecordingData":
        """Another recording's data from the same folder of recordings, for a fragment that compares them: for a
        kept CPU run, the other recording's CPU run."""
        return recording_sibling(self.folder, self.kept, self.recording.id, recording_id)

    def other_run(self, run_id: str) -> Run:
        return self.sibling(run_id)

    @cached_property
    def rows(self) -> list[SummaryRow]:
        """Rank 0's summary rows: a list of dicts with the names and times the renderers read."""
        path = self.folder / rank_file("averages.json", 0, self.ranks)
        rows = self.json_file(path.name)
        if not isinstance(rows, list) or not all(summary_row(row) for row in rows):
            raise RecordingError(f"{path}: not a list of summary rows")
        return rows


def recording_sibling(folder: Path, kept: bool, run_id: str, recording_id: str) -> RecordingData:
    """The data of the recording ``recording_id`` beside the run ``run_id`` in ``folder``: for a kept CPU run, the
    other recording's CPU run (RecordingError when it has none)."""
    from profguide.site.catalogue import by_id

    if kept:
        generated = folder.parents[1]  # out of the recording's cpu/ folder
        other = RecordingData(by_id(recording_id), generated / recording_id).run_on("cpu")
        if other is None:
            raise RecordingError(f"{run_id}: its CPU run is compared with {recording_id}'s, and "
                                 f"{recording_id} has no CPU run: record it (`make figures`)")
        return other
    return RecordingData(by_id(recording_id), folder.parent / recording_id)


@dataclass(eq=False)
class RealTraceData(RankTraces):
    """A real trace (``RealTrace``) as the build reads it: one rank (or the ranks its ``files`` name), no
    summary rows, a meta made of its provenance. Its fragments are rendered into ``folder``, which holds
    nothing else."""

    recording: RealTrace
    root: Path
    folder: Path
    real = True
    kept = False

    @property
    def ranks(self) -> int:
        """One, or the number of rank files the real trace names (``RealTrace.files``)."""
        return len(self.recording.files) or 1

    @property
    def files(self) -> tuple[str, ...]:
        return ()

    def sibling(self, recording_id: str) -> RecordingData:
        """A recording's data, for a claim that compares the trace with it: its fragments' folder lies beside the
        recordings' folders."""
        return recording_sibling(self.folder, self.kept, self.recording.id, recording_id)

    def run_on(self, device: str) -> "RealTraceData | None":
        """The trace itself when it was made on ``device``, else None: a real trace is what it is."""
        return self if self.meta["device"] == device else None

    def real_sibling(self, trace_id: str) -> "RealTraceData":
        """Another real trace's data, for a fragment that compares them."""
        from profguide.site.catalogue import REAL_TRACES, by_id

        return RealTraceData(by_id(trace_id, REAL_TRACES), self.root, self.folder.parent / trace_id)

    def other_run(self, run_id: str) -> Run:
        return self.real_sibling(run_id)

    @property
    def title(self) -> str:
        return self.recording.title

    def trace_path(self, rank: int = 0) -> Path:
        return self.root / (self.recording.files or (self.recording.file,))[rank]

    @cached_property
    def meta(self) -> Meta:
        """Where the trace came from, for its provenance line; ``device`` is "cuda" for a trace with GPU work."""
        rank, ranks = rank_and_size(self.trace)
        return {
            "recording": self.recording.id,
            "real": True,
            "file": self.recording.file,
            "source": self.recording.source,
            "source_url": self.recording.source_url,
            "licence": self.recording.licence,
            "device_name": device_name(self.trace) or "device not named in the trace",
            "device": "cuda" if on_a_stream(self.trace).any() else "cpu",
            "rank": rank,
            "world_size": ranks,
        }

    @property
    def rows(self) -> list[SummaryRow]:
        raise RecordingError(f"{self.recording.file}: a real trace has no summary rows")

    @property
    def params(self) -> dict[str, Any]:
        raise RecordingError(f"{self.recording.file}: a real trace has no parameters")

    @property
    def results(self) -> Any:
        raise RecordingError(f"{self.recording.file}: a real trace has no results")

    def json_file(self, name: str) -> Any:
        raise RecordingError(f"{self.recording.file}: a real trace has no {name}")


def run_data(run_id: str, root: Path | str, generated: Path | str | None = None) -> RecordingData | RealTraceData:
    """The data of a run of the guide by its id: a recording's (from ``generated``, default
    ``docs/generated``) or a real trace's."""
    from profguide.site.catalogue import REAL_TRACES, RECORDINGS, by_id

    root = Path(root)
    generated = Path(generated) if generated else root / "docs" / "generated"
    real = {real.id: real for real in REAL_TRACES}
    if run_id in real:
        return RealTraceData(real[run_id], root, generated / run_id)
    return RecordingData(by_id(run_id, RECORDINGS), generated / run_id)
