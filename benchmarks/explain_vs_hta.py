"""`profguide explain` and `draw` against the floor beneath them and against HolisticTraceAnalysis.

Builds one large Chrome trace by repeating a real one (default: the 109k-event
A100-80GB NCCL rank-0 trace from docs/traces) end to end in time, then
measures, alternating, each in a fresh process:

  read     reading the file's bytes                  (the project's interpreter)
  decode   msgspec decoding it into typed structs    (benchmarks/decode_floor.py)
  explain  profguide explain TRACE --json
  draw     profguide draw TRACE --out FILE.svg
  HTA      TraceAnalysis(trace_dir) + get_temporal_breakdown(visualize=False)
                                                      (an interpreter that has HolisticTraceAnalysis)

For each: wall time, CPU time and peak resident memory, the median of
--repeats runs, and the GPU idle % that explain and HTA report. Then, for
traces of 1, 3, 10 and 30 copies (--scaling), explain and decode again: how
the time grows with the trace.

    python benchmarks/explain_vs_hta.py                      # defaults below
    python benchmarks/explain_vs_hta.py --copies 2 --repeats 1 --scaling 1,2 --json /tmp/r.json

See benchmarks/README.md for setting up the HTA virtualenv.
"""

import argparse
import datetime
import gzip
import io
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, TypedDict

from provenance import Provenance, recorded

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SOURCE = ROOT / "docs" / "traces" / "a100_80gb_nccl_16rank_rank0.json.gz"
DEFAULT_PROFGUIDE_PYTHON = ROOT / ".venv" / "bin" / "python"
DEFAULT_HTA_PYTHON = Path("/tmp/hta-venv/bin/python")

# Argument fields that are identifiers: each copy gets them shifted by a stride so copies don't collide.
ID_ARGS = ("correlation", "External id", "Ev Idx", "Sequence number")
# Keys `profguide explain --json` promises at least.
EXPLAIN_KEYS = ("verdict", "gpu_busy_pct", "gpu_idle_pct", "window", "steps", "top_kernels")
STEP_NAME = re.compile(r"^ProfilerStep#(\d+)$")

# A Chrome trace event as json.loads gives it: its fields are read by the format's convention (ts a number, args
# an object), not checked one by one, so its values are Any.
Event = dict[str, Any]

# Runs one command and reports its wall time and the peak RSS of the command
# (RUSAGE_CHILDREN of this short-lived wrapper holds only that command).
WRAPPER = r"""
import json, resource, subprocess, sys, time
cmd, cwd = json.loads(sys.argv[1]), sys.argv[2]
t0 = time.perf_counter()
p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
wall = time.perf_counter() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"rc": p.returncode, "wall_s": wall, "maxrss_kib": ru.ru_maxrss,
                  "user_s": ru.ru_utime, "sys_s": ru.ru_stime,
                  "stdout": p.stdout[-200000:], "stderr": p.stderr[-4000:]}))
"""

# What the HTA interpreter runs: HTA's documented entry points, nothing else.
HTA_RUNNER = r"""
import json, sys
from hta.trace_analysis import TraceAnalysis
analyzer = TraceAnalysis(trace_dir=sys.argv[1])
df = analyzer.get_temporal_breakdown(visualize=False)
row = df.iloc[0]
print("HTA-RESULT " + json.dumps({
    "ranks": [int(r) for r in df["rank"]],
    "idle_pct": float(row["idle_time_pctg"]),
    "idle_us": float(row["idle_time(us)"]),
    "compute_us": float(row["compute_time(us)"]),
    "non_compute_us": float(row["non_compute_time(us)"]),
    "kernel_us": float(row["kernel_time(us)"]),
}))
"""


class BuiltTrace(TypedDict):
    """What ``build_trace`` wrote: names, not absolute paths, and counts."""

    source: str
    file: str
    events: int
    copies: int
    source_events: int
    period_us: float
    gap_us: float
    id_stride: int
    profiler_steps: int
    bytes: int


class _Exited(TypedDict):
    rc: int  # the command's exit status; -1 when the measuring wrapper itself failed


class Measured(_Exited, total=False):
    """One command measured (WRAPPER's report, or only rc and error when the wrapper failed), with what the
    run_* functions add: why it failed, or the tool's answer."""

    wall_s: float
    maxrss_kib: int
    user_s: float
    sys_s: float
    stdout: str
    stderr: str
    error: str
    result: dict[str, object]  # a few fields of the tool's JSON answer, written out as they are


class _Counted(TypedDict):
    runs: int
    ok: int


