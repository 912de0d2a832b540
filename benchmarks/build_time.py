"""The strict site build (`mkdocs build --strict`): its wall time, and the share of it that profguide's MkDocs
hook takes (profguide/site/hook.py: bringing docs/generated/ up to date and checking every claim).

Each run is a fresh process of the project's interpreter running MkDocs as `mkdocs build --strict` does, into a
fresh folder, with `profguide.site.build.build` (all the hook's work) timed from inside. The builds run one after
another, `--repeats` times; the report gives the median and the minimum of each (on a shared machine the minimum
is the least disturbed run). With `--json`, the runs join those already kept under the same `--label`, so that
two trees (`--root`, e.g. an unpacked `git archive` of an older commit) can be measured in turns, under the same
load.

    python benchmarks/build_time.py                                          # 3 builds of this checkout
    python benchmarks/build_time.py --repeats 1 --root /tmp/before --json benchmarks/results/build_time.json \
        --label before
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

from provenance import recorded

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PYTHON = ROOT / ".venv" / "bin" / "python"

# Runs in the child: the hook calls profguide.site.build.build through the module, so wrapping the module's
# function times the hook's work without touching the hook. CPU time (the process's own) is told apart from wall
# time: on a shared machine the wall time also counts the time other work held the cores.
TIMED_BUILD = """
import json, sys, time
from mkdocs.__main__ import cli
from profguide.site import build

hook_s, hook_cpu_s = [], []
inner = build.build
def timed(*args, **kwargs):
    start, cpu = time.perf_counter(), time.process_time()
    try:
        return inner(*args, **kwargs)
    finally:
        hook_s.append(time.perf_counter() - start)
        hook_cpu_s.append(time.process_time() - cpu)
build.build = timed
start, cpu = time.perf_counter(), time.process_time()
try:
    cli(["build", "--strict", "--quiet", "-d", sys.argv[1]], standalone_mode=False)
finally:
    print(json.dumps({"wall_s": time.perf_counter() - start, "hook_s": sum(hook_s),
                      "cpu_s": time.process_time() - cpu, "hook_cpu_s": sum(hook_cpu_s)}))
"""


def one_build(python: str, root: Path, folder: Path) -> dict[str, float]:
    """One strict build of the tree ``root`` in a fresh process: {wall_s, hook_s, process_s, load_average}, where
    process_s includes the interpreter's start and imports; SystemExit when it fails."""
    start = time.perf_counter()
    done = subprocess.run([str(python), "-c", TIMED_BUILD, str(folder)], cwd=root, capture_output=True, text=True,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    process_s = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"the strict build failed:\n{done.stderr[-2000:]}")
    times = json.loads(done.stdout.strip().splitlines()[-1])
    return {**times, "process_s": process_s, "load_average": os.getloadavg()[0]}


def summary(runs: Sequence[dict[str, float]]) -> dict[str, float]:
    """The median and the minimum of each time over ``runs``, and the hook's share of the build's median."""
    result: dict[str, float] = {}
    for key in ("process_s", "wall_s", "hook_s", "cpu_s", "hook_cpu_s"):
        values = [run[key] for run in runs]
        result[f"median_{key}"] = statistics.median(values)
        result[f"min_{key}"] = min(values)
    result["hook_share_of_median"] = result["median_hook_s"] / result["median_wall_s"]
    return result


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--python", default=str(DEFAULT_PYTHON))
    parser.add_argument("--root", type=Path, default=ROOT, help="the tree to build (default: this checkout)")
    parser.add_argument("--label", default="now", help="the name of this measurement in --json (e.g. before, after)")
    parser.add_argument("--json", type=Path, help="add this measurement to a JSON file of measurements")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    measured_on = recorded(args.root)  # a tree that is no checkout (git archive) has its commit not recorded
    runs: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory() as work:
        for index in range(args.repeats):
            runs.append(one_build(args.python, args.root, Path(work) / f"site-{index}"))
            print(f"build {index + 1}: {runs[-1]['process_s']:.2f} s in all, {runs[-1]['wall_s']:.2f} s build, "
                  f"{runs[-1]['hook_s']:.2f} s hook", file=sys.stderr)
    previous = json.loads(args.json.read_text()) if args.json and args.json.is_file() else {}
    runs = previous.get(args.label, {}).get("runs", []) + runs
    result: dict[str, object] = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              **measured_on,
              "root": "this checkout" if args.root == ROOT else args.root.name, "runs": runs, **summary(runs)}
    print(f"{args.label}, {len(runs)} builds: median {result['median_process_s']:.2f} s in all "
          f"(min {result['min_process_s']:.2f}), {result['median_wall_s']:.2f} s build "
          f"(min {result['min_wall_s']:.2f}), {result['median_hook_s']:.2f} s hook (min {result['min_hook_s']:.2f}), "
          f"{result['hook_share_of_median']:.0%} of the build; CPU time {result['median_cpu_s']:.2f} s "
          f"(min {result['min_cpu_s']:.2f}), the hook's {result['median_hook_cpu_s']:.2f} s")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({**previous, args.label: result}, indent=1) + "\n")


if __name__ == "__main__":
    main()
