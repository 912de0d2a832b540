"""Peak memory and time of `profguide explain --json` on the same trace in three layouts.

  lines     the benchmark trace of benchmarks/explain_vs_hta.py (built by its `build_trace`): one event
            per line, as Kineto writes it
  one line  the same events written on one line, with no spaces (json.dumps(..., separators=(",", ":"))
            or a minifier)
  padding   a gzip file that inflates to --padding-gib of whitespace around a few of those events

Each measurement is one fresh process (explain_vs_hta's wrapper: the command's wall time and
getrusage(RUSAGE_CHILDREN) peak RSS); the layouts take turns, --repeats times, and the medians and the ratios
to the one-per-line figure are reported. With --before, an earlier checkout (a git worktree) runs the same
commands in between, so that the two are measured side by side:

    python benchmarks/layout_memory.py                                     # defaults below
    git worktree add /tmp/layout-before HEAD~1
    python benchmarks/layout_memory.py --before /tmp/layout-before --json benchmarks/results/layout_memory.json
"""

import argparse
import datetime
import gzip
import itertools
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Literal, TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parent))
from explain_vs_hta import DEFAULT_PROFGUIDE_PYTHON, DEFAULT_SOURCE, ROOT, build_trace, measure  # noqa: E402
from provenance import git, recorded  # noqa: E402

LAYOUTS = ("lines", "one line", "padding")
CHUNK = 1 << 20  # what the writers hold at a time


class _Usage(TypedDict):
    rc: int
    wall_s: float | None  # None when the measuring wrapper failed
    cpu_s: float
    maxrss_mib: float


class Explained(_Usage, total=False):
    """One `explain` of a layout: its exit and usage, and the events it counted, or why it failed."""

    error: str
    events: int | None


class LayoutSummary(TypedDict):
    """A layout's runs: medians over those that succeeded (None when none did), and the others' errors."""

    peak_rss_mib: float | None
    wall_s: float | None
    cpu_s: float | None
    ok: int
    runs: int
    events: int | None
    errors: list[str]


def one_line(lines_file: Path, out_file: Path) -> None:
    """``lines_file`` (one event per line, as ``build_trace`` writes it) rewritten on one line, each event
    re-encoded without spaces; read and written a line at a time."""
    with open(lines_file) as source, open(out_file, "w") as out:
        for line in source:
            text = line.strip()
            body, comma = (text[:-1], ",") if text.endswith(",") else (text, "")
            if len(body) > 1 and body.startswith("{") and body.endswith("}"):  # an event
                body = json.dumps(json.loads(body), separators=(",", ":"))
            out.write(body + comma)
        out.write("\n")


def padded(lines_file: Path, out_file: Path, padding: int, events: int = 16) -> int:
    """A gzip trace of the first ``events`` complete events of ``lines_file`` with ``padding`` bytes of spaces
    and newlines spread between them, written through gzip a chunk at a time; the bytes it inflates to."""
    with open(lines_file) as source:
        lines = (line.strip().removesuffix(",") for line in source)
        decoded = (json.loads(line) for line in lines if line.startswith("{") and line != "{")
        kept = list(itertools.islice((event for event in decoded if event.get("ph") == "X"), events))
    gap = padding // len(kept)
    written = 0
    with gzip.open(out_file, "wb", compresslevel=6) as out:
        def put(data: bytes) -> None:
            nonlocal written
            out.write(data)
            written += len(data)

        put(b'{"traceEvents": [')
        for index, event in enumerate(kept):
            put((b",\n" if index else b"\n") + json.dumps(event).encode())
            for start in range(0, gap, CHUNK):
                put((b" " * (CHUNK - 1) + b"\n")[: min(CHUNK, gap - start)])
        put(b"\n]}\n")
    return written


def explain(python: str, trace_file: Path, checkout: Path) -> Explained:
    """One fresh `python -m profguide explain FILE --json` in ``checkout``: wall time, peak RSS, exit."""
    run = measure([python, "-m", "profguide", "explain", trace_file, "--json"], checkout)
    result: Explained = {"rc": run["rc"], "wall_s": run.get("wall_s"),
                         "cpu_s": run.get("user_s", 0) + run.get("sys_s", 0),
                         "maxrss_mib": run.get("maxrss_kib", 0) / 1024}
    if run["rc"] != 0:
        result["error"] = run.get("error") or (run.get("stderr") or "").strip()[-300:]
    else:
        result["events"] = json.loads(run["stdout"]).get("events")
    return result


