# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
#   profguide:
#     nav_title: Analyse a trace in Python
#     nav_order: 60
# ---

# %% [markdown]
# # Analyse a trace in Python
#
# `profguide explain` and `profguide draw` are a thin layer over a Python API: a loader that turns a trace into
# columns, and small functions that answer one question each. This page calls them on real traces, the ones the
# guide's other pages read, and the build runs it: every output below is what this code printed when the site
# was built. To run it yourself, work in a clone of the guide's repository after `pip install -e .`: the code
# reads the traces under `docs/`.
#
# ## Load a trace
#
# `trace.load` reads a `.json` or `.json.gz` trace into a `Trace`: one row per complete event, in columns
# (`ts`, `dur`, `end`, names, kinds, lanes). It reads the fields the analyses use and skips the rest.

# %%
from pathlib import Path

import profguide
from profguide import trace

docs = Path(profguide.__file__).resolve().parents[1] / "docs"
path = docs / "traces" / "a100_nccl_2rank_rank0.json.gz"
loaded = trace.load(path)
print(f"{path.name}: {len(loaded):,} events")

# %% [markdown]
# ## Summarise it
#
# `trace_summary` computes everything `profguide explain` prints, as a dictionary whose fields are those of
# `profguide explain --json` ([Explain your own trace](../explain/) documents them). The verdict names what
# kept the GPU from working.

# %%
from profguide.analysis.job import trace_summary

summary = trace_summary(loaded, path.name)
print(f"{summary['device']}: {summary['verdict']}")
print(summary["verdict_text"])
print(f"GPU busy {summary['gpu_busy_pct']:.1f}% of the {summary['window']['dur_us'] / 1000:.1f} ms window")

# %% [markdown]
# ## The idle gaps
#
# `summary["idle"]` splits the time the GPU ran nothing by cause, and lists the longest gaps, each with its
# cause. A gap's start is in the trace's own microseconds; subtracting the trace's first timestamp gives the
# time Perfetto shows.

# %%
idle = summary["idle"]
for cause, part in idle["by_cause"].items():
    print(f"{cause:>9}: {part['idle_us'] / 1000:8.2f} ms in {part['gaps']:3} gaps  ({part['meaning']})")
print()
first = summary["trace_start_us"]
for gap in idle["longest_gaps"]:
    print(f"gap of {gap['dur_us'] / 1000:.2f} ms at +{(gap['start_us'] - first) / 1000:.2f} ms: {gap['cause']}")

# %% [markdown]
# ## The top kernels
#
# `top_kernels` ranks the kernels of a window by their total time. Called on its own it takes any window, here
# the summary's.

# %%
from profguide.analysis.kernels import top_kernels

window = (summary["window"]["start_us"], summary["window"]["end_us"])
for row in top_kernels(loaded, window, limit=5):
    print(f"{row['total_us'] / 1000:7.2f} ms {row['count']:5}×  {row['name'][:70]}")

# %% [markdown]
# ## Draw a step
#
# `timeline_svg` draws a window of the trace, CPU threads above GPU streams, with the launch arrows between
# them; `step_window` is the window of one `ProfilerStep#N` and the GPU work it launched. The SVG is a string:
# write it to a file, or show it in a notebook.

# %%
from IPython.display import SVG

from profguide.analysis.select import profiler_steps, step_window
from profguide.figures.timeline import timeline_svg

step = profiler_steps(loaded)[0]["step"]
SVG(timeline_svg(loaded, step_window(loaded, step), title=f"ProfilerStep#{step} of {path.name}"))

# %% [markdown]
# ## Compare two runs
#
# Two of the guide's recordings run the same training loop, once with the batches loaded in the main process
# and once by two DataLoader workers ([The input pipeline](../../reading-output/input-pipeline/) reads them).
# Neither has GPU work, so each summary has a `host` part instead of `idle`: the main thread's time by activity.
# Side by side, the summaries say which activity the workers took away.

# %%
runs = {workers: trace_summary(trace.load(docs / "generated" / f"reading-input-workers-{workers}" / "trace.json.gz"),
                               f"{workers} workers")
        for workers in (0, 2)}
print(f"{'':>14}" + "".join(f"{f'{workers} workers':>20}" for workers in runs))
print(f"{'verdict':>14}" + "".join(f"{run['verdict']:>20}" for run in runs.values()))
for activity in runs[0]["host"]["by_activity"]:
    times = [run["host"]["by_activity"][activity]["us"] / 1000 for run in runs.values()]
    print(f"{activity:>14}" + "".join(f"{t:>17.1f} ms" for t in times))
