"""Make a recording: start its processes fresh, one per rank, and keep what they wrote.

Every recording runs in new Python interpreters (``python -m
profguide.site.record``), never in the process that asked for it, so that a
recording's first step pays the costs a reader's first step pays and no two
recordings share a process. A recording of several ranks starts them
together, with the environment ``torchrun`` would give them (``RANK``,
``WORLD_SIZE``, ``LOCAL_RANK``, ``MASTER_ADDR``, ``MASTER_PORT``); each rank
writes its own trace.

A single-process recording's folder holds ``trace.json.gz``, ``table.txt``,
``averages.json`` and ``meta.json``; a recording of N ranks holds
``trace-rank<r>.json.gz``, ``table-rank<r>.txt`` and ``averages-rank<r>.json``
for each rank, and one ``meta.json``. A new recording is assembled in a
staging folder and swapped in whole. The meta file carries the provenance
(device, torch, CUDA and Python versions, date, each process's id), the
parameters, the cache key, and whether the recording is a CPU stand-in.

Standard library only (torch is imported only to ask whether there is a GPU),
so this runs on a bare GPU machine as ``PYTHONPATH=. python -m profguide record``.
"""

import datetime
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TextIO

from profguide.errors import RecordingError
from profguide.jsontypes import JSONObject
from profguide.progress import step
from profguide.site.record import FAILURE, Device, ProcessFacts
from profguide.site.recordings import Recording
from profguide.site.staleness import CPU_RUN, Meta, cache_key, needs_cpu_run, readable_meta

RANK_FILES = ("trace.json.gz", "table.txt", "averages.json")
# What a rank's process writes for the launcher alone; everything else it writes is the recording's.
PROCESS_FILES = ("process.json", "stderr.txt")

Started = list[tuple[subprocess.Popen[bytes], Path, IO[str]]]  # each rank's process, its folder, its stderr file


def rank_file(name: str, rank: int, ranks: int) -> str:
    """The name of one rank's file: ``trace.json.gz`` alone, ``trace-rank1.json.gz`` among several."""
    if ranks == 1:
        return name
    stem, dot, suffix = name.partition(".")
    return f"{stem}-rank{rank}{dot}{suffix}"


def recording_files(meta: Meta | None) -> list[str]:
    """Every file a recording consists of, ``meta.json`` included: those its meta lists (the trace, the
    tables, and whatever the recording exports), or, for a meta without the list (or no meta), the usual ones."""
    files = meta.get("files") if meta else None
    if isinstance(files, list):
        return [*files, "meta.json"]
    ranks = meta.get("ranks", 1) if meta else 1
    return [rank_file(name, rank, ranks) for rank in range(ranks) for name in RANK_FILES] + ["meta.json"]


def gpu_count() -> int:
    import torch

    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def default_device(recording: Recording, gpus: int | None = None) -> Device:
    """The recording's own device when this machine can run it (a GPU per rank), else the CPU as a stand-in."""
    gpus = gpu_count() if gpus is None else gpus
    if recording.device == "cuda" and gpus >= recording.ranks:
        return "cuda"
    return "cpu"


def check_devices(recording: Recording, device: Device) -> None:
    """A CUDA recording needs a GPU for each of its processes."""
    gpus = gpu_count() if device == "cuda" else 0
    if device != "cuda" or gpus >= recording.ranks:
        return
    wanted = "CUDA was asked for" + (f", a GPU for each of {recording.ranks} processes," if recording.ranks > 1 else "")
    raise RecordingError(f"{recording.id}: {wanted} but torch sees {gpus or 'no GPU'}")


def check_replacement(recording: Recording, device: Device, folder: Path, key: str) -> None:
    """Refuse to replace a fresh CUDA recording with a CPU one."""
    existing = readable_meta(folder)
    if device == "cpu" and existing and existing.get("device") == "cuda" and existing.get("cache_key") == key:
        raise RecordingError(
            f"{recording.id}: refusing to replace a fresh CUDA recording "
            f"({existing.get('device_name')}) with a CPU stand-in"
        )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def rank_environment(root: Path, rank: int, ranks: int, port: int) -> dict[str, str]:
    """The environment of one rank: torchrun's variables, and the project and profguide importable."""
    import profguide

    paths = [str(Path(root).resolve()), str(Path(profguide.__file__).resolve().parents[1])]
    if os.environ.get("PYTHONPATH"):
        paths.append(os.environ["PYTHONPATH"])
    return dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(dict.fromkeys(paths)),
        RANK=str(rank),
        LOCAL_RANK=str(rank),
        WORLD_SIZE=str(ranks),
        MASTER_ADDR="127.0.0.1",
        MASTER_PORT=str(port),
    )


