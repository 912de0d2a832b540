"""`profguide explain DIR` and `draw DIR` on folders of 8, 32 and 128 rank traces: do time and memory grow
with the number of ranks as they should?

Writes N copies of one real rank's trace (default: rank 0 of the sampled 128-rank NCCL job in docs/traces),
each with its own rank number in `distributedInfo` and one rank late to its collectives, into a folder per N;
then runs, each in a fresh process, `profguide explain DIR --json` and `profguide draw DIR --out FILE.svg`, and
reports wall time and peak resident memory, with each as a ratio against the smallest N. Time should grow in
proportion to N (its ratio ≈ N / 8) and memory should not (one trace at a time, plus a summary per rank).

    python benchmarks/explain_ranks.py                                  # N = 8, 32, 128, 3 runs each
    python benchmarks/explain_ranks.py --ranks 8,16 --repeats 1        # a quick look
    python benchmarks/explain_ranks.py --json benchmarks/results/explain_ranks.json
"""

import argparse
import datetime
import gzip
import json
import platform
import statistics
import sys
import tempfile
from pathlib import Path

from explain_vs_hta import DEFAULT_PROFGUIDE_PYTHON, ROOT, measure

DEFAULT_SOURCE = ROOT / "docs" / "traces" / "nccl_128rank_sampled_rank0.json.gz"
LATE_US = 2000.0  # the late rank's collectives are this much shorter: the others waited for it


def rank_copies(source, ranks, folder):
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


def run(python, args, workdir):
    """One fresh process of ``profguide ARGS``: its wall time, peak memory and output."""
    result = measure([python, "-m", "profguide", *args], ROOT)
    if result.get("rc") != 0:
        raise SystemExit(f"profguide {' '.join(map(str, args))} failed: {result.get('error') or result['stderr']}")
    return result


def measure_ranks(python, ranks, repeats, workdir, source):
    """Median wall time and peak memory of explain and draw on a folder of ``ranks`` rank traces."""
    folder = workdir / f"ranks-{ranks}"
    size = rank_copies(source, ranks, folder)
    row = {"ranks": ranks, "bytes": size}
    for tool, args in (("explain", ["explain", folder, "--json"]),
                       ("draw", ["draw", folder, "--out", workdir / f"ranks-{ranks}.svg"])):
        runs = [run(python, args, workdir) for _ in range(repeats)]
        row[f"{tool}_s"] = statistics.median(r["wall_s"] for r in runs)
        row[f"{tool}_maxrss_mib"] = statistics.median(r["maxrss_kib"] for r in runs) / 1024
        if tool == "explain":
            job = json.loads(runs[0]["stdout"])
            row["straggler"] = job["ranks"][job["straggler"]]["rank"] if job["straggler"] is not None else None
            row["ranks_read"] = len(job["ranks"])
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", default="8,32,128", help="numbers of rank files, comma-separated")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE, help="the rank trace to copy")
    parser.add_argument("--profguide-python", type=Path, default=DEFAULT_PROFGUIDE_PYTHON)
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args(argv)
    counts = sorted(int(n) for n in args.ranks.split(","))
    with tempfile.TemporaryDirectory(prefix="explain-ranks-") as workdir:
        rows = [measure_ranks(args.profguide_python, n, args.repeats, Path(workdir), args.source) for n in counts]
    base = rows[0]
    for row in rows:
        scale = row["ranks"] / base["ranks"]
        row["ratios"] = {f"{key}_over_smallest": row[key] / base[key] for key in
                         ("explain_s", "draw_s", "explain_maxrss_mib", "draw_maxrss_mib")}
        row["ratios"]["ranks_over_smallest"] = scale
    results = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
               "machine": f"{platform.processor() or platform.machine()}, {platform.system()}, "
                          f"Python {platform.python_version()}",
               "source": args.source.name, "repeats": args.repeats, "late_us": LATE_US, "rows": rows}
    for row in rows:
        ratios = row["ratios"]
        print(f"{row['ranks']:>4} ranks: explain {row['explain_s']:.2f} s ({ratios['explain_s_over_smallest']:.1f}×), "
              f"{row['explain_maxrss_mib']:.0f} MiB ({ratios['explain_maxrss_mib_over_smallest']:.2f}×); "
              f"draw {row['draw_s']:.2f} s ({ratios['draw_s_over_smallest']:.1f}×), "
              f"{row['draw_maxrss_mib']:.0f} MiB ({ratios['draw_maxrss_mib_over_smallest']:.2f}×); "
              f"ranks × {ratios['ranks_over_smallest']:.0f}; straggler {row['straggler']}", file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
