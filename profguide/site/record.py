"""Inside one fresh process: run a snippet function under torch.profiler and write what it produced.

``profguide.site.launch`` starts ``python -m profguide.site.record`` once per
rank, in a new interpreter, as a reader would run the snippet: whatever the
first call in a process costs is part of the recording. This process writes,
into the folder it is given:

- ``trace.json.gz``: the Chrome trace that ``export_chrome_trace`` wrote;
- ``table.txt``: ``key_averages().table(...)`` as the profiler prints it;
- ``averages.json``: the same rows as numbers, for rendering and claims;
- ``process.json``: this process's id and what it ran on (device, torch, CUDA, Python);
- what the recording asks for besides: ``table-<name>.txt`` for each extra table,
  ``memory-timeline.json`` from ``export_memory_timeline``, and ``results.json``
  when the snippet returns a dict of what it measured.

Only torch and the standard library are used, so this runs on a bare GPU machine.
"""

import argparse
import gzip
import importlib
import inspect
import json
import os
import platform
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypedDict

from profguide.errors import RecordingError
from profguide.jsontypes import JSONObject

if TYPE_CHECKING:  # torch only when recording: the recorder imports it inside the functions that run
    from torch.profiler import profile

# The last line a failing recording process writes to stderr starts with this; the launcher quotes it.
FAILURE = "profguide-record-failed: "

Device = Literal["cpu", "cuda"]


class AverageRow(TypedDict):
    """One row of ``key_averages()`` (``averages.json``)."""

    name: str
    count: int
    self_cpu_us: float
    cpu_total_us: float
    self_device_us: float
    device_total_us: float
    cpu_memory_bytes: int
    self_cpu_memory_bytes: int
    device_memory_bytes: int
    self_device_memory_bytes: int


class TableExport(TypedDict):
    """An extra table (``recordings.Table``): the arguments of ``key_averages(...)`` and ``.table(...)``."""

    name: str
    sort_by: str
    row_limit: int
    group_by_input_shape: bool
    group_by_stack_n: int


class Exports(TypedDict, total=False):
    """What a recording asks the recorder to write besides the trace and the default table
    (``Recording.exports``); ``--exports`` may leave out either."""

    tables: list[TableExport]
    memory_timeline: bool


class ProcessFacts(TypedDict):
    """``process.json``: one recording process and the machine it ran on."""

    pid: int
    device_name: str
    torch: str
    cuda: str | None
    python: str
    platform: str


def averages_rows(prof: "profile") -> list[AverageRow]:
    """``key_averages()`` as plain numbers (times in µs, memory in bytes), in the profiler's own order."""
    return [
        {
            "name": row.key,
            "count": row.count,
            "self_cpu_us": row.self_cpu_time_total,
            "cpu_total_us": row.cpu_time_total,
            "self_device_us": row.self_device_time_total,
            "device_total_us": row.device_time_total,
            "cpu_memory_bytes": row.cpu_memory_usage,
            "self_cpu_memory_bytes": row.self_cpu_memory_usage,
            "device_memory_bytes": row.device_memory_usage,
            "self_device_memory_bytes": row.self_device_memory_usage,
        }
        for row in prof.key_averages()
    ]


def summary_table(prof: "profile", device: Device) -> str:
    sort_by = "cuda_time_total" if device == "cuda" else "cpu_time_total"
    table: str = prof.key_averages().table(sort_by=sort_by, row_limit=15)
    return table


def write_exports(prof: "profile", device: Device, out: Path, exports: Exports) -> None:
    """The extra tables and the memory timeline a recording asks for (see ``Recording.exports``)."""
    for table in exports.get("tables", []):
        averages = prof.key_averages(group_by_input_shape=table["group_by_input_shape"],
                                     group_by_stack_n=table["group_by_stack_n"])
        text = averages.table(sort_by=table["sort_by"], row_limit=table["row_limit"])
        (out / f"table-{table['name']}.txt").write_text(text)
    if exports.get("memory_timeline"):
        target = "cuda:0" if device == "cuda" else "cpu"
        with warnings.catch_warnings():  # deprecated in favour of CUDA memory snapshots, which need a GPU
            warnings.simplefilter("ignore", FutureWarning)
            prof.export_memory_timeline(str(out / "memory-timeline.json"), device=target)


def cpu_model_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def process_facts(device: Device) -> ProcessFacts:
    """This process and the machine it ran on, for the recording's provenance."""
    import torch

    return {
        "pid": os.getpid(),
        "device_name": torch.cuda.get_device_name() if device == "cuda" else cpu_model_name(),
        "torch": torch.__version__,
        "cuda": torch.version.cuda if device == "cuda" else None,
        "python": platform.python_version(),
        "platform": f"{platform.system()} {platform.machine()}",
    }


def run(module: str, function: str, params: JSONObject, device: Device, out: Path,
        exports: Exports | None = None) -> None:
    """Call the snippet function with an ``on_trace_ready`` handler and write its trace, table and rows.

    The profiler calls the handler once per finished cycle (or once at exit
    without a schedule); a recording must have exactly one cycle.
    """
    import torch

    if device == "cuda" and not torch.cuda.is_available():
        raise RecordingError("CUDA was asked for but torch sees no GPU")
    snippet = getattr(importlib.import_module(module), function)
    out = Path(out)
    captured: list[tuple[str, list[AverageRow]]] = []

    def capture(prof: "profile") -> None:
        prof.export_chrome_trace(str(out / "trace.json"))
        captured.append((summary_table(prof, device), averages_rows(prof)))
        write_exports(prof, device, out, exports or {})

    kwargs = dict(params, on_trace_ready=capture)
    if "device" in inspect.signature(snippet).parameters:
        kwargs["device"] = device
    returned = snippet(**kwargs)
    if device == "cuda":
        torch.cuda.synchronize()
    if len(captured) != 1:
        raise RecordingError(f"expected one finished profiler cycle, got {len(captured)}")
    table, rows = captured[0]
    raw = out / "trace.json"
    (out / "trace.json.gz").write_bytes(gzip.compress(raw.read_bytes(), mtime=0))
    raw.unlink()
    (out / "table.txt").write_text(table)
    (out / "averages.json").write_text(json.dumps(rows, indent=1))
    (out / "process.json").write_text(json.dumps(process_facts(device), indent=1))
    if isinstance(returned, dict):
        (out / "results.json").write_text(json.dumps(returned, indent=1, sort_keys=True))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m profguide.site.record", description=__doc__.splitlines()[0])
    parser.add_argument("--module", required=True)
    parser.add_argument("--function", required=True)
    parser.add_argument("--params", required=True, help="keyword arguments as JSON")
    parser.add_argument("--device", choices=("cpu", "cuda"), required=True)
    parser.add_argument("--out", type=Path, required=True, help="an existing folder to write into")
    parser.add_argument("--exports", default="{}", help="extra tables and exports as JSON (Recording.exports)")
    args = parser.parse_args(argv)
    try:
        run(args.module, args.function, json.loads(args.params), args.device, args.out, json.loads(args.exports))
    except Exception as error:  # noqa: BLE001 - any failure becomes one line the launcher can quote
        import traceback

        traceback.print_exc()
        detail = str(error).splitlines()[0] if str(error) else ""
        sys.stderr.write(f"\n{FAILURE}{type(error).__name__}{': ' + detail if detail else ''}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