def median_of(runs: list[Explained], key: Literal["maxrss_mib", "wall_s", "cpu_s"]) -> float | None:
    # A run that exited 0 was measured, so has its wall time: the test of None only tells the checker so.
    values = [value for run in runs if run["rc"] == 0 and (value := run[key]) is not None]
    return statistics.median(values) if values else None


def summarised(runs: dict[str, list[Explained]]) -> dict[str, object]:
    """Medians by layout, and each layout's over the one-per-line figure."""
    layouts: dict[str, LayoutSummary] = {
        name: {"peak_rss_mib": median_of(found, "maxrss_mib"), "wall_s": median_of(found, "wall_s"),
               "cpu_s": median_of(found, "cpu_s"),
               "ok": sum(run["rc"] == 0 for run in found), "runs": len(found),
               "events": next((run.get("events") for run in found if run["rc"] == 0), None),
               "errors": sorted({run["error"] for run in found if "error" in run})}
        for name, found in runs.items()}
    base = layouts["lines"]

    def ratio(name: str, key: Literal["peak_rss_mib", "wall_s", "cpu_s"]) -> float | None:
        top, bottom = layouts[name][key], base[key]
        return top / bottom if top is not None and bottom else None

    return {"layouts": layouts,
            "ratios": {f"{name}_over_lines_{key}": ratio(name, key) for name in LAYOUTS[1:]
                       for key in ("peak_rss_mib", "wall_s", "cpu_s")}}


def described(root: Path) -> str:
    """A checkout as its commit, with "+ changes" when its code (``profguide/``) differs from it: no path of
    this machine. The benchmark's own results, written into the tree, do not count."""
    commit = git(root, "rev-parse", "--short", "HEAD") or "unknown"
    return commit + (" + changes" if git(root, "status", "--porcelain", "--untracked-files=no", "--", "profguide")
                     else "")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=10, help="copies of the source in the trace (default 10)")
    parser.add_argument("--padding-gib", type=float, default=1.5, help="whitespace in the padded file (1.5)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument("--profguide-python", default=str(DEFAULT_PROFGUIDE_PYTHON))
    parser.add_argument("--before", type=Path, help="an earlier checkout to measure side by side (a git worktree)")
    parser.add_argument("--after", type=Path, default=ROOT, help="the checkout to measure (default: this one)")
    parser.add_argument("--workdir", type=Path, help="where the traces are written (default: a temporary folder)")
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args(argv)
    load = os.getloadavg()  # the machine may be shared: what else ran as the measurements began
    measured_on = recorded(ROOT)
    checkouts = {"after": args.after.resolve(), **({"before": args.before.resolve()} if args.before else {})}
    with tempfile.TemporaryDirectory(prefix="layout-memory-", dir=args.workdir) as folder:
        files = {name: Path(folder) / file for name, file in
                 zip(LAYOUTS, ("lines.json", "one_line.json", "padding.json.gz"), strict=True)}
        built = build_trace(args.source, args.copies, files["lines"])
        one_line(files["lines"], files["one line"])
        inflated = padded(files["lines"], files["padding"], int(args.padding_gib * (1 << 30)))
        sizes = {name: path.stat().st_size for name, path in files.items()}
        print(f"traces: {built['events']:,} events; bytes on disk {sizes}; the padding inflates to {inflated:,}",
              file=sys.stderr)
        runs: dict[str, dict[str, list[Explained]]] = {checkout: {name: [] for name in LAYOUTS}
                                                       for checkout in checkouts}
        for repeat in range(args.repeats):
            for name, path in files.items():
                for checkout, root in checkouts.items():
                    run = explain(args.profguide_python, path, root)
                    runs[checkout][name].append(run)
                    print(f"[{repeat + 1}/{args.repeats}] {checkout:6} {name:8} rc {run['rc']} "
                          f"{run['maxrss_mib']:7.0f} MiB {run['wall_s'] or 0:6.2f} s {run['cpu_s']:6.2f} s CPU",
                          file=sys.stderr)
    results = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        **measured_on,
        "trace": {**{key: built[key] for key in ("source", "events", "copies")},
                  "bytes": {name: sizes[name] for name in LAYOUTS}, "padding_inflates_to": inflated},
        "repeats": args.repeats,
        "checkouts": {checkout: described(root) for checkout, root in checkouts.items()},
        "load_average_before": load,
        **{checkout: summarised(found) for checkout, found in runs.items()},
        "raw_runs": runs,
    }
    text = json.dumps(results, indent=1)
    if args.json:
        args.json.write_text(text + "\n")
    print(json.dumps({checkout: results[checkout] for checkout in checkouts}, indent=1))


if __name__ == "__main__":
    main()