class Summary(_Counted, total=False):
    """A tool's runs: medians over those that succeeded (none when none did), and the others' errors."""

    wall_s_median: float
    maxrss_mib_median: float
    cpu_s_median: float
    wall_s_all: list[float]
    maxrss_mib_all: list[float]
    result: dict[str, object] | None
    errors: list[str]


class ScalingRow(TypedDict):
    copies: int
    events: int
    bytes: int
    explain_s: float | None
    explain_mib: float | None
    decode_s: float | None


class Info(Provenance):
    """Where and on what the tools were measured: the head of the results file."""

    date: str
    hta_version: str | None
    profguide_version: str | None
    msgspec_version: str | None
    trace: BuiltTrace
    repeats: int


# ---------------------------------------------------------------- building the trace


def _open(path: Path) -> io.BufferedIOBase:
    return gzip.open(path, "rb") if str(path).endswith(".gz") else open(path, "rb")


def _stride(values: Iterable[int]) -> int:
    """A power of ten above every value, so shifted ids stay readable and distinct."""
    top = max((int(v) for v in values), default=0)
    stride: int = 10 ** len(str(max(top, 1)))  # int ** int is Any to the checker: a negative power is a float
    return stride


def build_trace(source: Path, copies: int, out_file: Path, gap_us: float = 1000.0) -> BuiltTrace:
    """Write `out_file`: `source`'s events repeated end to end, `copies` times.

    Copy k is shifted in time by k * (span + gap_us); its correlation ids, External ids,
    Ev Idx, sequence numbers and flow ids by k * a power of ten above their maximum; its
    ProfilerStep#N by k * (number of steps). Metadata (ph "M") events are written once; the
    profiler's "Trace" span once, stretched over all copies; everything else, instant events
    included, once per copy. The header is written first
    with "distributedInfo" ahead of the events and one event per line, as Kineto does:
    HTA finds a file's rank by scanning lines for '"rank": N'.
    """
    with _open(source) as fh:
        doc: dict[str, Any] = json.loads(fh.read())  # read by convention, as Event is
    events: list[Event] = doc.pop("traceEvents")
    once = [e for e in events if e.get("ph") == "M"]
    spans = [e for e in events if e.get("cat") == "Trace"]
    body = [e for e in events if e.get("ph") != "M" and e.get("cat") != "Trace"]
    if not body:
        raise SystemExit(f"{source}: no events to repeat")

    timed = [e for e in body if "ts" in e]
    start = min(e["ts"] for e in timed)
    end = max(e["ts"] + e.get("dur", 0) for e in timed)
    period = (end - start) + gap_us
    if all(isinstance(e["ts"], int) for e in timed) and float(period).is_integer():
        period = int(period)

    ids = [e["args"][k] for e in body for k in ID_ARGS if isinstance(e.get("args"), dict) and k in e["args"]]
    ids += [e["id"] for e in body if e.get("ph") in ("s", "f", "t") and isinstance(e.get("id"), int)]
    id_stride = _stride(v for v in ids if isinstance(v, int) and v >= 0)
    steps = [int(m.group(1)) for e in body if (m := STEP_NAME.match(str(e.get("name", ""))))]
    step_stride = (max(steps) - min(steps) + 1) if steps else 0

    total = len(once) + len(spans) + copies * len(body)

    def shifted(e: Event, k: int) -> Event:
        if k == 0:
            return e
        e = dict(e)
        if "ts" in e:
            e["ts"] = e["ts"] + k * period
        if e.get("ph") in ("s", "f", "t") and isinstance(e.get("id"), int) and e["id"] >= 0:
            e["id"] = e["id"] + k * id_stride
        args = e.get("args")
        if isinstance(args, dict) and any(key in args for key in ID_ARGS):
            args = dict(args)
            for key in ID_ARGS:
                if isinstance(args.get(key), int) and args[key] >= 0:
                    args[key] += k * id_stride
            e["args"] = args
        if step_stride and (m := STEP_NAME.match(str(e.get("name", "")))):
            e["name"] = f"ProfilerStep#{int(m.group(1)) + k * step_stride}"
        return e

    header: dict[str, object] = {}
    if "distributedInfo" in doc:
        header["distributedInfo"] = doc["distributedInfo"]
    header.update((k, v) for k, v in doc.items() if k != "distributedInfo")
    if "distributedInfo" not in header:
        header = {"distributedInfo": {"rank": 0}, **header}

    tmp = out_file.with_name(out_file.name + ".part")
    with open(tmp, "w") as out:
        out.write("{\n")
        for key, value in header.items():
            out.write(f"  {json.dumps(key)}: {json.dumps(value)},\n")
        out.write('  "traceEvents": [\n')
        first = True

        def put(e: Event) -> None:
            nonlocal first
            out.write(("  " if first else ",\n  ") + json.dumps(e))
            first = False

        for e in once:
            put(e)
        for e in spans:
            e = dict(e)
            e["dur"] = e.get("dur", 0) + (copies - 1) * period
            put(e)
        for k in range(copies):
            for e in body:
                put(shifted(e, k))
        out.write("\n  ]\n}\n")
    tmp.replace(out_file)
    return {
        # Names, not absolute paths: the results file is committed and read on other machines.
        "source": source.name,
        "file": out_file.name,
        "events": total,
        "copies": copies,
        "source_events": len(events),
        "period_us": period,
        "gap_us": gap_us,
        "id_stride": id_stride,
        "profiler_steps": len(set(steps)) * copies,
        "bytes": out_file.stat().st_size,
    }


