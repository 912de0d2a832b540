"""What ``profguide explain`` measures, from a path: a trace file's summary, or the job of a folder of rank traces.

These load the traces and put the analyses together; ``profguide.explain``
only puts their results into words.
"""

from collections.abc import Callable, Iterable
from pathlib import Path

from profguide import trace
from profguide.analysis.ranks import job_summary, rank_summary
from profguide.analysis.select import step_window
from profguide.analysis.summary import SCHEMA_VERSION, FolderJob, RankSummary, TraceSummary
from profguide.analysis.verdict import summarise
from profguide.errors import TraceError, UsageError
from profguide.limits import MAX_BYTES
from profguide.text import shown
from profguide.trace.loader import Progress
from profguide.trace.model import Trace


def step_meaning(step: int | None) -> str | None:
    """What the window of ``--step N`` is, in words; None for the default window."""
    return f"ProfilerStep#{step} and the GPU work it launched" if step is not None else None


def file_summary(path: Path, step: int | None = None, progress: Progress | None = None,
                 max_bytes: int = MAX_BYTES) -> TraceSummary:
    """The summary of one trace file, over a step's window or HTA's window."""
    return trace_summary(trace.load(path, progress=progress, max_bytes=max_bytes), path, step)


def trace_summary(loaded: Trace, path: Path | str, step: int | None = None) -> TraceSummary:
    """The summary of a loaded trace; ``path`` names it."""
    window = step_window(loaded, step) if step is not None else None
    rank = (loaded.distributed_info or {}).get("rank")
    return {**summarise(loaded, window, step_meaning(step)), "schema_version": SCHEMA_VERSION, "file": str(path),
            "trace_start_us": float(loaded.ts.min()), "rank": rank if isinstance(rank, int) else None}


def rank_files(folder: Path) -> list[Path]:
    """The rank traces in ``folder``: its files named like traces (``*trace*.json[.gz]``, as
    tensorboard_trace_handler and profguide name them) when it has any, so that a recording's other JSON
    files are left alone; else every .json and .json.gz file."""
    files = trace.trace_files(folder)
    named = [path for path in files if "trace" in path.name.removesuffix(".gz").removesuffix(".json")]
    return named or files


def folder_job(path: Path, step: int | None = None, progress: Callable[[Path], Progress] | None = None,
               max_bytes: int = MAX_BYTES) -> FolderJob:
    """The job whose rank traces are in the folder ``path``. ``progress(file)``, if given, makes the progress
    callback of one file's loading."""
    loaded = ((file, trace.load(file, progress=progress(file) if progress else None, max_bytes=max_bytes))
              for file in rank_files(path))
    return ranks_job(loaded, str(path), step)


def ranks_job(named_traces: Iterable[tuple[Path | str, Trace]], folder: str, step: int | None = None) -> FolderJob:
    """The job of the (file, trace) pairs ``named_traces`` yields, one per rank, found in ``folder``: each
    trace is summarised and dropped before the next is taken, so that memory holds one trace and the small
    summaries."""
    rows: list[RankSummary] = []
    owners: dict[int | None, Path | str] = {}
    for file, loaded in named_traces:
        try:
            window = step_window(loaded, step) if step is not None else None
        except UsageError as error:
            raise UsageError(f"{shown(file)}: {error}") from None
        row = rank_summary(loaded, file, window, step_meaning(step))
        del loaded
        if row["rank"] is not None and row["rank"] in owners:
            raise TraceError(f"{shown(file)}: says it is rank {row['rank']}, as {shown(owners[row['rank']])} "
                             "does; a folder holds one trace per rank")
        owners[row["rank"]] = file
        rows.append(row)
    rows.sort(key=lambda row: (row["rank"] is None, row["rank"] or 0, row["file"]))
    return {**job_summary(rows), "schema_version": SCHEMA_VERSION, "folder": folder}
