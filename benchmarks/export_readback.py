"""Reading a trace back: its JSON with profguide's loader against its Parquet tables (`profguide export`).

Builds the benchmark trace of benchmarks/explain_vs_hta.py (its `build_trace`: a real trace repeated --copies
times end to end), exports it once with `profguide export TRACE --parquet DIR`, then measures, taking turns,
each in a fresh process, --repeats times:

  json     profguide.trace.load(TRACE): the columns every analysis starts from
  pyarrow  pyarrow.parquet.read_table on each of the export's tables, into Arrow tables in memory
  duckdb   DuckDB reading each table whole (SELECT * … fetch_arrow_table)

Each process reports the time its import took and the time the read took (time.perf_counter around each); the
medians are written, with the ratio of the JSON's read to each reader's, and of the whole (import and read):

    python benchmarks/export_readback.py --json benchmarks/results/export_readback.json
    python benchmarks/export_readback.py --copies 1 --repeats 1     # a quick look
"""

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parent))
from explain_vs_hta import DEFAULT_PROFGUIDE_PYTHON, DEFAULT_SOURCE, ROOT, build_trace  # noqa: E402
from provenance import recorded  # noqa: E402

READERS = ("json", "pyarrow", "duckdb")
# What each fresh process runs: argv[1] the reader, argv[2] the trace or the tables' folder. It prints
# {"import_s", "read_s", "rows"}: rows, the events (JSON) or the rows of every table (Parquet) it read.
READER = r"""
import json, sys, time
reader, path = sys.argv[1], sys.argv[2]
started = time.perf_counter()
if reader == "json":
    from profguide import trace
elif reader == "pyarrow":
    import pathlib
    import pyarrow.dataset  # what read_table imports on its first call: library loading, not reading
    import pyarrow.parquet as pq
else:
    import pathlib
    import duckdb
imported = time.perf_counter()
if reader == "json":
    rows = len(trace.load(path))
elif reader == "pyarrow":
    rows = sum(pq.read_table(file).num_rows for file in sorted(pathlib.Path(path).glob("*.parquet")))
else:
    connection = duckdb.connect()
    rows = sum(connection.sql(f"SELECT * FROM read_parquet('{file}')").fetch_arrow_table().num_rows
               for file in sorted(pathlib.Path(path).glob("*.parquet")))
read = time.perf_counter()
print(json.dumps({"import_s": imported - started, "read_s": read - imported, "rows": rows}))
"""


class Timing(TypedDict):
    import_s: float
    read_s: float
    rows: int


class Reader(TypedDict):
    import_s: float  # medians over the repeats
    read_s: float
    rows: int
    runs: list[Timing]


def run_reader(python: Path, reader: str, path: Path) -> Timing:
    """One fresh process reading ``path`` with ``reader``."""
    done = subprocess.run([str(python), "-c", READER, reader, str(path)], cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{reader}: exit {done.returncode}: {done.stderr.strip()[-500:]}")
    timing: Timing = json.loads(done.stdout)
    return timing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=10, help="copies of the source in the trace (default 10)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per reader; medians reported (default 3)")
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE, help="the trace to repeat")
    parser.add_argument("--python", type=Path, default=DEFAULT_PROFGUIDE_PYTHON,
                        help="the interpreter with profguide, pyarrow and duckdb (default: the checkout's .venv)")
    parser.add_argument("--workdir", type=Path, help="where to write the trace and its tables (default: a temp folder)")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write the results here as JSON")
    args = parser.parse_args(argv)

    measured_on = recorded(ROOT)
    load_average_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="export-readback-", dir=args.workdir) as folder:
        trace_file, tables = Path(folder) / "trace.json", Path(folder) / "tables"
        built = build_trace(args.source, args.copies, trace_file)
        started = time.perf_counter()
        subprocess.run([str(args.python), "-m", "profguide", "export", str(trace_file), "--parquet", str(tables)],
                       cwd=ROOT, check=True, capture_output=True)
        export_s = time.perf_counter() - started
        parquet_bytes = sum(file.stat().st_size for file in tables.glob("*.parquet"))
        runs: dict[str, list[Timing]] = {reader: [] for reader in READERS}
        for _ in range(args.repeats):
            for reader in READERS:
                runs[reader].append(run_reader(args.python, reader, trace_file if reader == "json" else tables))
    readers: dict[str, Reader] = {
        reader: {"import_s": statistics.median(run["import_s"] for run in found),
                 "read_s": statistics.median(run["read_s"] for run in found), "rows": found[0]["rows"],
                 "runs": found}
        for reader, found in runs.items()}
    json_read = readers["json"]["read_s"]
    json_whole = json_read + readers["json"]["import_s"]
    results = {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        **measured_on,
        "trace": {"source": args.source.name, "copies": args.copies, "events": built["events"],
                  "bytes": built["bytes"]},
        "load_average_before": load_average_before,
        "repeats": args.repeats,
        "export_s": export_s,
        "parquet_bytes": parquet_bytes,
        "readers": readers,
        "read_speedup": {reader: json_read / readers[reader]["read_s"] for reader in READERS if reader != "json"},
        "whole_speedup": {reader: json_whole / (readers[reader]["read_s"] + readers[reader]["import_s"])
                          for reader in READERS if reader != "json"},
        "goal_speedup": 10.0,
    }
    for reader, found in readers.items():
        print(f"{reader:8} import {found['import_s']:.3f} s  read {found['read_s']:.3f} s  rows {found['rows']:,}")
    print(f"read speed-up: {results['read_speedup']}; with imports: {results['whole_speedup']}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