def start_ranks(recording: Recording, device: Device, params: JSONObject, root: Path, staging: Path) -> Started:
    """Start one fresh interpreter per rank; return [(process, its folder, its stderr file)]."""
    port = free_port()
    started: Started = []
    for rank in range(recording.ranks):
        folder = Path(staging) / f"rank{rank}"
        folder.mkdir()
        stderr = open(folder / "stderr.txt", "w+")  # noqa: SIM115 - closed in stop_ranks
        command = [sys.executable, "-m", "profguide.site.record", "--module", recording.module,
                   "--function", recording.function, "--params", json.dumps(params), "--device", device,
                   "--out", str(folder), "--exports", json.dumps(recording.exports())]
        process = subprocess.Popen(command, cwd=root, env=rank_environment(root, rank, recording.ranks, port),
                                   stdout=subprocess.DEVNULL, stderr=stderr, start_new_session=True)
        started.append((process, folder, stderr))
    return started


def stop_ranks(started: Started) -> None:
    """Kill what still runs (and its children), and close the stderr files."""
    for process, _, stderr in started:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        stderr.close()


def failure_line(stderr: IO[str]) -> str:
    """The one line a failed recording process left, or the last line it wrote."""
    stderr.seek(0)
    lines = [line.strip() for line in stderr.read().splitlines() if line.strip()]
    for line in reversed(lines):
        if line.startswith(FAILURE):
            return line.removeprefix(FAILURE)
    return lines[-1] if lines else "no message"


def wait_for_ranks(recording: Recording, started: Started) -> None:
    """Wait for every rank; on the first failure or at the time limit, stop them all with one clear line."""
    deadline = time.monotonic() + recording.timeout_s
    pending = list(enumerate(started))
    while pending:
        for rank, (process, _, stderr) in list(pending):
            code = process.poll()
            if code is None:
                continue
            pending.remove((rank, (process, _, stderr)))
            if code != 0:
                where = f"rank {rank} " if recording.ranks > 1 else ""
                raise RecordingError(f"{recording.id}: the {where}process failed: {failure_line(stderr)}")
        if pending and time.monotonic() > deadline:
            raise RecordingError(f"{recording.id}: still running after {recording.timeout_s} s; stopped it")
        time.sleep(0.05)


