"""profguide.analysis.job: a folder's rank files read by a pool of processes give the answer reading them here does."""

import gzip
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from profguide.analysis import job
from profguide.errors import ProfguideError, TraceError, UsageError
from profguide.render.explain import to_json
from tests.helpers import ROOT, TRACES, real_ranks


def test_a_pool_of_two_gives_the_answer_of_one(tmp_path):
    folder = real_ranks(tmp_path / "ranks")
    serial, pooled = (job.folder_job(folder, workers=workers) for workers in (1, 2))
    assert [row["rank"] for row in pooled["ranks"]] == [0, 1] and pooled["shared_collectives"] > 0
    assert to_json(pooled) == to_json(serial)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_bad_file_read_by_a_worker_is_the_same_one_line_naming_it(tmp_path, workers):
    folder = real_ranks(tmp_path / "ranks")
    for name in ("trace-rank1.json", "trace-rank2.json"):
        (folder / name).write_text('{"traceEvents": [')
    with pytest.raises(TraceError) as raised:
        job.folder_job(folder, workers=workers)
    # The first bad file in file order, as reading them one after another names it; one line.
    assert str(raised.value).startswith(f"{folder / 'trace-rank1.json'}: not valid JSON")
    assert "\n" not in str(raised.value)


def test_a_missing_step_in_a_worker_names_the_file(tmp_path):
    folder = real_ranks(tmp_path / "ranks")
    with pytest.raises(UsageError, match=f"^{re.escape(str(folder / 'trace-rank0.json.gz'))}: no ProfilerStep#987654"):
        job.folder_job(folder, step=987654, workers=2)


def test_two_files_of_one_rank_are_named_in_file_order(tmp_path):
    folder = real_ranks(tmp_path / "ranks")
    shutil.copy(folder / "trace-rank1.json.gz", folder / "trace-rank1-copy.json.gz")
    with pytest.raises(TraceError, match=r"trace-rank1\.json\.gz: says it is rank 1, as .*trace-rank1-copy\.json\.gz"):
        job.folder_job(folder, workers=2)


def killed(file, step, max_bytes, progress=None):
    """A worker killed while it reads (the kernel's out-of-memory killer does this)."""
    os.kill(os.getpid(), signal.SIGKILL)


LINUX_FORKS = pytest.mark.skipif(sys.platform != "linux", reason="the pool forks its workers on Linux alone")


@LINUX_FORKS
def test_a_worker_that_dies_is_one_line_not_a_hang(tmp_path, monkeypatch):
    assert job.start_method() == "fork"  # the worker runs this module's ``killed``, as the fork copied it
    monkeypatch.setattr(job, "file_row", killed)
    with pytest.raises(ProfguideError, match="stopped before it finished") as raised:
        job.folder_job(real_ranks(tmp_path / "ranks"), workers=2)
    assert "\n" not in str(raised.value)


def test_submission_is_bounded_and_results_come_in_file_order():
    running, most = [0], [0]
    lock = threading.Lock()

    def work(index):
        time.sleep(0.02 * (5 - index))  # the first files take longest: they finish last
        with lock:
            running[0] -= 1
        return index

    with ThreadPoolExecutor(4) as threads:
        def submit(index):
            with lock:
                running[0] += 1
                most[0] = max(most[0], running[0])
            return threads.submit(work, index)

        order = [future.result() for _, future in job.in_file_order(submit, list(range(6)), limit=2)]
    assert order == list(range(6)) and most[0] == 2


@pytest.mark.parametrize("workers", [1, 2])
def test_progress_is_the_share_of_the_files_read(tmp_path, workers):
    seen = []
    job.folder_job(real_ranks(tmp_path / "ranks"), progress=seen.append, workers=workers)
    assert seen == sorted(seen) and seen[-1] == 1.0 and seen[0] < 1.0


@LINUX_FORKS
def test_a_process_running_threads_starts_workers_without_fork(tmp_path):
    folder = real_ranks(tmp_path / "ranks")
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert job.start_method() != "fork"
        pooled = job.folder_job(folder, workers=2)
    finally:
        stop.set()
        other.join()
    assert job.start_method() == "fork" and to_json(pooled) == to_json(job.folder_job(folder, workers=1))


# ``explain DIR`` as installed, with two workers whatever the machine's cores, and a progress bar that takes its
# time: the workers have finished their files and wait for more, idle, when Ctrl-C comes.
TWO_WORKERS = """
import signal, sys, time
# As in a terminal's foreground: a process started in the background of a script inherits SIGINT ignored.
signal.signal(signal.SIGINT, signal.default_int_handler)
from profguide import progress
from profguide.analysis import job
from profguide.cli import main
job.worker_count = lambda: 2
progress.bar = lambda label: lambda fraction: None
read_a_file = job.file_row


def slow_file_row(*args, **kwargs):  # still at work when Ctrl-C comes, however fast the machine
    time.sleep(5)
    return read_a_file(*args, **kwargs)


job.file_row = slow_file_row
sys.exit(main(sys.argv[1:]))
"""


