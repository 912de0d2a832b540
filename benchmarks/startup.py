"""How long `profguide explain --help` takes to start, in fresh processes: this checkout against an earlier one.

Each run is a fresh interpreter started from an empty folder with PYTHONPATH naming the checkout, so that
nothing but the checkout's own profguide is imported; the checkouts and a bare interpreter (`python -c pass`,
the floor) take turns, run after run, and the medians are compared. The earlier checkout is a git worktree:

    git worktree add /tmp/startup-before 91a7132
    python benchmarks/startup.py --before /tmp/startup-before
    python benchmarks/startup.py --before /tmp/startup-before --json benchmarks/results/startup.json
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
from collections.abc import Sequence
from pathlib import Path

from provenance import git, recorded

ROOT = Path(__file__).resolve().parents[1]
COMMAND = ["-m", "profguide", "explain", "--help"]
MODULES = "import runpy, sys; sys.argv = ['profguide', 'explain', '--help']\ntry:\n    runpy.run_module(" \
          "'profguide', run_name='__main__')\nexcept SystemExit:\n    pass\nprint(len(sys.modules), file=sys.stderr)"


def started(python: Path, args: Sequence[str], pythonpath: Path | None, folder: str) -> tuple[float, str]:
    """Seconds from starting ``python ARGS`` to its exit; (seconds, its stderr)."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    if pythonpath:
        env["PYTHONPATH"] = str(pythonpath)
    begun = time.perf_counter()
    done = subprocess.run([str(python), *args], cwd=folder, env=env, capture_output=True, text=True, timeout=120)
    elapsed = time.perf_counter() - begun
    if done.returncode != 0:
        raise SystemExit(f"{python} {' '.join(args)} failed: {done.stderr}")
    return elapsed, done.stderr


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="an earlier checkout (a git worktree)")
    parser.add_argument("--after", type=Path, default=ROOT, help="the checkout to compare (default: this one)")
    parser.add_argument("--python", type=Path, default=ROOT / ".venv" / "bin" / "python")
    parser.add_argument("--runs", type=int, default=25, help="fresh processes per variant (at least 20)")
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args(argv)
    variants = {"interpreter": (["-c", "pass"], None), "before": (COMMAND, args.before),
                "after": (COMMAND, args.after)}
    measured_on = recorded(args.after)  # the checkout measured as after; the earlier one by its commit below
    times: dict[str, list[float]] = {name: [] for name in variants}
    with tempfile.TemporaryDirectory(prefix="startup-") as folder:
        for command, path in variants.values():  # one run each first: the page cache, not the measure
            started(args.python, command, path, folder)
        for _ in range(args.runs):
            for name, (command, path) in variants.items():
                times[name].append(started(args.python, command, path, folder)[0])
        modules = {name: int(started(args.python, ["-c", MODULES], path, folder)[1].split()[-1])
                   for name, (_, path) in variants.items() if path}
    medians = {name: statistics.median(values) for name, values in times.items()}
    commit = git(args.before, "rev-parse", "--short", "HEAD")
    results = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        **measured_on,
        "command": "python " + " ".join(COMMAND), "before_commit": commit, "runs": args.runs,
        "median_s": medians, "min_s": {name: min(values) for name, values in times.items()},
        "modules_loaded": modules,
        "after_over_before": medians["after"] / medians["before"],
        "above_interpreter_s": {name: medians[name] - medians["interpreter"] for name in ("before", "after")},
    }
    print(f"explain --help, median of {args.runs}: before ({commit}) {medians['before'] * 1e3:.0f} ms, "
          f"{modules['before']} modules; after {medians['after'] * 1e3:.0f} ms, {modules['after']} modules "
          f"({results['after_over_before']:.2f}×); a bare interpreter {medians['interpreter'] * 1e3:.0f} ms",
          file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
