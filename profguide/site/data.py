"""A recording as the build reads it: its spec, provenance, traces and summary rows, each loaded once; and a real
trace from another machine, read through the same attributes where they apply."""

import functools
import json
import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from profguide import trace as trace_io
from profguide.analysis.diff import side_of, trace_diff
from profguide.analysis.job import ranks_job
from profguide.analysis.kernels import device_name
from profguide.analysis.select import on_a_stream
from profguide.analysis.summarise import facts, summarise
from profguide.errors import RecordingError
from profguide.site.launch import rank_file, recording_files
from profguide.site.staleness import CPU_RUN, read_meta

TIMES = ("count", "self_cpu_us", "cpu_total_us", "self_device_us", "device_total_us")


def summary_row(row):
    """Whether ``row`` is a summary row as the recorder writes it: a name and numbers."""
    return isinstance(row, dict) and isinstance(row.get("name"), str) and all(
        isinstance(row.get(key), (int, float)) and not isinstance(row.get(key), bool) for key in TIMES)


@functools.lru_cache(maxsize=8)
def loaded(path, stamp):
    """The trace at ``path`` as it was at ``stamp`` (its size and modification time)."""
    return trace_io.load(path)


def load_once(path):
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

    @classmethod
    def of(cls, *fields, traces, meta=None):
        """The data of ``fields`` (a recording and its folders) with its traces given, not read from its folder,
        and its meta too when given: a recording as if made from these traces."""
        data = cls(*fields)
        data.traces = tuple(traces)  # the cached properties' values, set before their first use
        if meta is not None:
            data.meta = meta
        return data

    @cached_property
    def traces(self):
        return tuple(load_once(self.trace_path(rank)) for rank in range(self.ranks))

    @property
    def trace(self):
        return self.traces[0]

    @cached_property
    def facts(self):
        """Rank 0's facts (steps, top kernels…), as the verdict reads them."""
        return facts(self.trace)

    @cached_property
    def summary(self):
        """Rank 0's summary, as ``profguide explain`` gives it."""
        return summarise(self.trace)

    @cached_property
    def compared_run(self):
        """The data of the run this one is the after of (``compared_with``)."""
        other = self.recording.compared_with
        if not other:
            raise RecordingError(f"{self.recording.id}: is compared with no run (its compared_with is empty)")
        return self.real_sibling(other) if self.real else self.sibling(other)

    @cached_property
    def diff(self):
        """``profguide diff`` of the run this one is the after of (``compared_with``) against this one."""
        before = self.compared_run
        return trace_diff(side_of(before.trace, before.trace_path()), side_of(self.trace, self.trace_path()))

    @cached_property
    def job(self):
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

    recording: object
    folder: Path
    kept: bool = False
    real = False  # a recording this guide made, not a real trace from another machine

    @cached_property
    def meta(self):
        return read_meta(self.folder)

    def run_on(self, device):
        """This recording's run on ``device``: itself when it was made there; for the CPU beside a CUDA run, the
        CPU run kept in its ``cpu/`` folder; None when there is none."""
        if self.meta["device"] == device:
            return self
        if device != "cpu" or self.kept or read_meta(self.folder / CPU_RUN) is None:
            return None
        return RecordingData(self.recording, self.folder / CPU_RUN, kept=True)

    @property
    def ranks(self):
        return self.meta.get("ranks", 1)

    @property
    def files(self):
        """The files of the folder that the recording consists of (the rest are rendered)."""
        return recording_files(self.meta)

    @property
    def params(self):
        return self.meta["params"]

    @property
    def title(self):
        return self.recording.title_with(self.params)

    def trace_path(self, rank=0):
        return self.folder / rank_file("trace.json.gz", rank, self.ranks)

    @cached_property
    def results(self):
        """What rank 0's snippet returned besides its trace (``results.json``); RecordingError when absent."""
        return self.json_file(rank_file("results.json", 0, self.ranks))

    def json_file(self, name):
        """A JSON file of the recording, parsed; RecordingError when it is missing or not JSON."""
        path = self.folder / name
        try:
            return json.loads(path.read_text())
        except (OSError, UnicodeDecodeError, ValueError) as error:
            raise RecordingError(f"{path}: not readable ({str(error).splitlines()[0]})") from None

    def sibling(self, recording_id):
        """Another recording's data from the same folder of recordings, for a fragment that compares them: for a
        kept CPU run, the other recording's CPU run."""
        from profguide.site.catalogue import by_id

        if self.kept:
            generated = self.folder.parents[1]  # out of the recording's cpu/ folder
            other = RecordingData(by_id(recording_id), generated / recording_id).run_on("cpu")
            if other is None:
                raise RecordingError(f"{self.recording.id}: its CPU run is compared with {recording_id}'s, and "
                                     f"{recording_id} has no CPU run: record it (`make figures`)")
            return other
        return RecordingData(by_id(recording_id), self.folder.parent / recording_id)

    @cached_property
    def rows(self):
        """Rank 0's summary rows: a list of dicts with the names and times the renderers read."""
        path = self.folder / rank_file("averages.json", 0, self.ranks)
        rows = self.json_file(path.name)
        if not isinstance(rows, list) or not all(summary_row(row) for row in rows):
            raise RecordingError(f"{path}: not a list of summary rows")
        return rows


