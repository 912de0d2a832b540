"""`profguide explain DIR` and `draw DIR` on folders of 8, 32 and 128 rank traces, on one core and on two: the
pool that reads the rank files (a worker a core) should make two cores close to twice as fast as one, with the
same answer, and memory should stay near one trace a worker whatever the number of ranks.

Writes N copies of one real rank's trace (default: rank 0 of the sampled 128-rank NCCL job in docs/traces),
each with its own rank number in `distributedInfo` and one rank late to its collectives, into a folder per N.
Then runs, each in a fresh process pinned to the first core and then to the first two (the pool has a worker
for each core the process may use; on one it reads in-process, as before the pool), alternating,
`profguide explain DIR --json` and `profguide draw DIR --out FILE.svg`. Reports for each the wall time, the
peak resident memory of the command and of its largest worker, the speed-up (one core's time over two
cores'), and checks that one core and two give the same JSON and the same SVG.

    python3 benchmarks/explain_ranks.py                                  # N = 8, 32, 128, 3 runs each
    python3 benchmarks/explain_ranks.py --ranks 8,16 --repeats 1        # a quick look
    python3 benchmarks/explain_ranks.py --json benchmarks/results/explain_ranks.json
"""

import argparse
import datetime
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypedDict

from explain_vs_hta import DEFAULT_PROFGUIDE_PYTHON, ROOT
from provenance import recorded

DEFAULT_SOURCE = ROOT / "docs" / "traces" / "nccl_128rank_sampled_rank0.json.gz"
LATE_US = 2000.0  # the late rank's collectives are this much shorter: the others waited for it
CORES = (1, 2)
# A folder's row of results: its size, each tool's medians on each number of cores and speed-up, the straggler
# explain named (None: none) and the ranks it read; its keys are built from the tools' and cores' names.
Row = dict[str, float | None]

# Runs `profguide ARGS` in this very process, pinned to the cores given, so that it can report its own peak
# memory (RUSAGE_SELF: the command) apart from its workers' (RUSAGE_CHILDREN: the largest of them, all reaped
# by the pool's shutdown). Affinity is set before profguide (and numpy) is imported, as `taskset` would.
PINNED = r"""
import json, os, resource, sys
cores, report, args = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3:]
os.sched_setaffinity(0, cores)
from profguide.cli import main
code = main(args)
sys.stdout.flush()
own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
with open(report, "w") as out:
    json.dump({"rc": code, "maxrss_kib": own.ru_maxrss, "workers_maxrss_kib": workers.ru_maxrss,
               "cpu_s": own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime}, out)
"""


class Pinned(TypedDict):
    """One pinned run of profguide: wall and CPU time (s), peak memory of the command and of its largest worker
    (MiB), and what it wrote to standard output."""

    wall_s: float
    cpu_s: float
    maxrss_mib: float
    workers_maxrss_mib: float
    stdout: str


def rank_copies(source: Path, ranks: int, folder: Path) -> int:
    """Write ``ranks`` copies of the trace ``source`` into ``folder`` as trace-rank<r>.json, each naming its
    rank; the last rank's collective kernels start LATE_US later, so that it is the straggler."""
    document = json.loads(gzip.decompress(source.read_bytes()) if source.suffix == ".gz" else source.read_bytes())
    events = document["traceEvents"]
    late = [dict(event, ts=event["ts"] + LATE_US, dur=max(event["dur"] - LATE_US, 1.0))
            if event.get("cat") == "kernel" and "nccl" in str(event.get("name", "")).lower() and event.get("dur")
            else event for event in events]
    folder.mkdir(parents=True, exist_ok=True)
    for rank in range(ranks):
        info = {**document.get("distributedInfo", {}), "rank": rank, "world_size": ranks}
        copy = {**document, "distributedInfo": info, "traceEvents": late if rank == ranks - 1 else events}
        (folder / f"trace-rank{rank}.json").write_text(json.dumps(copy))
    return sum(path.stat().st_size for path in folder.iterdir())


