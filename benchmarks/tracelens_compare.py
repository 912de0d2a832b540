"""profguide's FLOPs, bytes and TFLOP/s per op and shape against TraceLens's published performance reports.

TraceLens (AMD-AGI/TraceLens) publishes, beside the test traces this project copied into `docs/traces`, the
performance report its perf model wrote for each: FLOPs and bytes per call of an op and shape, TFLOP/s, and the
kernel time. `benchmarks/tracelens/` keeps those rows (see its README for the source commits). For each row this
script works out profguide's FLOPs and bytes on the same inputs (`profguide.analysis.opwork.op_work` on the row's
`Input Dims`, `Input type` and `Concrete Inputs`) and its TFLOP/s (those FLOPs, times the calls, over the device
time that `profguide.analysis.ops.op_rows` gives that op and shape in the trace), and the relative difference of
each. Every difference beyond 5 % is given a reason by the rules in `RULES`; a difference no rule explains is left
without one, and the tests fail on it.

    python3 benchmarks/tracelens_compare.py                  # prints the summary and every row beyond 5 %
    python3 benchmarks/tracelens_compare.py --json benchmarks/results/tracelens_comparison.json
"""

import argparse
import ast
import csv
import datetime
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple, TypedDict

from profguide import trace as traces
from profguide.analysis.ops import op_rows
from profguide.analysis.opwork import op_work

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "benchmarks" / "tracelens"
TRACES = ROOT / "docs" / "traces"
MIB = 2**20  # TraceLens's "Data Moved (MB)" counts MiB
TOLERANCE = 0.05
QUANTITIES = ("flops", "bytes", "tflops", "kernel_us")
PERF_MODEL = "https://github.com/AMD-AGI/TraceLens/blob/main/TraceLens/PerfModel/perf_model.py"


class Reference(NamedTuple):
    """One row of a TraceLens report, as `benchmarks/tracelens/<trace>/<report>.csv` keeps it."""

    trace: str
    report: str
    name: str
    params: str
    shapes: str  # the Input Dims as the trace writes them: the key of op_rows
    dims: list[Any]
    types: list[Any]
    concrete: list[Any]
    gflops: float
    mib: float
    tflops: float  # the mean of each call's TFLOP/s
    kernel_us: float
    calls: int


class Side(TypedDict):
    ours: float | None
    theirs: float
    difference: float | None  # ours / theirs − 1; None where theirs is 0 and ours is not


class Compared(TypedDict):
    trace: str
    report: str
    op: str
    params: str
    shapes: str
    dtype: str
    family: str
    split: int  # TraceLens's rows for this op and shapes in this trace (they split by strides and dtypes)
    flops: Side
    bytes: Side
    tflops: Side
    kernel_us: Side
    beyond: list[str]  # the quantities that differ by more than TOLERANCE
    why: dict[str, str | None]  # each of them: the kind of difference in EXPLANATIONS, None where no rule fits


class Explanation(NamedTuple):
    sentence: str
    source: str  # a link to where TraceLens does it
    where: str  # what to read there


EXPLANATIONS: dict[str, Explanation] = {
    "copy_flops": Explanation(
        "TraceLens counts one FLOP per element a copy moves (its unary elementwise model counts every element); "
        "profguide counts none, since a copy computes nothing, so its FLOPs and TFLOP/s are 0.",
        PERF_MODEL, "perf_model.py, class UnaryElementwise, flops_func"),
    "norm_flops": Explanation(
        "TraceLens counts a layer norm with the arithmetic of its batch-norm model: 5 FLOPs per element (3 for "
        "the statistics, 2 to scale and shift) and 6 per channel; profguide counts the layer norm's own work per "
        "element: 6 for the statistics and the normalisation and one each for the weight and the bias.",
        PERF_MODEL, "perf_model.py, class Normalization, flops_func"),
    "split_rows": Explanation(
        "TraceLens keeps calls of one op and shape apart when their strides or dtypes differ, each row with its "
        "own rate; profguide's op table joins them by op and shape, so its TFLOP/s is that of all of them.",
        PERF_MODEL, "perf_model.py: each op's get_param_details records its strides and dtypes"),
    "mean_of_rates": Explanation(
        "TraceLens's TFLOP/s is the mean of each call's rate; profguide divides the FLOPs of all calls by their "
        "summed kernel time, so a few slow calls weigh more in profguide's figure.",
        "https://github.com/AMD-AGI/TraceLens/tree/main/tests/traces",
        "the reports' columns TFLOPS/s_mean and Kernel Time (µs)_sum"),
}


class Rule(NamedTuple):
    """A kind of difference: which quantity, in which direction (1: profguide's is larger, -1: smaller, 0:
    either), and what else must hold of the row (its family, its other quantities)."""

    kind: str
    quantity: str
    direction: int
    holds: Callable[[Compared], bool]


def within(row: Compared, quantity: str) -> bool:
    difference = row[quantity]["difference"]  # type: ignore[literal-required]
    return difference is not None and abs(difference) <= TOLERANCE


RULES: tuple[Rule, ...] = (
    Rule("copy_flops", "flops", -1, lambda row: row["family"] == "copy"),
    Rule("copy_flops", "tflops", -1, lambda row: row["family"] == "copy"),
    Rule("norm_flops", "flops", 1, lambda row: row["family"] == "normalization"),
    Rule("norm_flops", "tflops", 1, lambda row: row["family"] == "normalization" and not within(row, "flops")),
    Rule("split_rows", "tflops", 0, lambda row: row["split"] > 1 and within(row, "flops")),
    Rule("mean_of_rates", "tflops", 0,
         lambda row: row["split"] == 1 and within(row, "flops") and within(row, "kernel_us")),
)