def group_members(group):
    """The pids of the live processes in the process group ``group``."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            members.append(int(stat.parent.name))
    return members


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="reads the process table from /proc")
def test_ctrl_c_leaves_no_worker_and_no_traceback(tmp_path):
    folder = tmp_path / "ranks"
    folder.mkdir()
    document = json.loads(gzip.decompress((TRACES / "nccl_128rank_sampled_rank0.json.gz").read_bytes()))
    for rank in range(4):
        document["distributedInfo"]["rank"] = rank
        (folder / f"trace-rank{rank}.json").write_text(json.dumps(document))
    process = subprocess.Popen([sys.executable, "-c", TWO_WORKERS, "explain", str(folder)], cwd=ROOT,
                               env=dict(os.environ, PYTHONPATH=str(ROOT)), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 60
    while len(group_members(process.pid)) < 3 and time.monotonic() < deadline:  # the command and its workers
        time.sleep(0.02)
    assert len(group_members(process.pid)) == 3, "the workers never started"
    time.sleep(0.5)
    os.killpg(process.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole foreground group
    out, err = process.communicate(timeout=30)
    assert (process.returncode, out, err) == (130, "", "profguide: interrupted\n")
    assert group_members(process.pid) == []


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no CPU affinity on this system")
def test_the_default_is_a_worker_for_each_core_this_process_may_use():
    assert job.worker_count() == len(os.sched_getaffinity(0))


@pytest.mark.parametrize("jobs", ["0", "-2", "two", ""])
def test_jobs_must_be_a_whole_number_of_at_least_one(capsys, jobs):
    from profguide import cli

    with pytest.raises(SystemExit) as exited:
        cli.main(["explain", "x", f"--jobs={jobs}"])
    assert exited.value.code == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_jobs_1_reads_the_folder_in_this_process(tmp_path, monkeypatch, capsys):
    from profguide import cli
    from profguide.analysis import job

    for rank in (0, 1):
        shutil.copy(TRACES / f"nccl_128rank_sampled_rank{rank}.json.gz", tmp_path)
    asked = []
    real = job.folder_job
    monkeypatch.setattr(job, "folder_job",
                        lambda *args, **kwargs: asked.append(kwargs["workers"]) or real(*args, **kwargs))
    assert cli.main(["explain", str(tmp_path), "--jobs", "1", "--json"]) == 0
    assert asked == [1]


def test_a_pool_broken_before_a_file_is_submitted_names_the_file_in_one_line():
    # A worker can die before every file is handed out: the pool then refuses the next submission.
    from concurrent.futures.process import BrokenProcessPool

    class Broken:
        def submit(self, read, file):
            raise BrokenProcessPool("a child process terminated abruptly")

    future = job.submitted(Broken(), len, Path("rank3.json"))
    with pytest.raises(ProfguideError, match=r"^rank3\.json: the process reading it stopped before it finished") \
            as raised:
        job.result_of(Path("rank3.json"), future)
    assert "\n" not in str(raised.value)


def rank_trace(folder, rank, world_size, backend):
    """A small rank trace of a job with ``world_size`` ranks over ``backend``: one launch and its kernel."""
    events = [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 10, "dur": 5, "pid": 1, "tid": 1,
               "args": {"correlation": 1}},
              {"ph": "X", "cat": "kernel", "name": "gemm_kernel", "ts": 20, "dur": 50, "pid": 0, "tid": 7,
               "args": {"correlation": 1}}]
    info = {"rank": rank, "world_size": world_size, "backend": backend}
    (folder / f"trace-rank{rank}.json").write_text(json.dumps({"traceEvents": events, "distributedInfo": info}))


@pytest.mark.parametrize(("second", "says"), [
    ((1, 4, "nccl"), "says world size 2, .*trace-rank1.json 4"),
    ((1, 2, "gloo"), "says backend nccl, .*trace-rank1.json gloo"),
])
def test_a_folder_of_two_jobs_is_refused_in_one_line_saying_what_differs(tmp_path, second, says):
    rank_trace(tmp_path, 0, 2, "nccl")
    rank_trace(tmp_path, *second)
    message = f"^{re.escape(str(tmp_path))}: traces of different jobs: .*trace-rank0.json {says}; put each job's " \
        "traces in a folder of its own$"
    for workers in (1, 2):
        with pytest.raises(UsageError, match=message):
            job.folder_job(tmp_path, workers=workers)


def test_a_rank_outside_its_world_is_refused(tmp_path):
    rank_trace(tmp_path, 0, 2, "nccl")
    rank_trace(tmp_path, 3, 2, "nccl")
    with pytest.raises(UsageError, match=r"trace-rank3\.json: says it is rank 3 of a world of 2"):
        job.folder_job(tmp_path, workers=1)


def test_ranks_of_one_job_and_ranks_that_do_not_say_are_one_job(tmp_path):
    rank_trace(tmp_path, 0, 2, "nccl")
    rank_trace(tmp_path, 1, 2, "nccl")
    (tmp_path / "trace-rank1.json").write_text((tmp_path / "trace-rank1.json").read_text()
                                               .replace('"backend": "nccl"', '"backend": null'))
    found = job.folder_job(tmp_path, workers=1)
    assert [row["rank"] for row in found["ranks"]] == [0, 1] and found["world_size"] == 2