def run_pinned(python: Path, cores: list[int], args: Sequence[str | Path], workdir: Path) -> Pinned:
    """One fresh process of ``profguide ARGS`` on the CPUs ``cores``: wall time, peak memory (its own and its
    largest worker's, MiB), CPU time and standard output."""
    report = workdir / "usage.json"
    started = time.perf_counter()
    done = subprocess.run([python, "-c", PINNED, json.dumps(sorted(cores)), report, *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"profguide {' '.join(map(str, args))} on {len(cores)} core(s) failed: "
                         f"{done.stderr.strip()[-2000:] or f'exit {done.returncode}'}")
    usage = json.loads(report.read_text())
    return {"wall_s": wall, "cpu_s": usage["cpu_s"], "maxrss_mib": usage["maxrss_kib"] / 1024,
            "workers_maxrss_mib": usage["workers_maxrss_kib"] / 1024, "stdout": done.stdout}


def measure_ranks(python: Path, ranks: int, repeats: int, workdir: Path, source: Path, cpus: list[int]) -> Row:
    """Medians of explain and draw on a folder of ``ranks`` rank traces, on each number of CORES, alternating;
    SystemExit if one core and two do not give the same answer."""
    folder = workdir / f"ranks-{ranks}"
    row: Row = {"ranks": ranks, "bytes": rank_copies(source, ranks, folder)}
    tools: dict[str, Callable[[int], list[str | Path]]] = {
        "explain": lambda n: ["explain", folder, "--json"],
        "draw": lambda n: ["draw", folder, "--out", workdir / f"ranks-{ranks}-{n}cores.svg"]}
    runs: dict[tuple[str, int], list[Pinned]] = {(tool, n): [] for tool in tools for n in CORES}
    for _ in range(repeats):
        for tool, args in tools.items():
            for n in CORES:
                runs[tool, n].append(run_pinned(python, cpus[:n], args(n), workdir))
    answers = {n: runs["explain", n][0]["stdout"] for n in CORES}
    drawings = {n: (workdir / f"ranks-{ranks}-{n}cores.svg").read_bytes() for n in CORES}
    if len(set(answers.values())) != 1 or len(set(drawings.values())) != 1:
        raise SystemExit(f"{ranks} ranks: one core and two cores gave different answers")
    row["same_answer"] = True
    medians: dict[str, float] = {}  # kept apart as floats to divide: the row holds the straggler too, maybe None
    for (tool, n), measured in runs.items():
        for key in ("wall_s", "cpu_s", "maxrss_mib", "workers_maxrss_mib"):
            medians[f"{tool}_{n}core_{key}"] = statistics.median(run[key] for run in measured)
    row.update(medians)
    for tool in tools:
        row[f"{tool}_speedup"] = medians[f"{tool}_1core_wall_s"] / medians[f"{tool}_2core_wall_s"]
    job = json.loads(answers[1])
    row["straggler"] = job["ranks"][job["straggler"]]["rank"] if job["straggler"] is not None else None
    row["ranks_read"] = len(job["ranks"])
    return row


def print_row(row: Row) -> None:
    for tool in ("explain", "draw"):
        one, two = (f"{tool}_{n}core" for n in CORES)
        print(f"{row['ranks']:>4} ranks, {tool:<7}: 1 core {row[f'{one}_wall_s']:.2f} s, "
              f"{row[f'{one}_maxrss_mib']:.0f} MiB; 2 cores {row[f'{two}_wall_s']:.2f} s, "
              f"{row[f'{two}_maxrss_mib']:.0f} MiB + workers of {row[f'{two}_workers_maxrss_mib']:.0f} MiB at most; "
              f"{row[f'{tool}_speedup']:.2f}× faster; straggler {row['straggler']}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", default="8,32,128", help="numbers of rank files, comma-separated")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE, help="the rank trace to copy")
    parser.add_argument("--profguide-python", type=Path, default=DEFAULT_PROFGUIDE_PYTHON)
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args(argv)
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < max(CORES):
        raise SystemExit(f"this process may use {len(cpus)} core(s); the comparison needs {max(CORES)}")
    counts = sorted(int(n) for n in args.ranks.split(","))
    load = os.getloadavg()
    measured_on = recorded(ROOT)
    with tempfile.TemporaryDirectory(prefix="explain-ranks-") as workdir:
        rows: list[Row] = []
        for n in counts:
            rows.append(measure_ranks(args.profguide_python, n, args.repeats, Path(workdir), args.source, cpus))
            print_row(rows[-1])
    results = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
               **measured_on,
               "load_average_before": [round(value, 2) for value in load],
               "source": args.source.name, "repeats": args.repeats, "late_us": LATE_US, "cores": list(CORES),
               "rows": rows}
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
