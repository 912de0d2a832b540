"""Run a recording's snippet under torch.profiler and write what it produced.

Each recording becomes a folder ``<out>/<recording id>/`` holding:

- ``trace.json.gz``: the Chrome trace that ``export_chrome_trace`` wrote;
- ``table.txt``: ``key_averages().table(...)`` as the profiler prints it;
- ``averages.json``: the same rows as numbers, for rendering;
- ``meta.json``: provenance (device, torch, CUDA, Python, date), the
  recording's parameters, its cache key, and whether it is a CPU stand-in
  for a recording meant for CUDA.

Only torch and the standard library are used, so this runs on a bare GPU
machine as ``PYTHONPATH=. python -m profguide record``.
"""

import datetime
import gzip
import hashlib
import importlib.util
import inspect
import json
import platform
import shutil
import sys
import tempfile
from pathlib import Path

from profguide.errors import RecordingError


def cache_key(recording, root):
    """Hash of the snippet's source, the function and its parameters.

    A change to any of them makes the committed recording stale; a change to
    the renderer does not.
    """
    source = (Path(root) / recording.snippet).read_bytes()
    call = json.dumps({"function": recording.function, "params": recording.params}, sort_keys=True)
    return hashlib.sha256(source + b"\0" + call.encode()).hexdigest()[:16]


def read_meta(folder):
    """The ``meta.json`` of a recording folder, or None when there is none."""
    path = Path(folder) / "meta.json"
    if not path.exists():
        return None
    return json.loads(path.read_text())


def is_cuda_recording(meta):
    return meta is not None and meta.get("device") == "cuda"


def cuda_available():
    import torch

    return torch.cuda.is_available()


def load_snippet_function(root, snippet, function):
    """Import ``function`` from the snippet file, as the reader would run it."""
    path = Path(root) / snippet
    module_name = "profguide_snippet_" + path.stem
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, function)


def device_name(device):
    if device == "cuda":
        import torch

        return torch.cuda.get_device_name()
    return cpu_model_name()


def cpu_model_name():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def averages_rows(prof):
    """``key_averages()`` as plain numbers (µs), in the profiler's own order."""
    return [
        {
            "name": row.key,
            "count": row.count,
            "self_cpu_us": row.self_cpu_time_total,
            "cpu_total_us": row.cpu_time_total,
            "self_device_us": row.self_device_time_total,
            "device_total_us": row.device_time_total,
        }
        for row in prof.key_averages()
    ]


def summary_table(prof, device):
    sort_by = "cuda_time_total" if device == "cuda" else "cpu_time_total"
    return prof.key_averages().table(sort_by=sort_by, row_limit=15)


def run_under_profiler(recording, device, root, workdir):
    """Call the snippet function and capture its trace and table.

    The recorder hands the snippet an ``on_trace_ready`` handler, which the
    profiler calls once per finished cycle (or once at exit without a
    schedule); every recording here has exactly one cycle.
    """
    import torch

    function = load_snippet_function(root, recording.snippet, recording.function)
    trace_path = Path(workdir) / "trace.json"
    captured = []

    def capture(prof):
        prof.export_chrome_trace(str(trace_path))
        captured.append((summary_table(prof, device), averages_rows(prof)))

    kwargs = dict(recording.params, on_trace_ready=capture)
    if "device" in inspect.signature(function).parameters:
        kwargs["device"] = device
    function(**kwargs)
    if device == "cuda":
        torch.cuda.synchronize()
    if len(captured) != 1:
        raise RecordingError(
            f"{recording.id}: expected one finished profiler cycle, got {len(captured)}"
        )
    table, rows = captured[0]
    return trace_path.read_bytes(), table, rows


def provenance(recording, device, key):
    import torch

    return {
        "recording": recording.id,
        "snippet": recording.snippet,
        "function": recording.function,
        "params": recording.params,
        "cache_key": key,
        "intended_device": recording.device,
        "device": device,
        "device_name": device_name(device),
        "cpu_standin": recording.device == "cuda" and device == "cpu",
        "torch": torch.__version__,
        "cuda": torch.version.cuda if device == "cuda" else None,
        "python": platform.python_version(),
        "platform": f"{platform.system()} {platform.machine()}",
        "recorded_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }


def check_replacement(recording, device, folder, key):
    """Refuse to replace a fresh CUDA recording with a CPU one."""
    existing = read_meta(folder)
    if device == "cpu" and is_cuda_recording(existing) and existing.get("cache_key") == key:
        raise RecordingError(
            f"{recording.id}: refusing to replace a fresh CUDA recording "
            f"({existing.get('device_name')}) with a CPU stand-in"
        )


def write_folder_atomically(folder, files):
    """Write ``files`` (name → bytes) into ``folder`` without leaving a half-written file.

    Each file is written aside and renamed into place, in order; ``meta.json``
    comes last and carries the cache key, so an interrupted write leaves the
    recording stale (old key), never passing as complete. Rendered files in
    the folder are kept.
    """
    folder = Path(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        for name, data in files.items():
            (staging / name).write_bytes(data)
        if folder.exists():
            for name in files:
                (staging / name).replace(folder / name)
        else:
            staging.rename(folder)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def record(recording, device, root, out):
    """Record ``recording`` on ``device`` into ``out/<id>/``; return its meta."""
    if device == "cuda" and not cuda_available():
        raise RecordingError(f"{recording.id}: CUDA was asked for but torch sees no GPU")
    key = cache_key(recording, root)
    folder = Path(out) / recording.id
    check_replacement(recording, device, folder, key)
    with tempfile.TemporaryDirectory() as workdir:
        trace, table, rows = run_under_profiler(recording, device, root, workdir)
    meta = provenance(recording, device, key)
    write_folder_atomically(
        folder,
        {
            "trace.json.gz": gzip.compress(trace, mtime=0),
            "table.txt": table.encode(),
            "averages.json": json.dumps(rows, indent=1).encode(),
            "meta.json": json.dumps(meta, indent=2, sort_keys=True).encode() + b"\n",
        },
    )
    return meta


def record_all(recordings, device, root, out, stream=None):
    """Record each recording in turn with a progress line per recording."""
    from profguide.progress import step

    stream = stream or sys.stderr
    metas = []
    for index, recording in enumerate(recordings, 1):
        target = device or default_device(recording)
        with step(index, len(recordings), f"recording {recording.id} on {target}", stream):
            metas.append(record(recording, target, root, out))
    return metas


def default_device(recording):
    """The recording's own device when present, else the CPU as a stand-in."""
    if recording.device == "cuda" and cuda_available():
        return "cuda"
    return "cpu"
