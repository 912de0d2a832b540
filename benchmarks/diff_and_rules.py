"""`profguide diff A B` against one `profguide explain A`, and the rules' share of `explain`.

Builds two large traces from the real A100 rank-0 trace of `explain_vs_hta.py` (10 copies each, about 230 MB of
JSON): the second with a wider gap between its copies, so that the two differ in their steps. Then measures,
alternating, each in a fresh process:

  explain  profguide explain A --json
  diff     profguide diff A B --json

and, in one process per repeat, how long the rules take (`profguide.analysis.rules.findings` on A's trace and
its summary, the rules' own share of `summarise`) against that process's `summarise` without them. The issue's
goals: diff ≤ 2.2× explain; the rules ≤ 10% of explain.

    python3 benchmarks/diff_and_rules.py                               # 10 copies, 3 repeats
    python3 benchmarks/diff_and_rules.py --copies 2 --repeats 1        # a quick look
    python3 benchmarks/diff_and_rules.py --json benchmarks/results/diff_and_rules.json
"""

import argparse
import datetime
import json
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from explain_vs_hta import DEFAULT_PROFGUIDE_PYTHON, DEFAULT_SOURCE, ROOT, Measured, build_trace, failed, measure
from provenance import recorded

DIFF_GOAL = 2.2  # diff of two traces / one explain
RULES_GOAL = 0.10  # the rules' time / explain's
SECOND_GAP_US = 5000.0  # the second trace's gap between copies (the first's: explain_vs_hta's default, 1 ms)

# Times the rules in this process: load A, summarise it (the rules run inside), then the rules alone again on
# the same summary, several times; prints the medians.
RULES_TIMER = r"""
import json, statistics, sys, time
from profguide import trace
from profguide.analysis import rules
from profguide.analysis.summarise import summarise
loaded = trace.load(sys.argv[1])
start = time.perf_counter(); summary = summarise(loaded); summarise_s = time.perf_counter() - start
times = []
for _ in range(int(sys.argv[2])):
    start = time.perf_counter(); found = rules.findings(loaded, summary); times.append(time.perf_counter() - start)
print(json.dumps({"summarise_s": summarise_s, "rules_s": statistics.median(times),
                  "fired": sorted(row["rule"] for row in found)}))
"""


def timed(python: Path, args: list[str]) -> Measured:
    r = measure([python, "-m", "profguide", *args], ROOT)
    return failed(r, args[0]) if r["rc"] != 0 else r


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument("--profguide-python", type=Path, default=DEFAULT_PROFGUIDE_PYTHON)
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args(argv)
    measured_on = recorded(ROOT)
    with tempfile.TemporaryDirectory(prefix="pg-diff-") as work:
        before, after = Path(work) / "before.json", Path(work) / "after.json"
        info = build_trace(args.source, args.copies, before)
        build_trace(args.source, args.copies, after, gap_us=SECOND_GAP_US)
        runs: dict[str, list[Measured]] = {"explain": [], "diff": []}
        for _ in range(args.repeats):  # alternating, so that a slow moment of the machine hits both
            runs["explain"].append(timed(args.profguide_python, ["explain", str(before), "--json"]))
            runs["diff"].append(timed(args.profguide_python, ["diff", str(before), str(after), "--json"]))
        errors = [r["error"] for rows in runs.values() for r in rows if r.get("error")]
        if errors:
            sys.exit(f"diff_and_rules: {errors[0]}")
        rules = subprocess.run([str(args.profguide_python), "-c", RULES_TIMER, str(before), "5"], cwd=ROOT,
                               capture_output=True, text=True, check=True)
        rules_result = json.loads(rules.stdout)
    explain_s = statistics.median(r["wall_s"] for r in runs["explain"])
    diff_s = statistics.median(r["wall_s"] for r in runs["diff"])
    results = {
        "date": datetime.date.today().isoformat(),
        **measured_on,
        "trace": {"source": args.source.name, "copies": args.copies, "events": info["events"],
                  "mib": info["bytes"] / 2**20},
        "repeats": args.repeats,
        "explain_s": explain_s,
        "diff_s": diff_s,
        "diff_over_explain": diff_s / explain_s,
        "diff_goal": DIFF_GOAL,
        "rules_s": rules_result["rules_s"],
        "rules_over_explain": rules_result["rules_s"] / explain_s,
        "rules_goal": RULES_GOAL,
        "summarise_s": rules_result["summarise_s"],
        "rules_fired": rules_result["fired"],
    }
    print(f"explain {explain_s:.2f} s; diff {diff_s:.2f} s = {results['diff_over_explain']:.2f}× explain "
          f"(goal ≤ {DIFF_GOAL}×); rules {results['rules_s'] * 1000:.0f} ms = "
          f"{100 * results['rules_over_explain']:.1f}% of explain (goal ≤ {100 * RULES_GOAL:.0f}%)")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
