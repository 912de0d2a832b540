"""HolisticTraceAnalysis's temporal breakdown for every real trace in docs/traces: the reference values.

Runs in a virtualenv that has HolisticTraceAnalysis (not in the project's .venv)::

    python3 -m venv /tmp/hta-venv
    /tmp/hta-venv/bin/pip install HolisticTraceAnalysis==0.5.0
    /tmp/hta-venv/bin/python benchmarks/hta_reference.py    # writes benchmarks/results/hta_temporal_breakdown.json

For each ``*.json.gz`` in ``docs/traces`` it links the file alone into a
fresh temporary folder (HTA reads a folder, one file per rank), calls
``TraceAnalysis(trace_dir=...)`` and ``get_temporal_breakdown(visualize=False)``
exactly as a user would, and records HTA's numbers. Next to them it records the
window HTA measured over, recomputed with HTA's own helpers from the dataframe
HTA loaded: first start to last end of the merged intervals of every row whose
``stream`` is not -1, put back on the trace's clock by adding ``Trace.min_ts``.
A trace HTA cannot analyse gets ``{"error": ...}``.

All times are microseconds, the trace's own unit (HTA keeps ``ts`` in µs and
rounds sub-µs timestamps: start up, end down).
"""

import argparse
import datetime
import json
import logging
import os
import sys
import tempfile
import traceback
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import SupportsFloat

from provenance import recorded

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TRACES = ROOT / "docs" / "traces"
# In benchmarks/results, not tests/: the site's build reads HTA's numbers from it too (a claim on the reference page).
DEFAULT_OUT = ROOT / "benchmarks" / "results" / "hta_temporal_breakdown.json"
# Categories of device-side events; anything else HTA counts is a CPU event that carried args.stream.
GPU_CATEGORIES = {"kernel", "gpu_memcpy", "gpu_memset", "cuda_sync", "Kernel", "Memcpy", "Memset"}


def _quiet_hta() -> None:
    # HTA logs every parse at WARNING; keep stdout for the JSON.
    logging.getLogger("hta").setLevel(logging.ERROR)


def _num(x: SupportsFloat) -> int | float:
    """numpy scalars -> plain int/float for JSON."""
    f = float(x)
    return int(f) if f.is_integer() else f


def analyse(trace_file: Path) -> dict[str, object]:
    from hta.common.trace_filter import GPUKernelFilter
    from hta.trace_analysis import TraceAnalysis
    from hta.utils.utils import merge_kernel_intervals

    with tempfile.TemporaryDirectory(prefix="hta-ref-") as folder:
        os.symlink(trace_file, os.path.join(folder, trace_file.name))
        analyzer = TraceAnalysis(trace_dir=folder)
        breakdown = analyzer.get_temporal_breakdown(visualize=False)

        trace = analyzer.t
        if len(breakdown) != 1:
            raise RuntimeError(f"expected one rank, HTA found {len(breakdown)}")
        row = breakdown.iloc[0]
        rank = int(row["rank"])
        df = trace.traces[rank]
        sym = trace.symbol_table.get_sym_table()
        sym_id = trace.symbol_table.get_sym_id_map()

        # The rows get_temporal_breakdown treats as GPU work (breakdown_analysis.py,
        # get_temporal_breakdown.idle_time_per_rank): stream != -1, after the loader's filter.
        gpu = df[df["stream"].ne(-1)].copy()
        merged = merge_kernel_intervals(gpu.copy())
        start_rel = merged["ts"].iloc[0]
        end_rel = merged["end"].iloc[-1]
        kernel_us = _num(row["kernel_time(us)"])
        idle_us = _num(row["idle_time(us)"])
        assert _num(end_rel - start_rel) == kernel_us, (end_rel - start_rel, kernel_us)

        counted = Counter(sym[c] for c in gpu["cat"])
        devices = sorted({int(p) for p in gpu["pid"] if str(p).lstrip("-").isdigit()})
        streams = sorted({int(s) for s in gpu["stream"]})

        step_names = sorted(n for n in sym_id if "ProfilerStep" in n)
        filter_applied = len(step_names) > 1

        # What the loader's last-step filter removed: parse again without filtering.
        from hta.common.trace import Trace

        raw = Trace(trace_dir=folder)
        raw.parse_traces(use_multiprocessing=False)
        raw._align_all_ranks()
        raw_df = raw.traces[rank]
        raw_gpu_kernels = GPUKernelFilter()(raw_df, raw.symbol_table)
        raw_stream_rows = raw_df[raw_df["stream"].ne(-1)]

        # The loader's cut (trace.py, Trace._filter_irrelevant_gpu_kernels): the latest start of any
        # non-kernel event named *ProfilerStep* (CPU user_annotation or gpu_user_annotation alike).
        last_step = last_step_cat = None
        if filter_applied:
            raw_sym = raw.symbol_table.get_sym_table()
            raw_ids = raw.symbol_table.get_sym_id_map()
            steps = raw_df[raw_df["name"].isin([raw_ids[n] for n in step_names])]
            latest = steps.loc[steps["ts"].idxmax()]
            last_step = _num(latest["ts"] + raw.min_ts)
            last_step_cat = raw_sym[latest["cat"]]

        ts_rounded = _has_sub_us_times(trace_file)

    cpu_side = sorted(c for c in counted if c not in GPU_CATEGORIES)
    notes = []
    if filter_applied:
        notes.append(
            f"{len(step_names)} ProfilerStep names: kept only GPU events whose correlation matches a CPU event "
            f"starting before the last ProfilerStep start ({last_step} us); "
            f"{len(raw_stream_rows) - len(gpu)} of {len(raw_stream_rows)} stream rows dropped"
        )
    elif step_names:
        notes.append("one ProfilerStep name only: no last-step filter, every stream row counted")
    else:
        notes.append("no ProfilerStep: no last-step filter, every stream row counted")
    if "cuda_sync" in counted:
        notes.append(f"{counted['cuda_sync']} cuda_sync events counted as busy (non-compute)")
    if cpu_side:
        notes.append(f"CPU-side events with an integer args.stream counted as GPU work: {cpu_side}")
    if 4294967295 in streams:
        notes.append("stream 4294967295 (uint32 -1, e.g. Context Sync) is not -1, so it is counted")
    if len(devices) > 1:
        notes.append(f"devices {devices} merged into one timeline")
    if ts_rounded:
        notes.append("sub-us timestamps: HTA rounds ts up and ts+dur down to whole us")

    return {
        "rank": rank,
        "idle_pct": _num(row["idle_time_pctg"]),
        "idle_pct_exact": 100.0 * idle_us / kernel_us if kernel_us else None,
        "idle_us": idle_us,
        "compute_us": _num(row["compute_time(us)"]),
        "non_compute_us": _num(row["non_compute_time(us)"]),
        "kernel_us": kernel_us,
        "busy_us": kernel_us - idle_us,
        "compute_pct": _num(row["compute_time_pctg"]),
        "non_compute_pct": _num(row["non_compute_time_pctg"]),
        "window_start_us": _num(start_rel + trace.min_ts),
        "window_end_us": _num(end_rel + trace.min_ts),
        "hta_min_ts_us": _num(trace.min_ts),
        "counted_events": dict(sorted(counted.items())),
        "counted_cpu_side_categories": cpu_side,
        "devices": devices,
        "streams": streams,
        "merged_busy_intervals": len(merged),
        "profiler_step_names": step_names,
        "last_step_filter": filter_applied,
        "last_step_start_us": last_step,
        "last_step_start_from": last_step_cat,
        "stream_rows_before_filter": int(len(raw_stream_rows)),
        "gpu_kernel_rows_before_filter": int(len(raw_gpu_kernels)),
        "ts_rounded_to_us": ts_rounded,
        "notes": "; ".join(notes),
    }


