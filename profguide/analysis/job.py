"""What ``profguide explain`` measures, from a path: a trace file's summary, or the job of a folder of rank traces.

These load the traces and put the analyses together; ``profguide.render.explain``
only puts their results into words.

A folder's rank files are read in a pool of processes, one a core: each
worker loads one file and sends back its small ``RankSummary``, never the
trace, so that memory holds at most one trace a worker.
"""

import os
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import closing
from functools import partial
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from profguide import trace
from profguide.analysis.graphs import capture_join, captured_by
from profguide.analysis.intervals import Window
from profguide.analysis.ranks import job_summary, rank_summary
from profguide.analysis.rules import job_findings
from profguide.analysis.select import step_window
from profguide.analysis.summarise import summarise
from profguide.analysis.summary import SCHEMA_VERSION, FolderJob, RankSummary, TraceSummary
from profguide.errors import ProfguideError, TraceError, UsageError
from profguide.limits import MAX_BYTES
from profguide.text import format_tick, shown
from profguide.trace.loader import Progress
from profguide.trace.model import Trace

Result = TypeVar("Result")  # what a worker sends back: a rank's row, a diff's side

if TYPE_CHECKING:  # the pool's modules are imported when a pool starts: a single trace does without their 20 ms
    from concurrent.futures import Executor, Future


def step_meaning(step: int | None) -> str | None:
    """What the window of ``--step N`` is, in words; None for the default window."""
    return f"ProfilerStep#{step} and the GPU work it launched" if step is not None else None


def file_summary(path: Path, step: int | None = None, progress: Progress | None = None,
                 max_bytes: int = MAX_BYTES) -> TraceSummary:
    """The summary of one trace file, over a step's window or HTA's window."""
    return trace_summary(trace.load(path, progress=progress, max_bytes=max_bytes), path, step)


def asked_meaning(window: Window, origin: float) -> str:
    """What the window of ``--window START:END`` is, in words: its ends as times after the trace's first event
    (``origin``), as Perfetto and explain's "Where to look" show them."""
    return f"the window asked for, +{format_tick(window[0] - origin)} to +{format_tick(window[1] - origin)} from the " \
        "trace's first event"


def trace_summary(loaded: Trace, path: Path | str, step: int | None = None,
                  window: Window | None = None, capture: tuple[Trace, str] | None = None) -> TraceSummary:
    """The summary of a loaded trace over ``window`` (on the trace's clock), else ``step``'s, else the default
    window; ``path`` names it. ``capture`` (the capture trace of its graphs, and its path) joins the replayed
    GPU ops to the ops that captured them."""
    origin = float(loaded.ts.min())
    meaning = asked_meaning(window, origin) if window is not None else step_meaning(step)
    if window is None and step is not None:
        window = step_window(loaded, step)
    rank = (loaded.distributed_info or {}).get("rank")
    return {**summarise(loaded, window, meaning), "schema_version": SCHEMA_VERSION, "file": str(path),
            "trace_start_us": origin, "rank": rank if isinstance(rank, int) else None,
            "capture": None if capture is None else capture_join(captured_by(loaded, capture[0]), capture[1])}


def rank_files(folder: Path) -> list[Path]:
    """The rank traces in ``folder``: its files named like traces (``*trace*.json[.gz]``, as
    tensorboard_trace_handler and profguide name them) when it has any, so that a recording's other JSON
    files are left alone; else every .json and .json.gz file."""
    files = trace.trace_files(folder)
    named = [path for path in files if "trace" in path.name.removesuffix(".gz").removesuffix(".json")]
    return named or files