def literal(text: str) -> list[Any] | None:
    """A list TraceLens wrote as a Python literal; None when the text is none."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None
    return value if isinstance(value, list) else None


def read_references(folder: Path = REFERENCE) -> list[Reference]:
    """Every row of every report kept under ``folder``, by trace, report and row."""
    found = []
    for path in sorted(folder.glob("*/*.csv")):
        with path.open(newline="") as file:
            for row in csv.DictReader(file):
                dims, types, concrete = (literal(row[key]) for key in ("Input Dims", "Input type", "Concrete Inputs"))
                if dims is None or types is None or concrete is None:
                    continue
                found.append(Reference(
                    trace=path.parent.name, report=path.stem, name=row["name"], params=row["params"],
                    shapes=row["Input Dims"], dims=dims, types=types, concrete=concrete,
                    gflops=float(row["GFLOPS_first"]), mib=float(row["Data Moved (MB)_first"]),
                    tflops=float(row["TFLOPS/s_mean"]), kernel_us=float(row["Kernel Time (µs)_sum"]),
                    calls=int(row["name_count"])))
    return found


def side(ours: float | None, theirs: float) -> Side:
    if ours is None:
        return {"ours": None, "theirs": theirs, "difference": None}
    if theirs == 0:
        return {"ours": ours, "theirs": theirs, "difference": 0.0 if ours == 0 else None}
    return {"ours": ours, "theirs": theirs, "difference": ours / theirs - 1}


def explained(row: Compared, quantity: str) -> str | None:
    """The kind of the first rule that explains ``quantity``'s difference in ``row``; None when none does."""
    difference = row[quantity]["difference"]  # type: ignore[literal-required]
    sign = 0 if difference is None else (1 if difference > 0 else -1)
    for rule in RULES:
        if rule.quantity == quantity and rule.direction in (0, sign) and rule.holds(row):
            return rule.kind
    return None


class Uncompared(TypedDict):
    trace: str
    report: str
    op: str
    shapes: str
    reason: str


def compare_trace(trace_name: str, references: Sequence[Reference]) -> tuple[list[Compared], list[Uncompared]]:
    """Each of ``references`` (rows of one trace's reports) against profguide on the trace."""
    ops = {(row["name"], row["shapes"]): row for row in op_rows(traces.load(TRACES / f"{trace_name}.json.gz"))}
    split: dict[tuple[str, str], list[Reference]] = {}
    for reference in references:
        split.setdefault((reference.name, reference.shapes), []).append(reference)
    compared: list[Compared] = []
    uncompared: list[Uncompared] = []
    for reference in references:
        where = {"trace": trace_name, "report": reference.report, "op": reference.name, "shapes": reference.shapes}
        work = op_work(reference.name, reference.dims, reference.types, reference.concrete)
        ours = ops.get((reference.name, reference.shapes))
        if work is None or ours is None or ours["device_us"] <= 0:
            reason = "no formula for these inputs" if work is None else "no device time in the trace"
            uncompared.append({**where, "reason": reason})  # type: ignore[typeddict-item]
            continue
        group = split[(reference.name, reference.shapes)]
        row: Compared = {
            **where,  # type: ignore[typeddict-item]
            "params": reference.params, "dtype": work.dtype, "family": work.family, "split": len(group),
            "flops": side(work.flops, reference.gflops * 1e9),
            "bytes": side(work.bytes, reference.mib * MIB),
            # FLOP per µs × 1e-6 = TFLOP/s
            "tflops": side(work.flops * ours["calls"] / ours["device_us"] * 1e-6, reference.tflops),
            "kernel_us": side(ours["device_us"], sum(member.kernel_us for member in group)),
            "beyond": [], "why": {},
        }
        row["beyond"] = [quantity for quantity in QUANTITIES if not within(row, quantity)]
        row["why"] = {quantity: explained(row, quantity) for quantity in row["beyond"]}
        compared.append(row)
    return compared, uncompared


def compare(folder: Path = REFERENCE) -> dict[str, Any]:
    """The comparison over every kept report: rows, the rows not compared, and a summary."""
    references = read_references(folder)
    rows: list[Compared] = []
    uncompared: list[Uncompared] = []
    for trace_name in sorted({reference.trace for reference in references}):
        found, missed = compare_trace(trace_name, [ref for ref in references if ref.trace == trace_name])
        rows += found
        uncompared += missed
    beyond = [row for row in rows if row["beyond"]]
    return {
        "tolerance": TOLERANCE,
        "summary": {"rows": len(references), "compared": len(rows), "within": len(rows) - len(beyond),
                    "beyond": len(beyond),
                    "unexplained": sum(None in row["why"].values() for row in beyond),
                    "not_compared": len(uncompared)},
        "explanations": {kind: explanation._asdict() for kind, explanation in EXPLANATIONS.items()},
        "rows": rows,
        "not_compared": uncompared,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args(argv)
    # Here, not at the top: the tests load this file as a module, without benchmarks/ on the path.
    from provenance import recorded

    measured_on = recorded(ROOT)
    results = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"), **measured_on,
               **compare()}
    summary = results["summary"]
    print(f"{summary['compared']} of {summary['rows']} rows compared: {summary['within']} within "
          f"{TOLERANCE:.0%}, {summary['beyond']} beyond ({summary['unexplained']} unexplained)", file=sys.stderr)
    for row in results["rows"]:
        for quantity in row["beyond"]:
            print(f"  {row['trace']} {row['op']} {row['shapes']}: {quantity} "
                  f"{row[quantity]['difference']:+.1%} ({row['why'][quantity]})"
                  if row[quantity]["difference"] is not None else
                  f"  {row['trace']} {row['op']} {row['shapes']}: {quantity} ({row['why'][quantity]})",
                  file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