def _has_sub_us_times(trace_file: Path) -> bool:
    """Whether any event's ts or dur has a fraction of a microsecond (HTA then rounds)."""
    import gzip

    opener = gzip.open if trace_file.name.endswith(".gz") else open
    with opener(trace_file, "rb") as fh:
        events = json.loads(fh.read())["traceEvents"]
    return any(isinstance(e.get(k), float) and not e[k].is_integer() for e in events for k in ("ts", "dur"))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=Path, default=DEFAULT_TRACES, help="folder of *.json.gz traces")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON file to write ('-' for stdout only)")
    args = parser.parse_args(argv)

    _quiet_hta()
    from importlib.metadata import version

    measured_on = recorded(ROOT)

    results: dict[str, dict[str, object]] = {}  # by trace: HTA's figures, or why it failed
    for trace_file in sorted(args.traces.glob("*.json.gz")):
        try:
            results[trace_file.name] = analyse(trace_file.resolve())
        except Exception as exc:  # a trace HTA cannot analyse is a result too
            frames = traceback.extract_tb(exc.__traceback__)
            in_hta = [f for f in frames if f"{os.sep}hta{os.sep}" in f.filename]
            frame = (in_hta or frames)[-1]
            where = f"{Path(frame.filename).name}:{frame.lineno} in {frame.name}"
            results[trace_file.name] = {"error": f"{type(exc).__name__}: {exc} ({where})"}
        print(
            f"{trace_file.name}: {results[trace_file.name].get('idle_pct', results[trace_file.name].get('error'))}",
            file=sys.stderr,
        )

    doc = {
        "hta_version": version("HolisticTraceAnalysis"),
        "pandas_version": version("pandas"),
        "numpy_version": version("numpy"),
        "python_version": sys.version.split()[0],
        "obtained": f"{datetime.date.today().isoformat()}, by running benchmarks/hta_reference.py",
        "call": "TraceAnalysis(trace_dir=<folder holding only this file>).get_temporal_breakdown(visualize=False)",
        "units": "microseconds (the trace's ts unit); window_* on the trace's own clock",
        **measured_on,
        "traces": results,
    }
    text = json.dumps(doc, indent=2, sort_keys=False) + "\n"
    if str(args.out) != "-":
        args.out.parent.mkdir(parents=True, exist_ok=True)
        tmp = args.out.with_suffix(".tmp")
        tmp.write_text(text)
        tmp.replace(args.out)
    print(text, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