# ---------------------------------------------------------------- measuring


def measure(cmd: Sequence[str | Path], cwd: Path) -> Measured:
    """Run `cmd` under a fresh wrapper process; wall time, peak RSS, output."""
    proc = subprocess.run(
        [sys.executable, "-c", WRAPPER, json.dumps([str(c) for c in cmd]), str(cwd)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        return {"rc": -1, "error": f"measurement wrapper failed: {proc.stderr.strip()[-500:]}"}
    report: Measured = json.loads(proc.stdout)
    return report


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""


def failed(r: Measured, what: str) -> Measured:
    """`r` marked as failed, with the last line its command wrote."""
    r["error"] = r.get("error") or f"{what}: exit {r['rc']}: {_last_line(r.get('stderr', '')) or 'no message'}"
    return r


def run_read(python: Path, trace_file: Path) -> Measured:
    r = measure([python, "-c", "import sys; open(sys.argv[1], 'rb').read()", trace_file], ROOT)
    return failed(r, "read") if r["rc"] != 0 else r


def run_decode(python: Path, trace_file: Path) -> Measured:
    r = measure([python, ROOT / "benchmarks" / "decode_floor.py", trace_file], ROOT)
    return failed(r, "decode") if r["rc"] != 0 else r


def run_draw(python: Path, trace_file: Path, out_file: Path) -> Measured:
    r = measure([python, "-m", "profguide", "draw", trace_file, "--out", out_file], ROOT)
    return failed(r, "draw") if r["rc"] != 0 else r


def run_profguide(python: Path, trace_file: Path) -> Measured:
    cmd: list[str | Path] = [python, "-m", "profguide", "explain", trace_file, "--json"]
    r = measure(cmd, ROOT)
    if r["rc"] != 0:
        r["error"] = r.get("error") or f"exit {r['rc']}: {_last_line(r.get('stderr', '')) or 'no message'}"
        if "invalid choice: 'explain'" in r["error"]:
            r["error"] = f"this profguide has no `explain` command yet ({python}); {r['error']}"
        return r
    try:
        result = json.loads(r["stdout"])
    except json.JSONDecodeError as exc:
        r["error"] = f"stdout is not JSON ({exc})"
        return r
    missing = [k for k in EXPLAIN_KEYS if k not in result]
    r["result"] = {
        "gpu_idle_pct": result.get("gpu_idle_pct"),
        "gpu_busy_pct": result.get("gpu_busy_pct"),
        "window": result.get("window"),
        "verdict": result.get("verdict"),
        "missing_keys": missing,
    }
    return r


def run_hta(python: Path, trace_dir: Path) -> Measured:
    r = measure([python, "-c", HTA_RUNNER, trace_dir], ROOT)
    if r["rc"] != 0:
        r["error"] = r.get("error") or f"exit {r['rc']}: {_last_line(r.get('stderr', '')) or 'no message'}"
        return r
    lines = [line for line in r["stdout"].splitlines() if line.startswith("HTA-RESULT ")]
    if not lines:
        r["error"] = "no HTA-RESULT line in its output"
        return r
    r["result"] = json.loads(lines[-1][len("HTA-RESULT ") :])
    return r


def summarise(runs: list[Measured]) -> Summary:
    good = [r for r in runs if r.get("rc") == 0 and "error" not in r]
    out: Summary = {"runs": len(runs), "ok": len(good)}
    if good:
        out["wall_s_median"] = statistics.median(r["wall_s"] for r in good)
        out["maxrss_mib_median"] = statistics.median(r["maxrss_kib"] for r in good) / 1024
        out["cpu_s_median"] = statistics.median(r["user_s"] + r["sys_s"] for r in good)
        out["wall_s_all"] = [round(r["wall_s"], 3) for r in good]
        out["maxrss_mib_all"] = [round(r["maxrss_kib"] / 1024, 1) for r in good]
        out["result"] = good[-1].get("result")
    errors = sorted({r["error"] for r in runs if "error" in r})
    if errors:
        out["errors"] = errors
    return out


def _version(python: Path, dist: str) -> str | None:
    try:
        p = subprocess.run(
            [str(python), "-c", f"import importlib.metadata as m; print(m.version({dist!r}))"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        return p.stdout.strip() or None
    except OSError:
        return None


def _fmt(value: object, spec: str, missing: str = "n/a") -> str:
    return missing if value is None else format(value, spec)


LABELS = {"read": "read the file's bytes", "decode": "msgspec: decode into typed structs",
          "profguide": "profguide explain --json", "draw": "profguide draw", "hta": "HTA: load + temporal breakdown"}


def ratios(tools: dict[str, Summary]) -> dict[str, float | None]:
    """The ratios the results are judged by, where both sides ran."""
    def wall(name: str) -> float | None:
        return tools[name].get("wall_s_median") if name in tools else None

    def memory(name: str) -> float | None:
        return tools[name].get("maxrss_mib_median") if name in tools else None

    def ratio(top: float | None, bottom: float | None) -> float | None:
        return top / bottom if top is not None and bottom else None

    return {
        "explain_over_decode_time": ratio(wall("profguide"), wall("decode")),
        "hta_over_profguide_time": ratio(wall("hta"), wall("profguide")),
        "profguide_over_hta_memory": ratio(memory("profguide"), memory("hta")),
        "draw_over_explain_time": ratio(wall("draw"), wall("profguide")),
    }


def print_table(info: Info, tools: dict[str, Summary], scaling: list[ScalingRow]) -> None:
    mb = info["trace"]["bytes"] / 2**20
    print(f"\ntrace   {info['trace']['events']:,} events, {mb:,.0f} MiB, {info['trace']['copies']} copies of "
          f"{info['trace']['source']}\nmachine {info['machine']}\ncheckout {info['checkout']}\n")
    print(f"{'':36}{'runs ok':>8}{'wall s':>10}{'CPU s':>10}{'peak RSS MiB':>14}{'GPU idle %':>12}")
    for name, s in tools.items():
        idle = (s.get("result") or {}).get("gpu_idle_pct", (s.get("result") or {}).get("idle_pct"))
        print(f"{LABELS[name]:36}{s['ok']:>5}/{s['runs']:<2}{_fmt(s.get('wall_s_median'), '.2f'):>10}"
              f"{_fmt(s.get('cpu_s_median'), '.2f'):>10}{_fmt(s.get('maxrss_mib_median'), ',.0f'):>14}"
              f"{_fmt(idle, '.2f'):>12}")
    print()
    for name, value in ratios(tools).items():
        print(f"{name:30} {_fmt(value, '.3g')}")
    if scaling:
        print("\ncopies      events   explain s   decode s")
        for row in scaling:
            print(f"{row['copies']:>6}{row['events']:>12,}{_fmt(row['explain_s'], '.2f'):>12}"
                  f"{_fmt(row['decode_s'], '.2f'):>11}")
    for name, s in tools.items():
        for err in s.get("errors", []):
            print(f"{name} failed: {err}")


def measure_scaling(args: argparse.Namespace, workdir: Path, copies_list: list[int]) -> list[ScalingRow]:
    """explain and decode on traces of each number of copies: medians of --repeats runs."""
    rows: list[ScalingRow] = []
    for copies in copies_list:
        folder = workdir / f"scale-{copies}"
        folder.mkdir()
        trace = build_trace(args.source, copies, folder / "rank0.json", args.gap_us)
        explain_runs: list[Measured] = []
        decode_runs: list[Measured] = []
        for _ in range(args.repeats):
            decode_runs.append(run_decode(args.profguide_python, folder / "rank0.json"))
            explain_runs.append(run_profguide(args.profguide_python, folder / "rank0.json"))
        explain, decode = summarise(explain_runs), summarise(decode_runs)
        rows.append({"copies": copies, "events": trace["events"], "bytes": trace["bytes"],
                     "explain_s": explain.get("wall_s_median"), "explain_mib": explain.get("maxrss_mib_median"),
                     "decode_s": decode.get("wall_s_median")})
        print(f"scaling: {copies} copies, {trace['events']:,} events: explain {_fmt(rows[-1]['explain_s'], '.2f')} s, "
              f"decode {_fmt(rows[-1]['decode_s'], '.2f')} s", file=sys.stderr)
        shutil.rmtree(folder)
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=10, help="copies of the source in the main trace (%(default)s)")
    ap.add_argument("--scaling", default="1,3,10,30", help="copies for the scaling runs, '' for none (%(default)s)")
    ap.add_argument("--repeats", type=int, default=3, help="runs per tool; medians are reported (default %(default)s)")
    ap.add_argument("--hta-python", type=Path, default=DEFAULT_HTA_PYTHON, help="interpreter with HTA (%(default)s)")
    ap.add_argument(
        "--profguide-python", type=Path, default=DEFAULT_PROFGUIDE_PYTHON, help="project interpreter (%(default)s)"
    )
    ap.add_argument("--source", type=Path, default=DEFAULT_SOURCE, help="trace to repeat (%(default)s)")
    ap.add_argument("--gap-us", type=float, default=1000.0, help="gap between copies, us (default %(default)s)")
    ap.add_argument("--workdir", type=Path, help="where to write the traces (default: a new temp folder)")
    ap.add_argument("--only", choices=("profguide", "hta"), help="measure one tool only")
    ap.add_argument("--json", type=Path, metavar="OUT", help="save all results as JSON")
    args = ap.parse_args(argv)

    names = ["read", "decode", "profguide", "draw", "hta"]
    names = [n for n in names if args.only is None or (n == "hta") == (args.only == "hta")]
    for name, python in (("profguide", args.profguide_python), ("hta", args.hta_python)):
        if name in names and not Path(python).exists():
            print(f"explain_vs_hta: no interpreter at {python} for {name} (see benchmarks/README.md)", file=sys.stderr)
            return 2

    measured_on = recorded(ROOT)
    workdir = Path(tempfile.mkdtemp(prefix="explain-vs-hta-", dir=args.workdir))
    try:
        # HTA reads every .json/.gz in the folder as one rank: the folder holds this trace only.
        trace_dir = workdir / "trace"
        trace_dir.mkdir()
        trace_file = trace_dir / "rank0.json"
        t0 = time.perf_counter()
        trace = build_trace(args.source, args.copies, trace_file, args.gap_us)
        print(f"built {trace['events']:,} events ({trace['bytes'] / 2**20:,.0f} MiB) in "
              f"{time.perf_counter() - t0:.1f} s", file=sys.stderr)
        runners = {
            "read": lambda: run_read(args.profguide_python, trace_file),
            "decode": lambda: run_decode(args.profguide_python, trace_file),
            "profguide": lambda: run_profguide(args.profguide_python, trace_file),
            "draw": lambda: run_draw(args.profguide_python, trace_file, workdir / "draw.svg"),
            "hta": lambda: run_hta(args.hta_python, trace_dir),
        }
        runs: dict[str, list[Measured]] = {name: [] for name in names}
        for i in range(args.repeats):
            for name in names:
                runs[name].append(runners[name]())
                print(f"run {i + 1}/{args.repeats} {name}: {_status(runs[name][-1])}", file=sys.stderr)
        tools = {name: summarise(runs[name]) for name in names}
        copies_list = [int(c) for c in args.scaling.split(",") if c.strip()] if args.only != "hta" else []
        scaling = measure_scaling(args, workdir, copies_list)
        info: Info = {
            "date": datetime.datetime.now().isoformat(timespec="seconds"),
            **measured_on,
            "hta_version": _version(args.hta_python, "HolisticTraceAnalysis") if "hta" in names else None,
            "profguide_version": _version(args.profguide_python, "profguide") if "profguide" in names else None,
            "msgspec_version": _version(args.profguide_python, "msgspec") if "decode" in names else None,
            "trace": trace,
            "repeats": args.repeats,
        }
        print_table(info, tools, scaling)
        if args.json:
            doc: dict[str, object] = {**info, "tools": tools, "ratios": ratios(tools), "scaling": scaling,
                                      "raw_runs": _strip(runs)}
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps(doc, indent=2) + "\n")
        return 1 if any(not s.get("ok") for s in tools.values()) else 0
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _status(r: Measured) -> str:
    if "error" in r:
        return f"FAILED ({r['error']})"
    return f"{r['wall_s']:.2f} s, {r['maxrss_kib'] / 1024:,.0f} MiB"


def _strip(runs: dict[str, list[Measured]]) -> dict[str, list[dict[str, object]]]:
    """Raw runs without their (long) stdout."""
    return {tool: [{k: v for k, v in r.items() if k != "stdout"} for r in rs] for tool, rs in runs.items()}


if __name__ == "__main__":
    raise SystemExit(main())