def provenance(recording: Recording, device: Device, key: str, params: JSONObject,
               processes: Sequence[ProcessFacts]) -> Meta:
    """``meta.json``: where and how the recording was made."""
    first = processes[0]
    return {
        "recording": recording.id,
        "module": recording.module,
        "function": recording.function,
        "params": params,
        "ranks": recording.ranks,
        "cache_key": key,
        "intended_device": recording.device,
        "device": device,
        "device_name": first["device_name"],
        "cpu_standin": recording.device == "cuda" and device == "cpu",
        "torch": first["torch"],
        "cuda": first["cuda"],
        "python": first["python"],
        "platform": first["platform"],
        "pids": [process["pid"] for process in processes],
        "recorded_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }


def swap_in(folder: Path, new_folder: Path) -> None:
    """Put ``new_folder`` where ``folder`` is, whole: the old one is renamed aside, the new one into place,
    and the old one removed. Interrupted, it leaves the recording missing and a dot-folder beside it
    (which `build --check` reports), never a mix of old and new files."""
    folder = Path(folder)
    if not folder.exists():
        new_folder.rename(folder)
        return
    aside = Path(tempfile.mkdtemp(prefix=f".{folder.name}.old-", dir=folder.parent))
    aside.rmdir()
    folder.rename(aside)
    new_folder.rename(folder)
    shutil.rmtree(aside)


def keep_cpu_run(existing: Path, new_folder: Path, meta: Meta, needed: bool) -> None:
    """Into ``new_folder``, the new run's: the CPU run of the recording in ``existing`` that it replaces, when
    ``needed`` (a claim is about the CPU) and the new run (``meta``) is a GPU one. That is the CPU stand-in being
    replaced, as it was, when it was made from the same code (``meta``'s cache key); or the CPU run that the
    replaced GPU run kept, whatever its state (the build records it again when it is stale)."""
    old = readable_meta(existing)
    if not needed or meta["device"] != "cuda" or old is None:
        return
    if old.get("device") == "cpu" and old.get("cache_key") == meta["cache_key"]:
        (new_folder / CPU_RUN).mkdir()
        for name in recording_files(old):
            shutil.copy2(existing / name, new_folder / CPU_RUN / name)
    elif old.get("device") == "cuda" and (existing / CPU_RUN).is_dir():
        shutil.copytree(existing / CPU_RUN, new_folder / CPU_RUN)


def assemble_recording(staging: Path, folders: Sequence[Path], meta: Meta, ranks: int, existing: Path,
                       keep_cpu: bool = False) -> tuple[Path, Meta]:
    """The new recording's folder in ``staging``: each rank's files under its name, the meta (which lists
    them), the rendered files of the recording it replaces (the build re-renders them), and, with
    ``keep_cpu``, that recording's CPU run (``keep_cpu_run``)."""
    recording = Path(staging) / "recording"
    recording.mkdir()
    files = []
    for rank, folder in enumerate(folders):
        for path in sorted(folder.iterdir()):
            if path.name not in PROCESS_FILES:
                files.append(rank_file(path.name, rank, ranks))
                path.replace(recording / files[-1])
    meta = {**meta, "files": files}
    (recording / "meta.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    if existing.is_dir():
        old_ranks = set(recording_files(readable_meta(existing)))
        for path in existing.iterdir():
            if path.is_file() and path.name not in old_ranks and not (recording / path.name).exists():
                shutil.copy2(path, recording / path.name)
        keep_cpu_run(existing, recording, meta, keep_cpu)
    return recording, meta


def record(recording: Recording, device: Device, root: Path, out: Path, cpu_run: bool = False) -> Meta:
    """Record ``recording`` on ``device`` into ``out/<id>/`` in fresh processes; return its meta. With
    ``cpu_run``, record the CPU run that a recording meant for CUDA keeps beside its GPU run, into
    ``out/<id>/cpu/``. A GPU run that replaces a CPU stand-in keeps it as that CPU run, where a claim is about
    the CPU (``needs_cpu_run``)."""
    check_devices(recording, device)
    key = cache_key(recording, root)
    folder = Path(out) / recording.id / (CPU_RUN if cpu_run else "")
    check_replacement(recording, device, folder, key)
    params = recording.params_on(device)
    Path(out).mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{recording.id}.", dir=out))
    try:
        started = start_ranks(recording, device, params, root, staging)
        try:
            wait_for_ranks(recording, started)
        finally:
            stop_ranks(started)
        folders = [folder_of_rank for _, folder_of_rank, _ in started]
        processes = [json.loads((f / "process.json").read_text()) for f in folders]
        meta = provenance(recording, device, key, params, processes)
        assembled, meta = assemble_recording(staging, folders, meta, recording.ranks, folder,
                                             keep_cpu=needs_cpu_run(recording) and not cpu_run)
        swap_in(folder, assembled)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return meta


def device_for(recording: Recording, meta: Meta | None, gpus: int | None) -> tuple[Device, None] | tuple[None, str]:
    """The device to record on when none is named, or why not to: (device, None) or (None, reason).

    The recording's own device when this machine can run it, else the CPU as
    a stand-in, except over a CUDA recording, which a CPU run never replaces
    unless asked to by name.
    """
    device = default_device(recording, gpus)
    if device == "cpu" and recording.device == "cuda" and meta and meta.get("device") == "cuda":
        return None, "a CUDA recording; no GPU here to record it again (run `make figures` on a GPU)"
    return device, None


def record_all(recordings: Sequence[Recording], device: Device | None, root: Path, out: Path,
               stream: TextIO | None = None) -> list[Meta]:
    """Record each recording in turn, a progress line as each starts and ends; return their metas.

    Without a ``device``, each goes where ``device_for`` says, and nothing is
    recorded if any of them would replace a CUDA recording with a CPU one.
    """
    stream = stream or sys.stderr
    gpus = gpu_count() if device is None else None
    targets = {r.id: device_for(r, readable_meta(Path(out) / r.id), gpus) if device is None else (device, None)
               for r in recordings}
    refused = [f"{rid}: {reason}" for rid, (_, reason) in targets.items() if reason]
    if refused:
        raise RecordingError("; ".join(refused) + "; to replace it with a CPU stand-in anyway, pass --device cpu")
    devices = {rid: target for rid, (target, _) in targets.items() if target is not None}  # all, once none refused
    metas = []
    for index, recording in enumerate(recordings, 1):
        target = devices[recording.id]
        processes = f" ({recording.ranks} processes)" if recording.ranks > 1 else ""
        with step(index, len(recordings), f"recording {recording.id} on {target}{processes}", stream):
            metas.append(record(recording, target, root, out))
    return metas