def worker_count() -> int:
    """How many rank files are read at once unless told: one for each core this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def folder_job(path: Path, step: int | None = None, progress: Progress | None = None,
               max_bytes: int = MAX_BYTES, workers: int | None = None) -> FolderJob:
    """The job whose rank traces are in the folder ``path``, read ``workers`` files at a time (default: one a
    core; 1 reads them in this process). ``progress``, if given, is called with the share of the files read."""
    files = rank_files(path)
    count = min(workers or worker_count(), len(files))
    rows = rows_in_process(files, step, max_bytes, progress) if count <= 1 else \
        rows_in_pool(files, step, max_bytes, progress, count)
    with closing(rows):  # an error in the rows stops the pool now, not when the generator is collected
        return job_of(rows, str(path))


def ranks_job(named_traces: Iterable[tuple[Path | str, Trace]], folder: str, step: int | None = None) -> FolderJob:
    """The job of the (file, trace) pairs ``named_traces`` yields, one per rank, found in ``folder``."""
    return job_of((rank_row(file, loaded, step) for file, loaded in named_traces), folder)


def one_job(rows: Iterable[RankSummary], folder: str) -> Iterator[RankSummary]:
    """The rows, as they come, each checked against those before it: a UsageError names the first file that
    says another world size or backend (torch's distributedInfo, which every rank of one job shares) than an
    earlier one, or a rank outside its world, and what it says."""
    said: dict[str, tuple[object, str]] = {}  # what → (the first value a rank gave, that rank's file)
    for row in rows:
        for words, value in (("world size", row["world_size"]), ("backend", row["backend"])):
            if value is None:
                continue
            first, file = said.setdefault(words, (value, row["file"]))
            if value != first:
                raise UsageError(f"{shown(folder)}: traces of different jobs: {shown(file)} says {words} {first}, "
                                 f"{shown(row['file'])} {value}; put each job's traces in a folder of its own")
        if row["rank"] is not None and row["world_size"] is not None and row["rank"] >= row["world_size"]:
            raise UsageError(f"{shown(row['file'])}: says it is rank {row['rank']} of a world of "
                             f"{row['world_size']}: a trace of another job or a broken one")
        yield row


def job_of(rows: Iterable[RankSummary], folder: str) -> FolderJob:
    """The job of the ranks' rows, taken in the order of their files (``one_job`` checks they are of one job):
    two files claiming one rank are an error that names them."""
    rows = one_job(rows, folder)
    owners: dict[int | None, str] = {}
    kept: list[RankSummary] = []
    for row in rows:
        if row["rank"] is not None and row["rank"] in owners:
            raise TraceError(f"{shown(row['file'])}: says it is rank {row['rank']}, as {shown(owners[row['rank']])} "
                             "does; a folder holds one trace per rank")
        owners[row["rank"]] = row["file"]
        kept.append(row)
    kept.sort(key=lambda row: (row["rank"] is None, row["rank"] or 0, row["file"]))
    job = job_summary(kept)
    return {**job, "findings": job_findings(job), "schema_version": SCHEMA_VERSION, "folder": folder}


def rank_row(file: Path | str, loaded: Trace, step: int | None) -> RankSummary:
    """One rank's row of its loaded trace, over ``step``'s window or explain's."""
    try:
        window = step_window(loaded, step) if step is not None else None
    except UsageError as error:
        raise UsageError(f"{shown(file)}: {error}") from None
    return rank_summary(loaded, file, summarise(loaded, window, step_meaning(step)), window)


def file_row(file: Path, step: int | None, max_bytes: int, progress: Progress | None = None) -> RankSummary:
    """One rank's row, from its file: what a worker sends back, small whatever the trace (dropped here)."""
    return rank_row(file, trace.load(file, progress=progress, max_bytes=max_bytes), step)


def rows_in_process(files: list[Path], step: int | None, max_bytes: int,
                    progress: Progress | None) -> Generator[RankSummary, None, None]:
    """The files' rows, read here one after another: one trace in memory at a time."""
    for index, file in enumerate(files):
        yield file_row(file, step, max_bytes, None if progress is None else share_of(progress, index, len(files)))
        if progress is not None:
            progress((index + 1) / len(files))  # whether or not the loader reported this file's end


def share_of(progress: Progress, index: int, count: int) -> Progress:
    """The progress of the ``index``-th of ``count`` files as a share of them all."""
    return lambda fraction: progress((index + fraction) / count)


def rows_in_pool(files: list[Path], step: int | None, max_bytes: int, progress: Progress | None,
                 workers: int) -> Generator[RankSummary, None, None]:
    """The files' rows, in file order, read by ``workers`` processes (``results_in_pool``)."""
    return results_in_pool(files, partial(file_row, step=step, max_bytes=max_bytes), progress, workers)


def results_in_pool(files: list[Path], read: Callable[[Path], Result], progress: Progress | None,
                    workers: int) -> Generator[Result, None, None]:
    """``read(file)`` for each file, in file order, each in one of ``workers`` processes: as serial reading
    gives them, and its errors (the first bad file's) too. ``read`` must send back something small, never a
    trace. Workers ignore Ctrl-C, which reaches them with the terminal's process group, and are stopped here on
    any way out that is not the end, so that none outlives the command."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    started_before = set(multiprocessing.active_children())
    context = multiprocessing.get_context(start_method())
    with ProcessPoolExecutor(workers, mp_context=context, initializer=ignore_interrupts) as pool:
        try:
            done = 0
            # Two files a worker at most: the one it reads and the next, waiting so that it never idles while
            # this process takes a result. The queue holds paths; memory still holds one trace a worker.
            for file, future in in_file_order(partial(submitted, pool, read), files, 2 * workers):
                yield result_of(file, future)
                done += 1
                if progress is not None:
                    progress(done / len(files))
        except BaseException:  # an error, Ctrl-C, or the caller done early: stop the workers now
            for worker in set(multiprocessing.active_children()) - started_before:
                worker.terminate()
            pool.shutdown(cancel_futures=True)
            raise


def start_method() -> str:
    """How the pool starts its workers. Fork while this process runs one thread: a worker then needs no
    imports of its own (a fraction of a second each, which a folder of a few small ranks would notice), and no
    other thread can hold a lock the fork copies. Else (a notebook, a server) forkserver, spawn where there is
    none; and never fork on macOS, whose system libraries do not survive it."""
    import multiprocessing

    if sys.platform == "linux" and threading.active_count() == 1:
        return "fork"
    return "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"


def ignore_interrupts() -> None:
    """A worker's start: Ctrl-C is the parent's to handle, not a traceback in each worker."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def in_file_order(submit: Callable[[Path], "Future[Result]"], files: list[Path],
                  limit: int) -> Iterator[tuple[Path, "Future[Result]"]]:
    """(file, its finished future) for each file, in order; no more than ``limit`` files submitted and not yet
    finished at any time, so that a pool's queue never holds the whole folder."""
    from concurrent.futures import FIRST_COMPLETED, wait

    waiting = iter(files)
    submitted: deque[tuple[Path, Future[Result]]] = deque()
    while True:
        while submitted and submitted[0][1].done():
            yield submitted.popleft()
        running = [future for _, future in submitted if not future.done()]
        started = [(file, submit(file)) for file in islice(waiting, limit - len(running))]
        submitted.extend(started)
        if not submitted:
            return
        wait(running + [future for _, future in started], return_when=FIRST_COMPLETED)


def submitted(pool: "Executor", read: Callable[[Path], Result], file: Path) -> "Future[Result]":
    """``pool.submit(read, file)``; where a worker has died already and broken the pool, a future that raises as
    the dead worker's does, so that the file it was reading is named in order, in one line (``result_of``)."""
    from concurrent.futures import Future
    from concurrent.futures.process import BrokenProcessPool

    try:
        return pool.submit(read, file)
    except BrokenProcessPool as broken:
        failed: Future[Result] = Future()
        failed.set_exception(broken)
        return failed


def result_of(file: Path, future: "Future[Result]") -> Result:
    """A finished worker's result, or its error; a worker that died (killed for memory) is one line."""
    from concurrent.futures.process import BrokenProcessPool

    try:
        return future.result()
    except BrokenProcessPool:
        raise ProfguideError(f"{shown(file)}: the process reading it stopped before it finished (killed for "
                             "memory?); fewer files at once (--jobs) need less memory") from None