@dataclass(eq=False)
class RealTraceData(RankTraces):
    """A real trace (``RealTrace``) as the build reads it: one rank (or the ranks its ``files`` name), no
    summary rows, a meta made of its provenance. Its fragments are rendered into ``folder``, which holds
    nothing else."""

    recording: object
    root: Path
    folder: Path
    real = True

    @property
    def ranks(self):
        """One, or the number of rank files the real trace names (``RealTrace.files``)."""
        return len(self.recording.files) or 1

    files = ()
    kept = False
    # Its fragments' folder lies beside the recordings' folders: a claim may compare the trace with a recording.
    sibling = RecordingData.sibling

    def run_on(self, device):
        """The trace itself when it was made on ``device``, else None: a real trace is what it is."""
        return self if self.meta["device"] == device else None

    def real_sibling(self, trace_id):
        """Another real trace's data, for a fragment that compares them."""
        from profguide.site.catalogue import REAL_TRACES, by_id

        return RealTraceData(by_id(trace_id, REAL_TRACES), self.root, self.folder.parent / trace_id)

    @property
    def title(self):
        return self.recording.title

    def trace_path(self, rank=0):
        return self.root / (self.recording.files or (self.recording.file,))[rank]

    @cached_property
    def meta(self):
        """Where the trace came from, for its provenance line; ``device`` is "cuda" for a trace with GPU work."""
        info = self.trace.distributed_info or {}
        rank, ranks = info.get("rank"), info.get("world_size")
        return {
            "recording": self.recording.id,
            "real": True,
            "file": self.recording.file,
            "source": self.recording.source,
            "source_url": self.recording.source_url,
            "licence": self.recording.licence,
            "device_name": device_name(self.trace) or "device not named in the trace",
            "device": "cuda" if on_a_stream(self.trace).any() else "cpu",
            "rank": rank if isinstance(rank, int) else None,
            "world_size": ranks if isinstance(ranks, int) else None,
        }

    @property
    def rows(self):
        raise RecordingError(f"{self.recording.file}: a real trace has no summary rows")

    @property
    def results(self):
        raise RecordingError(f"{self.recording.file}: a real trace has no results")

    def json_file(self, name):
        raise RecordingError(f"{self.recording.file}: a real trace has no {name}")


def run_data(run_id, root, generated=None):
    """The data of a run of the guide by its id: a recording's (from ``generated``, default
    ``docs/generated``) or a real trace's."""
    from profguide.site.catalogue import REAL_TRACES, RECORDINGS, by_id

    root = Path(root)
    generated = Path(generated) if generated else root / "docs" / "generated"
    real = {real.id: real for real in REAL_TRACES}
    if run_id in real:
        return RealTraceData(real[run_id], root, generated / run_id)
    return RecordingData(by_id(run_id, RECORDINGS), generated / run_id)
